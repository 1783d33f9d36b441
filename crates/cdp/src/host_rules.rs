//! Chromium's host mapping switches (`--host-rules`, `--host-resolver-rules`), read from a
//! launched browser's arguments so that the address guard (`address_guard.rs`) resolves names
//! as the browser would have without it.
//!
//! Why: behind a SOCKS5 proxy Chromium sends the name to the proxy and applies neither switch
//! to it, so a test server mapped with `MAP oopifdomain 127.0.0.1` (as Puppeteer's and the
//! DevTools recorder's suites do) would otherwise not resolve at all. The guard still decides
//! on the mapped addresses: a mapping is a way to resolve, not a way around the guard.
//!
//! The grammar is Chromium's (`net/base/host_mapping_rules.cc`): rules separated by commas,
//! each `MAP PATTERN REPLACEMENT[:PORT]` or `EXCLUDE PATTERN`; a pattern is matched, without
//! case, against the host or `host:port`, `*` and `?` as wildcards; the first `MAP` that
//! matches a host no `EXCLUDE` matches wins. A replacement `~NOTFOUND` makes the name not
//! resolve.

/// One `MAP` rule.
#[derive(Debug, Clone, PartialEq)]
struct MapRule {
    pattern: String,
    replacement: String,
    port: Option<u16>,
}

/// The host rules of one browser; empty for a browser launched without them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HostRules {
    maps: Vec<MapRule>,
    excludes: Vec<String>,
}

/// Where a name goes under the rules.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Mapped {
    /// Resolve this host (the name itself when no rule matched) and connect on this port.
    Host(String, u16),
    /// A `~NOTFOUND` rule: the name does not resolve.
    NotFound,
}

impl HostRules {
    /// The rules of every `--host-rules=` and `--host-resolver-rules=` in `args`, in order.
    /// A rule that cannot be read is skipped, as Chromium does (with a warning, not silently).
    pub(crate) fn from_args<S: AsRef<str>>(args: &[S]) -> HostRules {
        let mut rules = HostRules::default();
        for arg in args {
            let arg = arg.as_ref();
            let value = arg
                .strip_prefix("--host-rules=")
                .or_else(|| arg.strip_prefix("--host-resolver-rules="));
            let Some(value) = value else { continue };
            for rule in value.split(',') {
                if !rules.add(rule) && !rule.trim().is_empty() {
                    tracing::warn!(rule, "a host rule that cannot be read is ignored");
                }
            }
        }
        rules
    }

    fn add(&mut self, rule: &str) -> bool {
        let parts: Vec<&str> = rule.split_whitespace().collect();
        match parts.as_slice() {
            [verb, pattern] if verb.eq_ignore_ascii_case("exclude") => {
                self.excludes.push(pattern.to_ascii_lowercase());
                true
            }
            [verb, pattern, replacement] if verb.eq_ignore_ascii_case("map") => {
                let (replacement, port) = split_port(replacement);
                let Ok(port) = port.map(str::parse::<u16>).transpose() else {
                    return false;
                };
                self.maps.push(MapRule {
                    pattern: pattern.to_ascii_lowercase(),
                    replacement: replacement.to_string(),
                    port,
                });
                true
            }
            _ => false,
        }
    }

    /// Where `host:port` goes.
    pub(crate) fn map(&self, host: &str, port: u16) -> Mapped {
        let host = host.to_ascii_lowercase();
        let host_port = format!("{host}:{port}");
        if self.excludes.iter().any(|p| matches(p, &host)) {
            return Mapped::Host(host, port);
        }
        let rule = self
            .maps
            .iter()
            .find(|rule| matches(&rule.pattern, &host) || matches(&rule.pattern, &host_port));
        match rule {
            None => Mapped::Host(host, port),
            Some(rule) if rule.replacement == "~NOTFOUND" => Mapped::NotFound,
            Some(rule) => Mapped::Host(
                rule.replacement.trim_matches(['[', ']']).to_string(),
                rule.port.unwrap_or(port),
            ),
        }
    }
}

/// `host:port` → (`host`, `Some(port)`); a bracketed IPv6 address keeps its colons.
fn split_port(text: &str) -> (&str, Option<&str>) {
    if let Some(rest) = text.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((address, tail)) => (address, tail.strip_prefix(':')),
            None => (text, None),
        };
    }
    match text.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => (host, Some(port)),
        _ => (text, None),
    }
}

/// Whether `text` matches `pattern`, `*` standing for any run of characters and `?` for one.
fn matches(pattern: &str, text: &str) -> bool {
    let (pattern, text): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), text.chars().collect());
    // Iterative wildcard matching with one backtrack point: linear in practice, never
    // exponential on patterns with many stars.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_as_chromium_reads_them() {
        let rules = HostRules::from_args(&[
            "--site-per-process",
            "--host-rules=MAP oopifdomain 127.0.0.1, MAP *.test:8080 localhost:9000",
            "--host-resolver-rules=EXCLUDE keep.test,map *.test [::1],MAP gone.example ~NOTFOUND",
        ]);
        let host = |h: &str, p| Mapped::Host(h.to_string(), p);
        assert_eq!(rules.map("oopifdomain", 4321), host("127.0.0.1", 4321));
        assert_eq!(rules.map("OOPIFdomain", 80), host("127.0.0.1", 80));
        // `host:port` patterns, and a replacement port.
        assert_eq!(rules.map("a.test", 8080), host("localhost", 9000));
        assert_eq!(rules.map("a.test", 80), host("::1", 80));
        assert_eq!(rules.map("keep.test", 80), host("keep.test", 80));
        assert_eq!(rules.map("gone.example", 443), Mapped::NotFound);
        assert_eq!(rules.map("example.com", 443), host("example.com", 443));
    }

    #[test]
    fn unreadable_rules_are_skipped_and_no_rules_map_nothing() {
        let rules = HostRules::from_args(&["--host-rules=MAP onlyone, MAP a.test b.test:99999, "]);
        assert_eq!(rules, HostRules::default());
        assert_eq!(
            HostRules::default().map("x.test", 1),
            Mapped::Host("x.test".into(), 1)
        );
    }

    #[test]
    fn wildcards() {
        assert!(matches("*", ""));
        assert!(matches("*.example.com", "a.b.example.com"));
        assert!(!matches("*.example.com", "example.com"));
        assert!(matches("h?st", "host"));
        assert!(!matches("h?st", "hst"));
        assert!(matches("a*b*c", "aXXbYYc"));
        assert!(!matches("a*b*c", "aXXbYY"));
        let long = "a".repeat(5000);
        assert!(!matches(&"*a".repeat(50), &format!("{long}b")));
        assert!(matches(&format!("{}*", "a".repeat(10)), &long));
    }
}

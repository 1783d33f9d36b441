//! Where a browser tool's pages may go: only the web (http and https; never `file:`,
//! `chrome:`, `javascript:` and the like), and at the top level only the origins its tool
//! file lists ([`Origins`]). The one decision, [`check_navigation`], is pure: the replayer
//! asks it before `Page.navigate`, and the engine's navigation guard for every document
//! request the browser makes (page-initiated navigations, redirects, frames).
//!
//! # Addresses of this machine and of the cloud it runs in
//!
//! A tool reaches a loopback address (`127.0.0.0/8`, `::1`, `0.0.0.0`, `localhost`) or a
//! link-local one (`169.254.0.0/16`, where clouds serve instance credentials at
//! `169.254.169.254`; `fe80::/10`; the metadata addresses `fd00:ec2::254` and
//! `100.100.100.200`) only when its `origins` names that origin exactly — or, for a loopback
//! child frame, names a loopback origin of its own —: `*` never includes them, in any frame,
//! and the origins of a file without `origins` (taken from its steps) never include a
//! link-local one, so a recorded or imported step cannot grant it either.
//! [`check_navigation`] decides on the URL as written (IP literals in every notation the URL
//! standard reads: `http://2852039166/` is `169.254.169.254`); a host that is a name is
//! resolved by the engine's guard and decided by [`check_resolved`] on its addresses
//! ([`needs_resolution`] says when).

use std::net::IpAddr;

use serde_json::Value;

/// The origins a tool's top-level pages may navigate to (the tool file's `origins`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origins {
    /// `["*"]`: any web origin (it must be written: it is never a default).
    Any,
    /// These origins (`scheme://host[:port]`, as [`web_origin`] writes them), sorted.
    Only(Vec<String>),
}

/// The wildcard entry of an `origins` list.
pub const ANY_ORIGIN: &str = "*";

impl Origins {
    /// The list of `origins` (deduplicated and sorted, each normalised by [`web_origin`]).
    pub fn only(origins: impl IntoIterator<Item = String>) -> Origins {
        let mut list: Vec<String> = origins.into_iter().collect();
        list.sort();
        list.dedup();
        Origins::Only(list)
    }

    /// The web origins of `urls` (those that have one), except link-local and metadata
    /// addresses: only a hand-written `origins` grants those ([`HostClass::LinkLocal`]).
    pub fn of_urls<'a>(urls: impl IntoIterator<Item = &'a str>) -> Origins {
        Origins::only(
            urls.into_iter()
                .filter_map(web_origin)
                .filter(|origin| !is_link_local_origin(origin)),
        )
    }

    /// The origins a tool's steps go to: every `navigate` URL and every expected navigation's
    /// URL (patterns too, when their origin is written out).
    pub fn of_steps(steps: &[crate::Step]) -> Origins {
        let mut urls = Vec::new();
        for step in steps {
            let Ok(value) = serde_json::to_value(step) else {
                continue;
            };
            if value["type"] == "navigate"
                && let Some(url) = value["url"].as_str()
            {
                urls.push(url.to_string());
            }
            if let Some(url) = value["navigation"]["url"].as_str() {
                urls.push(url.to_string());
            }
        }
        Origins::of_urls(urls.iter().map(String::as_str))
    }

    /// These origins and `more` (`*` stays `*`), except link-local and metadata addresses
    /// among `more` (see [`Origins::of_urls`]).
    pub fn with(self, more: impl IntoIterator<Item = String>) -> Origins {
        match self {
            Origins::Any => Origins::Any,
            Origins::Only(list) => Origins::only(
                list.into_iter()
                    .chain(more.into_iter().filter(|o| !is_link_local_origin(o))),
            ),
        }
    }

    /// Whether `origin` is listed by name (never by `*`): what a loopback or link-local
    /// address needs.
    pub fn names(&self, origin: &str) -> bool {
        match self {
            Origins::Any => false,
            Origins::Only(list) => list.iter().any(|o| o == origin),
        }
    }

    /// Whether a top-level page may go to `origin`.
    pub fn allows(&self, origin: &str) -> bool {
        match self {
            Origins::Any => true,
            Origins::Only(list) => list.iter().any(|o| o == origin),
        }
    }

    /// As written in a tool file: `["*"]` or the list.
    pub fn to_json(&self) -> Value {
        match self {
            Origins::Any => Value::Array(vec![Value::String(ANY_ORIGIN.into())]),
            Origins::Only(list) => Value::Array(list.iter().cloned().map(Value::String).collect()),
        }
    }

    /// Reads a tool file's `origins`: an array of `*` or web origins (`http://host:port`,
    /// nothing after it). Each problem says which entry.
    pub fn from_json(value: &Value) -> Result<Origins, String> {
        let Value::Array(items) = value else {
            return Err("`origins` must be a list of origins (or [\"*\"])".into());
        };
        let mut list = Vec::new();
        let mut any = false;
        for (index, item) in items.iter().enumerate() {
            let Some(text) = item.as_str() else {
                return Err(format!("`origins[{index}]` is not a string"));
            };
            if text == ANY_ORIGIN {
                any = true;
                continue;
            }
            match web_origin(text) {
                Some(origin) if origin == text.trim_end_matches('/') => list.push(origin),
                Some(origin) => {
                    return Err(format!(
                        "`origins[{index}]` {text:?} is not an origin (did you mean {origin:?}?)"
                    ));
                }
                None => {
                    return Err(format!(
                        "`origins[{index}]` {text:?} is not an http or https origin"
                    ));
                }
            }
        }
        Ok(if any {
            Origins::Any
        } else {
            Origins::only(list)
        })
    }
}

impl std::fmt::Display for Origins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origins::Any => f.write_str(ANY_ORIGIN),
            Origins::Only(list) if list.is_empty() => f.write_str("(none)"),
            Origins::Only(list) => f.write_str(&list.join(", ")),
        }
    }
}

/// The origin of an http(s) URL, normalised as browsers do (`http://127.0.0.1:4780`:
/// lowercase host, no default port, no user info); `None` for any other URL.
pub fn web_origin(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    Some(parsed.origin().ascii_serialization())
}

/// Why a navigation may not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NavigationRefusal {
    /// The URL is not on the web (`file:`, `chrome:`, `javascript:`, a top-level `data:`…):
    /// a browser tool reaches local files and the browser's own pages only through the
    /// capabilities that say so.
    #[error(
        "a browser tool reaches only the web: navigating to {url:?} ({scheme}: URL) is refused"
    )]
    Scheme {
        /// The refused URL.
        url: String,
        /// Its scheme, lowercased.
        scheme: String,
    },
    /// A top-level navigation to an origin the tool file does not list.
    #[error(
        "navigating to {url:?} is refused: its origin {origin} is not in the tool's `origins` ({allowed})"
    )]
    Origin {
        /// The refused URL.
        url: String,
        /// Its origin.
        origin: String,
        /// What the tool file allows.
        allowed: Origins,
    },
    /// A loopback, link-local or cloud-metadata address that the tool's `origins` does not
    /// name (`*` never does): see the module doc.
    ///
    /// The message says what to write in the tool file to allow it.
    #[error(
        "navigating to {url:?} is refused: {} is {}, which a browser tool reaches only when its `origins` names it (`\"*\"` never includes it); to allow it, add {origin:?} to the tool file's `origins`, as in `\"origins\": [{origin:?}]`",
        where_it_is(host, address),
        class.describe()
    )]
    LocalAddress {
        /// The refused URL.
        url: String,
        /// Its origin.
        origin: String,
        /// Its host as written.
        host: String,
        /// The address it is (or resolved to).
        address: String,
        /// What kind of address.
        class: HostClass,
    },
}

/// The host of a refused URL, with the address it resolved to when that is not the host itself.
fn where_it_is(host: &str, address: &str) -> String {
    if host == address {
        host.to_string()
    } else {
        format!("{host} ({address})")
    }
}

impl NavigationRefusal {
    /// The URL that was refused.
    pub fn url(&self) -> &str {
        match self {
            NavigationRefusal::Scheme { url, .. }
            | NavigationRefusal::Origin { url, .. }
            | NavigationRefusal::LocalAddress { url, .. } => url,
        }
    }
}

/// What a host is, as far as where a browser tool may go is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostClass {
    /// This machine: `127.0.0.0/8`, `::1`, `0.0.0.0` and `::` (which reach it too),
    /// `localhost` and `*.localhost`.
    Loopback,
    /// Link-local and cloud-metadata addresses: `169.254.0.0/16` (`169.254.169.254` is the
    /// metadata service of most clouds), `fe80::/10`, `fd00:ec2::254` (AWS over IPv6),
    /// `100.100.100.200` (Alibaba Cloud), and `metadata.google.internal`.
    LinkLocal,
}

impl HostClass {
    fn describe(self) -> &'static str {
        match self {
            HostClass::Loopback => "a loopback address (this machine)",
            HostClass::LinkLocal => "a link-local or cloud-metadata address",
        }
    }

    /// The class of an address, `None` for an ordinary one.
    pub fn of_ip(ip: IpAddr) -> Option<HostClass> {
        match ip {
            IpAddr::V4(v4) => {
                // `0.0.0.0/8` reaches this machine on Linux, like `127.0.0.0/8`.
                if v4.is_loopback() || v4.octets()[0] == 0 {
                    Some(HostClass::Loopback)
                } else if v4.is_link_local() || v4.octets() == [100, 100, 100, 200] {
                    Some(HostClass::LinkLocal)
                } else {
                    None
                }
            }
            IpAddr::V6(v6) => {
                if let Some(v4) = v6.to_ipv4_mapped() {
                    return HostClass::of_ip(IpAddr::V4(v4));
                }
                let segments = v6.segments();
                if v6.is_loopback() || v6.is_unspecified() {
                    Some(HostClass::Loopback)
                } else if segments[0] & 0xffc0 == 0xfe80
                    || segments == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254]
                {
                    Some(HostClass::LinkLocal)
                } else {
                    None
                }
            }
        }
    }
}

/// What a URL's host is: `Ok(Some(class))` for an address (or a name) of a class,
/// `Ok(None)` for an ordinary address, `Err(name)` for a name only resolving tells.
fn host_class(host: &url::Host<&str>) -> Result<Option<HostClass>, String> {
    match host {
        url::Host::Ipv4(v4) => Ok(HostClass::of_ip(IpAddr::V4(*v4))),
        url::Host::Ipv6(v6) => Ok(HostClass::of_ip(IpAddr::V6(*v6))),
        url::Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                Ok(Some(HostClass::Loopback))
            } else if name == "metadata.google.internal" {
                Ok(Some(HostClass::LinkLocal))
            } else {
                Err(name)
            }
        }
    }
}

/// Whether an origin (as [`web_origin`] writes it) is a link-local or metadata address.
fn is_link_local_origin(origin: &str) -> bool {
    url::Url::parse(origin)
        .ok()
        .and_then(|u| u.host().map(|h| host_class(&h)))
        == Some(Ok(Some(HostClass::LinkLocal)))
}

/// Whether `class` may be reached by a frame (`top_level` or not) whose origin is (`named`)
/// or is not named by `origins`: a named origin always; otherwise a loopback one only in a
/// child frame of a tool that names a loopback origin itself (a site on this machine framing
/// another of its ports; never under `*`), a link-local one never.
fn class_allowed(class: HostClass, named: bool, top_level: bool, origins: &Origins) -> bool {
    named
        || match class {
            HostClass::LinkLocal => false,
            HostClass::Loopback => {
                !top_level
                    && match origins {
                        Origins::Any => false,
                        Origins::Only(list) => list.iter().any(|o| {
                            url::Url::parse(o).ok().and_then(|u| {
                                u.host()
                                    .map(|h| host_class(&h) == Ok(Some(HostClass::Loopback)))
                            }) == Some(true)
                        }),
                    }
            }
        }
}

/// Schemes no frame of a browser tool may load.
const NEVER: &[&str] = &[
    "file",
    "filesystem",
    "chrome",
    "chrome-extension",
    "chrome-untrusted",
    "chrome-search",
    "devtools",
    "view-source",
    "javascript",
];

/// The scheme of `url` as a browser reads it: leading and trailing spaces and control
/// characters and any tab or newline inside are ignored, case is not significant.
fn scheme_of(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, _) = cleaned.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_ascii_lowercase())
}

/// Whether a frame may navigate to `url`. A top-level page (`top_level`) may go only to
/// http(s) URLs of an allowed origin, or to `about:blank`; a child frame anywhere but the
/// schemes of [`NEVER`] (its origin is not restricted: subresources are not either).
pub fn check_navigation(
    url: &str,
    top_level: bool,
    origins: &Origins,
) -> Result<(), NavigationRefusal> {
    let refused_scheme = |scheme: String| NavigationRefusal::Scheme {
        url: url.to_string(),
        scheme,
    };
    let Some(scheme) = scheme_of(url) else {
        // Relative or malformed: the browser resolves it against the page (or refuses it).
        return Ok(());
    };
    if NEVER.contains(&scheme.as_str()) {
        return Err(refused_scheme(scheme));
    }
    if matches!(scheme.as_str(), "http" | "https")
        && let Ok(parsed) = url::Url::parse(url.trim())
        && let Some(host) = parsed.host()
        && let Ok(Some(class)) = host_class(&host)
    {
        let origin = parsed.origin().ascii_serialization();
        // A top-level page of a tool that lists its origins is refused an unlisted loopback
        // origin as any other (naming what is allowed); a link-local one says why it is
        // never listed for it.
        let listed_decides =
            top_level && matches!(origins, Origins::Only(_)) && class == HostClass::Loopback;
        if !listed_decides && !class_allowed(class, origins.names(&origin), top_level, origins) {
            return Err(NavigationRefusal::LocalAddress {
                url: url.to_string(),
                address: host.to_string(),
                host: host.to_string(),
                origin,
                class,
            });
        }
    }
    if !top_level {
        return Ok(());
    }
    match scheme.as_str() {
        "about" if url.trim().eq_ignore_ascii_case("about:blank") => Ok(()),
        "http" | "https" => match web_origin(url) {
            Some(origin) if origins.allows(&origin) => Ok(()),
            Some(origin) => Err(NavigationRefusal::Origin {
                url: url.to_string(),
                origin,
                allowed: origins.clone(),
            }),
            None => Ok(()),
        },
        _ => Err(refused_scheme(scheme)),
    }
}

/// The host name and port to resolve before a navigation that [`check_navigation`] allowed
/// may go on: an http(s) URL whose host is a name (not an address, not `localhost`) that
/// the tool's `origins` does not name. `None`: nothing depends on its addresses.
pub fn needs_resolution(url: &str, origins: &Origins) -> Option<(String, u16)> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    if origins.names(&parsed.origin().ascii_serialization()) {
        return None;
    }
    let name = host_class(&parsed.host()?).err()?;
    Some((name, parsed.port_or_known_default()?))
}

/// Whether a navigation to `url`, whose host resolved to `addresses`, may go on (after
/// [`check_navigation`] allowed the URL): refused when any address is one the tool may not
/// reach ([`HostClass`], decided as for an address written in the URL).
pub fn check_resolved(
    url: &str,
    top_level: bool,
    origins: &Origins,
    addresses: &[IpAddr],
) -> Result<(), NavigationRefusal> {
    let Ok(parsed) = url::Url::parse(url.trim()) else {
        return Ok(());
    };
    let origin = parsed.origin().ascii_serialization();
    let named = origins.names(&origin);
    for address in addresses {
        if let Some(class) = HostClass::of_ip(*address)
            && !class_allowed(class, named, top_level, origins)
        {
            return Err(NavigationRefusal::LocalAddress {
                url: url.to_string(),
                host: parsed.host_str().unwrap_or_default().to_string(),
                address: address.to_string(),
                origin,
                class,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(list: &[&str]) -> Origins {
        Origins::only(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn origins_are_normalised_like_browsers_do() {
        assert_eq!(
            web_origin("HTTP://User:pw@127.0.0.1:80/a?b").as_deref(),
            Some("http://127.0.0.1")
        );
        assert_eq!(
            web_origin("https://Shop.Test:443/#x").as_deref(),
            Some("https://shop.test")
        );
        assert_eq!(web_origin("file:///etc/hostname"), None);
        assert_eq!(web_origin("data:text/html,x"), None);
    }

    #[test]
    fn only_web_urls_of_listed_origins_at_the_top_level() {
        let origins = only(&["http://127.0.0.1:4780"]);
        for url in [
            "file:///etc/hostname",
            " FILE:///etc/hostname",
            "fi\tle:///etc/hostname",
            "chrome://version",
            "chrome-extension://abc/x.html",
            "devtools://devtools/bundled/inspector.html",
            "view-source:http://127.0.0.1:4780/",
            "javascript:alert(1)",
            "data:text/html,x",
            "blob:http://127.0.0.1:4780/uuid",
            "ftp://127.0.0.1/",
        ] {
            let refused = check_navigation(url, true, &origins).unwrap_err();
            assert!(
                matches!(refused, NavigationRefusal::Scheme { .. }),
                "{url}: {refused:?}"
            );
            assert_eq!(refused.url(), url);
        }
        assert_eq!(
            check_navigation("http://127.0.0.1:4781/x", true, &origins),
            Err(NavigationRefusal::Origin {
                url: "http://127.0.0.1:4781/x".into(),
                origin: "http://127.0.0.1:4781".into(),
                allowed: origins.clone(),
            })
        );
        assert!(check_navigation("http://127.0.0.1:4780/x?q=1", true, &origins).is_ok());
        assert!(check_navigation("about:blank", true, &origins).is_ok());
        assert!(check_navigation("http://elsewhere.test/", true, &Origins::Any).is_ok());
        assert!(check_navigation("file:///x", true, &Origins::Any).is_err());
    }

    #[test]
    fn frames_may_load_data_and_other_origins_but_not_local_files() {
        let origins = only(&["http://127.0.0.1:4780"]);
        assert!(check_navigation("data:text/html,x", false, &origins).is_ok());
        assert!(check_navigation("http://other.test/", false, &origins).is_ok());
        assert!(check_navigation("file:///etc/hostname", false, &origins).is_err());
        assert!(check_navigation("javascript:1", false, &origins).is_err());
    }

    #[test]
    fn the_field_reads_back_what_it_writes_and_names_bad_entries() {
        let origins = only(&["https://b.test", "http://127.0.0.1:4780", "https://b.test"]);
        assert_eq!(Origins::from_json(&origins.to_json()), Ok(origins));
        assert_eq!(
            Origins::from_json(&serde_json::json!(["*"])),
            Ok(Origins::Any)
        );
        let bad = Origins::from_json(&serde_json::json!(["http://a.test/path"])).unwrap_err();
        assert!(
            bad.contains("origins[0]") && bad.contains("http://a.test"),
            "{bad}"
        );
        let bad = Origins::from_json(&serde_json::json!(["file:///"])).unwrap_err();
        assert!(bad.contains("not an http or https origin"), "{bad}");
        assert!(Origins::from_json(&serde_json::json!("*")).is_err());
    }

    #[test]
    fn link_local_and_metadata_addresses_only_when_named() {
        let loopback = only(&["http://127.0.0.1:4780"]);
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://169.254.0.1:8080/",
            // The other notations of 169.254.169.254 the URL standard reads.
            "http://2852039166/",
            "http://0xA9FEA9FE/",
            "http://0251.0376.0251.0376/",
            "http://169.254.43518/",
            "http://[::ffff:169.254.169.254]/",
            "http://[fd00:ec2::254]/",
            "http://[fe80::1]/",
            "http://100.100.100.200/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA.google.internal./",
        ] {
            for origins in [&Origins::Any, &loopback] {
                for top_level in [true, false] {
                    let refused = check_navigation(url, top_level, origins).unwrap_err();
                    assert!(
                        matches!(
                            refused,
                            NavigationRefusal::LocalAddress {
                                class: HostClass::LinkLocal,
                                ..
                            }
                        ),
                        "{url} {origins} {top_level}: {refused:?}"
                    );
                    assert!(refused.to_string().contains("`\"*\"` never"), "{refused}");
                }
            }
            // Named, it is allowed (a hand-written `origins`).
            let origin = web_origin(url).unwrap();
            let named = Origins::only([origin.clone()]);
            assert!(check_navigation(url, true, &named).is_ok(), "{url}");
            // Never from steps or what a recording saw.
            assert_eq!(Origins::of_urls([url]), Origins::only(Vec::new()), "{url}");
            assert_eq!(
                Origins::only(Vec::new()).with([origin]),
                Origins::only(Vec::new()),
                "{url}"
            );
        }
    }

    #[test]
    fn loopback_only_where_the_tool_names_it() {
        for url in [
            "http://127.0.0.1:4780/",
            "http://127.1.2.3/",
            "http://localhost:4780/",
            "http://app.localhost/",
            "http://[::1]/",
            "http://0.0.0.0:4780/",
            "http://0/",
        ] {
            let refused = check_navigation(url, true, &Origins::Any).unwrap_err();
            assert!(
                matches!(
                    refused,
                    NavigationRefusal::LocalAddress {
                        class: HostClass::Loopback,
                        ..
                    }
                ),
                "{url}: {refused:?}"
            );
            assert!(
                check_navigation(url, false, &Origins::Any).is_err(),
                "{url}"
            );
            let named = Origins::only([web_origin(url).unwrap()]);
            assert!(check_navigation(url, true, &named).is_ok(), "{url}");
            // A loopback frame of a tool on this machine (another port of the site), never
            // of a tool on the web.
            let other = only(&["http://127.0.0.1:1"]);
            assert!(check_navigation(url, false, &other).is_ok(), "{url}");
            let web = only(&["https://shop.test"]);
            assert!(check_navigation(url, false, &web).is_err(), "{url}");
            assert!(Origins::of_urls([url]).names(&web_origin(url).unwrap()));
        }
    }

    #[test]
    fn a_local_address_refusal_says_what_to_write() {
        let refused = check_navigation("http://127.0.0.1:4780/a", true, &Origins::Any).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "navigating to \"http://127.0.0.1:4780/a\" is refused: 127.0.0.1 is a loopback \
             address (this machine), which a browser tool reaches only when its `origins` names \
             it (`\"*\"` never includes it); to allow it, add \"http://127.0.0.1:4780\" to the \
             tool file's `origins`, as in `\"origins\": [\"http://127.0.0.1:4780\"]`"
        );
        let resolved = check_resolved(
            "http://meta.test/",
            false,
            &Origins::Any,
            &["169.254.169.254".parse().unwrap()],
        )
        .unwrap_err();
        assert!(
            resolved
                .to_string()
                .contains("meta.test (169.254.169.254) is a link-local or cloud-metadata address"),
            "{resolved}"
        );
    }

    #[test]
    fn names_are_decided_on_the_addresses_they_resolve_to() {
        let url = "http://meta.test:8080/x";
        assert_eq!(
            needs_resolution(url, &Origins::Any),
            Some(("meta.test".into(), 8080))
        );
        // Named: nothing depends on its addresses. An address or `localhost`: decided as written.
        assert_eq!(
            needs_resolution(url, &only(&["http://meta.test:8080"])),
            None
        );
        assert_eq!(needs_resolution("http://169.254.1.1/", &Origins::Any), None);
        assert_eq!(needs_resolution("http://localhost/", &Origins::Any), None);
        let metadata: IpAddr = "169.254.169.254".parse().unwrap();
        let web: IpAddr = "93.184.216.34".parse().unwrap();
        let refused = check_resolved(url, true, &Origins::Any, &[web, metadata]).unwrap_err();
        assert!(
            matches!(&refused, NavigationRefusal::LocalAddress { address, class: HostClass::LinkLocal, .. } if address == "169.254.169.254"),
            "{refused:?}"
        );
        assert!(refused.to_string().contains("meta.test"), "{refused}");
        assert!(check_resolved(url, false, &only(&["http://a.test"]), &[metadata]).is_err());
        assert!(check_resolved(url, true, &Origins::Any, &[web]).is_ok());
        assert!(check_resolved(url, true, &only(&["http://meta.test:8080"]), &[metadata]).is_ok());
        let loopback: IpAddr = "::1".parse().unwrap();
        assert!(check_resolved(url, true, &Origins::Any, &[loopback]).is_err());
    }
}

//! Where a browser tool's pages may go: only the web (http and https; never `file:`,
//! `chrome:`, `javascript:` and the like), and at the top level only the origins its tool
//! file lists ([`Origins`]). The one decision, [`check_navigation`], is pure: the replayer
//! asks it before `Page.navigate`, and the engine's navigation guard for every document
//! request the browser makes (page-initiated navigations, redirects, frames).

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

    /// The web origins of `urls` (those that have one).
    pub fn of_urls<'a>(urls: impl IntoIterator<Item = &'a str>) -> Origins {
        Origins::only(urls.into_iter().filter_map(web_origin))
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

    /// These origins and `more` (`*` stays `*`).
    pub fn with(self, more: impl IntoIterator<Item = String>) -> Origins {
        match self {
            Origins::Any => Origins::Any,
            Origins::Only(list) => Origins::only(list.into_iter().chain(more)),
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
}

impl NavigationRefusal {
    /// The URL that was refused.
    pub fn url(&self) -> &str {
        match self {
            NavigationRefusal::Scheme { url, .. } | NavigationRefusal::Origin { url, .. } => url,
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
}

//! What a gesture set off on the network, recorded with its step so that the replay waits for
//! the same before the next step: the page's own requests (fetch, XHR) answered while the
//! person watched, and WebSocket exchanges (a frame sent after the gesture, answered on the
//! same socket). A step without it waits for nothing more.
//!
//! Written to hold with other inputs: a request is known by its method and its path as a
//! pattern — the query is left out (it carries what was typed), and a path segment that held
//! a typed value or an id (digits, a long hexadecimal or UUID-like run) is a `*` matching any
//! one segment. What only sometimes happens is not written by the recorder (see
//! `browserflow-record`'s `settle` module).

use serde::{Deserialize, Serialize};

/// What a step's gesture set off, for the replay to wait on (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settle {
    /// Requests started by the gesture and answered while recording, in the order they
    /// started.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<RequestPattern>,
    /// WebSockets on which the gesture sent a frame that the server answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sockets: Vec<SocketPattern>,
}

/// A request, by method and path pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestPattern {
    /// `GET`, `POST`, …
    pub method: String,
    /// The URL's path, each segment exact or `*` (any one segment); no query.
    pub path: String,
}

/// A WebSocket, by the path pattern of its URL, and the message its answer ended with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SocketPattern {
    /// The socket URL's path, as [`RequestPattern::path`].
    pub path: String,
    /// What the last message received in answer carried ([`frame_parts`]): the answer is
    /// complete once `times` messages carrying each of these parts came. A framework that
    /// first clears its outputs and sends their values later (Shiny) sends the same kind of
    /// message twice; one that says "busy" first is not answered by that.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<String>,
    /// How many messages carrying every part of `replies` came while recording (at least 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub times: u32,
    /// The names of the first message the gesture sent (its `key=name` [`frame_parts`]): the
    /// exchange starts with a frame that carries each (an `update`, not the page's own
    /// `init`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sends: Vec<String>,
}

/// What a WebSocket message carries, by name and never by value, the same for every message
/// of one purpose whatever it carries: a JSON object's top-level keys, or for a key holding a
/// non-empty object its keys one level down (`busy`, `values.name`, `values.price`); a JSON
/// array's leading string (an event name), each after the packet-type digits of
/// Socket.IO-like framings (`42:update`); `binary` for a binary frame, else the digits alone
/// or `text`. An answer is complete when the parts received cover the parts recorded, however
/// the server splits or merges its messages.
pub fn frame_parts(text: Option<&str>) -> Vec<String> {
    let Some(text) = text else {
        return vec!["binary".into()];
    };
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let rest = &text[digits.len()..];
    let parts: Vec<String> = match serde_json::from_str::<serde_json::Value>(rest) {
        Ok(serde_json::Value::Object(map)) => map
            .iter()
            .flat_map(|(key, value)| match value {
                serde_json::Value::Object(inner) if !inner.is_empty() => {
                    inner.keys().map(|k| format!("{key}.{k}")).collect()
                }
                // A short name as a top-level value says which message it is (`method`:
                // `init` or `update`, `busy`: `busy` or `idle`).
                serde_json::Value::String(name) if is_name(name) => vec![format!("{key}={name}")],
                _ => vec![key.clone()],
            })
            .collect(),
        Ok(serde_json::Value::Array(items)) => items
            .first()
            .and_then(|f| f.as_str())
            .map(|s| vec![s.to_string()])
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    match (digits.is_empty(), parts.is_empty()) {
        (true, false) => parts,
        (false, false) => parts.into_iter().map(|p| format!("{digits}:{p}")).collect(),
        (false, true) => vec![digits],
        (true, true) => vec!["text".into()],
    }
}

fn one() -> u32 {
    1
}

fn is_one(times: &u32) -> bool {
    *times == 1
}

/// A protocol word: a letter, then at most 23 letters, digits, `_`, `-`, `.` or `:`.
fn is_name(text: &str) -> bool {
    text.len() <= 24
        && text.starts_with(|c: char| c.is_ascii_alphabetic())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

impl Settle {
    /// True when there is nothing to wait for.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.sockets.is_empty()
    }

    /// What is waited for, in words: `POST /search answered`, `a reply on the WebSocket
    /// /_event/`.
    pub fn describe(&self) -> Vec<String> {
        self.requests
            .iter()
            .map(RequestPattern::describe)
            .chain(self.sockets.iter().map(SocketPattern::describe))
            .collect()
    }
}

impl RequestPattern {
    /// `POST /search answered`.
    pub fn describe(&self) -> String {
        format!("{} {} answered", self.method, self.path)
    }

    /// Whether a request of `method` to `url` is this one.
    pub fn matches(&self, method: &str, url: &str) -> bool {
        self.method.eq_ignore_ascii_case(method)
            && url_path(url).is_some_and(|path| path_matches(&self.path, &path))
    }
}

impl SocketPattern {
    /// `a reply on the WebSocket /ws (busy, values)`.
    pub fn describe(&self) -> String {
        if self.replies.is_empty() {
            format!("a reply on the WebSocket {}", self.path)
        } else {
            format!(
                "a reply on the WebSocket {} ({} × {})",
                self.path,
                self.times,
                self.replies.join(", ")
            )
        }
    }

    /// Whether a socket to `url` is this one.
    pub fn matches(&self, url: &str) -> bool {
        url_path(url).is_some_and(|path| path_matches(&self.path, &path))
    }
}

/// The path of an absolute URL (percent-encoded as the URL has it), or `None` when it is not
/// one.
pub fn url_path(url: &str) -> Option<String> {
    url::Url::parse(url).ok().map(|u| u.path().to_string())
}

/// True when `path` has as many segments as `pattern` and each matches (`*`: any one
/// segment).
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let mut pattern = pattern.split('/');
    let mut path = path.split('/');
    loop {
        match (pattern.next(), path.next()) {
            (None, None) => return true,
            (Some(want), Some(have)) if want == "*" || want == have => {}
            _ => return false,
        }
    }
}

/// The pattern of `path`: each segment that holds one of `typed` (the values the person typed
/// during the recording; compared decoded, ignoring case) or looks like an id becomes `*`.
pub fn path_pattern(path: &str, typed: &[&str]) -> String {
    path.split('/')
        .map(|segment| {
            let decoded = percent_decode(segment).to_lowercase();
            let holds_typed = typed.iter().any(|t| {
                let t = t.trim().to_lowercase();
                !t.is_empty() && decoded.contains(&t)
            });
            if holds_typed || looks_like_id(segment) {
                "*"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Digits, or a run of 16+ hexadecimal digits and dashes with at least one digit (a UUID, a
/// hash): values, not names.
fn looks_like_id(segment: &str) -> bool {
    let all_digits = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
    let hexish = segment.len() >= 16
        && segment.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        && segment.bytes().any(|b| b.is_ascii_digit());
    all_digits || hexish
}

fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_value_or_an_id_in_the_path_is_any_segment() {
        assert_eq!(path_pattern("/search", &["lamp"]), "/search");
        assert_eq!(
            path_pattern("/api/items/Desk%20Lamp/price", &["desk lamp"]),
            "/api/items/*/price"
        );
        assert_eq!(path_pattern("/orders/12345", &[]), "/orders/*");
        assert_eq!(
            path_pattern("/doc/3f2a9c1e-7b4d-4c1a-9e2f-0a1b2c3d4e5f/x", &[]),
            "/doc/*/x"
        );
        assert_eq!(path_pattern("/v2/feed", &[]), "/v2/feed");
    }

    #[test]
    fn a_request_matches_by_method_and_path_whatever_its_query() {
        let search = RequestPattern {
            method: "POST".into(),
            path: "/search".into(),
        };
        assert!(search.matches("POST", "http://127.0.0.1:4000/search?q=lamp"));
        assert!(search.matches("post", "http://127.0.0.1:4000/search"));
        assert!(!search.matches("GET", "http://127.0.0.1:4000/search"));
        assert!(!search.matches("POST", "http://127.0.0.1:4000/search/more"));
        let item = RequestPattern {
            method: "GET".into(),
            path: "/api/items/*/price".into(),
        };
        assert!(item.matches("GET", "http://h/api/items/kettle/price"));
        assert!(!item.matches("GET", "http://h/api/items/price"));
        assert_eq!(item.describe(), "GET /api/items/*/price answered");
    }

    #[test]
    fn a_message_is_known_by_what_it_carries_not_its_values() {
        assert_eq!(frame_parts(Some(r#"{"busy":"busy"}"#)), ["busy=busy"]);
        assert_eq!(
            frame_parts(Some(r#"{"method":"update","data":{"query":"desk lamp"}}"#)),
            ["data.query", "method=update"]
        );
        assert_eq!(
            frame_parts(Some(
                r#"{"errors":{},"values":{"name":"Desk lamp","price":"49.90"}}"#
            )),
            ["errors", "values.name", "values.price"]
        );
        assert_eq!(frame_parts(Some(r#"{"values":{}}"#)), ["values"]);
        assert_eq!(frame_parts(Some(r#"42["update",{"id":3}]"#)), ["42:update"]);
        assert_eq!(frame_parts(Some("2")), ["2"]);
        assert_eq!(frame_parts(Some("hello")), ["text"]);
        assert_eq!(frame_parts(None), ["binary"]);
    }

    #[test]
    fn an_empty_settle_is_not_written() {
        assert!(Settle::default().is_empty());
        assert_eq!(serde_json::to_string(&Settle::default()).unwrap(), "{}");
    }
}

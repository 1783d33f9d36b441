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

/// A WebSocket exchange, by the path pattern of the socket's URL, the name of the message the
/// gesture sent and the kinds ([`frame_parts`]) of the messages that answered it.
///
/// Told apart by order, not by shape alone: a framework sends messages of one kind both in
/// answer to the gesture and to what came before it (Shiny's `values`, flushed after the
/// page's `init`, after each input and after the search), so a closing message counts only
/// once the answer has begun — once a message of a kind that came before the closing one in
/// the recorded answer arrived (`busy=busy`, `progress`, `recalculating`). Kinds are names
/// only (top-level keys, never which outputs a message carries), so another input's answer,
/// split or merged differently by the server, is still the same answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SocketPattern {
    /// The socket URL's path, as [`RequestPattern::path`].
    pub path: String,
    /// The kinds of the last message of the recorded answer: the answer is complete once
    /// `times` messages of every one of these kinds came after it began.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<String>,
    /// How many closing messages came after the answer began while recording (at least 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub times: u32,
    /// The kinds of the recorded answer's messages before the closing one that are not
    /// closing kinds themselves: the answer begins with the first message carrying any of
    /// them; empty when every message of the answer was of the closing kinds (then it begins
    /// with the first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opens: Vec<String>,
    /// The names of the first message the gesture sent (its `key=name` [`frame_parts`]): the
    /// exchange starts with a frame that carries each (an `update`, not the page's own
    /// `init`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sends: Vec<String>,
    /// The socket was at rest when the gesture began ([`SocketPattern::rests_after`]): the
    /// page's own conversation (Shiny's `init` and its answer) was over. The replay acts only
    /// once it is again; otherwise the answer to what came before is taken for the gesture's,
    /// and the step reads an output before its answer lands.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_rest: bool,
}

/// The kinds of a WebSocket message, by name and never by value, the same for every message
/// of one purpose whatever it carries: a JSON object's top-level keys, each `key=name` where
/// its value is a short protocol word (`method=update`, `busy=idle`,
/// `target=JS.RenderBatch`); a JSON array's event name, its first protocol word without
/// digits (Socket.IO's `["update", …]`, Phoenix's `[join, ref, topic, "phx_reply", …]`); each
/// after the packet-type digits of Socket.IO-like framings (`42:update`); every record of a
/// frame of records ended by `0x1E` (SignalR); `binary` for a binary frame, else the digits
/// alone or `text`. Sorted, each once.
pub fn frame_parts(text: Option<&str>) -> Vec<String> {
    let Some(text) = text else {
        return vec!["binary".into()];
    };
    let mut parts: Vec<String> = text
        .split('\u{1e}')
        .filter(|record| !record.is_empty() || !text.contains('\u{1e}'))
        .flat_map(record_parts)
        .collect();
    parts.sort();
    parts.dedup();
    parts
}

/// The kinds of one message of a frame (see [`frame_parts`]).
fn record_parts(text: &str) -> Vec<String> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let rest = &text[digits.len()..];
    let parts: Vec<String> = match serde_json::from_str::<serde_json::Value>(rest) {
        Ok(serde_json::Value::Object(map)) => map
            .iter()
            .map(|(key, value)| match value {
                // A short name as a top-level value says which message it is (`method`:
                // `init` or `update`, `busy`: `busy` or `idle`).
                serde_json::Value::String(name) if is_name(name) => format!("{key}={name}"),
                _ => key.clone(),
            })
            .collect(),
        Ok(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.as_str())
            .find(|s| is_name(s) && !s.bytes().any(|b| b.is_ascii_digit()))
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
    /// `a reply on the WebSocket /websocket/ (1 × values after busy=busy, progress)`.
    pub fn describe(&self) -> String {
        let mut text = format!("a reply on the WebSocket {}", self.path);
        if !self.replies.is_empty() {
            text.push_str(&format!(" ({} × {}", self.times, self.replies.join(" + ")));
            if !self.opens.is_empty() {
                text.push_str(&format!(" after {}", self.opens.join(" or ")));
            }
            text.push(')');
        }
        text
    }

    /// Whether a message of `kinds` ([`frame_parts`]) begins the answer.
    pub fn opens_with(&self, kinds: &[String]) -> bool {
        self.opens.is_empty() || self.opens.iter().any(|k| kinds.contains(k))
    }

    /// Whether a message of `kinds` is a closing one.
    pub fn closes_with(&self, kinds: &[String]) -> bool {
        self.replies.iter().all(|k| kinds.contains(k))
    }

    /// Whether a socket whose frames so far were `frames` (oldest first: sent or received,
    /// and their [`frame_parts`]; `truncated` when older ones were left out) is at rest by
    /// this exchange's kinds: a closing message came, no answer begun since is unfinished (a
    /// message of an opening kind after the last closing one), and every message the page
    /// sent was followed by one received. Heartbeats count for nothing. The one rule, for
    /// the recorder's [`SocketPattern::at_rest`] and the replay's wait before acting.
    pub fn rests_after<'a>(
        &self,
        frames: impl IntoIterator<Item = (bool, &'a [String])>,
        truncated: bool,
    ) -> bool {
        let (mut closed, mut in_flight, mut unanswered) = (truncated, false, false);
        for (sent, kinds) in frames {
            if is_heartbeat(kinds) {
                continue;
            }
            if sent {
                unanswered = true;
                continue;
            }
            unanswered = false;
            if self.closes_with(kinds) {
                closed = true;
                in_flight = false;
            } else if self.opens_with(kinds) {
                in_flight = true;
            }
        }
        closed && !in_flight && !unanswered
    }

    /// Whether a sent message of `kinds` is the one that starts the exchange.
    pub fn starts_with(&self, kinds: &[String]) -> bool {
        self.sends.iter().all(|k| kinds.contains(k))
    }

    /// Whether a socket to `url` is this one.
    pub fn matches(&self, url: &str) -> bool {
        url_path(url).is_some_and(|path| path_matches(&self.path, &path))
    }
}

impl SocketPattern {
    /// The exchange a recording saw: `answer` the kinds of the messages received after the
    /// gesture's sent message (heartbeats left out), in order; `None` when nothing answered.
    /// The closing kinds are the last message's; what opens it, every other kind before it;
    /// `times`, the closing messages counted the way the replay counts them
    /// ([`AnswerProgress`]).
    pub fn from_answer(path: String, sends: Vec<String>, answer: &[Vec<String>]) -> Option<Self> {
        let answer: Vec<&Vec<String>> = answer.iter().filter(|k| !is_heartbeat(k)).collect();
        let (last, before) = answer.split_last()?;
        let mut opens: Vec<String> = before
            .iter()
            .copied()
            .flatten()
            .filter(|kind| !last.contains(kind))
            .cloned()
            .collect();
        opens.sort();
        opens.dedup();
        let mut pattern = Self {
            path,
            replies: (*last).clone(),
            times: u32::MAX,
            opens,
            sends,
            at_rest: false,
        };
        let mut progress = AnswerProgress::default();
        for kinds in &answer {
            progress.take(&pattern, kinds);
        }
        pattern.times = progress.closing.max(1);
        Some(pattern)
    }
}

/// How far the answer of one WebSocket exchange got, message by message (the one rule of
/// when an answer is complete, for the recorder's count and the replay's wait).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnswerProgress {
    /// A message that begins the answer came ([`SocketPattern::opens`]).
    pub opened: bool,
    /// Closing messages since.
    pub closing: u32,
}

impl AnswerProgress {
    /// Takes one received message of `kinds`: true once the answer is complete.
    pub fn take(&mut self, pattern: &SocketPattern, kinds: &[String]) -> bool {
        if !is_heartbeat(kinds) {
            self.opened |= pattern.opens_with(kinds);
            if self.opened && pattern.closes_with(kinds) {
                self.closing = self.closing.saturating_add(1);
            }
        }
        self.closing >= pattern.times
    }
}

/// Whether a message of `kinds` is the transport's own (Engine.IO's ping `2`, pong `3`,
/// noop `6`: packet-type digits and nothing else), never part of an exchange.
pub fn is_heartbeat(kinds: &[String]) -> bool {
    !kinds.is_empty() && kinds.iter().all(|k| k.bytes().all(|b| b.is_ascii_digit()))
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
            ["data", "method=update"]
        );
        // Which outputs a message carries is not its kind: an answer to another input may
        // carry others, or none.
        let values = ["errors", "inputMessages", "values"];
        assert_eq!(
            frame_parts(Some(
                r#"{"values":{"name":"Desk lamp","price":"49.90"},"inputMessages":[],"errors":{}}"#
            )),
            values
        );
        assert_eq!(
            frame_parts(Some(r#"{"values":{},"inputMessages":[],"errors":{}}"#)),
            values
        );
        // Socket.IO (NiceGUI): the event name after the packet type; Engine.IO's ping.
        assert_eq!(frame_parts(Some(r#"42["update",{"id":3}]"#)), ["42:update"]);
        assert_eq!(frame_parts(Some("2")), ["2"]);
        // Phoenix LiveView: join ref, ref, a topic with the session's id, then the event.
        assert_eq!(
            frame_parts(Some(
                r#"["4","12","lv:phx-F2x9aQ_7b0","phx_reply",{"status":"ok","response":{}}]"#
            )),
            ["phx_reply"]
        );
        // SignalR (Blazor Server): records ended by 0x1E, several in one frame.
        assert_eq!(
            frame_parts(Some(
                "{\"type\":1,\"target\":\"JS.RenderBatch\",\"arguments\":[2,\"AQ\"]}\u{1e}{\"type\":6}\u{1e}"
            )),
            ["arguments", "target=JS.RenderBatch", "type"]
        );
        assert_eq!(frame_parts(Some("hello")), ["text"]);
        assert_eq!(frame_parts(None), ["binary"]);
    }

    fn kinds(frames: &[&str]) -> Vec<Vec<String>> {
        frames.iter().map(|f| frame_parts(Some(f))).collect()
    }

    /// What Shiny for Python 1.8 sent after a click on Search, captured: the query the click
    /// flushed was answered first (an empty `values`), then the search.
    const SHINY_SEARCH: [&str; 11] = [
        r#"{"values": {}, "inputMessages": [], "errors": {}}"#,
        r#"{"progress": {"type": "binding", "message": {"id": "name"}}}"#,
        r#"{"busy": "busy"}"#,
        r#"{"progress": {"type": "binding", "message": {"id": "price"}}}"#,
        r#"{"recalculating": {"name": "name", "status": "recalculating"}}"#,
        r#"{"recalculating": {"name": "name", "status": "recalculated"}}"#,
        r#"{"recalculating": {"name": "price", "status": "recalculating"}}"#,
        r#"{"recalculating": {"name": "price", "status": "recalculated"}}"#,
        r#"{"busy": "idle"}"#,
        r#"{"values": {"name": "Desk lamp", "price": "49.90"}, "inputMessages": [], "errors": {}}"#,
        "2",
    ];

    #[test]
    fn an_answer_closes_with_its_last_kind_once_begun() {
        let pattern = SocketPattern::from_answer(
            "/websocket/".into(),
            vec!["method=update".into()],
            &kinds(&SHINY_SEARCH),
        )
        .unwrap();
        assert_eq!(pattern.replies, ["errors", "inputMessages", "values"]);
        assert_eq!(
            pattern.opens,
            ["busy=busy", "busy=idle", "progress", "recalculating"]
        );
        // The empty `values` came before the answer began: not counted.
        assert_eq!(pattern.times, 1);
        assert_eq!(
            pattern.describe(),
            "a reply on the WebSocket /websocket/ (1 × errors + inputMessages + values after \
             busy=busy or busy=idle or progress or recalculating)"
        );

        // Replayed with another input, the answer to the flushed query first: complete at
        // the search's values, not before.
        let mut progress = AnswerProgress::default();
        let complete: Vec<bool> = kinds(&SHINY_SEARCH)
            .iter()
            .map(|k| progress.take(&pattern, k))
            .collect();
        assert_eq!(complete.iter().position(|c| *c), Some(9));
        // An answer whose first message is `busy` (no progress) begins there as well.
        let mut progress = AnswerProgress::default();
        assert!(!progress.take(&pattern, &kinds(&[SHINY_SEARCH[0]])[0]));
        assert!(!progress.take(&pattern, &kinds(&[SHINY_SEARCH[2]])[0]));
        assert!(progress.take(&pattern, &kinds(&[SHINY_SEARCH[9]])[0]));
    }

    #[test]
    fn an_answer_of_one_kind_counts_its_messages() {
        // Cleared, then the values (one kind): both.
        let answer = kinds(&[r#"{"values":{}}"#, "2", r#"{"values":{"a":1}}"#]);
        let pattern = SocketPattern::from_answer("/ws".into(), vec![], &answer).unwrap();
        assert!(pattern.opens.is_empty());
        assert_eq!(pattern.times, 2);
        // A heartbeat alone is no answer.
        assert_eq!(
            SocketPattern::from_answer("/ws".into(), vec![], &kinds(&["2", "3"])),
            None
        );
        assert!(is_heartbeat(&frame_parts(Some("3"))));
        assert!(!is_heartbeat(&frame_parts(Some(r#"42["update",{}]"#))));
    }

    /// What Shiny's page said on its socket before a click, as the replay saw it when it acted
    /// too early: its `init` sent and answered in part (Shiny answers with `busy`, then
    /// `recalculating`, `busy=idle` and the outputs' first `values`).
    const SHINY_INIT: [(bool, &str); 7] = [
        (true, r#"{"method":"init","data":{"query":""}}"#),
        (false, r#"{"config": {"sessionId": "84"}}"#),
        (false, r#"{"busy": "busy"}"#),
        (
            false,
            r#"{"recalculating": {"name": "name", "status": "recalculating"}}"#,
        ),
        (false, r#"{"busy": "idle"}"#),
        (
            false,
            r#"{"values": {"name": null}, "inputMessages": [], "errors": {}}"#,
        ),
        (false, "2"),
    ];

    #[test]
    fn a_socket_rests_once_everything_sent_was_answered_and_no_answer_is_unfinished() {
        let pattern = SocketPattern::from_answer(
            "/websocket/".into(),
            vec!["method=update".into()],
            &kinds(&SHINY_SEARCH),
        )
        .unwrap();
        let frames: Vec<(bool, Vec<String>)> = SHINY_INIT
            .iter()
            .map(|(sent, text)| (*sent, frame_parts(Some(text))))
            .collect();
        let rests = |n: usize, truncated: bool| {
            pattern.rests_after(
                frames[..n].iter().map(|(s, k)| (*s, k.as_slice())),
                truncated,
            )
        };
        // Nothing yet, the init sent, its answer begun: not at rest.
        for n in 0..5 {
            assert!(!rests(n, false), "{n} frames");
        }
        // Its values came (a heartbeat after them changes nothing).
        assert!(rests(6, false));
        assert!(rests(7, false));
        // A message sent since, not answered yet.
        let mut more = frames.clone();
        more.push((true, frame_parts(Some(r#"{"method":"update","data":{}}"#))));
        assert!(!pattern.rests_after(more.iter().map(|(s, k)| (*s, k.as_slice())), false));
        // A socket busier than the page keeps: what is kept decides.
        assert!(!rests(0, false));
        assert!(rests(0, true));
        assert!(!rests(3, true));
        // Written only when true.
        assert!(!serde_json::to_string(&pattern).unwrap().contains("at_rest"));
    }

    #[test]
    fn an_empty_settle_is_not_written() {
        assert!(Settle::default().is_empty());
        assert_eq!(serde_json::to_string(&Settle::default()).unwrap(), "{}");
    }
}

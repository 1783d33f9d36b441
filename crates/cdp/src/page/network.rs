//! What a page sends and receives over the network, as typed events: requests (fetch, XHR,
//! documents) and WebSocket frames, once [`Page::enable_network`] turned the `Network` domain
//! on. The recorder attributes them to the gesture that set them off, and the replayer waits
//! for the same to be answered before the next step (`settle` in both crates).
//!
//! Decoded into structs of only the fields read here (not chromiumoxide's whole event
//! structs): Chromium adds resource and initiator types faster than the protocol crate
//! follows, and an event that fails to decode would be a request never seen answered.

use std::collections::{HashMap, VecDeque};

use serde::Deserialize;
use serde_json::json;

use super::Page;
use super::events::{PageEventKind, RequestKind};
use crate::error::BrowserError;

/// `Network.requestWillBeSent`, as far as it is read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestWillBeSent {
    request_id: String,
    request: RequestLine,
    /// Monotonic seconds (the clock of every other Network event).
    timestamp: f64,
    /// Seconds since the epoch, at `timestamp`.
    wall_time: f64,
    #[serde(default, rename = "type")]
    resource_type: Option<String>,
    #[serde(default)]
    frame_id: Option<String>,
    /// Present when this event is a redirect of the same request id.
    #[serde(default)]
    redirect_response: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct RequestLine {
    url: String,
    method: String,
}

/// `Network.webSocketFrameSent` and `Network.webSocketFrameReceived`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameEvent {
    request_id: String,
    timestamp: f64,
    response: FramePayload,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FramePayload {
    /// 1: text; 2: binary (then `payload_data` is Base64).
    #[serde(default)]
    opcode: f64,
    #[serde(default)]
    payload_data: String,
}

/// `Network.loadingFinished`, `Network.webSocketClosed` and the frames' events.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Timed {
    request_id: String,
    timestamp: f64,
}

/// `Network.loadingFailed`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoadingFailed {
    request_id: String,
    timestamp: f64,
    #[serde(default)]
    error_text: String,
    #[serde(default)]
    canceled: bool,
}

/// `Network.webSocketCreated`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WebSocketCreated {
    request_id: String,
    url: String,
}

/// `Network.webSocketWillSendHandshakeRequest`: carries both clocks.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WebSocketHandshake {
    request_id: String,
    timestamp: f64,
    wall_time: f64,
}

fn request_kind(resource_type: Option<&str>) -> RequestKind {
    match resource_type {
        Some("XHR") => RequestKind::Xhr,
        Some("Fetch") => RequestKind::Fetch,
        Some("EventSource") => RequestKind::EventSource,
        Some("Document") => RequestKind::Document,
        Some("Ping") => RequestKind::Ping,
        _ => RequestKind::Other,
    }
}

fn request_sent(e: RequestWillBeSent) -> PageEventKind {
    PageEventKind::RequestSent {
        kind: request_kind(e.resource_type.as_deref()),
        request_id: e.request_id,
        method: e.request.method,
        url: e.request.url,
        timestamp: e.timestamp,
        wall_time: e.wall_time,
        frame_id: e.frame_id,
        redirected: e.redirect_response.is_some(),
    }
}

fn request_answered(e: Timed) -> PageEventKind {
    PageEventKind::RequestAnswered {
        request_id: e.request_id,
        timestamp: e.timestamp,
    }
}

fn request_failed(e: LoadingFailed) -> PageEventKind {
    PageEventKind::RequestFailed {
        request_id: e.request_id,
        timestamp: e.timestamp,
        error: e.error_text,
        canceled: e.canceled,
    }
}

fn socket_handshake(e: WebSocketHandshake) -> PageEventKind {
    PageEventKind::WebSocketHandshake {
        request_id: e.request_id,
        timestamp: e.timestamp,
        wall_time: e.wall_time,
    }
}

fn socket_frame(e: FrameEvent, sent: bool) -> PageEventKind {
    let text = e.response.opcode == 1.0;
    PageEventKind::WebSocketFrame {
        request_id: e.request_id,
        timestamp: e.timestamp,
        sent,
        text: text.then_some(e.response.payload_data),
    }
}

/// One `Network` event, as Chromium sends it (`method` and its `params`), as the typed event
/// the page publishes: the one decoding of these events, for the page's interpreter and for
/// events captured from a browser (the settle tests of the recorder and the replayer).
/// `None` for another method, or for one whose parameters do not decode (logged).
pub fn network_event(method: &str, params: &serde_json::Value) -> Option<PageEventKind> {
    fn decode<T: serde::de::DeserializeOwned>(
        method: &str,
        params: &serde_json::Value,
    ) -> Option<T> {
        T::deserialize(params)
            .inspect_err(|error| {
                tracing::warn!(%method, %error, "skipping a Network event that does not decode");
            })
            .ok()
    }
    match method {
        "Network.requestWillBeSent" => decode(method, params).map(request_sent),
        "Network.loadingFinished" => decode(method, params).map(request_answered),
        "Network.loadingFailed" => decode(method, params).map(request_failed),
        "Network.webSocketCreated" => {
            decode(method, params).map(|e: WebSocketCreated| PageEventKind::WebSocketOpened {
                request_id: e.request_id,
                url: e.url,
            })
        }
        "Network.webSocketWillSendHandshakeRequest" => decode(method, params).map(socket_handshake),
        "Network.webSocketFrameSent" => decode(method, params).map(|e| socket_frame(e, true)),
        "Network.webSocketFrameReceived" => decode(method, params).map(|e| socket_frame(e, false)),
        "Network.webSocketClosed" => {
            decode(method, params).map(|e: Timed| PageEventKind::WebSocketClosed {
                request_id: e.request_id,
                timestamp: e.timestamp,
            })
        }
        _ => None,
    }
}

/// How many of an open socket's latest frames the page keeps: enough to see whether the
/// conversation before a step is at rest, bounded for a socket that streams.
const KEPT_FRAMES: usize = 64;

/// One WebSocket frame as the page kept it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketFrame {
    /// The page sent it (else it received it).
    pub sent: bool,
    /// Its text, `None` for a binary frame.
    pub text: Option<String>,
}

/// An open WebSocket of the page.
#[derive(Debug, Default, Clone)]
pub(super) struct OpenSocket {
    url: String,
    /// Its latest frames, oldest first (at most [`KEPT_FRAMES`]).
    frames: VecDeque<SocketFrame>,
    /// Whether older frames were dropped.
    truncated: bool,
}

/// What a page's open WebSocket said so far: a step that sends on it acts only once the
/// conversation the recording saw before its gesture is at rest (the replay's settle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketLog {
    /// The network request that opened it.
    pub request_id: String,
    /// Its URL.
    pub url: String,
    /// Its latest frames, oldest first.
    pub frames: Vec<SocketFrame>,
    /// Whether earlier frames were left out (a socket busier than the page keeps).
    pub truncated: bool,
}

/// Keeps the page's open sockets and their latest frames by `event` (one of
/// [`network_event`]'s).
pub(super) fn track_sockets(sockets: &mut HashMap<String, OpenSocket>, event: &PageEventKind) {
    match event {
        PageEventKind::WebSocketOpened { request_id, url } => {
            sockets.insert(
                request_id.clone(),
                OpenSocket {
                    url: url.clone(),
                    ..OpenSocket::default()
                },
            );
        }
        PageEventKind::WebSocketFrame {
            request_id,
            sent,
            text,
            ..
        } => {
            if let Some(socket) = sockets.get_mut(request_id) {
                if socket.frames.len() == KEPT_FRAMES {
                    socket.frames.pop_front();
                    socket.truncated = true;
                }
                socket.frames.push_back(SocketFrame {
                    sent: *sent,
                    text: text.clone(),
                });
            }
        }
        PageEventKind::WebSocketClosed { request_id, .. } => {
            sockets.remove(request_id);
        }
        _ => {}
    }
}

impl Page {
    /// Turns on the page's `Network` events ([`PageEventKind::RequestSent`] and the rest),
    /// once: later calls return at once. Only the page's own session (its main frame and
    /// in-process frames); an out-of-process frame's requests are not seen.
    pub async fn enable_network(&self) -> Result<(), BrowserError> {
        if self
            .shared
            .network_enabled
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return Ok(());
        }
        let enabled = self
            .session
            .call("Network.enable", json!({ "maxPostDataSize": 0 }))
            .await;
        if let Err(error) = enabled {
            self.shared
                .network_enabled
                .store(false, std::sync::atomic::Ordering::Release);
            return Err(BrowserError::cdp("enabling network events")(error));
        }
        Ok(())
    }

    /// The URL of the open WebSocket `request_id` names, when it was created while the
    /// page's network events were on.
    pub fn socket_url(&self, request_id: &str) -> Option<String> {
        self.shared
            .state()
            .sockets
            .get(request_id)
            .map(|s| s.url.clone())
    }

    /// The page's open WebSockets created while its network events were on, each with its
    /// latest frames.
    pub fn open_sockets(&self) -> Vec<SocketLog> {
        self.shared
            .state()
            .sockets
            .iter()
            .map(|(id, socket)| SocketLog {
                request_id: id.clone(),
                url: socket.url.clone(),
                frames: socket.frames.iter().cloned().collect(),
                truncated: socket.truncated,
            })
            .collect()
    }

    /// Whether [`Page::enable_network`] turned the page's network events on.
    pub fn network_enabled(&self) -> bool {
        self.shared
            .network_enabled
            .load(std::sync::atomic::Ordering::Acquire)
    }
}

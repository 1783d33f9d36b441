//! What each gesture set off on the network, made into the step's [`Settle`] when the
//! recording stops: the replay waits for the same before its next step (`browserflow-replay`'s
//! `settle`). The event loop feeds this log the page's typed network events
//! ([`PageEventKind::RequestSent`] and the rest, on for every recorded page) and the time each
//! gesture began (`at`, the page's `Date.now()` in the recorder script's reports: the press or
//! named key for clicks, drags and keys, the first `input` for a fill); the attribution is one
//! pure function over both, [`settles`].
//!
//! What is recorded is what the replay can rely on with other inputs:
//! - only the page's own calls (fetch, XHR) to its own site (the last two labels of the host),
//!   never a beacon, a script or an image, nor a third party's analytics;
//! - a request belongs to the gesture it started within [`WINDOW_MS`] of (of a fill's last
//!   input: a page that searches as one types waits for the typing to pause), or within that
//!   long of the answer of another of the gesture's requests (a chained call); one started while no
//!   gesture was that recent (a poll, a heartbeat) is unprompted, and its method and path are
//!   never waited for, in any step;
//! - only what was answered before the next gesture began (or the recording stopped): a long
//!   poll still open is not waited for;
//! - each method and path pattern once (typing a query that fires one request per key
//!   replays as one fill, which fires one);
//! - a WebSocket on which, within the window, a frame was sent and then one received before
//!   the next gesture: the exchange by the kinds of the messages of its answer, in order
//!   ([`SocketPattern::from_answer`]), the transport's heartbeats left out — never on a socket
//!   the page opened after the gesture began (a page still connecting while the person
//!   typed: its first message is the page's own hello) — and whether the socket was at rest
//!   when the gesture began ([`SocketPattern::at_rest`]: the replay acts only once it is
//!   again).

use std::collections::{HashMap, HashSet};

use browserflow_cdp::page::{PageEventKind, RequestKind};
use browserflow_steps::{
    RequestPattern, Settle, SocketPattern, Step, StepKind, frame_parts, is_heartbeat, path_pattern,
    url_path,
};

use super::capture::Builder;
use super::protocol::{ActingMessage, Moment};
use super::recorder::{Shared, lock};
use super::{RecordEvent, RecordedStep};

/// How long after a gesture (or an answer to one of its requests) a request is still its.
pub(crate) const WINDOW_MS: f64 = 1000.0;

/// One request of a page, on the page's wall clock (ms since the epoch).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub(crate) id: String,
    pub(crate) method: String,
    pub(crate) url: String,
    pub(crate) kind: RequestKind,
    pub(crate) sent_ms: f64,
    pub(crate) answered_ms: Option<f64>,
}

/// One WebSocket frame, on the page's wall clock.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Frame {
    pub(crate) socket: String,
    pub(crate) at_ms: f64,
    pub(crate) sent: bool,
    /// What it carries ([`frame_parts`]).
    pub(crate) parts: Vec<String>,
}

/// What one recorded page sent and received.
#[derive(Debug, Default)]
pub(crate) struct PageLog {
    /// Wall clock minus the network events' monotonic clock, in ms (from the last event that
    /// carried both).
    offset_ms: Option<f64>,
    /// The same from the sockets' own handshakes: their frames are timed by the network
    /// service, whose clock is not read against the documents' requests.
    socket_offset_ms: Option<f64>,
    pub(crate) requests: Vec<Request>,
    /// Socket URLs by request id.
    pub(crate) sockets: HashMap<String, String>,
    /// When each socket's handshake went out (wall clock), by request id.
    pub(crate) sockets_opened_ms: HashMap<String, f64>,
    pub(crate) frames: Vec<Frame>,
}

/// The recording's network log and the gestures' start times.
#[derive(Debug, Default)]
pub(crate) struct NetworkLog {
    pub(crate) pages: HashMap<String, PageLog>,
    /// When each step's gesture began (ms since the epoch), by the step's serial.
    pub(crate) starts: HashMap<u64, f64>,
    /// When each step's gesture last reported (a fill's last input), by the step's serial.
    pub(crate) ends: HashMap<u64, f64>,
    /// When each announced action (a press, a named key) happened, by (document, number).
    acting: HashMap<(String, u64), f64>,
}

impl NetworkLog {
    /// An `acting` message: a press or named key at `at`.
    pub(crate) fn acting(&mut self, acting: &ActingMessage) {
        self.acting
            .insert((acting.doc.clone(), acting.seq), acting.at);
    }

    /// A report of the script, made at `moment`, made (or changed) the step `serial` of
    /// `kind`: note when its gesture began, once (a fill keeps the time of its first input).
    pub(crate) fn step_reported(&mut self, serial: u64, kind: StepKind, moment: &Moment) {
        let at = moment.at;
        // A click, drag or key began at the press or key announced before it.
        let announced = matches!(kind, StepKind::Click | StepKind::Drag | StepKind::KeyPress)
            .then(|| self.acting.get(&(moment.doc.clone(), moment.seq)).copied())
            .flatten();
        let began = announced.map_or(at, |a| a.min(at));
        self.starts.entry(serial).or_insert(began);
        let end = self.ends.entry(serial).or_insert(at);
        *end = end.max(at);
    }

    /// One of a page's network events.
    pub(crate) fn network(&mut self, page: &str, event: &PageEventKind) {
        let log = self.pages.entry(page.to_string()).or_default();
        match event {
            PageEventKind::RequestSent {
                request_id,
                kind,
                method,
                url,
                timestamp,
                wall_time,
                redirected,
                ..
            } => {
                log.offset_ms = Some(wall_time * 1000.0 - timestamp * 1000.0);
                if *redirected && log.requests.iter().any(|r| r.id == *request_id) {
                    return;
                }
                log.requests.push(Request {
                    id: request_id.clone(),
                    method: method.clone(),
                    url: url.clone(),
                    kind: *kind,
                    sent_ms: wall_time * 1000.0,
                    answered_ms: None,
                });
            }
            PageEventKind::RequestAnswered {
                request_id,
                timestamp,
            } => {
                let at = log.wall(*timestamp);
                if let Some(request) = log.requests.iter_mut().rev().find(|r| r.id == *request_id) {
                    request.answered_ms = at;
                }
            }
            PageEventKind::WebSocketOpened { request_id, url } => {
                log.sockets.insert(request_id.clone(), url.clone());
            }
            PageEventKind::WebSocketHandshake {
                request_id,
                timestamp,
                wall_time,
            } => {
                log.socket_offset_ms = Some(wall_time * 1000.0 - timestamp * 1000.0);
                log.sockets_opened_ms
                    .insert(request_id.clone(), wall_time * 1000.0);
            }
            PageEventKind::WebSocketFrame {
                request_id,
                timestamp,
                sent,
                text,
            } => {
                let offset = log.socket_offset_ms.or(log.offset_ms);
                if let Some(at_ms) = offset.map(|offset| timestamp * 1000.0 + offset) {
                    log.frames.push(Frame {
                        socket: request_id.clone(),
                        at_ms,
                        sent: *sent,
                        parts: frame_parts(text.as_deref()),
                    });
                }
            }
            _ => {}
        }
    }
}

impl PageLog {
    fn wall(&self, timestamp: f64) -> Option<f64> {
        self.offset_ms.map(|offset| timestamp * 1000.0 + offset)
    }
}

/// Notes when the steps a script report made or changed began (see
/// [`NetworkLog::step_reported`]).
pub(crate) fn note_steps(shared: &Shared, moment: &Moment, events: &[RecordEvent]) {
    let builder = lock(&shared.builder);
    let mut network = lock(&shared.network);
    for event in events {
        let (RecordEvent::StepAdded { index, step }
        | RecordEvent::StepInserted { index, step }
        | RecordEvent::StepUpdated { index, step }) = event
        else {
            continue;
        };
        // Only the gestures: a wait inserted before the step a report made is not one, and
        // taking the report's time for it would hand it the gesture's requests.
        let gesture = matches!(
            step.step,
            Step::Click(_) | Step::Fill(_) | Step::KeyPress(_) | Step::Drag(_)
        );
        if !gesture {
            continue;
        }
        if let Some(serial) = builder.serial_of(*index) {
            network.step_reported(serial, step.step.kind(), moment);
        }
    }
}

/// Gives each step of the stopped recording its settle (see [`settles`]).
pub(crate) fn attach(log: &NetworkLog, builder: &mut Builder) {
    let serials: Vec<Option<u64>> = (0..builder.steps.len())
        .map(|i| builder.serial_of(i))
        .collect();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    let settles = settles(log, &builder.steps, &serials, now_ms);
    for (step, settle) in builder.steps.iter_mut().zip(settles) {
        if let Some(slot) = step.step.settle_mut() {
            *slot = settle;
        }
    }
}

/// The settle of each step (parallel to `steps`; `serials` their serials), from what the
/// recording saw until `end_ms`. See the module doc for the rules.
pub(crate) fn settles(
    log: &NetworkLog,
    steps: &[RecordedStep],
    serials: &[Option<u64>],
    end_ms: f64,
) -> Vec<Option<Settle>> {
    let mut out: Vec<Settle> = vec![Settle::default(); steps.len()];
    let typed: Vec<&str> = steps
        .iter()
        .filter_map(|s| {
            let Step::Fill(fill) = &s.step else {
                return None;
            };
            Some(s.recorded_value.as_deref().unwrap_or(&fill.value))
        })
        .collect();
    let mut unprompted: HashSet<(String, String)> = HashSet::new();
    for (page, page_log) in &log.pages {
        // The gestures of this page, in time order: (began, step index, ended).
        let mut gestures: Vec<(f64, usize, f64)> = steps
            .iter()
            .zip(serials)
            .enumerate()
            .filter(|(_, (s, _))| s.page == *page)
            .filter_map(|(i, (_, serial))| {
                let serial = (*serial)?;
                let began = *log.starts.get(&serial)?;
                let ended = log.ends.get(&serial).map_or(began, |e| e.max(began));
                Some((began, i, ended))
            })
            .collect();
        gestures.sort_by(|a, b| a.0.total_cmp(&b.0));
        let until = |g: usize| gestures.get(g + 1).map_or(end_ms, |next| next.0);
        let gesture_at = |t: f64| gestures.iter().rposition(|(began, ..)| *began <= t);
        // Within the window of the gesture `g` (after its last input).
        let within = |g: usize, t: f64| t - gestures[g].2 <= WINDOW_MS;
        let mut requests: Vec<&Request> = page_log
            .requests
            .iter()
            .filter(|r| matches!(r.kind, RequestKind::Xhr | RequestKind::Fetch))
            .filter(|r| r.url.starts_with("http"))
            .collect();
        requests.sort_by(|a, b| a.sent_ms.total_cmp(&b.sent_ms));
        // The answers of each gesture's requests so far, for chained calls.
        let mut answers: HashMap<usize, Vec<f64>> = HashMap::new();
        for request in requests {
            let Some(path) = url_path(&request.url) else {
                continue;
            };
            let key = (request.method.to_uppercase(), path_pattern(&path, &typed));
            let prompted = gesture_at(request.sent_ms).filter(|&g| {
                within(g, request.sent_ms)
                    || answers.get(&g).is_some_and(|a| {
                        a.iter()
                            .any(|&at| at <= request.sent_ms && request.sent_ms - at <= WINDOW_MS)
                    })
            });
            let Some(g) = prompted else {
                unprompted.insert(key);
                continue;
            };
            let index = gestures[g].1;
            let Some(answered) = request.answered_ms.filter(|&at| at <= until(g)) else {
                continue;
            };
            answers.entry(g).or_default().push(answered);
            if !same_site(&steps[index].url, &request.url) {
                continue;
            }
            let pattern = RequestPattern {
                method: key.0,
                path: key.1,
            };
            if !out[index].requests.contains(&pattern) {
                out[index].requests.push(pattern);
            }
        }
        for (n, frame) in page_log.frames.iter().enumerate() {
            let Some(g) = gesture_at(frame.at_ms)
                .filter(|&g| frame.sent && !is_heartbeat(&frame.parts) && within(g, frame.at_ms))
            else {
                continue;
            };
            // A socket the page opened after the gesture began is the page's own (a page
            // still connecting while the person typed): what it sends first is its hello,
            // never the gesture's message.
            let began = gestures[g].0;
            if page_log
                .sockets_opened_ms
                .get(&frame.socket)
                .is_some_and(|&opened| opened > began)
            {
                continue;
            }
            let answer: Vec<Vec<String>> = page_log.frames[n + 1..]
                .iter()
                .filter(|f| {
                    !f.sent
                        && f.socket == frame.socket
                        && f.at_ms >= frame.at_ms
                        && f.at_ms <= until(g)
                })
                .map(|f| f.parts.clone())
                .collect();
            let path = page_log
                .sockets
                .get(&frame.socket)
                .and_then(|u| url_path(u))
                .map(|p| path_pattern(&p, &typed));
            // Only what names the message (`method=update`): which inputs it carries depends
            // on when the page sent them; a part naming what was typed would not match
            // another input.
            let sends: Vec<String> = frame
                .parts
                .iter()
                .filter(|part| part.contains('='))
                .filter(|part| {
                    let part = part.to_lowercase();
                    !typed
                        .iter()
                        .any(|t| !t.trim().is_empty() && part.contains(&t.trim().to_lowercase()))
                })
                .cloned()
                .collect();
            let Some(path) = path else { continue };
            let settle = &mut out[gestures[g].1];
            // The first exchange of the gesture on this socket is the one waited for.
            if settle.sockets.iter().any(|s| s.path == path) {
                continue;
            }
            if let Some(mut exchange) = SocketPattern::from_answer(path, sends, &answer) {
                let before = page_log
                    .frames
                    .iter()
                    .filter(|f| f.socket == frame.socket && f.at_ms < began);
                exchange.at_rest =
                    exchange.rests_after(before.map(|f| (f.sent, f.parts.as_slice())), false);
                settle.sockets.push(exchange);
            }
        }
    }
    steps
        .iter()
        .zip(out)
        .map(|(step, mut settle)| {
            settle
                .requests
                .retain(|r| !unprompted.contains(&(r.method.clone(), r.path.clone())));
            // A step that navigated or opened a popup is checked by its navigation.
            let navigates = step
                .step
                .page_effects()
                .is_some_and(|effects| effects.leaves_page());
            (!settle.is_empty() && !navigates).then_some(settle)
        })
        .collect()
}

/// Whether `url` is on the site of `page_url`: the same last two labels of the host (an API
/// on `api.example.com` for a page on `www.example.com`), or the same IP address.
fn same_site(page_url: &str, url: &str) -> bool {
    fn site(url: &str) -> Option<String> {
        let rest = url.split_once("://")?.1;
        let host_port = rest.split(['/', '?', '#']).next()?;
        let host = host_port.rsplit_once('@').map_or(host_port, |(_, h)| h);
        let host = host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                h
            } else {
                host
            }
        });
        if host.bytes().all(|b| b.is_ascii_digit() || b == b'.') || host.starts_with('[') {
            return Some(host.to_string());
        }
        let labels: Vec<&str> = host.split('.').collect();
        Some(
            labels[labels.len().saturating_sub(2)..]
                .join(".")
                .to_lowercase(),
        )
    }
    site(page_url).is_some_and(|page| site(url) == Some(page))
}

#[cfg(test)]
mod tests;

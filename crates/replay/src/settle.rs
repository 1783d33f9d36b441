//! A step waits for what its gesture started (browserflow-steps' [`Settle`]): after the
//! action, the requests the recording saw it set off are answered (response and body), a
//! WebSocket it sent on has answered and gone quiet, and the page's mutations have been quiet
//! for a moment — only then are the step's post-state checks evaluated and the next step run.
//! Apps that re-render after a server round trip mark their output stale or show a skeleton
//! at once; reading it before the answer lands reads nothing.
//!
//! Watched on the engine's typed network events ([`Page::enable_network`], on for a run whose
//! steps have any settle, from its first step): the watch subscribes before the action, so
//! nothing the action sets off is missed. A step without a settle costs nothing: no
//! subscription, no call. Nothing waits for the whole page's network to go idle: only for
//! the requests recorded, matched by method and path pattern, so a poll or an analytics beacon
//! beside them is never waited for.
//!
//! A WebSocket's answer is told by the kinds of its messages and their order (steps'
//! [`AnswerProgress`]): a framework answering earlier input with messages of the same kinds
//! (Shiny's `values`) is not taken for the gesture's answer. Before the action, a step that
//! sends on a socket waits until the page opened it.
//!
//! Quiet is a short window ([`QUIET`]) with nothing new, never a fixed sleep: it ends as soon
//! as the page holds still for that long; a page that never does (a ticking clock, a stream)
//! is waited for at most [`QUIET_CAP`] past the answers.

use std::time::Duration;

use browserflow_cdp::page::{EvalError, Page, PageEvent, PageEventKind, SocketLog};
use browserflow_steps::{AnswerProgress, Settle, SocketPattern, frame_parts, is_heartbeat};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use crate::failure::{Failure, FailureKind};
use crate::js;

/// How long the socket and the document must stay unchanged to be quiet.
const QUIET: Duration = Duration::from_millis(50);
/// The longest wait for quiet once everything recorded was answered.
const QUIET_CAP: Duration = Duration::from_millis(1000);

/// Where one recorded request stands.
#[derive(Debug, Clone, PartialEq)]
enum RequestState {
    /// Not seen yet (or the one seen failed: `last_failure` says how).
    Waiting,
    /// Sent under this request id.
    Sent(String),
    Answered,
}

/// Where one recorded WebSocket exchange stands.
#[derive(Debug, Clone, PartialEq)]
enum SocketState {
    Waiting,
    /// The exchange's message went out on this socket after the action; how far its answer
    /// got, and the kinds of what came since (for the failure message).
    Sent(String, AnswerProgress, Vec<String>),
    /// The server answered on it as recorded.
    Answered(String),
}

/// What the watch saw of one recorded request, for the failure message.
#[derive(Debug, Default, Clone)]
struct Seen {
    failure: Option<String>,
}

/// A step's settle, armed before its action.
pub(crate) struct SettleWatch {
    progress: Progress,
    events: UnboundedReceiver<PageEvent>,
    /// When a frame last arrived on an answered socket.
    last_socket_frame: Option<Instant>,
}

/// Where a step's settle stands, event by event: no page, no clock (its tests feed it events
/// captured from a browser).
#[derive(Debug)]
struct Progress {
    settle: Settle,
    requests: Vec<(RequestState, Seen)>,
    sockets: Vec<SocketState>,
    /// Requests the watch saw that matched nothing recorded (for the failure message).
    others: Vec<String>,
}

/// What a frame of the answer did: for the quiet window after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Taken {
    /// A frame came on a socket whose answer is complete (or completed it).
    AnsweredSocketFrame,
    Other,
}

/// Turns on network events for a run that will need them, before its first step, so that the
/// WebSockets its pages open are known by URL.
pub(crate) async fn prepare(page: &Page, steps: &[browserflow_steps::Step]) {
    if steps
        .iter()
        .any(|s| s.settle().is_some_and(|s| !s.is_empty()))
        && let Err(error) = page.enable_network().await
    {
        tracing::debug!(%error, "network events could not be turned on before the first step");
    }
}

impl SettleWatch {
    /// Arms the watch of `settle` on `page`: `None` when there is nothing to wait for.
    /// A step that sends on a WebSocket first waits, within `budget`, until the page opened it
    /// ([`Self::wait_for_sockets`]).
    pub(crate) async fn arm(
        page: &Page,
        settle: Option<&Settle>,
        budget: Duration,
    ) -> Result<Option<Self>, Failure> {
        let Some(settle) = settle.filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        // Sockets opened before the page's network events were on are not known by URL: then
        // whether they are open cannot be told, and is not waited for.
        let sockets_known = page.network_enabled();
        page.enable_network()
            .await
            .map_err(|e| Failure::browser(&e, format!("turning on network events failed: {e}")))?;
        let mut watch = Self {
            progress: Progress::new(settle),
            events: page.subscribe(),
            last_socket_frame: None,
        };
        if sockets_known {
            watch.wait_for_sockets(page, budget).await?;
        }
        Ok(Some(watch))
    }

    /// Before the action: waits until the page opened each WebSocket the gesture is to send
    /// on and, where the recording saw it at rest when the gesture began
    /// ([`SocketPattern::at_rest`]), until it is at rest again. A framework opens its socket
    /// once it has wired its page; a gesture acted on a page still loading it does nothing (a
    /// button not yet bound) or goes out in the page's own first message. And a gesture acted
    /// while the page's own conversation is still being answered (Shiny's `init`) is answered
    /// after it, with messages of the same kinds: the watch would take the earlier answer for
    /// the gesture's and the next step read an output before its answer landed.
    async fn wait_for_sockets(&mut self, page: &Page, budget: Duration) -> Result<(), Failure> {
        let deadline = Instant::now() + budget;
        loop {
            let open = page.open_sockets();
            let waiting: Vec<(&SocketPattern, Option<&SocketLog>)> = self
                .progress
                .settle
                .sockets
                .iter()
                .filter_map(|pattern| {
                    let mut matching = open.iter().filter(|s| pattern.matches(&s.url)).peekable();
                    if matching.peek().is_none() {
                        return Some((pattern, None));
                    }
                    let mut last = None;
                    for log in matching {
                        if !pattern.at_rest || rests(pattern, log) {
                            return None;
                        }
                        last = Some(log);
                    }
                    Some((pattern, last))
                })
                .collect();
            if waiting.is_empty() {
                return Ok(());
            }
            // What comes before the action is not its answer: it only tells whether the
            // sockets are open and at rest.
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(_)) => {}
                Ok(None) => return Ok(()),
                Err(_) => {
                    let lines: Vec<String> = waiting
                        .iter()
                        .map(|(pattern, log)| match log {
                            None => format!(
                                "\n  expected the page to open the WebSocket {} the step sends \
                                 on; seen: it never did",
                                pattern.path
                            ),
                            Some(log) => format!(
                                "\n  expected the WebSocket {} at rest as when recorded (a \
                                 closing {} received, every message sent answered, no answer \
                                 begun and unfinished); seen: {}",
                                pattern.path,
                                pattern.replies.join(" + "),
                                describe_log(log)
                            ),
                        })
                        .collect();
                    return Err(Failure::new(
                        FailureKind::NotSettled,
                        format!(
                            "waited {} ms before acting:{}",
                            budget.as_millis(),
                            lines.concat()
                        ),
                    ));
                }
            }
        }
    }

    /// After the action: waits until everything recorded was answered and the page is quiet,
    /// within `budget`; otherwise fails naming what was expected and what was seen.
    pub(crate) async fn wait(mut self, page: &Page, budget: Duration) -> Result<(), Failure> {
        let deadline = Instant::now() + budget;
        while !self.progress.answered() {
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(event)) => self.take(page, event.kind),
                // The page is gone: the next step says so.
                Ok(None) => return Ok(()),
                Err(_) => return Err(self.progress.failure(budget)),
            }
        }
        // The socket's answer may come in several frames: wait until it stops.
        let quiet_until = Instant::now() + QUIET_CAP;
        while let Some(last) = self.last_socket_frame {
            let until = (last + QUIET).min(quiet_until);
            if Instant::now() >= until {
                break;
            }
            match tokio::time::timeout_at(until, self.events.recv()).await {
                Ok(Some(event)) => self.take(page, event.kind),
                Ok(None) | Err(_) => break,
            }
        }
        quiet_document(page).await
    }

    fn take(&mut self, page: &Page, event: PageEventKind) {
        if self.progress.take(event, |id| page.socket_url(id)) == Taken::AnsweredSocketFrame {
            self.last_socket_frame = Some(Instant::now());
        }
    }
}

impl Progress {
    fn new(settle: &Settle) -> Self {
        Self {
            requests: vec![(RequestState::Waiting, Seen::default()); settle.requests.len()],
            sockets: vec![SocketState::Waiting; settle.sockets.len()],
            settle: settle.clone(),
            others: Vec::new(),
        }
    }

    fn answered(&self) -> bool {
        self.requests
            .iter()
            .all(|(state, _)| *state == RequestState::Answered)
            && self
                .sockets
                .iter()
                .all(|s| matches!(s, SocketState::Answered(_)))
    }

    /// Takes one of the page's events; `socket_url` knows the URLs of the page's sockets.
    fn take(&mut self, event: PageEventKind, socket_url: impl Fn(&str) -> Option<String>) -> Taken {
        match event {
            PageEventKind::RequestSent {
                request_id,
                method,
                url,
                redirected,
                ..
            } => {
                let known = self
                    .requests
                    .iter()
                    .any(|(s, _)| *s == RequestState::Sent(request_id.clone()));
                if redirected && known {
                    return Taken::Other;
                }
                let slot = self.settle.requests.iter().zip(&mut self.requests).find(
                    |(pattern, (state, _))| {
                        *state == RequestState::Waiting && pattern.matches(&method, &url)
                    },
                );
                match slot {
                    Some((_, (state, _))) => *state = RequestState::Sent(request_id),
                    None if self.others.len() < 8 => {
                        let path = browserflow_steps::url_path(&url).unwrap_or(url);
                        self.others.push(format!("{method} {path}"));
                    }
                    None => {}
                }
            }
            PageEventKind::RequestAnswered { request_id, .. } => {
                for (state, _) in &mut self.requests {
                    if *state == RequestState::Sent(request_id.clone()) {
                        *state = RequestState::Answered;
                    }
                }
            }
            PageEventKind::RequestFailed {
                request_id, error, ..
            } => {
                // A failed request may be sent again (a framework that cancels the previous
                // one when the next starts): the pattern waits for another.
                for (state, seen) in &mut self.requests {
                    if *state == RequestState::Sent(request_id.clone()) {
                        *state = RequestState::Waiting;
                        seen.failure = Some(error.clone());
                    }
                }
            }
            PageEventKind::WebSocketFrame {
                request_id,
                sent,
                text,
                ..
            } => {
                let url = socket_url(&request_id);
                return self.socket_frame(url, request_id, sent, frame_parts(text.as_deref()));
            }
            _ => {}
        }
        Taken::Other
    }

    fn socket_frame(
        &mut self,
        url: Option<String>,
        request_id: String,
        sent: bool,
        kinds: Vec<String>,
    ) -> Taken {
        if is_heartbeat(&kinds) {
            return Taken::Other;
        }
        let mut answered_here = false;
        for (pattern, state) in self.settle.sockets.iter().zip(&mut self.sockets) {
            // A socket opened before network events were on has no known URL: any pattern
            // fits.
            let fits = url.as_deref().is_none_or(|u| pattern.matches(u));
            match state {
                SocketState::Waiting if sent && fits && pattern.starts_with(&kinds) => {
                    *state =
                        SocketState::Sent(request_id.clone(), AnswerProgress::default(), vec![]);
                }
                SocketState::Sent(id, progress, seen) if !sent && *id == request_id => {
                    if seen.last() != Some(&kinds.join(" + ")) && seen.len() < 12 {
                        seen.push(kinds.join(" + "));
                    }
                    if progress.take(pattern, &kinds) {
                        *state = SocketState::Answered(request_id.clone());
                        answered_here = true;
                    }
                }
                SocketState::Answered(id) if !sent && *id == request_id => answered_here = true,
                _ => {}
            }
        }
        if answered_here {
            Taken::AnsweredSocketFrame
        } else {
            Taken::Other
        }
    }

    /// `waited 5000 ms for what the step set off when recorded:` and one line per thing not
    /// answered, with what was seen of it.
    fn failure(&self, budget: Duration) -> Failure {
        let mut message = format!(
            "waited {} ms for what the step set off when recorded:",
            budget.as_millis()
        );
        for (pattern, (state, seen)) in self.settle.requests.iter().zip(&self.requests) {
            let actual = match (state, &seen.failure) {
                (RequestState::Answered, _) => continue,
                (RequestState::Sent(_), _) => "sent, never answered".to_string(),
                (RequestState::Waiting, Some(error)) => format!("failed: {error}"),
                (RequestState::Waiting, None) => "never sent".to_string(),
            };
            message.push_str(&format!(
                "\n  expected {}; seen: {actual}",
                pattern.describe()
            ));
        }
        for (pattern, state) in self.settle.sockets.iter().zip(&self.sockets) {
            let actual = match state {
                SocketState::Answered(_) => continue,
                SocketState::Sent(_, progress, seen) => {
                    let began = if progress.opened {
                        format!("the answer began, {} closing", progress.closing)
                    } else {
                        "the answer never began".into()
                    };
                    let seen = if seen.is_empty() {
                        "nothing".into()
                    } else {
                        seen.join(", ")
                    };
                    format!("a frame sent, then {seen} ({began})")
                }
                SocketState::Waiting => "no frame sent".into(),
            };
            message.push_str(&format!(
                "\n  expected {}; seen: {actual}",
                pattern.describe()
            ));
        }
        if !self.others.is_empty() {
            message.push_str(&format!(
                "\n  other requests seen: {}",
                self.others.join(", ")
            ));
        }
        Failure::new(FailureKind::NotSettled, message)
    }
}

/// Whether the socket `log` is at rest by `pattern`'s kinds ([`SocketPattern::rests_after`]).
fn rests(pattern: &SocketPattern, log: &SocketLog) -> bool {
    let kinds: Vec<(bool, Vec<String>)> = log
        .frames
        .iter()
        .map(|f| (f.sent, frame_parts(f.text.as_deref())))
        .collect();
    pattern.rests_after(
        kinds.iter().map(|(sent, k)| (*sent, k.as_slice())),
        log.truncated,
    )
}

/// `sent method=update, received busy=busy, …`: a socket's latest frames by kind (the last
/// eight), for a failure message.
fn describe_log(log: &SocketLog) -> String {
    let mut described: Vec<String> = log
        .frames
        .iter()
        .rev()
        .map(|f| {
            let kinds = frame_parts(f.text.as_deref()).join(" + ");
            format!("{} {kinds}", if f.sent { "sent" } else { "received" })
        })
        .take(8)
        .collect();
    if described.is_empty() {
        return "no frame".into();
    }
    described.reverse();
    described.join(", ")
}

/// Waits until the main frame's document has not changed for [`QUIET`] (at most
/// [`QUIET_CAP`]).
async fn quiet_document(page: &Page) -> Result<(), Failure> {
    let (world, _) = match page.utility_world(page.target_id()).await {
        Ok(world) => world,
        Err(error) => {
            tracing::debug!(%error, "no world to watch the document's quiet in");
            return Ok(());
        }
    };
    let expression = js::call(
        js::QUIET_MUTATIONS,
        &[
            &QUIET.as_millis().to_string(),
            &QUIET_CAP.as_millis().to_string(),
        ],
    );
    match page.evaluate(&world, &expression, true).await {
        Ok(quiet) => {
            if quiet != serde_json::Value::Bool(true) {
                tracing::debug!("the page kept changing; going on after the answers");
            }
            Ok(())
        }
        // The answer replaced the document: the next step finds out where it is.
        Err(EvalError::Navigated) => Ok(()),
        Err(e) => Err(Failure::eval(
            FailureKind::Browser,
            &e,
            format!("watching the page settle failed: {e}"),
        )),
    }
}

#[cfg(test)]
mod tests;

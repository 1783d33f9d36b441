//! A small Chrome DevTools Protocol multiplexer over chromiumoxide's websocket [`Connection`].
//!
//! We use chromiumoxide for the transport and the protocol types, but not its `Handler`: the
//! replayer needs to address any flattened session (out-of-process iframes, popups), to see every
//! event of a session in order, and to treat "the page navigated under this command" as an
//! outcome rather than a timeout. One task owns the socket; callers talk to it through channels.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chromiumoxide::Connection;
use chromiumoxide::types::{CallId, EventMessage, Message, Method, MethodId};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::commands::Command;

/// An event received from the browser, with its raw JSON parameters.
#[derive(Debug, Clone, Deserialize)]
pub struct CdpEvent {
    /// Protocol method, for example `Page.frameNavigated`.
    pub method: String,
    /// The flattened session the event belongs to; `None` for browser-level events.
    #[serde(rename = "sessionId", default)]
    pub session_id: Option<String>,
    /// Event parameters.
    #[serde(default)]
    pub params: Value,
}

impl Method for CdpEvent {
    fn identifier(&self) -> MethodId {
        self.method.clone().into()
    }
}

impl EventMessage for CdpEvent {
    fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

/// Why a protocol call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    /// The browser answered the call with a protocol error.
    #[error("{method} failed: {message} (code {code})")]
    Protocol {
        /// The method that failed.
        method: String,
        /// Chromium's error code.
        code: i64,
        /// Chromium's error message.
        message: String,
    },
    /// The websocket to the browser is closed (the browser exited or the endpoint went away).
    #[error("the connection to the browser is closed")]
    Closed,
    /// The session's target went away before answering (a page that closed itself while the
    /// call was under way: Chromium never answers it).
    #[error("{method} was not answered: its page closed")]
    Detached {
        /// The method left unanswered.
        method: String,
    },
    /// The answer could not be decoded.
    #[error("could not decode the answer to {method}: {message}")]
    Decode {
        /// The method whose answer was malformed.
        method: String,
        /// Decoder message.
        message: String,
    },
}

impl CdpError {
    /// True when the call failed because the document (or the whole target) it ran in went away,
    /// which is how Chromium reports that an action navigated the page.
    pub fn is_navigation(&self) -> bool {
        match self {
            CdpError::Protocol { message, .. } => {
                message.contains("navigated or closed")
                    || message.contains("Execution context was destroyed")
                    || message.contains("Cannot find context with specified id")
                    || message.contains("Cannot find default execution context")
                    || message.contains("No frame for given id")
                    || message.contains("Frame with the given id was not found")
                    || message.contains("Session with given id not found")
                    || message.contains("No target with given id")
            }
            CdpError::Detached { .. } => true,
            _ => false,
        }
    }
}

struct Outgoing {
    method: String,
    session_id: Option<String>,
    params: Value,
    reply: oneshot::Sender<Result<Value, CdpError>>,
}

/// Reads a session's events in the socket task, as each is routed: before the next event of
/// any session is, so that what it publishes keeps the browser's order across sessions.
/// It must not block (it may send calls and spawn tasks).
pub trait EventHandler: Send + Sync + 'static {
    /// Handles one event; returning false unsubscribes the handler.
    fn on_event(&self, event: &CdpEvent) -> bool;
    /// No event will come any more: the connection closed, or the session detached from its
    /// target (`Target.detachedFromTarget`: a page that closed itself, `window.close()`).
    fn on_closed(&self) {}
}

/// Who hears the events of each session (`None` = the browser session).
#[derive(Default)]
struct Routes {
    channels: HashMap<Option<String>, Vec<mpsc::UnboundedSender<CdpEvent>>>,
    handlers: HashMap<Option<String>, Vec<Arc<dyn EventHandler>>>,
}

type Subscribers = Arc<Mutex<Routes>>;

/// A shared handle on one websocket connection to a browser.
#[derive(Clone)]
pub struct CdpConnection {
    outgoing: mpsc::UnboundedSender<Outgoing>,
    subscribers: Subscribers,
}

impl std::fmt::Debug for CdpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdpConnection").finish_non_exhaustive()
    }
}

impl CdpConnection {
    /// Connects to a browser-level websocket endpoint (`ws://host:port/devtools/browser/<id>`).
    pub async fn connect(ws_url: &str) -> Result<Self, chromiumoxide::error::CdpError> {
        let conn = Connection::<CdpEvent>::connect(ws_url).await?;
        let (outgoing, incoming) = mpsc::unbounded_channel();
        let subscribers: Subscribers = Arc::default();
        tokio::spawn(run_socket(conn, incoming, subscribers.clone()));
        Ok(Self {
            outgoing,
            subscribers,
        })
    }

    /// A handle that sends to `session_id` (`None` = the browser session).
    pub fn session(&self, session_id: Option<String>) -> CdpSession {
        CdpSession {
            conn: self.clone(),
            session_id,
        }
    }

    /// Events of one session, in the order the browser sent them, from now on.
    pub fn subscribe(&self, session_id: Option<String>) -> mpsc::UnboundedReceiver<CdpEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut subs) = self.subscribers.lock() {
            subs.channels.entry(session_id).or_default().push(tx);
        }
        rx
    }

    /// Hands every event of one session, from now on, to `handler` as it is routed.
    pub fn on_events(&self, session_id: Option<String>, handler: Arc<dyn EventHandler>) {
        if let Ok(mut subs) = self.subscribers.lock() {
            subs.handlers.entry(session_id).or_default().push(handler);
        }
    }

    /// True once the socket task has ended.
    pub fn is_closed(&self) -> bool {
        self.outgoing.is_closed()
    }

    /// Sends the call now (calls go out in the order they are started) and returns its
    /// answer to await later.
    fn start(
        &self,
        session_id: Option<String>,
        method: &str,
        params: Value,
    ) -> impl Future<Output = Result<Value, CdpError>> + Send + 'static + use<> {
        let (reply, answer) = oneshot::channel();
        let sent = self
            .outgoing
            .send(Outgoing {
                method: method.to_string(),
                session_id,
                params,
                reply,
            })
            .map_err(|_| CdpError::Closed);
        async move {
            sent?;
            answer.await.map_err(|_| CdpError::Closed)?
        }
    }
}

/// A handle that sends calls to one flattened CDP session.
#[derive(Clone, Debug)]
pub struct CdpSession {
    conn: CdpConnection,
    session_id: Option<String>,
}

impl CdpSession {
    /// Sends `method` with JSON `params` and waits for the answer.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.start(method, params).await
    }

    /// Sends `method` now and returns its answer to await later. Chromium handles the calls of
    /// one session in the order they were sent, so a later call is answered after this one
    /// took effect: setup calls can overlap the first real work instead of delaying it.
    pub fn start(
        &self,
        method: &str,
        params: Value,
    ) -> impl Future<Output = Result<Value, CdpError>> + Send + 'static + use<> {
        self.conn.start(self.session_id.clone(), method, params)
    }

    /// Sends a typed [`Command`] and waits for its typed answer (the command is serialised
    /// at once: the future borrows neither it nor the session).
    pub fn run<C: Command>(
        &self,
        command: &C,
    ) -> impl Future<Output = Result<C::Answer, CdpError>> + Send + 'static + use<C> {
        self.send(command)
    }

    /// Sends a typed [`Command`] now and returns its typed answer to await later (see
    /// [`CdpSession::start`]: calls of one session are answered in the order sent).
    pub fn send<C: Command>(
        &self,
        command: &C,
    ) -> impl Future<Output = Result<C::Answer, CdpError>> + Send + 'static + use<C> {
        let params = serde_json::to_value(command).map_err(|e| CdpError::Decode {
            method: C::METHOD.to_string(),
            message: format!("the parameters do not serialise: {e}"),
        });
        let answer = params.map(|params| self.start(C::METHOD, params));
        async move {
            let value = answer?.await?;
            serde_json::from_value(value).map_err(|e| CdpError::Decode {
                method: C::METHOD.to_string(),
                message: e.to_string(),
            })
        }
    }

    /// The session id (`None` for the browser session).
    pub fn id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The connection this session lives on.
    pub fn connection(&self) -> &CdpConnection {
        &self.conn
    }

    /// Events of this session from now on.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<CdpEvent> {
        self.conn.subscribe(self.session_id.clone())
    }

    /// Hands every event of this session, from now on, to `handler` as it is routed.
    pub fn on_events(&self, handler: Arc<dyn EventHandler>) {
        self.conn.on_events(self.session_id.clone(), handler)
    }
}

/// A call sent and not answered yet.
struct Pending {
    method: String,
    session_id: Option<String>,
    reply: oneshot::Sender<Result<Value, CdpError>>,
}

async fn run_socket(
    mut conn: Connection<CdpEvent>,
    mut incoming: mpsc::UnboundedReceiver<Outgoing>,
    subscribers: Subscribers,
) {
    let mut pending: HashMap<CallId, Pending> = HashMap::new();
    loop {
        tokio::select! {
            call = incoming.recv() => {
                let Some(call) = call else { break };
                match conn.submit_command(call.method.clone().into(), call.session_id.clone().map(Into::into), call.params) {
                    Ok(id) => { pending.insert(id, Pending { method: call.method, session_id: call.session_id, reply: call.reply }); }
                    Err(e) => {
                        let _ = call.reply.send(Err(CdpError::Decode { method: call.method, message: e.to_string() }));
                    }
                }
            }
            message = conn.next() => {
                match message {
                    Some(Ok(Message::Response(response))) => {
                        if let Some(Pending { method, reply, .. }) = pending.remove(&response.id) {
                            let answer = match response.error {
                                Some(error) => Err(CdpError::Protocol { method, code: error.code, message: error.message }),
                                None => Ok(response.result.unwrap_or(Value::Null)),
                            };
                            let _ = reply.send(answer);
                        }
                    }
                    Some(Ok(Message::Event(event))) => {
                        // A detached session's calls are never answered: they fail now.
                        if let Some(detached) = detached_session(&event) {
                            let ids: Vec<CallId> = pending.iter()
                                .filter(|(_, p)| p.session_id.as_deref() == Some(detached.as_str()))
                                .map(|(id, _)| *id)
                                .collect();
                            for id in ids {
                                if let Some(Pending { method, reply, .. }) = pending.remove(&id) {
                                    let _ = reply.send(Err(CdpError::Detached { method }));
                                }
                            }
                        }
                        route_event(&subscribers, event);
                    }
                    Some(Err(error)) => {
                        // A message we could not parse is logged and skipped; a socket error ends
                        // the connection.
                        if matches!(error, chromiumoxide::error::CdpError::InvalidMessage(..)) {
                            tracing::debug!(%error, "skipping an unreadable CDP message");
                        } else {
                            tracing::debug!(%error, "CDP socket failed");
                            break;
                        }
                    }
                    None => break,
                }
            }
        }
    }
    // Closed before anyone hears of it (answers, ended event streams): whoever then asks
    // `is_closed` is told the truth.
    incoming.close();
    for (_, Pending { reply, .. }) in pending.drain() {
        let _ = reply.send(Err(CdpError::Closed));
    }
    let handlers = match subscribers.lock() {
        Ok(mut subs) => {
            subs.channels.clear();
            std::mem::take(&mut subs.handlers)
        }
        Err(_) => HashMap::new(),
    };
    for handler in handlers.into_values().flatten() {
        handler.on_closed();
    }
}

fn route_event(subscribers: &Subscribers, event: CdpEvent) {
    let detached = detached_session(&event);
    let key = event.session_id.clone();
    let handlers = {
        let Ok(mut subs) = subscribers.lock() else {
            return;
        };
        if let Some(list) = subs.channels.get_mut(&key) {
            list.retain(|tx| tx.send(event.clone()).is_ok());
            if list.is_empty() {
                subs.channels.remove(&key);
            }
        }
        subs.handlers.get(&key).cloned().unwrap_or_default()
    };
    // Called without the lock held: a handler may subscribe (a child session it follows).
    let done: Vec<_> = handlers
        .into_iter()
        .filter(|handler| !handler.on_event(&event))
        .collect();
    if !done.is_empty()
        && let Ok(mut subs) = subscribers.lock()
        && let Some(list) = subs.handlers.get_mut(&key)
    {
        list.retain(|handler| !done.iter().any(|d| Arc::ptr_eq(d, handler)));
        if list.is_empty() {
            subs.handlers.remove(&key);
        }
    }
    if let Some(session_id) = detached {
        end_session(subscribers, session_id);
    }
}

/// The session an event says detached from its target. Chromium says so on the session that
/// attached it (the browser's, or a page's for its auto-attached children), never on the
/// detached session itself: a page that closes itself sends its own session nothing.
fn detached_session(event: &CdpEvent) -> Option<String> {
    (event.method.as_str() == "Target.detachedFromTarget")
        .then(|| event.params.get("sessionId")?.as_str().map(str::to_string))
        .flatten()
}

/// Ends the routes of a session that detached: its event streams end and its handlers hear
/// `on_closed`, as when the connection closes.
fn end_session(subscribers: &Subscribers, session_id: String) {
    let handlers = match subscribers.lock() {
        Ok(mut subs) => {
            subs.channels.remove(&Some(session_id.clone()));
            subs.handlers.remove(&Some(session_id)).unwrap_or_default()
        }
        Err(_) => return,
    };
    for handler in handlers {
        handler.on_closed();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Counts the events it hears and unsubscribes after `limit`; on its first event it
    /// subscribes `child` to the session `CHILD`, as a page does for a child frame.
    struct Counting {
        heard: AtomicUsize,
        limit: usize,
        routes: Subscribers,
        child: Option<Arc<dyn EventHandler>>,
    }

    impl Counting {
        fn new(limit: usize, routes: &Subscribers, child: Option<Arc<dyn EventHandler>>) -> Self {
            Self {
                heard: AtomicUsize::new(0),
                limit,
                routes: routes.clone(),
                child,
            }
        }
    }

    impl EventHandler for Counting {
        fn on_event(&self, _event: &CdpEvent) -> bool {
            let heard = self.heard.fetch_add(1, Ordering::SeqCst) + 1;
            if heard == 1
                && let Some(child) = &self.child
            {
                // Would deadlock if the routing lock were held while handlers run.
                let mut routes = self.routes.lock().unwrap();
                let list = routes.handlers.entry(Some("CHILD".into())).or_default();
                list.push(child.clone());
            }
            heard < self.limit
        }
    }

    fn event(session: Option<&str>) -> CdpEvent {
        CdpEvent {
            method: "Page.frameStoppedLoading".into(),
            session_id: session.map(str::to_string),
            params: Value::Null,
        }
    }

    #[test]
    fn handlers_hear_their_session_subscribe_more_and_unsubscribe_themselves() {
        let routes = Subscribers::default();
        let child = Arc::new(Counting::new(usize::MAX, &routes, None));
        let page = Arc::new(Counting::new(2, &routes, Some(child.clone())));
        routes
            .lock()
            .unwrap()
            .handlers
            .entry(Some("PAGE".into()))
            .or_default()
            .push(page.clone());
        let (tx, mut rx) = mpsc::unbounded_channel();
        routes
            .lock()
            .unwrap()
            .channels
            .entry(None)
            .or_default()
            .push(tx);

        route_event(&routes, event(Some("PAGE")));
        route_event(&routes, event(Some("CHILD")));
        route_event(&routes, event(Some("PAGE")));
        route_event(&routes, event(Some("PAGE")));
        route_event(&routes, event(None));

        // The page handler said "enough" on its second event and heard no third.
        assert_eq!(page.heard.load(Ordering::SeqCst), 2);
        assert!(
            !routes
                .lock()
                .unwrap()
                .handlers
                .contains_key(&Some("PAGE".into()))
        );
        assert_eq!(child.heard.load(Ordering::SeqCst), 1);
        assert_eq!(rx.try_recv().map(|e| e.session_id).ok(), Some(None));
        assert!(rx.try_recv().is_err());
    }

    /// Hears whether its session ended.
    #[derive(Default)]
    struct Ending {
        closed: AtomicUsize,
    }

    impl EventHandler for Ending {
        fn on_event(&self, _event: &CdpEvent) -> bool {
            true
        }
        fn on_closed(&self) {
            self.closed.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_session_detached_from_its_target_ends_though_it_heard_nothing_itself() {
        let routes = Subscribers::default();
        let popup = Arc::new(Ending::default());
        let other = Arc::new(Ending::default());
        for (session, handler) in [("POPUP", popup.clone()), ("OTHER", other.clone())] {
            routes
                .lock()
                .unwrap()
                .handlers
                .entry(Some(session.into()))
                .or_default()
                .push(handler);
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        routes
            .lock()
            .unwrap()
            .channels
            .entry(Some("POPUP".into()))
            .or_default()
            .push(tx);
        // Said on the browser's session, as Chromium does when a page calls `window.close()`.
        route_event(
            &routes,
            CdpEvent {
                method: "Target.detachedFromTarget".into(),
                session_id: None,
                params: serde_json::json!({ "sessionId": "POPUP", "targetId": "T" }),
            },
        );
        assert_eq!(popup.closed.load(Ordering::SeqCst), 1);
        assert_eq!(other.closed.load(Ordering::SeqCst), 0);
        assert!(
            !routes
                .lock()
                .unwrap()
                .handlers
                .contains_key(&Some("POPUP".into()))
        );
        // Its event stream ended.
        assert!(matches!(
            rx.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
    }
}

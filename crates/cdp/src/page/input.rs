//! Real input: mouse moves, clicks and drags, key events (`keys.rs` has the key table) and text
//! insertion, dispatched through the page's own session as the browser's input would be.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use browserflow_steps::MouseButton;

use super::{EvalError, ExecContext, Page, PageEvent, PageEventKind, keys};
use crate::session::CdpError;

/// How long the browser may take to hand over an HTML5 drag the page is known to have started
/// (it is one message away): past it, something else took the drag.
const DRAG_HANDOVER: Duration = Duration::from_secs(5);

/// Notes the first trusted `dragstart` of the frame's document from now on, and then whether
/// a `drop` reached the document and how the drag ended (`dragend`'s drop effect). Read once
/// the event's dispatch is over (after the call that caused it was answered), so a page
/// handler that cancelled the drag, in any phase, is seen.
const DRAG_PROBE_INSTALL: &str = "(() => { \
    if (window.__bflowDragProbe) window.__bflowDragProbe.remove(); \
    let started = null, dropped = false, ended = null; \
    const onStart = (e) => { if (e.isTrusted && !started) started = e; }; \
    const onDrop = (e) => { if (e.isTrusted && started) dropped = true; }; \
    const onEnd = (e) => { if (e.isTrusted && started) ended = e.dataTransfer ? e.dataTransfer.dropEffect : 'none'; }; \
    window.addEventListener('dragstart', onStart, true); \
    window.addEventListener('drop', onDrop, true); \
    window.addEventListener('dragend', onEnd, true); \
    window.__bflowDragProbe = { \
      started: () => !!started && !started.defaultPrevented, \
      settled: () => new Promise((resolve) => { \
        const until = performance.now() + 2000; \
        const tick = () => { \
          if (dropped) resolve('dropped'); \
          else if (ended !== null) resolve(ended === 'none' ? 'refused' : 'dropped'); \
          else if (performance.now() > until) resolve('unknown'); \
          else setTimeout(tick, 10); \
        }; \
        tick(); }), \
      remove: () => { \
        window.removeEventListener('dragstart', onStart, true); \
        window.removeEventListener('drop', onDrop, true); \
        window.removeEventListener('dragend', onEnd, true); \
        delete window.__bflowDragProbe; }, \
    }; \
    return true; })()";
const DRAG_PROBE_STARTED: &str = "!!window.__bflowDragProbe && window.__bflowDragProbe.started()";
/// How the drag ended: `dropped` (a drop reached the document, or the drag ended with an
/// effect), `refused` (it ended with none, and no drop came), or `unknown` (neither was seen
/// in 2 s: the source went away and the drop, if any, was in another frame).
const DRAG_PROBE_SETTLED: &str =
    "window.__bflowDragProbe ? window.__bflowDragProbe.settled() : 'unknown'";
const DRAG_PROBE_REMOVE: &str =
    "(window.__bflowDragProbe && window.__bflowDragProbe.remove(), true)";

/// What a drag turned out to be (see [`Page::mouse_drag`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DragOutcome {
    /// The page followed the pointer with its own handlers.
    Pointer,
    /// The page started an HTML5 drag, completed with drag events and a drop.
    Html5,
}

/// Why a drag could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum DragError {
    /// An input call failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
    /// The page's `dragstart` could not be watched for (the frame's document went away).
    #[error("watching the page for the start of an HTML5 drag failed: {0}")]
    Probe(EvalError),
    /// The page started an HTML5 drag and nothing at the drop point accepted it (no handler
    /// cancelled the `dragover` there): the drag ended with no effect.
    #[error("nothing at ({:.0}, {:.0}) accepted the drop of the HTML5 drag the page started", .0.0, .0.1)]
    DropRefused((f64, f64)),
    /// The page started an HTML5 drag, and the browser did not hand it over in time.
    #[error("the page started an HTML5 drag, but the browser did not hand it over within {0:?}")]
    NotHandedOver(Duration),
}

/// The points of a drag's moves after the press: `moves` (at least one) evenly spaced steps
/// ending at `to`.
fn drag_path(from: (f64, f64), to: (f64, f64), moves: u32) -> impl Iterator<Item = (f64, f64)> {
    let moves = moves.max(1);
    (1..=moves).map(move |i| {
        let t = f64::from(i) / f64::from(moves);
        (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
    })
}

/// The data of the drag the browser hands over next.
async fn intercepted_data(events: &mut UnboundedReceiver<PageEvent>) -> Result<Value, DragError> {
    let handed_over = async {
        while let Some(event) = events.recv().await {
            let from_page_session = event.from_page_session();
            if let PageEventKind::DragIntercepted { data } = event.kind
                && from_page_session
            {
                return Some(data);
            }
        }
        None
    };
    match tokio::time::timeout(DRAG_HANDOVER, handed_over).await {
        Ok(Some(data)) => Ok(data),
        Ok(None) => Err(DragError::Cdp(CdpError::Closed)),
        Err(_) => Err(DragError::NotHandedOver(DRAG_HANDOVER)),
    }
}

/// How CDP names a button and its bit in `buttons`.
trait CdpButton {
    fn cdp_name(self) -> &'static str;
    fn buttons_mask(self) -> u8;
}

impl CdpButton for MouseButton {
    fn cdp_name(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
            MouseButton::Back => "back",
            MouseButton::Forward => "forward",
        }
    }

    fn buttons_mask(self) -> u8 {
        match self {
            MouseButton::Left => 1,
            MouseButton::Right => 2,
            MouseButton::Middle => 4,
            MouseButton::Back => 8,
            MouseButton::Forward => 16,
        }
    }
}

impl Page {
    /// Moves the mouse to a point in main-frame viewport coordinates.
    pub async fn mouse_move(&self, x: f64, y: f64) -> Result<(), CdpError> {
        self.session
            .call(
                "Input.dispatchMouseEvent",
                json!({ "type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0 }),
            )
            .await
            .map(|_| ())
    }

    /// A real click (or double click for `count` 2) at a point in main-frame viewport
    /// coordinates, on the main frame's own document: the move, presses and releases go out
    /// together. Its renderer takes them in order and runs each handler to completion before
    /// the next event, as with a real mouse, without a round trip between them.
    pub async fn mouse_click(
        &self,
        x: f64,
        y: f64,
        button: MouseButton,
        count: u8,
    ) -> Result<(), CdpError> {
        let mut events = vec![json!({
            "type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0,
        })];
        events.extend(press_and_release_events(x, y, button, count));
        self.dispatch_all("Input.dispatchMouseEvent", events).await
    }

    /// The presses and releases of a click (no move: the pointer is already there), one at a
    /// time, each answered once the renderer it was routed to took it: for an element of a
    /// child frame, where the browser routes each event to the frame's process by hit-testing
    /// (back-to-back events have been seen to miss an out-of-process frame under load), and
    /// where the caller checks what the frame received in between.
    pub async fn mouse_press_and_release(
        &self,
        x: f64,
        y: f64,
        button: MouseButton,
        count: u8,
    ) -> Result<(), CdpError> {
        for event in press_and_release_events(x, y, button, count) {
            self.session.call("Input.dispatchMouseEvent", event).await?;
        }
        Ok(())
    }

    /// A long press: one press of `button` (the pointer is already at `x`, `y`), held for
    /// `hold` — what the page measures is the gesture — then released; each event answered
    /// once its renderer took it.
    pub async fn mouse_press_held(
        &self,
        x: f64,
        y: f64,
        button: MouseButton,
        hold: std::time::Duration,
    ) -> Result<(), CdpError> {
        let mut events = press_and_release_events(x, y, button, 1).into_iter();
        if let Some(pressed) = events.next() {
            self.session
                .call("Input.dispatchMouseEvent", pressed)
                .await?;
        }
        tokio::time::sleep(hold).await;
        for released in events {
            self.session
                .call("Input.dispatchMouseEvent", released)
                .await?;
        }
        Ok(())
    }

    /// A real drag with the left button, as a hand makes it: the pointer moves to `from`
    /// (a point on an element of frame `frame_id`), presses, moves to `to` in `moves` steps
    /// with the button held, and releases there. One event at a time, each answered once the
    /// renderer took it: a page's pointer handlers (a slider following the pointer) see every
    /// move before the next.
    ///
    /// When the page answers a move by starting an HTML5 drag (a `draggable` element's
    /// `dragstart` that no handler cancelled), the browser hands the drag over instead of
    /// starting its own (`Input.setInterceptDrags`), and the rest of the gesture is the drag's
    /// events: `dragEnter` and `dragOver` where the drag began, `dragOver` at each further
    /// move, and `drop` at `to` (which ends the drag, so no release follows, as with a person's
    /// drag). A drop nothing accepted (the drag ended with no effect) is an error: the gesture
    /// did not do what a drag does. Whether it began is read from the page after each move (a listener in the
    /// frame's isolated world) rather than waited for, so a pointer drag costs no wait. A
    /// frame in its own process (its own session) is left to Chromium's own drag, which
    /// headless Chromium also performs.
    pub async fn mouse_drag(
        &self,
        frame_id: &str,
        from: (f64, f64),
        to: (f64, f64),
        moves: u32,
    ) -> Result<DragOutcome, DragError> {
        let session = self.session_for_frame(frame_id);
        if session.id() != self.session.id() {
            self.pointer_drag(from, to, moves).await?;
            return Ok(DragOutcome::Pointer);
        }
        let world = self
            .isolated_world(frame_id)
            .await
            .map_err(DragError::Probe)?;
        self.evaluate(&world, DRAG_PROBE_INSTALL, false)
            .await
            .map_err(DragError::Probe)?;
        let mut events = self.subscribe();
        self.session
            .call("Input.setInterceptDrags", json!({ "enabled": true }))
            .await?;
        let outcome = self
            .intercepted_drag(&world, &mut events, from, to, moves)
            .await;
        // Whatever happened, later input is the browser's own again.
        let stopped = self
            .session
            .call("Input.setInterceptDrags", json!({ "enabled": false }))
            .await;
        if let Err(error) = self.evaluate(&world, DRAG_PROBE_REMOVE, false).await {
            // The drag may have navigated the frame: its probe went with the document.
            tracing::debug!(%error, "the drag probe could not be removed");
        }
        let outcome = outcome?;
        stopped?;
        Ok(outcome)
    }

    async fn intercepted_drag(
        &self,
        world: &ExecContext,
        events: &mut UnboundedReceiver<PageEvent>,
        from: (f64, f64),
        to: (f64, f64),
        moves: u32,
    ) -> Result<DragOutcome, DragError> {
        let button = MouseButton::Left;
        self.mouse_move(from.0, from.1).await?;
        self.session
            .call(
                "Input.dispatchMouseEvent",
                json!({ "type": "mousePressed", "x": from.0, "y": from.1,
                        "button": button.cdp_name(), "buttons": button.buttons_mask(),
                        "clickCount": 1 }),
            )
            .await?;
        let mut dragged: Option<Value> = None;
        for (x, y) in drag_path(from, to, moves) {
            if let Some(data) = &dragged {
                self.drag_event("dragOver", (x, y), data).await?;
                continue;
            }
            self.session
                .call(
                    "Input.dispatchMouseEvent",
                    json!({ "type": "mouseMoved", "x": x, "y": y,
                            "button": button.cdp_name(), "buttons": button.buttons_mask() }),
                )
                .await?;
            let started = self
                .evaluate(world, DRAG_PROBE_STARTED, false)
                .await
                .map_err(DragError::Probe)?;
            if started != Value::Bool(true) {
                continue;
            }
            let data = intercepted_data(events).await?;
            self.drag_event("dragEnter", (x, y), &data).await?;
            self.drag_event("dragOver", (x, y), &data).await?;
            dragged = Some(data);
        }
        match dragged {
            Some(data) => {
                self.drag_event("drop", to, &data).await?;
                match self.evaluate(world, DRAG_PROBE_SETTLED, true).await {
                    Ok(settled) if settled == "refused" => Err(DragError::DropRefused(to)),
                    // A drop that navigated the frame did something.
                    Ok(_) | Err(EvalError::Navigated) => Ok(DragOutcome::Html5),
                    Err(other) => Err(DragError::Probe(other)),
                }
            }
            None => {
                self.session
                    .call(
                        "Input.dispatchMouseEvent",
                        json!({ "type": "mouseReleased", "x": to.0, "y": to.1,
                                "button": button.cdp_name(), "buttons": 0, "clickCount": 1 }),
                    )
                    .await?;
                Ok(DragOutcome::Pointer)
            }
        }
    }

    /// The drag with mouse events only (see [`Self::mouse_drag`]).
    async fn pointer_drag(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        moves: u32,
    ) -> Result<(), CdpError> {
        let button = MouseButton::Left;
        let mut events = vec![
            json!({ "type": "mouseMoved", "x": from.0, "y": from.1, "button": "none", "buttons": 0 }),
            json!({ "type": "mousePressed", "x": from.0, "y": from.1, "button": button.cdp_name(),
                    "buttons": button.buttons_mask(), "clickCount": 1 }),
        ];
        for (x, y) in drag_path(from, to, moves) {
            events.push(json!({
                "type": "mouseMoved", "x": x, "y": y,
                "button": button.cdp_name(), "buttons": button.buttons_mask(),
            }));
        }
        events.push(json!({ "type": "mouseReleased", "x": to.0, "y": to.1,
                            "button": button.cdp_name(), "buttons": 0, "clickCount": 1 }));
        for event in events {
            self.session.call("Input.dispatchMouseEvent", event).await?;
        }
        Ok(())
    }

    async fn drag_event(
        &self,
        kind: &str,
        (x, y): (f64, f64),
        data: &Value,
    ) -> Result<(), CdpError> {
        self.session
            .call(
                "Input.dispatchDragEvent",
                json!({ "type": kind, "x": x, "y": y, "data": data }),
            )
            .await
            .map(|_| ())
    }

    /// Sends every call at once and waits for all of them: the first failure is the answer.
    async fn dispatch_all(&self, method: &str, calls: Vec<Value>) -> Result<(), CdpError> {
        let pending: Vec<_> = calls
            .into_iter()
            .map(|params| self.session.start(method, params))
            .collect();
        let mut outcome = Ok(());
        for answer in pending {
            if let (Ok(()), Err(e)) = (&outcome, answer.await) {
                outcome = Err(e);
            }
        }
        outcome
    }

    /// Inserts text into the focused element as an IME commit would (one `input` event).
    pub async fn insert_text(&self, text: &str) -> Result<(), CdpError> {
        self.session
            .call("Input.insertText", json!({ "text": text }))
            .await
            .map(|_| ())
    }

    /// Types `text` into the focused element key by key, as a person types it: each
    /// character a `keyDown` carrying it and a `keyUp` (so `keydown`, `keypress`, `input` and
    /// `keyup` reach the page), a control character inserted (see [`keys::typing`]). Sent
    /// together, in order: each event is handled after the one before it, as a fast typist's
    /// are. The text is never logged or put in an error (it may be a secret).
    pub async fn type_text(&self, text: &str) -> Result<(), CdpError> {
        let pending: Vec<_> = keys::typing(text)
            .into_iter()
            .flat_map(|piece| match piece {
                keys::TypedPiece::Key(def) => {
                    let (down, up) = keys::key_events(&def, &[]);
                    vec![
                        self.session.start("Input.dispatchKeyEvent", down),
                        self.session.start("Input.dispatchKeyEvent", up),
                    ]
                }
                keys::TypedPiece::Text(text) => {
                    vec![
                        self.session
                            .start("Input.insertText", json!({ "text": text })),
                    ]
                }
            })
            .collect();
        let mut outcome = Ok(());
        for answer in pending {
            if let (Ok(()), Err(e)) = (&outcome, answer.await) {
                outcome = Err(e);
            }
        }
        outcome
    }

    /// Dispatches raw key events (`keyDown`, `keyUp`, `rawKeyDown`, `char`) in order, sent
    /// together (see [`Self::mouse_click`]).
    pub async fn key_events(&self, events: Vec<Value>) -> Result<(), CdpError> {
        self.dispatch_all("Input.dispatchKeyEvent", events).await
    }
}

/// The `mousePressed` and `mouseReleased` events of `count` clicks at one point.
fn press_and_release_events(x: f64, y: f64, button: MouseButton, count: u8) -> Vec<Value> {
    let mut events = Vec::new();
    for click in 1..=count.max(1) {
        let common = json!({
            "x": x, "y": y, "button": button.cdp_name(), "clickCount": click,
        });
        let mut pressed = common.clone();
        pressed["type"] = json!("mousePressed");
        pressed["buttons"] = json!(button.buttons_mask());
        let mut released = common;
        released["type"] = json!("mouseReleased");
        released["buttons"] = json!(0);
        events.extend([pressed, released]);
    }
    events
}

//! Real input: mouse moves, clicks and drags, key events (`keys.rs` has the key table) and text
//! insertion, dispatched through the page's own session as the browser's input would be.

use serde_json::{Value, json};

use browserflow_steps::MouseButton;

use super::Page;
use crate::session::CdpError;

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

    /// A real drag with the left button: the pointer moves to `from`, presses, moves to `to` in
    /// `moves` steps with the button held, and releases there. One event at a time, each
    /// answered once the renderer took it: a page's pointer handlers (a slider following the
    /// pointer) see every move before the next, as with a person's hand.
    pub async fn mouse_drag(
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
        let moves = moves.max(1);
        for i in 1..=moves {
            let t = f64::from(i) / f64::from(moves);
            events.push(json!({
                "type": "mouseMoved",
                "x": from.0 + (to.0 - from.0) * t,
                "y": from.1 + (to.1 - from.1) * t,
                "button": button.cdp_name(),
                "buttons": button.buttons_mask(),
            }));
        }
        events.push(json!({ "type": "mouseReleased", "x": to.0, "y": to.1,
                            "button": button.cdp_name(), "buttons": 0, "clickCount": 1 }));
        for event in events {
            self.session.call("Input.dispatchMouseEvent", event).await?;
        }
        Ok(())
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

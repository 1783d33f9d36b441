//! Where the person acted. A click's place: the element that owns what the press did and the
//! press's offset in it, when the page showed it (by moving the focus) only after the click
//! was reported. The viewport: the main page's window size at their first step becomes the
//! tool's `viewport` (replayed with the same size, so layouts and popups that open above or
//! below their field by the room left come out as recorded); a window resized between two
//! steps is a `set_viewport` step before the second.

use super::*;
use crate::protocol::{OwnerMessage, PressOwner};

impl Builder {
    /// Notes the main page's viewport `message` was sent with, when it makes a step: the first
    /// is the tool's; a later different one is returned as a `set_viewport` step, to come
    /// before the step the message makes.
    pub(super) fn viewport_seen(
        &mut self,
        page: &str,
        message: &RecorderMessage,
    ) -> Option<RecordEvent> {
        let frame = message.frame();
        if page != MAIN_PAGE || !frame.top || !message.makes_step() {
            return None;
        }
        let seen = frame.viewport.filter(|v| v.problem().is_none())?;
        let before = self.viewport_now.replace(seen);
        if self.viewport.is_none() {
            self.viewport = Some(seen);
        }
        // Steps run on the current page: a resize seen while a popup is current is the main
        // page's size when it is switched back to, not a step of the popup.
        if before.is_none_or(|b| b == seen) || self.current_page != page {
            return None;
        }
        let url = frame.url.clone();
        let (width, height) = (seen.width, seen.height);
        Some(self.push(
            Step::SetViewport(SetViewportStep {
                label: None,
                width,
                height,
                device_scale_factor: 1.0,
                mobile: false,
            }),
            format!("Resize the window to {width}×{height}"),
            None,
            &url,
            None,
        ))
    }
}

impl Builder {
    /// An `owner` message: the focus moved after the click of its gesture was reported,
    /// showing the element that owns its press.
    pub(super) fn later_owner(&mut self, message: &OwnerMessage) -> Vec<RecordEvent> {
        let (gesture, owner) = (message.gesture.as_str(), &message.owner);
        let Some(index) = self
            .gestures
            .iter()
            .rposition(|g| g.as_deref() == Some(gesture))
        else {
            return Vec::new();
        };
        if !self.move_click_to_owner(index, owner) {
            return Vec::new();
        }
        vec![self.updated(index)]
    }

    /// Moves the click at `index` to the element that owns its press (`owner`), at the press's
    /// place in it: the recorder script found it once the page moved the focus (a slider's
    /// thumb, whose hidden input took the focus, rather than the value label riding on it). A
    /// click whose owner has no candidate that names it alone stays where it was. Whether it
    /// moved.
    pub(super) fn move_click_to_owner(&mut self, index: usize, owner: &PressOwner) -> bool {
        let candidates = rank(owner.target.candidates.clone());
        if candidates.is_empty() {
            return false;
        }
        let recorded = &mut self.steps[index];
        let Step::Click(click) = &mut recorded.step else {
            return false;
        };
        click.selector = selector(candidates, click.selector.frame.clone());
        click.offset = Some(owner.offset);
        let verb = if click.click_count == 2 {
            "Double-click"
        } else {
            "Click"
        };
        recorded.best_selector = click.selector.candidates.first().map(|c| c.describe());
        recorded.description = format!("{verb} {}", owner.target.description);
        recorded.target = Some(owner.target.description.clone());
        self.tokens[index] = Some(owner.target.token.clone());
        true
    }
}

//! Pointer steps: `click` (following the navigation or popup it causes), `hover` and `drag`.

use std::sync::{Arc, Mutex};

use browserflow_cdp::page::{DragError, Page};
use browserflow_steps::{ClickStep, DragStep, HoverStep, Selector};

use super::{Click, point_of};
use crate::failure::{Failure, FailureKind, Unactionable};
use crate::navigation::Follow;
use crate::resolve::Resolved;
use crate::run::{Outcome, Run};

/// How many moves a drag makes between its press and its release: enough for a page that
/// follows the pointer (a slider, a sortable list) to see it travel.
const DRAG_MOVES: u32 = 10;

/// A drag the engine could not carry out for a reason of its own (its calls' failures are
/// the browser's, classified as such).
fn drag_failure(error: &DragError) -> Failure {
    match error {
        DragError::Cdp(e) => Failure::cdp(e, format!("dragging failed: {e}")),
        DragError::Probe(e) => {
            Failure::eval(FailureKind::Browser, e, format!("dragging failed: {e}"))
        }
        DragError::DropRefused(_) => Failure::new(
            FailureKind::NotActionable(Unactionable::Refused),
            format!("dragging failed: {error}"),
        ),
        DragError::NotHandedOver(_) => Failure::new(
            FailureKind::NotActionable(Unactionable::InputNotDelivered),
            format!("dragging failed: {error}"),
        ),
    }
}

impl Run<'_> {
    pub(crate) async fn click(
        &mut self,
        page: &Page,
        s: &ClickStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let found = self
            .find_pointer_target(page, &s.selector, shown, s.offset, s.timeout_ms)
            .await?;
        let click = Click {
            button: s.button,
            count: s.click_count,
            hold: s.hold_ms.map(std::time::Duration::from_millis),
        };
        let follow = Follow {
            navigation: s.navigation.as_ref(),
            opens_popup: s.opens_popup.as_deref(),
        };
        let navigated_to = self.click_found(page, &found, click, follow).await?;
        Ok(Outcome {
            navigated_to,
            ..Outcome::found(found.winner)
        })
    }

    pub(crate) async fn hover(
        &mut self,
        page: &Page,
        s: &HoverStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let found = self
            .find_pointer_target(page, &s.selector, shown, s.offset, s.timeout_ms)
            .await?;
        let (x, y) = point_of(&found)?;
        page.mouse_move(x, y).await.map_err(|e| {
            Failure::cdp(&e, format!("moving the mouse failed: {e}")).with_winner(found.winner)
        })?;
        Ok(Outcome::found(found.winner))
    }

    /// Rests the pointer on the point found: a fill whose field the person clicked (their
    /// pointer stayed there while they typed), so that what opens under it is what opened
    /// under theirs, never what the replay's previous click left it over.
    pub(crate) async fn rest_pointer(&self, page: &Page, found: &Resolved) -> Result<(), Failure> {
        let (x, y) = point_of(found)?;
        page.mouse_move(x, y).await.map_err(|e| {
            Failure::cdp(&e, format!("moving the mouse failed: {e}")).with_winner(found.winner)
        })
    }

    /// Presses the step's element (at its offset), moves with the button held to the target
    /// element or by the recorded move, and releases there, with real pointer events; when
    /// the page makes it an HTML5 drag, the engine completes it with drag events and a drop
    /// there ([`Page::mouse_drag`]). The step does not say which: the page decides, as it did
    /// for the person.
    pub(crate) async fn drag(
        &mut self,
        page: &Page,
        s: &DragStep,
        shown: Option<&Selector>,
    ) -> Result<Outcome, Failure> {
        let found = self
            .find_pointer_target(page, &s.selector, shown, s.offset, s.timeout_ms)
            .await?;
        let from = point_of(&found)?;
        let to = match &s.target {
            Some(target) => {
                let dropped_on = self
                    .find_pointer_target(page, target, None, s.target_offset, s.timeout_ms)
                    .await
                    .map_err(|f| f.with_winner(found.winner))?;
                point_of(&dropped_on)?
            }
            None => (from.0 + s.by.x, from.1 + s.by.y),
        };
        // The drag's own failures (not the browser's calls) are kept here and told after the
        // navigation it may have caused was followed.
        let not_dragged: Arc<Mutex<Option<DragError>>> = Arc::default();
        let drag_page = page.clone();
        let frame_id = found.frame_id.clone();
        let failed = not_dragged.clone();
        let navigated_to = self
            .act_and_follow(page, None, Follow::NOTHING, || async move {
                match drag_page.mouse_drag(&frame_id, from, to, DRAG_MOVES).await {
                    Ok(outcome) => {
                        tracing::debug!(?outcome, "dragged");
                        Ok(())
                    }
                    Err(DragError::Cdp(error)) => Err(error),
                    Err(other) => {
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(other);
                        Ok(())
                    }
                }
            })
            .await
            .map_err(|f| f.with_winner(found.winner))?;
        if let Some(error) = not_dragged.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(drag_failure(&error).with_winner(found.winner));
        }
        Ok(Outcome {
            navigated_to,
            ..Outcome::found(found.winner)
        })
    }
}

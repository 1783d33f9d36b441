//! The steps' actions, one module per family; each module adds its steps' methods to
//! [`Run`]. Shared here: finding a step's element (with a failure that names every candidate
//! tried) and clicking at the point found.

mod files;
mod fill;
mod keys;
mod pages;
mod pointer;
mod reads;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use browserflow_cdp::page::{ExecContext, Page};
use browserflow_cdp::session::CdpError;
use browserflow_steps::{MouseButton, Offset, Selector};

pub(crate) use files::upload_paths;

use crate::checks::Watch;
use crate::failure::{Failure, FailureKind, Missing, Unactionable};
use crate::js;
use crate::navigation::Follow;
use crate::resolve::{
    ActionRequest, Requirements, ResolveFailure, ResolveRequest, Resolved, describe_frame, resolve,
};
use crate::run::Run;

/// Which button to click and how many times.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Click {
    pub(crate) button: MouseButton,
    pub(crate) count: u8,
}

impl Click {
    /// One click of the left button.
    pub(crate) const LEFT: Click = Click {
        button: MouseButton::Left,
        count: 1,
    };
}

impl Run<'_> {
    /// Resolves `selector` within the step's budget; `shown` is the selector as recorded,
    /// named in the failure.
    pub(crate) async fn find(
        &self,
        page: &Page,
        selector: &Selector,
        shown: Option<&Selector>,
        request: &ResolveRequest,
        timeout_ms: Option<u64>,
    ) -> Result<Resolved, Failure> {
        let budget = self.budget(timeout_ms);
        let watched;
        let request = match request {
            ResolveRequest::Action(action) if Watch::wanted(&self.watch) => {
                watched = ResolveRequest::Action(ActionRequest {
                    watch: true,
                    ..action.clone()
                });
                &watched
            }
            other => other,
        };
        let found = resolve(page, selector, request, budget)
            .await
            .map_err(|failure| explain(failure, shown.unwrap_or(selector), budget))?;
        if matches!(request, ResolveRequest::Action(a) if a.watch) {
            Watch::watched(&self.watch, found.world.clone());
        }
        Ok(found)
    }

    /// Finds the element of a pointer action (click, hover, a click that downloads or opens a
    /// file chooser): Playwright's full actionability, at `offset` or the centre.
    pub(crate) async fn find_pointer_target(
        &self,
        page: &Page,
        selector: &Selector,
        shown: Option<&Selector>,
        offset: Option<Offset>,
        timeout_ms: Option<u64>,
    ) -> Result<Resolved, Failure> {
        let request = ResolveRequest::Action(ActionRequest {
            offset,
            ..ActionRequest::new(Requirements::pointer())
        });
        self.find(page, selector, shown, &request, timeout_ms).await
    }

    /// Clicks at the point found and follows what the click caused (see
    /// [`Run::act_and_follow`]); an element in a child frame has that frame's navigation
    /// followed, and its click checked as delivered ([`click_child_frame`]).
    pub(crate) async fn click_found(
        &mut self,
        page: &Page,
        found: &Resolved,
        click: Click,
        follow: Follow<'_>,
    ) -> Result<Option<String>, Failure> {
        let (x, y) = point_of(found)?;
        let frame = (found.frame_id != page.target_id()).then_some(found.frame_id.as_str());
        let click_page = page.clone();
        let Some(frame_id) = frame else {
            return self
                .act_and_follow(page, None, follow, || async move {
                    click_page
                        .mouse_click(x, y, click.button, click.count, false)
                        .await
                })
                .await
                .map_err(|f| f.with_winner(found.winner));
        };
        let delivered = Arc::new(AtomicBool::new(true));
        let outcome = {
            let delivered = delivered.clone();
            let frame_id = frame_id.to_string();
            self.act_and_follow(page, frame, follow, || async move {
                let reached = click_child_frame(&click_page, &frame_id, (x, y), click).await?;
                delivered.store(reached, Ordering::SeqCst);
                Ok(())
            })
            .await
        };
        if !delivered.load(Ordering::SeqCst) {
            return Err(Failure::new(
                FailureKind::NotActionable(Unactionable::InputNotDelivered),
                format!(
                    "the click at ({x:.0}, {y:.0}) never reached the element's frame \
                     ({CHILD_FRAME_CLICK_ATTEMPTS} attempts): the browser routed it elsewhere"
                ),
            )
            .with_winner(found.winner));
        }
        outcome.map_err(|f| f.with_winner(found.winner))
    }
}

/// How many times a click into a child frame is sent before it counts as not delivered.
const CHILD_FRAME_CLICK_ATTEMPTS: u32 = 4;

/// Clicks an element of a child frame and checks the frame received the press. The browser
/// routes input to a frame's process by hit-testing its compositor data, which can lag behind
/// a frame that just loaded or moved on a busy machine: the press then lands in the parent
/// document and the click is silently lost. The frame's own count of trusted presses tells;
/// a click that did not arrive is sent again after two rendering frames, and the answer is
/// `Ok(false)` when none of the attempts arrived. Where the count cannot be read (the click
/// navigated the frame, or the frame went away), the click is taken as delivered: sending it
/// again could act twice.
async fn click_child_frame(
    page: &Page,
    frame_id: &str,
    (x, y): (f64, f64),
    click: Click,
) -> Result<bool, CdpError> {
    let count = |world: ExecContext| async move {
        page.evaluate(&world, js::PRESS_COUNT, false)
            .await
            .ok()
            .and_then(|v| v.as_u64())
    };
    let world = page.isolated_world(frame_id).await.ok();
    for attempt in 0..CHILD_FRAME_CLICK_ATTEMPTS {
        let before = match &world {
            Some(world) => count(world.clone()).await,
            None => None,
        };
        page.mouse_click(x, y, click.button, click.count, true)
            .await?;
        let (Some(world), Some(before)) = (&world, before) else {
            return Ok(true);
        };
        match count(world.clone()).await {
            Some(after) if after > before => return Ok(true),
            Some(_) => {
                tracing::debug!(
                    attempt,
                    frame_id,
                    "a click into a child frame did not arrive"
                );
                let _ = page.evaluate(world, js::NEXT_FRAMES, true).await;
                let _ = page.evaluate_in_main_frame(js::NEXT_FRAMES).await;
            }
            None => return Ok(true),
        }
    }
    Ok(false)
}

pub(crate) fn point_of(found: &Resolved) -> Result<(f64, f64), Failure> {
    found.point.ok_or_else(|| {
        Failure::new(
            FailureKind::NotActionable(Unactionable::NoActionPoint),
            "the element has no action point",
        )
        .with_winner(found.winner)
    })
}

/// A failure message that names every candidate tried and what each last looked like.
fn explain(failure: ResolveFailure, shown: &Selector, budget: Duration) -> Failure {
    let frame = shown
        .frame
        .as_ref()
        .map(|f| format!(" in {}", describe_frame(f)))
        .unwrap_or_default();
    match failure {
        ResolveFailure::Timeout {
            states,
            covered_outside_frame,
        } => {
            let mut message = format!(
                "no selector candidate was actionable{frame} within {} ms; tried:",
                budget.as_millis()
            );
            for (i, candidate) in shown.candidates.iter().enumerate() {
                let state = states.get(i).map(String::as_str).unwrap_or("not checked");
                message.push_str(&format!(
                    "\n  {}. {}: {}",
                    i + 1,
                    candidate.describe(),
                    state
                ));
            }
            let why = if covered_outside_frame {
                Unactionable::CoveredOutsideFrame
            } else {
                Unactionable::NoCandidateReady
            };
            Failure::new(FailureKind::NotActionable(why), message)
        }
        ResolveFailure::FrameNotFound { frame, seen } => {
            let seen = if seen.is_empty() {
                "the page has no frames".to_string()
            } else {
                format!("frames on the page: {}", seen.join("; "))
            };
            let candidates: Vec<String> = shown
                .candidates
                .iter()
                .enumerate()
                .map(|(i, c)| format!("\n  {}. {}: not tried", i + 1, c.describe()))
                .collect();
            Failure::new(
                FailureKind::NotFound(Missing::Frame),
                format!(
                    "no {frame} appeared within {} ms ({seen}); candidates:{}",
                    budget.as_millis(),
                    candidates.concat()
                ),
            )
        }
        ResolveFailure::Fatal {
            kind,
            winner,
            message,
        } => {
            let which = winner
                .and_then(|i| shown.candidates.get(i).map(|c| (i, c)))
                .map(|(i, c)| format!(" (candidate {}. {})", i + 1, c.describe()))
                .unwrap_or_default();
            Failure {
                kind,
                message: format!("{message}{which}"),
                winner,
            }
        }
    }
}

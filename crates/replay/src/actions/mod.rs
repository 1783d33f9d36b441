//! The steps' actions, one module per family; each module adds its steps' methods to
//! [`Run`]. Shared here: finding a step's element (with a failure that names every candidate
//! tried) and clicking at the point found.

mod files;
mod fill;
mod keys;
mod list;
mod pages;
mod paging;
mod pointer;
mod reads;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use browserflow_cdp::page::{ExecContext, FramePoint, Page};
use browserflow_cdp::session::CdpError;
use browserflow_steps::{MouseButton, Offset, Selector};
use serde::Deserialize;

pub(crate) use files::upload_paths;

use crate::checks::Watch;
use crate::failure::{Failure, FailureKind, Missing, Unactionable};
use crate::js;
use crate::navigation::Follow;
use crate::resolve::{
    ActionRequest, Requirements, ResolveFailure, ResolveRequest, Resolved, describe_frame, resolve,
};
use crate::run::Run;

/// Which button to click, how many times, and how long a long press holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Click {
    pub(crate) button: MouseButton,
    pub(crate) count: u8,
    pub(crate) hold: Option<Duration>,
}

impl Click {
    /// One click of the left button.
    pub(crate) const LEFT: Click = Click {
        button: MouseButton::Left,
        count: 1,
        hold: None,
    };

    /// The presses and releases, the pointer being at `x`, `y` already: one event at a time.
    async fn press_and_release(self, page: &Page, x: f64, y: f64) -> Result<(), CdpError> {
        match self.hold {
            Some(hold) => page.mouse_press_held(x, y, self.button, hold).await,
            None => {
                page.mouse_press_and_release(x, y, self.button, self.count)
                    .await
            }
        }
    }
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
    /// followed, and its click checked as delivered to the element itself
    /// ([`click_child_frame`]).
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
                    if click.hold.is_some() {
                        click_page.mouse_move(x, y).await?;
                        return click.press_and_release(&click_page, x, y).await;
                    }
                    click_page
                        .mouse_click(x, y, click.button, click.count)
                        .await
                })
                .await
                .map_err(|f| f.with_winner(found.winner));
        };
        let missed: Arc<Mutex<Option<(u32, String)>>> = Arc::default();
        let outcome = {
            let missed = missed.clone();
            let frame_id = frame_id.to_string();
            let world = found.world.clone();
            self.act_and_follow(page, frame, follow, || async move {
                let clicked = click_child_frame(&click_page, &frame_id, &world, (x, y), click);
                if let ChildFrameClick::Missed { attempts, last } = clicked.await? {
                    *missed.lock().unwrap_or_else(PoisonError::into_inner) = Some((attempts, last));
                }
                Ok(())
            })
            .await
        };
        let missed = missed.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some((attempts, last)) = missed {
            return Err(Failure::new(
                FailureKind::NotActionable(Unactionable::InputNotDelivered),
                format!(
                    "the click at ({x:.0}, {y:.0}) never reached the element in its frame \
                     ({attempts} attempt(s), none of which acted; the last: {last})"
                ),
            )
            .with_winner(found.winner));
        }
        outcome.map_err(|f| f.with_winner(found.winner))
    }
}

/// How many times a click into a child frame is tried before it counts as not delivered.
const CHILD_FRAME_CLICK_ATTEMPTS: u32 = 6;

/// What became of a click into a child frame.
enum ChildFrameClick {
    /// The element received the press (or the frame's document went away on it).
    Delivered,
    /// No attempt reached the element, and none acted; `last` says where the last one went.
    Missed { attempts: u32, last: String },
}

/// What arming the watch answered: the element's action point in its frame's viewport now.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArmedProbe {
    at: (f64, f64),
    in_view: bool,
}

/// Where a gesture watched by [`js::ARM_POINTER_PROBE`] landed in the element's frame.
#[derive(Debug, Deserialize)]
pub(crate) struct PointerProbe {
    /// The last move: `"target"`, another element described, or nothing seen.
    moved: Option<String>,
    /// The gesture's first press, the same way.
    pressed: Option<String>,
    /// How many of the gesture's events were stopped before the page saw them.
    stopped: u32,
}

/// Where one event of a watched gesture landed.
enum Landing {
    /// On the element or inside it.
    Target,
    /// On another element of the frame (described).
    Elsewhere(String),
    /// Nowhere in the frame: the browser routed it to another document.
    Outside,
}

impl Landing {
    fn of(seen: Option<String>) -> Self {
        match seen {
            Some(what) if what == "target" => Landing::Target,
            Some(what) => Landing::Elsewhere(what),
            None => Landing::Outside,
        }
    }
}

/// Clicks an element of a child frame and checks the element itself received the press
/// ([`click_child_frame_attempts`]), with every document around the frame guarded meanwhile
/// ([`js::ARM_ANCESTOR_GUARD`]): a press the browser routes to one of them is stopped there,
/// so a miss outside the frame acts nowhere either.
async fn click_child_frame(
    page: &Page,
    frame_id: &str,
    world: &ExecContext,
    first_point: (f64, f64),
    click: Click,
) -> Result<ChildFrameClick, CdpError> {
    let mut guarded = Vec::new();
    let mut ancestor = page.frame_state(frame_id).and_then(|f| f.parent);
    while let Some(id) = ancestor {
        if let Ok(around) = page.isolated_world(&id).await
            && page
                .evaluate(&around, js::ARM_ANCESTOR_GUARD, false)
                .await
                .is_ok()
        {
            guarded.push(around);
        }
        ancestor = page.frame_state(&id).and_then(|f| f.parent);
    }
    let clicked = click_child_frame_attempts(page, frame_id, world, first_point, click).await;
    for around in &guarded {
        let stopped = page.evaluate(around, js::TAKE_ANCESTOR_GUARD, false).await;
        if let Ok(stopped) = stopped
            && stopped.as_u64().is_some_and(|n| n > 0)
        {
            tracing::debug!(frame_id, %stopped, "stopped a click's events outside its frame");
        }
    }
    clicked
}

/// The attempts of [`click_child_frame`].
///
/// The browser routes input to a frame's process by hit-testing its compositor data, which
/// lags behind the page around the frame on a busy machine: right after that page scrolled
/// (a field of the frame was focused, the frame was scrolled into view) a point aimed at the
/// element lands tens of pixels off in the frame, or in the parent, and the click is silently
/// lost. So each attempt arms a watch on the element ([`js::ARM_POINTER_PROBE`]), moves the
/// pointer and presses only once the move landed on the element (the routing is current);
/// a press that still lands elsewhere in the frame is stopped before any page handler sees
/// it, and one that lands outside the frame is stopped by the guard around it. Only such
/// provably harmless misses are sent again, after two rendering frames, at the element's
/// point recomputed on the page;
/// once the press reached the element, or its frame's document went away on the click, the
/// click counts as delivered: sending it again could act twice.
async fn click_child_frame_attempts(
    page: &Page,
    frame_id: &str,
    world: &ExecContext,
    first_point: (f64, f64),
    click: Click,
) -> Result<ChildFrameClick, CdpError> {
    let probe = |snippet: &'static str| async move {
        let answer = page.evaluate(world, snippet, false).await.ok()?;
        serde_json::from_value::<Option<PointerProbe>>(answer)
            .ok()
            .flatten()
    };
    let mut at = first_point;
    let mut last = String::from("nothing was sent");
    for attempt in 0..CHILD_FRAME_CLICK_ATTEMPTS {
        if attempt > 0 {
            tracing::debug!(attempt, frame_id, last, "a click into a child frame missed");
            let _ = page.evaluate(world, js::NEXT_FRAMES, true).await;
            let _ = page.evaluate_in_main_frame(js::NEXT_FRAMES).await;
        }
        let armed = page.evaluate(world, js::ARM_POINTER_PROBE, false).await;
        let armed = armed.ok().and_then(|v| {
            serde_json::from_value::<Option<ArmedProbe>>(v)
                .ok()
                .flatten()
        });
        let Some(ArmedProbe { at: local, in_view }) = armed else {
            if attempt == 0 {
                // The element left its document before anything was sent: nothing to check
                // against, so the click goes where the element was found, as a person's would.
                page.mouse_move(at.0, at.1).await?;
                click.press_and_release(page, at.0, at.1).await?;
                return Ok(ChildFrameClick::Delivered);
            }
            last.push_str("; then the element left its document");
            return Ok(ChildFrameClick::Missed {
                attempts: attempt,
                last,
            });
        };
        if !in_view {
            last.push_str("; then the element moved out of its frame's view");
            let _ = probe(js::TAKE_POINTER_PROBE).await;
            return Ok(ChildFrameClick::Missed {
                attempts: attempt,
                last,
            });
        }
        if attempt > 0 {
            match page.frame_point(frame_id, local).await {
                Ok(FramePoint {
                    at: now,
                    covered_by: None,
                }) => at = now,
                Ok(FramePoint {
                    covered_by: Some(cover),
                    ..
                }) => {
                    last = format!("the frame was covered by {cover} in the page around it");
                    continue;
                }
                Err(e) => {
                    last.push_str(&format!("; then the frame could not be located: {e}"));
                    return Ok(ChildFrameClick::Missed {
                        attempts: attempt,
                        last,
                    });
                }
            }
        }
        page.mouse_move(at.0, at.1).await?;
        if let Some(PointerProbe { moved, .. }) = probe(js::READ_POINTER_PROBE).await
            && let Landing::Elsewhere(what) = Landing::of(moved)
        {
            last = format!("the pointer moved onto {what}, not the element");
            continue;
        }
        click.press_and_release(page, at.0, at.1).await?;
        let Some(taken) = probe(js::TAKE_POINTER_PROBE).await else {
            // The watch cannot be read: the click replaced the frame's document.
            return Ok(ChildFrameClick::Delivered);
        };
        last = match Landing::of(taken.pressed) {
            Landing::Target => return Ok(ChildFrameClick::Delivered),
            Landing::Elsewhere(what) => format!(
                "the press landed on {what} ({} events stopped before the page saw them)",
                taken.stopped
            ),
            Landing::Outside => {
                "the press never reached the frame (stopped outside it before the page saw it)"
                    .to_string()
            }
        };
    }
    // Disarmed, so that no later gesture in the frame is judged by this one's watch.
    let _ = probe(js::TAKE_POINTER_PROBE).await;
    Ok(ChildFrameClick::Missed {
        attempts: CHILD_FRAME_CLICK_ATTEMPTS,
        last,
    })
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
pub(crate) fn explain(failure: ResolveFailure, shown: &Selector, budget: Duration) -> Failure {
    let frame = shown
        .frame
        .as_ref()
        .map(|f| format!(" in {}", describe_frame(f)))
        .unwrap_or_default();
    match failure {
        ResolveFailure::Timeout {
            states,
            covered_outside_frame,
            last_read,
        } => {
            let mut message = match &last_read {
                Some(read) => format!(
                    "the value read never matched the recording{frame} within {} ms: \
                     actual {:?} (candidate {}); tried:",
                    budget.as_millis(),
                    read.value,
                    read.candidate + 1
                ),
                None => format!(
                    "no selector candidate was actionable{frame} within {} ms; tried:",
                    budget.as_millis()
                ),
            };
            for (i, candidate) in shown.candidates.iter().enumerate() {
                let state = states.get(i).map(String::as_str).unwrap_or("not checked");
                message.push_str(&format!(
                    "\n  {}. {}: {}",
                    i + 1,
                    candidate.describe(),
                    state
                ));
            }
            let kind = match (last_read, covered_outside_frame) {
                (Some(read), _) => {
                    return Failure::new(FailureKind::ReadMismatch, message)
                        .with_winner(read.candidate);
                }
                (None, true) => Unactionable::CoveredOutsideFrame,
                (None, false) => Unactionable::NoCandidateReady,
            };
            Failure::new(FailureKind::NotActionable(kind), message)
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

//! The steps' actions, one module per family; each module adds its steps' methods to
//! [`Run`]. Shared here: finding a step's element (with a failure that names every candidate
//! tried) and clicking at the point found.

mod files;
mod fill;
mod keys;
mod pages;
mod pointer;
mod reads;

use std::time::Duration;

use browserflow_cdp::page::Page;
use browserflow_steps::{MouseButton, Offset, Selector};

pub(crate) use files::upload_paths;

use crate::failure::{Failure, FailureKind, Missing, Unactionable};
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
        resolve(page, selector, request, budget)
            .await
            .map_err(|failure| explain(failure, shown.unwrap_or(selector), budget))
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
    /// followed.
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
        self.act_and_follow(page, frame, follow, || async move {
            click_page
                .mouse_click(x, y, click.button, click.count, frame.is_some())
                .await
        })
        .await
        .map_err(|f| f.with_winner(found.winner))
    }
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

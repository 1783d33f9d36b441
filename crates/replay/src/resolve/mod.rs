//! Finding the element of a step: frame lookup, then one injected function per document that
//! waits on animation frames until a candidate is actionable (or the budget is spent).

use std::time::Duration;

use tokio::time::Instant;

use browserflow_cdp::injected::RESOLVE_JS;
use browserflow_cdp::page::{EvalError, ExecContext, FramePoint, FrameState, Page};
use browserflow_steps::{FrameSelector, Reliance, Selector, glob_match};

use crate::failure::{Failure, FailureKind, Unactionable};
use crate::js;

mod protocol;

pub(crate) use protocol::{
    Act, ActionRequest, Control, ControlState, CountCondition, Expect, InPage, LastRead,
    ListAnswer, ListFieldSpec, ListProblem, ListProblemKind, ListSpec, Read, ReadShape,
    Requirements, ResolveRequest, WaitRequest,
};
use protocol::{ResolveAnswer, Spec};

/// Where the resolver function lives in the replayer's isolated world.
const RESOLVER: &str = "__browserflowResolve";

/// The script that installs the resolver in a world (see [`Page::prewarm_worlds`]).
pub(crate) fn resolver_install() -> String {
    format!("globalThis.{RESOLVER} = ({RESOLVE_JS});\nundefined")
}

/// The element that was found.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// Index of the winning candidate.
    pub winner: usize,
    /// The action point in main-frame viewport coordinates (for pointer actions).
    pub point: Option<(f64, f64)>,
    /// What the in-page action or read returned.
    pub in_page: Option<InPage>,
    /// The isolated world the element was found in (an `upload` keeps a handle on it there).
    pub world: ExecContext,
    /// The frame the element was found in.
    pub frame_id: String,
}

impl Resolved {
    /// The value a read request read (empty when it read nothing).
    pub(crate) fn read_value(&self) -> &str {
        match &self.in_page {
            Some(InPage::Read(value)) => value,
            _ => "",
        }
    }
}

/// Why no element was found.
#[derive(Debug, Clone)]
pub(crate) enum ResolveFailure {
    /// The budget ran out; the last state of every candidate, and whether the last element
    /// found was covered by an overlay outside its frame.
    Timeout {
        states: Vec<String>,
        covered_outside_frame: bool,
        /// A read's last value that was not consistent with what it waited for.
        last_read: Option<LastRead>,
    },
    /// The frame never appeared.
    FrameNotFound { frame: String, seen: Vec<String> },
    /// The resolver could not run, or a candidate matched but the action cannot be done (no
    /// such option, …).
    Fatal {
        kind: FailureKind,
        winner: Option<usize>,
        message: String,
    },
}

impl ResolveFailure {
    fn fatal(kind: FailureKind, message: impl Into<String>) -> Self {
        Self::Fatal {
            kind,
            winner: None,
            message: message.into(),
        }
    }

    fn eval(error: &EvalError, message: impl Into<String>) -> Self {
        let failure = Failure::eval(FailureKind::Browser, error, message);
        Self::fatal(failure.kind, failure.message)
    }
}

/// Resolves `selector` on `page` within `budget`. Survives navigations: when the document is
/// replaced mid-wait, the wait continues in the new document with the remaining budget.
pub(crate) async fn resolve(
    page: &Page,
    selector: &Selector,
    request: &ResolveRequest,
    budget: Duration,
) -> Result<Resolved, ResolveFailure> {
    let deadline = Instant::now() + budget;
    let mut last_states: Vec<String> = selector
        .candidates
        .iter()
        .map(|_| "not checked (the page never settled)".to_string())
        .collect();
    // The last candidate found covered by an overlay outside its frame, and how.
    let mut covered: Option<(usize, String)> = None;
    let timeout =
        |states: Vec<String>, covered: &Option<(usize, String)>| ResolveFailure::Timeout {
            states,
            covered_outside_frame: covered.is_some(),
            last_read: None,
        };
    loop {
        let frame_id = match &selector.frame {
            None => page.target_id().to_string(),
            Some(frame) => find_frame(page, frame, deadline).await?,
        };
        let remaining = deadline.saturating_duration_since(Instant::now());
        let mut changes = page.changes();
        let (world, fresh) = match page.utility_world(&frame_id).await {
            Ok(world) => world,
            Err(EvalError::Navigated) => {
                if !wait_change(&mut changes, deadline).await {
                    return Err(timeout(last_states, &covered));
                }
                continue;
            }
            Err(e) => return Err(ResolveFailure::eval(&e, e.to_string())),
        };
        // The resolver is installed once per document's world; later steps only send a spec.
        let spec = Spec {
            candidates: &selector.candidates,
            request,
            timeout_ms: remaining.as_millis() as u64,
            relies_on: selector.reliance().map(Reliance::as_str),
        };
        let spec_json = serde_json::to_string(&spec).map_err(|e| {
            ResolveFailure::fatal(FailureKind::InvalidStep, format!("unsendable spec: {e}"))
        })?;
        let expression = if fresh {
            format!("(globalThis.{RESOLVER} = ({RESOLVE_JS}))({spec_json})")
        } else {
            js::call(js::CALL_RESOLVER, &[&format!("{RESOLVER:?}"), &spec_json])
        };
        let Some(answer) = in_page(page, &world, &frame_id, &expression, remaining).await? else {
            // The document was replaced while we waited: keep waiting in the new one.
            if Instant::now() >= deadline {
                return Err(timeout(last_states, &covered));
            }
            continue;
        };
        let answer: ResolveAnswer = serde_json::from_value(answer).map_err(|e| {
            ResolveFailure::fatal(
                FailureKind::Browser,
                format!("unexpected answer from the resolver: {e}"),
            )
        })?;
        let (winner, point, result) = match answer {
            // A cached world whose resolver is gone (cannot happen unless the world was
            // replaced under the same document): start over with a fresh one.
            ResolveAnswer::ResolverMissing => {
                page.forget_world(&frame_id);
                continue;
            }
            ResolveAnswer::Refused { winner, message } => {
                return Err(ResolveFailure::Fatal {
                    kind: FailureKind::NotActionable(Unactionable::Refused),
                    winner,
                    message,
                });
            }
            ResolveAnswer::NotReady { states, last_read } => {
                last_states = states;
                // What covered the frame says more than what the frame's element did while
                // covered.
                if let Some((index, state)) = &covered
                    && let Some(slot) = last_states.get_mut(*index)
                {
                    slot.clone_from(state);
                }
                return Err(ResolveFailure::Timeout {
                    states: last_states,
                    covered_outside_frame: covered.is_some(),
                    last_read,
                });
            }
            ResolveAnswer::Found {
                winner,
                point,
                result,
            } => (winner, point, result),
        };
        let point = match point {
            None => None,
            Some(p) if frame_id == page.target_id() => Some((p.x, p.y)),
            Some(p) => match page.frame_point(&frame_id, (p.x, p.y)).await {
                // An overlay in a parent document would take the click: wait for it to go.
                Ok(FramePoint {
                    covered_by: Some(cover),
                    ..
                }) if request.requires_hit_test() => {
                    let state = format!(
                        "the frame's element is covered by {cover} in the page around the frame"
                    );
                    if let Some(slot) = last_states.get_mut(winner) {
                        slot.clone_from(&state);
                    }
                    covered = Some((winner, state));
                    if Instant::now() >= deadline {
                        return Err(timeout(last_states, &covered));
                    }
                    // Two animation frames of the main page, then look again.
                    let _ = page.evaluate_in_main_frame(js::NEXT_FRAMES).await;
                    continue;
                }
                Ok(FramePoint { at, .. }) => Some(at),
                Err(EvalError::Navigated) if Instant::now() < deadline => {
                    page.forget_all_worlds();
                    continue;
                }
                Err(e) => {
                    let failure = ResolveFailure::eval(
                        &e,
                        format!("could not locate the frame on the page: {e}"),
                    );
                    return Err(match failure {
                        ResolveFailure::Fatal { kind, message, .. } => ResolveFailure::Fatal {
                            kind,
                            winner: Some(winner),
                            message,
                        },
                        other => other,
                    });
                }
            },
        };
        return Ok(Resolved {
            winner,
            point,
            in_page: result,
            world,
            frame_id,
        });
    }
}

/// Reads the list of `spec` in the frame `frame` names (the main frame when `None`) within
/// `budget`: the in-page reader (`list.ts`) waits until the rows are consistent with the
/// recording and hold still, or answers why not. Survives navigations like [`resolve`].
pub(crate) async fn read_list(
    page: &Page,
    frame: Option<&FrameSelector>,
    mut spec: ListSpec<'_>,
    budget: Duration,
) -> Result<ListAnswer, ResolveFailure> {
    let deadline = Instant::now() + budget;
    loop {
        let frame_id = match frame {
            None => page.target_id().to_string(),
            Some(frame) => find_frame(page, frame, deadline).await?,
        };
        let remaining = deadline.saturating_duration_since(Instant::now());
        let mut changes = page.changes();
        let (world, fresh) = match page.utility_world(&frame_id).await {
            Ok(world) => world,
            Err(EvalError::Navigated) => {
                if !wait_change(&mut changes, deadline).await {
                    return Ok(ListAnswer::NotReady {
                        states: vec!["the page never settled".into()],
                        problem: None,
                        unchanged: false,
                        control: None,
                    });
                }
                continue;
            }
            Err(e) => return Err(ResolveFailure::eval(&e, e.to_string())),
        };
        spec.timeout_ms = remaining.as_millis() as u64;
        let spec_json = serde_json::to_string(&spec).map_err(|e| {
            ResolveFailure::fatal(FailureKind::InvalidStep, format!("unsendable spec: {e}"))
        })?;
        let expression = if fresh {
            format!("(globalThis.{RESOLVER} = ({RESOLVE_JS})).list.extract({spec_json})")
        } else {
            js::call(js::CALL_LIST, &[&format!("{RESOLVER:?}"), &spec_json])
        };
        let Some(value) = in_page(page, &world, &frame_id, &expression, remaining).await? else {
            if Instant::now() >= deadline {
                return Ok(ListAnswer::NotReady {
                    states: vec!["the page kept navigating".into()],
                    problem: None,
                    unchanged: false,
                    control: None,
                });
            }
            continue;
        };
        let answer: ListAnswer = serde_json::from_value(value).map_err(|e| {
            ResolveFailure::fatal(
                FailureKind::Browser,
                format!("unexpected answer from the list reader: {e}"),
            )
        })?;
        if let ListAnswer::ResolverMissing { .. } = answer {
            page.forget_world(&frame_id);
            continue;
        }
        return Ok(answer);
    }
}

/// Evaluates a call of the in-page resolver (installing it first in a fresh world, as the
/// caller wrote `expression`) in `world` of frame `frame_id` and returns its value; `None`
/// when the document was replaced while it waited (the world is forgotten: the caller waits
/// in the new one). The in-page wait ends by itself within `remaining`; the margin only
/// guards against a renderer that stopped answering.
async fn in_page(
    page: &Page,
    world: &ExecContext,
    frame_id: &str,
    expression: &str,
    remaining: Duration,
) -> Result<Option<serde_json::Value>, ResolveFailure> {
    let answer = tokio::time::timeout(
        remaining + Duration::from_secs(2),
        page.evaluate(world, expression, true),
    )
    .await;
    match answer {
        Err(_) => Err(ResolveFailure::fatal(
            FailureKind::Browser,
            "the page stopped responding",
        )),
        Ok(Err(EvalError::Navigated)) => {
            page.forget_world(frame_id);
            Ok(None)
        }
        Ok(Err(e)) => Err(ResolveFailure::eval(&e, e.to_string())),
        Ok(Ok(value)) => Ok(Some(value)),
    }
}

/// Waits until exactly one frame of the page matches `frame`.
async fn find_frame(
    page: &Page,
    frame: &FrameSelector,
    deadline: Instant,
) -> Result<String, ResolveFailure> {
    let mut changes = page.changes();
    loop {
        let frames = page.frames();
        let by_path = frame
            .index_path
            .as_ref()
            .map(|path| frame_at_path(&frames, page.target_id(), path));
        let matching: Vec<&String> = frames
            .iter()
            .filter(|(id, f)| {
                frame.url.as_ref().is_none_or(|u| glob_match(u, &f.url))
                    && frame.name.as_ref().is_none_or(|n| *n == f.name)
                    && by_path
                        .as_ref()
                        .is_none_or(|found| found.as_deref() == Some(id.as_str()))
            })
            .map(|(id, _)| id)
            .collect();
        if let [only] = matching.as_slice() {
            return Ok((*only).clone());
        }
        if !wait_change(&mut changes, deadline).await {
            let mut seen: Vec<String> = frames
                .iter()
                .filter(|(_, f)| f.parent.is_some())
                .map(|(_, f)| format!("name {:?} url {:?}", f.name, f.url))
                .collect();
            seen.sort();
            return Err(ResolveFailure::FrameNotFound {
                frame: describe_frame(frame),
                seen,
            });
        }
    }
}

/// The frame at a child-index path from the main frame (`root`), siblings in attach order.
fn frame_at_path(frames: &[(String, FrameState)], root: &str, path: &[u32]) -> Option<String> {
    let mut current = root.to_string();
    for &index in path {
        let mut children: Vec<&(String, FrameState)> = frames
            .iter()
            .filter(|(_, f)| f.parent.as_deref() == Some(current.as_str()))
            .collect();
        children.sort_by_key(|(_, f)| f.seq);
        current = children.get(index as usize)?.0.clone();
    }
    Some(current)
}

pub(crate) fn describe_frame(frame: &FrameSelector) -> String {
    let mut parts = Vec::new();
    if let Some(n) = &frame.name {
        parts.push(format!("name {n:?}"));
    }
    if let Some(u) = &frame.url {
        parts.push(format!("url {u:?}"));
    }
    if let Some(path) = &frame.index_path {
        parts.push(format!("index path {path:?}"));
    }
    if parts.is_empty() {
        "frame".to_string()
    } else {
        format!("frame {}", parts.join(" "))
    }
}

/// Waits for any page event until `deadline`; false when the deadline passed.
pub(crate) async fn wait_change(
    changes: &mut tokio::sync::watch::Receiver<u64>,
    deadline: Instant,
) -> bool {
    matches!(
        tokio::time::timeout_at(deadline, changes.changed()).await,
        Ok(Ok(()))
    )
}

//! Finding the element of a step: frame lookup, then one injected function per document that
//! waits on animation frames until a candidate is actionable (or the budget is spent).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use browserflow_cdp::page::{EvalError, ExecContext, FramePoint, FrameState, Page};
use browserflow_steps::{FrameSelector, Offset, Selector};

use browserflow_steps::glob_match;

use browserflow_cdp::injected::RESOLVE_JS;

/// Where the resolver function lives in the replayer's isolated world.
const RESOLVER: &str = "__browserflowResolve";

/// The script that installs the resolver in a world (see [`Page::prewarm_worlds`]).
pub(crate) fn resolver_install() -> String {
    format!("globalThis.{RESOLVER} = ({RESOLVE_JS});\nundefined")
}

/// What the element must be before the step acts on it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Requirements {
    pub visible: bool,
    pub enabled: bool,
    pub editable: bool,
    pub stable: bool,
    pub hit_test: bool,
    pub scroll: bool,
}

impl Requirements {
    /// Click and hover: Playwright's full actionability.
    pub(crate) fn pointer() -> Self {
        Self {
            visible: true,
            enabled: true,
            editable: false,
            stable: true,
            hit_test: true,
            scroll: true,
        }
    }

    /// Fill: visible, enabled, editable and stable (focus is programmatic: no hit test).
    pub(crate) fn fill() -> Self {
        Self {
            visible: true,
            enabled: true,
            editable: true,
            stable: true,
            hit_test: false,
            scroll: true,
        }
    }

    /// Focus for a key press.
    pub(crate) fn focus() -> Self {
        Self {
            visible: true,
            enabled: true,
            stable: true,
            scroll: true,
            ..Self::default()
        }
    }
}

/// The JSON spec handed to the injected resolver, minus candidates and timeout.
#[derive(Debug, Clone, Default)]
pub(crate) struct ResolveSpec {
    /// `action` (exactly one element, actionable) or `wait` (a count condition).
    pub mode: &'static str,
    pub require: Requirements,
    pub offset: Option<Offset>,
    pub count: Option<Value>,
    pub visible: Option<bool>,
    pub properties: Option<Value>,
    pub read: Option<Value>,
    pub expect: Option<Value>,
    pub act: Option<Value>,
}

impl ResolveSpec {
    pub(crate) fn action(require: Requirements) -> Self {
        Self {
            mode: "action",
            require,
            ..Self::default()
        }
    }
}

/// The element that was found.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// Index of the winning candidate.
    pub winner: usize,
    /// The action point in main-frame viewport coordinates (for pointer actions).
    pub point: Option<(f64, f64)>,
    /// What the in-page action or read returned.
    pub result: Value,
    /// The isolated world the element was found in (an `upload` keeps a handle on it there).
    pub world: ExecContext,
    /// The frame the element was found in.
    pub frame_id: String,
}

/// Why no element was found.
#[derive(Debug, Clone)]
pub(crate) enum ResolveFailure {
    /// The budget ran out; the last state of every candidate.
    Timeout { states: Vec<String> },
    /// The frame never appeared.
    FrameNotFound { frame: String, seen: Vec<String> },
    /// A candidate matched but the action cannot be done (no such option, …).
    Fatal {
        winner: Option<usize>,
        message: String,
    },
}

#[derive(Deserialize)]
struct JsOutcome {
    ok: bool,
    #[serde(default)]
    winner: Option<usize>,
    #[serde(default)]
    point: Option<JsPoint>,
    #[serde(default)]
    result: Value,
    #[serde(default)]
    states: Vec<String>,
    #[serde(default)]
    fatal: Option<String>,
}

#[derive(Deserialize)]
struct JsPoint {
    x: f64,
    y: f64,
}

/// Resolves `selector` on `page` within `budget`. Survives navigations: when the document is
/// replaced mid-wait, the wait continues in the new document with the remaining budget.
pub(crate) async fn resolve(
    page: &Page,
    selector: &Selector,
    spec: &ResolveSpec,
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
                    return Err(ResolveFailure::Timeout {
                        states: last_states,
                    });
                }
                continue;
            }
            Err(e) => {
                return Err(ResolveFailure::Fatal {
                    winner: None,
                    message: e.to_string(),
                });
            }
        };
        // The resolver is installed once per document's world; later steps only send a spec.
        let spec_json = js_spec(selector, spec, remaining);
        let expression = if fresh {
            format!("(globalThis.{RESOLVER} = ({RESOLVE_JS}))({spec_json})")
        } else {
            format!("globalThis.{RESOLVER}({spec_json})")
        };
        // The in-page wait ends by itself at the deadline; the margin only guards against a
        // renderer that stopped answering.
        let answer = tokio::time::timeout(
            remaining + Duration::from_secs(2),
            page.evaluate(&world, &expression, true),
        )
        .await;
        let outcome = match answer {
            Err(_) => {
                return Err(ResolveFailure::Fatal {
                    winner: None,
                    message: "the page stopped responding".into(),
                });
            }
            Ok(Err(EvalError::Navigated)) => {
                // The document was replaced while we waited: keep waiting in the new one.
                page.forget_world(&frame_id);
                if Instant::now() >= deadline {
                    return Err(ResolveFailure::Timeout {
                        states: last_states,
                    });
                }
                continue;
            }
            // A cached world whose resolver is gone (cannot happen unless the world was
            // replaced under the same document): start over with a fresh one.
            Ok(Err(EvalError::Exception(e))) if !fresh && e.contains(RESOLVER) => {
                page.forget_world(&frame_id);
                continue;
            }
            Ok(Err(e)) => {
                return Err(ResolveFailure::Fatal {
                    winner: None,
                    message: e.to_string(),
                });
            }
            Ok(Ok(value)) => value,
        };
        let outcome: JsOutcome =
            serde_json::from_value(outcome).map_err(|e| ResolveFailure::Fatal {
                winner: None,
                message: format!("unexpected answer from the resolver: {e}"),
            })?;
        if let Some(message) = outcome.fatal {
            return Err(ResolveFailure::Fatal {
                winner: outcome.winner,
                message,
            });
        }
        if !outcome.ok {
            last_states = outcome.states;
            // What covered the frame says more than what the frame's element did while covered.
            if let Some((index, state)) = covered
                && let Some(slot) = last_states.get_mut(index)
            {
                *slot = state;
            }
            return Err(ResolveFailure::Timeout {
                states: last_states,
            });
        }
        let winner = outcome.winner.unwrap_or_default();
        let point = match outcome.point {
            None => None,
            Some(p) if frame_id == page.target_id() => Some((p.x, p.y)),
            Some(p) => match page.frame_point(&frame_id, (p.x, p.y)).await {
                // An overlay in a parent document would take the click: wait for it to go.
                Ok(FramePoint {
                    covered_by: Some(cover),
                    ..
                }) if spec.require.hit_test => {
                    let state = format!(
                        "the frame's element is covered by {cover} in the page around the frame"
                    );
                    if let Some(slot) = last_states.get_mut(winner) {
                        slot.clone_from(&state);
                    }
                    covered = Some((winner, state));
                    if Instant::now() >= deadline {
                        return Err(ResolveFailure::Timeout {
                            states: last_states,
                        });
                    }
                    // Two animation frames of the main page, then look again.
                    let _ = page.evaluate_in_main_frame(NEXT_FRAMES_JS).await;
                    continue;
                }
                Ok(FramePoint { at, .. }) => Some(at),
                Err(EvalError::Navigated) if Instant::now() < deadline => {
                    page.forget_all_worlds();
                    continue;
                }
                Err(e) => {
                    return Err(ResolveFailure::Fatal {
                        winner: Some(winner),
                        message: format!("could not locate the frame on the page: {e}"),
                    });
                }
            },
        };
        return Ok(Resolved {
            winner,
            point,
            result: outcome.result,
            world,
            frame_id,
        });
    }
}

fn js_spec(selector: &Selector, spec: &ResolveSpec, remaining: Duration) -> Value {
    let r = spec.require;
    json!({
        "candidates": selector.candidates,
        "mode": spec.mode,
        "require": {
            "visible": r.visible, "enabled": r.enabled, "editable": r.editable,
            "stable": r.stable, "hitTest": r.hit_test, "scroll": r.scroll,
        },
        "offset": spec.offset.map(|o| json!({ "x": o.x, "y": o.y })),
        "count": spec.count,
        "visible": spec.visible,
        "properties": spec.properties,
        "read": spec.read,
        "expect": spec.expect,
        "act": spec.act,
        "timeoutMs": remaining.as_millis() as u64,
    })
}

/// Resolves after two animation frames of the page it runs in.
const NEXT_FRAMES_JS: &str = "new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))";

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

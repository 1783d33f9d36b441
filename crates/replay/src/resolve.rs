//! Finding the element of a step: frame lookup, then one injected function per document that
//! waits on animation frames until a candidate is actionable (or the budget is spent).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::time::Instant;

use browserflow_cdp::injected::RESOLVE_JS;
use browserflow_cdp::page::{EvalError, ExecContext, FramePoint, FrameState, Page};
use browserflow_steps::{FrameSelector, Offset, Selector, SelectorCandidate, glob_match};

use crate::failure::{Failure, FailureKind, Unactionable};
use crate::js;

/// Where the resolver function lives in the replayer's isolated world.
const RESOLVER: &str = "__browserflowResolve";

/// The script that installs the resolver in a world (see [`Page::prewarm_worlds`]).
pub(crate) fn resolver_install() -> String {
    format!("globalThis.{RESOLVER} = ({RESOLVE_JS});\nundefined")
}

/// What the element must be before the step acts on it.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
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

    /// Only visible (an assertion that the element is shown).
    pub(crate) fn visible() -> Self {
        Self {
            visible: true,
            ..Self::default()
        }
    }
}

/// What the injected resolver is asked to do; the resolver's `spec` minus candidates and
/// budget (see `resolve.js`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub(crate) enum ResolveRequest {
    /// Exactly one element that meets the requirements, then read, checked or acted on.
    Action(ActionRequest),
    /// A condition on how many elements match.
    Wait(WaitRequest),
}

impl ResolveRequest {
    /// An action request with nothing but requirements.
    pub(crate) fn action(require: Requirements) -> Self {
        Self::Action(ActionRequest::new(require))
    }

    /// An element that meets `require`, then `act` done on it in the page.
    pub(crate) fn act(require: Requirements, act: Act) -> Self {
        Self::Action(ActionRequest {
            act: Some(act),
            ..ActionRequest::new(require)
        })
    }

    /// An element's value read (and checked against `expect`, waiting until it holds).
    pub(crate) fn read(read: Read, expect: Option<Expect>) -> Self {
        Self::Action(ActionRequest {
            read: Some(read),
            expect,
            ..ActionRequest::default()
        })
    }

    fn requires_hit_test(&self) -> bool {
        matches!(self, Self::Action(a) if a.require.hit_test)
    }
}

/// [`ResolveRequest::Action`].
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ActionRequest {
    pub require: Requirements,
    /// The action point relative to the element's top-left corner (default: its centre).
    pub offset: Option<Offset>,
    pub read: Option<Read>,
    pub expect: Option<Expect>,
    pub act: Option<Act>,
}

impl ActionRequest {
    pub(crate) fn new(require: Requirements) -> Self {
        Self {
            require,
            ..Self::default()
        }
    }
}

/// [`ResolveRequest::Wait`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WaitRequest {
    /// How many must match (default: at least one).
    pub count: Option<CountCondition>,
    /// Count only visible (`true`) or wait until none is visible (`false`).
    pub visible: Option<bool>,
    /// DOM properties every counted element must have.
    pub properties: Option<Map<String, Value>>,
}

/// A count of matches compared with `op` (`==`, `>=`, `<=`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CountCondition {
    pub op: &'static str,
    pub value: u32,
}

/// What to read from the element.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Read {
    /// `text`, `value` or `attribute`.
    pub from: &'static str,
    pub attribute: Option<String>,
    /// Wait until the value read is not empty.
    pub non_empty: bool,
}

impl Read {
    /// The value as it is, empty or not.
    pub(crate) fn from(from: &'static str) -> Self {
        Self {
            from,
            attribute: None,
            non_empty: false,
        }
    }
}

/// What the value read must be.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Expect {
    Equals(String),
    Contains(String),
}

/// What to do to the element in the page, in the same task as the checks.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Act {
    /// Select the option, set the value, or select the text for typing to replace.
    Fill {
        value: String,
    },
    Focus,
    Scroll {
        x: f64,
        y: f64,
    },
    /// Check a file input (kept for the upload) or report that it is not one.
    Upload {
        count: usize,
    },
}

/// The whole spec the resolver receives.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Spec<'a> {
    candidates: &'a [SelectorCandidate],
    #[serde(flatten)]
    request: &'a ResolveRequest,
    timeout_ms: u64,
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

/// What the in-page action or read answered, as `resolve.js` sends it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum InPage {
    /// The value a read request read.
    Read(String),
    /// A fill selected the text; the value is to be typed with real key input (`{type}`).
    TypeText {
        #[serde(rename = "type")]
        type_text: bool,
    },
    /// An upload probe: whether the element is a file input (`{fileInput}`).
    FileInput {
        #[serde(rename = "fileInput")]
        file_input: bool,
    },
    /// The action was done in the page (`{done}`).
    Done { done: bool },
}

/// Why no element was found.
#[derive(Debug, Clone)]
pub(crate) enum ResolveFailure {
    /// The budget ran out; the last state of every candidate, and whether the last element
    /// found was covered by an overlay outside its frame.
    Timeout {
        states: Vec<String>,
        covered_outside_frame: bool,
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

/// The resolver's answer, as `resolve.js` sends it (`ok` tells which shape it is).
#[derive(Deserialize)]
struct RawAnswer {
    ok: bool,
    #[serde(default)]
    winner: Option<usize>,
    #[serde(default)]
    point: Option<JsPoint>,
    #[serde(default)]
    result: Option<InPage>,
    #[serde(default)]
    states: Vec<String>,
    #[serde(default)]
    fatal: Option<String>,
    /// Set by [`js::CALL_RESOLVER`], not by the resolver.
    #[serde(default, rename = "resolverMissing")]
    resolver_missing: bool,
}

#[derive(Deserialize)]
struct JsPoint {
    x: f64,
    y: f64,
}

/// The resolver's answer.
#[derive(Deserialize)]
#[serde(from = "RawAnswer")]
enum ResolveAnswer {
    /// A candidate won (and the action, if any, was done).
    Found {
        winner: usize,
        point: Option<JsPoint>,
        result: Option<InPage>,
    },
    /// A candidate matched, but the in-page action refused it.
    Refused {
        winner: Option<usize>,
        message: String,
    },
    /// The budget ran out: each candidate's last state.
    NotReady { states: Vec<String> },
    /// The world has no resolver installed.
    ResolverMissing,
}

impl From<RawAnswer> for ResolveAnswer {
    fn from(raw: RawAnswer) -> Self {
        if raw.resolver_missing {
            return Self::ResolverMissing;
        }
        match (raw.fatal, raw.ok) {
            (Some(message), _) => Self::Refused {
                winner: raw.winner,
                message,
            },
            (None, true) => Self::Found {
                winner: raw.winner.unwrap_or_default(),
                point: raw.point,
                result: raw.result,
            },
            (None, false) => Self::NotReady { states: raw.states },
        }
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
        };
        let spec_json = serde_json::to_string(&spec).map_err(|e| {
            ResolveFailure::fatal(FailureKind::InvalidStep, format!("unsendable spec: {e}"))
        })?;
        let expression = if fresh {
            format!("(globalThis.{RESOLVER} = ({RESOLVE_JS}))({spec_json})")
        } else {
            js::call(js::CALL_RESOLVER, &[&format!("{RESOLVER:?}"), &spec_json])
        };
        // The in-page wait ends by itself at the deadline; the margin only guards against a
        // renderer that stopped answering.
        let answer = tokio::time::timeout(
            remaining + Duration::from_secs(2),
            page.evaluate(&world, &expression, true),
        )
        .await;
        let answer = match answer {
            Err(_) => {
                return Err(ResolveFailure::fatal(
                    FailureKind::Browser,
                    "the page stopped responding",
                ));
            }
            Ok(Err(EvalError::Navigated)) => {
                // The document was replaced while we waited: keep waiting in the new one.
                page.forget_world(&frame_id);
                if Instant::now() >= deadline {
                    return Err(timeout(last_states, &covered));
                }
                continue;
            }
            Ok(Err(e)) => return Err(ResolveFailure::eval(&e, e.to_string())),
            Ok(Ok(value)) => value,
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
            ResolveAnswer::NotReady { states } => {
                last_states = states;
                // What covered the frame says more than what the frame's element did while
                // covered.
                if let Some((index, state)) = &covered
                    && let Some(slot) = last_states.get_mut(*index)
                {
                    slot.clone_from(state);
                }
                return Err(timeout(last_states, &covered));
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn spec_json(request: &ResolveRequest) -> Value {
        let candidates: Vec<SelectorCandidate> =
            serde_json::from_value(json!([{ "kind": "css", "value": "#go" }])).unwrap();
        serde_json::to_value(Spec {
            candidates: &candidates,
            request,
            timeout_ms: 250,
        })
        .unwrap()
    }

    #[test]
    fn an_action_request_is_the_spec_resolve_js_reads() {
        let request = ResolveRequest::Action(ActionRequest {
            offset: Some(Offset { x: 1.0, y: 2.0 }),
            act: Some(Act::Fill { value: "a".into() }),
            read: Some(Read::from("text")),
            expect: Some(Expect::Contains("b".into())),
            ..ActionRequest::new(Requirements::pointer())
        });
        assert_eq!(
            spec_json(&request),
            json!({
                "candidates": [{ "kind": "css", "value": "#go" }],
                "mode": "action",
                "require": { "visible": true, "enabled": true, "editable": false,
                    "stable": true, "hitTest": true, "scroll": true },
                "offset": { "x": 1.0, "y": 2.0 },
                "read": { "from": "text", "attribute": null, "nonEmpty": false },
                "expect": { "contains": "b" },
                "act": { "kind": "fill", "value": "a" },
                "timeoutMs": 250,
            })
        );
        let scroll = ResolveRequest::Action(ActionRequest {
            act: Some(Act::Scroll { x: 0.0, y: 9.0 }),
            ..ActionRequest::default()
        });
        assert_eq!(
            spec_json(&scroll)["act"],
            json!({ "kind": "scroll", "x": 0.0, "y": 9.0 })
        );
        let focus = ResolveRequest::Action(ActionRequest {
            act: Some(Act::Focus),
            ..ActionRequest::default()
        });
        assert_eq!(spec_json(&focus)["act"], json!({ "kind": "focus" }));
        let upload = ResolveRequest::Action(ActionRequest {
            act: Some(Act::Upload { count: 2 }),
            ..ActionRequest::default()
        });
        assert_eq!(
            spec_json(&upload)["act"],
            json!({ "kind": "upload", "count": 2 })
        );
    }

    #[test]
    fn a_wait_request_is_the_spec_resolve_js_reads() {
        let request = ResolveRequest::Wait(WaitRequest {
            count: Some(CountCondition { op: ">=", value: 3 }),
            visible: Some(false),
            properties: None,
        });
        assert_eq!(
            spec_json(&request),
            json!({
                "candidates": [{ "kind": "css", "value": "#go" }],
                "mode": "wait",
                "count": { "op": ">=", "value": 3 },
                "visible": false,
                "properties": null,
                "timeoutMs": 250,
            })
        );
    }

    fn answer(value: Value) -> ResolveAnswer {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn every_answer_of_resolve_js_is_understood() {
        let found = answer(
            json!({ "ok": true, "winner": 1, "point": { "x": 3, "y": 4 },
            "result": { "type": true } }),
        );
        assert!(
            matches!(found, ResolveAnswer::Found { winner: 1, point: Some(JsPoint { x, y }),
            result: Some(InPage::TypeText { type_text: true }) } if x == 3.0 && y == 4.0)
        );
        let read = answer(json!({ "ok": true, "winner": 0, "result": "9.99" }));
        assert!(
            matches!(read, ResolveAnswer::Found { result: Some(InPage::Read(v)), .. } if v == "9.99")
        );
        let file = answer(json!({ "ok": true, "winner": 0, "result": { "fileInput": false } }));
        assert!(matches!(
            file,
            ResolveAnswer::Found {
                result: Some(InPage::FileInput { file_input: false }),
                ..
            }
        ));
        let done = answer(
            json!({ "ok": true, "winner": 0, "point": { "x": 0, "y": 0 },
            "result": { "done": true } }),
        );
        assert!(matches!(
            done,
            ResolveAnswer::Found {
                result: Some(InPage::Done { done: true }),
                ..
            }
        ));
        let nothing = answer(
            json!({ "ok": true, "winner": 0, "point": { "x": 0, "y": 0 },
            "result": null }),
        );
        assert!(matches!(nothing, ResolveAnswer::Found { result: None, .. }));
        let counted = answer(json!({ "ok": true, "winner": 2, "count": 5 }));
        assert!(matches!(
            counted,
            ResolveAnswer::Found {
                winner: 2,
                point: None,
                result: None
            }
        ));
        let refused = answer(json!({ "ok": false, "fatal": "no option `x`", "winner": 0,
            "states": ["not checked"] }));
        assert!(
            matches!(refused, ResolveAnswer::Refused { winner: Some(0), message } if message == "no option `x`")
        );
        let not_ready = answer(json!({ "ok": false, "states": ["matched no element"] }));
        assert!(matches!(not_ready, ResolveAnswer::NotReady { states } if states.len() == 1));
        let missing = answer(json!({ "ok": false, "resolverMissing": true }));
        assert!(matches!(missing, ResolveAnswer::ResolverMissing));
    }
}

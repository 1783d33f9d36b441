//! The protocol of the injected resolver (`browserflow_cdp::injected::RESOLVE_JS`): what it
//! is asked ([`ResolveRequest`], sent inside [`Spec`]) and what it answers
//! ([`ResolveAnswer`], [`InPage`]), as serde types with the exact JSON shapes `resolve.ts`
//! reads and writes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use browserflow_steps::{ElementIdentity, Offset, SelectorCandidate, TextShape};

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
/// budget (see `resolve.ts`).
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

    pub(super) fn requires_hit_test(&self) -> bool {
        matches!(self, Self::Action(a) if a.require.hit_test)
    }
}

/// [`ResolveRequest::Action`].
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ActionRequest {
    /// The step has post-state checks: snapshot the element's states before acting.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub watch: bool,
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
    /// Wait until the value read has this shape (and no `aria-busy` is around it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<ReadShape>,
    /// Take a candidate below the first only when its element has this identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity: Option<ElementIdentity>,
}

/// The shape a read waits for: a recorded [`TextShape`], or — for a typed field of a tool that
/// recorded none — a figure (`digits`), so that no placeholder ("—", "Loading…") is taken for
/// a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ReadShape {
    Empty,
    Symbols,
    Text,
    Number,
    Amount,
    Date,
    Digits,
}

impl From<TextShape> for ReadShape {
    fn from(shape: TextShape) -> Self {
        match shape {
            TextShape::Empty => ReadShape::Empty,
            TextShape::Symbols => ReadShape::Symbols,
            TextShape::Text => ReadShape::Text,
            TextShape::Number => ReadShape::Number,
            TextShape::Amount => ReadShape::Amount,
            TextShape::Date => ReadShape::Date,
        }
    }
}

/// The last value a read found that was not consistent with what it waited for, and which
/// candidate found it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct LastRead {
    pub candidate: usize,
    pub value: String,
}

impl Read {
    /// The value as it is, empty or not.
    pub(crate) fn from(from: &'static str) -> Self {
        Self {
            from,
            attribute: None,
            non_empty: false,
            shape: None,
            identity: None,
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
pub(super) struct Spec<'a> {
    pub(super) candidates: &'a [SelectorCandidate],
    #[serde(flatten)]
    pub(super) request: &'a ResolveRequest,
    pub(super) timeout_ms: u64,
    /// For an element of a repeating structure: what the step relies on (`content` or
    /// `position`; see `resolve.ts`'s `relianceRule`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) relies_on: Option<&'static str>,
}

/// What the in-page action or read answered, as `resolve.ts` sends it.
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

/// The resolver's answer, as `resolve.ts` sends it (`ok` tells which shape it is).
#[derive(Deserialize)]
pub(super) struct RawAnswer {
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
    #[serde(default, rename = "lastRead")]
    last_read: Option<LastRead>,
    /// Set by [`crate::js::CALL_RESOLVER`], not by the resolver.
    #[serde(default, rename = "resolverMissing")]
    resolver_missing: bool,
}

#[derive(Deserialize)]
pub(super) struct JsPoint {
    pub(super) x: f64,
    pub(super) y: f64,
}

/// The resolver's answer.
#[derive(Deserialize)]
#[serde(from = "RawAnswer")]
pub(super) enum ResolveAnswer {
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
    /// The budget ran out: each candidate's last state, and the last value read that was
    /// not consistent with the read's expectations.
    NotReady {
        states: Vec<String>,
        last_read: Option<LastRead>,
    },
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
            (None, false) => Self::NotReady {
                states: raw.states,
                last_read: raw.last_read,
            },
        }
    }
}

/// What the list reader (`list.ts`, the resolver bundle's `list` module) is asked: an
/// `extract_list` step's item candidates and fields.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListSpec<'a> {
    pub items: &'a [SelectorCandidate],
    pub fields: Vec<ListFieldSpec<'a>>,
    pub limit: Option<u32>,
    /// Wait until at least this many items are found.
    pub at_least: u32,
    /// How long the rows must stay the same before they are taken.
    pub quiet_ms: u64,
    pub timeout_ms: u64,
    /// The signature of the page before: rows that still have it are not the next page yet
    /// (a paginated list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unlike: Option<String>,
    /// A pagination control's candidates, whose state is answered with the rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control: Option<&'a [SelectorCandidate]>,
    /// Once the rows are taken, bring the last item into view (an infinite list).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub scroll_last: bool,
}

/// A pagination control's state when the rows were taken (`ControlState` in
/// `protocol/resolve.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) struct ControlState {
    pub state: Control,
    /// The candidate that found it.
    pub candidate: Option<usize>,
}

/// See [`ControlState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Control {
    /// No candidate finds a shown element: the last page.
    Absent,
    /// Shown, and disabled (`disabled`, `aria-disabled="true"`): the last page.
    Disabled,
    /// Shown and enabled.
    Ready,
}

/// One field of each item (`ListField` in `protocol/resolve.ts`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListFieldSpec<'a> {
    pub name: &'a str,
    pub candidates: &'a [SelectorCandidate],
    /// For a table's or grid's row: the cell under the column of this name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<&'a str>,
    /// `text`, `value` or `attribute`.
    pub from: &'static str,
    pub attribute: Option<&'a str>,
    /// Resolve the value against the document's URL.
    pub url: bool,
    /// Wait until the value holds a digit.
    pub digits: bool,
    pub optional: bool,
}

/// Why the rows the winning item candidate found were not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ListProblemKind {
    /// No candidate of a required field found exactly one element in the item.
    Missing,
    /// The value read is not one yet (no digit, a busy item, not a URL).
    Unready,
}

/// [`ListProblemKind`], with the item (1-based) and field it is about.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListProblem {
    pub kind: ListProblemKind,
    pub item: usize,
    /// Empty when the whole item is busy.
    pub field: String,
    pub item_text: String,
    #[serde(default)]
    pub value: Option<String>,
}

/// What the list reader answered.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum ListAnswer {
    /// The world has no resolver installed (`call_list.js`).
    ResolverMissing {
        #[serde(rename = "resolverMissing")]
        resolver_missing: bool,
    },
    /// The rows, each field's value in the fields' order (`None`: a missing optional field),
    /// and how many items there were before the limit.
    Rows {
        winner: Option<usize>,
        total: usize,
        rows: Vec<Vec<Option<String>>>,
        /// What tells this page from the next (URL, count, first and last rows).
        #[serde(default)]
        signature: String,
        /// The pagination control's state, when one was asked about.
        #[serde(default)]
        control: Option<ControlState>,
    },
    /// The budget ran out: each candidate's last state, and what kept the rows from being taken.
    NotReady {
        states: Vec<String>,
        #[serde(default)]
        problem: Option<ListProblem>,
        /// The rows stayed those of the page before (`unlike`): no next page came.
        #[serde(default)]
        unchanged: bool,
        /// With `unchanged`, the pagination control's state at the end of the wait.
        #[serde(default)]
        control: Option<ControlState>,
    },
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
            relies_on: None,
        })
        .unwrap()
    }

    #[test]
    fn an_action_request_is_the_spec_resolve_js_reads() {
        let request = ResolveRequest::Action(ActionRequest {
            offset: Some(Offset::px(1.0, 2.0)),
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
        assert!(
            matches!(not_ready, ResolveAnswer::NotReady { states, last_read: None } if states.len() == 1)
        );
        let inconsistent = answer(json!({ "ok": false, "states": ["<span> is empty"],
            "lastRead": { "candidate": 0, "value": "" } }));
        assert!(matches!(inconsistent, ResolveAnswer::NotReady {
            last_read: Some(LastRead { candidate: 0, value }), .. } if value.is_empty()));
        let missing = answer(json!({ "ok": false, "resolverMissing": true }));
        assert!(matches!(missing, ResolveAnswer::ResolverMissing));
    }

    #[test]
    fn a_list_spec_and_every_list_answer_are_what_list_ts_reads_and_writes() {
        let items: Vec<SelectorCandidate> =
            serde_json::from_value(json!([{ "kind": "css", "value": "li" }])).unwrap();
        let spec = ListSpec {
            items: &items,
            fields: vec![ListFieldSpec {
                name: "url",
                candidates: &items,
                column: None,
                from: "attribute",
                attribute: Some("href"),
                url: true,
                digits: false,
                optional: true,
            }],
            limit: Some(3),
            at_least: 1,
            quiet_ms: 150,
            timeout_ms: 900,
            unlike: None,
            control: None,
            scroll_last: false,
        };
        let mut paged = spec.clone();
        paged.unlike = Some("[\"sig\"]".into());
        paged.control = Some(&items);
        paged.scroll_last = true;
        let paged = serde_json::to_value(&paged).unwrap();
        assert_eq!(
            (&paged["unlike"], &paged["control"], &paged["scrollLast"]),
            (
                &json!("[\"sig\"]"),
                &json!([{ "kind": "css", "value": "li" }]),
                &json!(true)
            )
        );
        assert_eq!(
            serde_json::to_value(&spec).unwrap(),
            json!({ "items": [{ "kind": "css", "value": "li" }], "limit": 3, "atLeast": 1,
                "quietMs": 150, "timeoutMs": 900, "fields": [{ "name": "url",
                "candidates": [{ "kind": "css", "value": "li" }], "from": "attribute",
                "attribute": "href", "url": true, "digits": false, "optional": true }] })
        );
        let list = |v: Value| serde_json::from_value::<ListAnswer>(v).unwrap();
        assert_eq!(
            list(
                json!({ "ok": true, "winner": 0, "total": 4, "rows": [["a", null]],
                "signature": "s", "control": { "state": "disabled", "candidate": 1 } })
            ),
            ListAnswer::Rows {
                winner: Some(0),
                total: 4,
                rows: vec![vec![Some("a".into()), None]],
                signature: "s".into(),
                control: Some(ControlState {
                    state: Control::Disabled,
                    candidate: Some(1)
                }),
            }
        );
        assert!(matches!(
            list(
                json!({ "ok": false, "states": [], "problem": null, "unchanged": true,
                "control": { "state": "ready", "candidate": 0 } })
            ),
            ListAnswer::NotReady {
                unchanged: true,
                control: Some(ControlState {
                    state: Control::Ready,
                    candidate: Some(0)
                }),
                ..
            }
        ));
        assert!(matches!(
            list(json!({ "ok": true, "winner": null, "total": 0, "rows": [] })),
            ListAnswer::Rows { winner: None, .. }
        ));
        assert_eq!(
            list(
                json!({ "ok": false, "states": ["matched 2 item(s)"], "problem": {
                "kind": "missing", "item": 2, "field": "price", "itemText": "Desk", "value": null } })
            ),
            ListAnswer::NotReady {
                states: vec!["matched 2 item(s)".into()],
                problem: Some(ListProblem {
                    kind: ListProblemKind::Missing,
                    item: 2,
                    field: "price".into(),
                    item_text: "Desk".into(),
                    value: None
                }),
                unchanged: false,
                control: None,
            }
        );
        assert!(matches!(
            list(json!({ "ok": false, "states": [] })),
            ListAnswer::NotReady { problem: None, .. }
        ));
        assert!(matches!(
            list(json!({ "ok": false, "resolverMissing": true })),
            ListAnswer::ResolverMissing { .. }
        ));
    }
}

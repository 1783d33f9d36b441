//! `for_each`: a step that calls its tool once per element of an array.
//!
//! ```json
//! {"id": "details", "uses": "product-detail@1.0.0",
//!  "for_each": "steps.search.output.results", "concurrency": 4, "on_item_error": "collect",
//!  "with": {"url": {"from": "item.url"}, "note": {"template": "{item.name} from {input.shop}"}}}
//! ```
//!
//! - `for_each` is a reference (`steps.ID.output…` or `input.NAME…`) whose type is an array;
//!   its `items` schema types `item`, which the step's bindings read as `item` or
//!   `item.field…` (in `from` and in templates, like any reference).
//! - A slot the step does not bind in `with` is filled from the item's field of the same
//!   name when the item is an object that has one: an array of `{url, name}` mapped over a
//!   tool with an input `url` needs no `with` at all. A required slot that is neither bound
//!   nor a field of the item is a `missing_input` naming the step and the field.
//! - `concurrency` (1 to [`MAX_CONCURRENCY`], default 1) bounds how many items run at once;
//!   the collected outputs are always in item order.
//! - `on_item_error`: `"fail"` (default) — the first failed item fails the step, and the
//!   step's output is `[output, …]`, an array of the tool's output; `"collect"` — a failed item
//!   becomes an error entry and the step succeeds, its output `[{"output": …} | {"error":
//!   {"kind", "message"}}, …]` ([`collected_schema`]).
//!
//! The `when` of a `for_each` step decides for the whole step, so it cannot read `item`.

use browserflow_contract::{Additional, Schema};
use serde_json::Value;

use crate::reference::Reference;

/// The most items of a `for_each` that may run at once.
pub const MAX_CONCURRENCY: u32 = 64;

/// What to do when the call for one item fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnItemError {
    /// The step fails (the default).
    #[default]
    Fail,
    /// The item's entry is an error entry; the step goes on with the other items.
    Collect,
}

impl OnItemError {
    /// The on-disk word.
    pub fn as_str(self) -> &'static str {
        match self {
            OnItemError::Fail => "fail",
            OnItemError::Collect => "collect",
        }
    }

    /// Parses the on-disk word.
    pub fn parse(text: &str) -> Option<OnItemError> {
        match text {
            "fail" => Some(OnItemError::Fail),
            "collect" => Some(OnItemError::Collect),
            _ => None,
        }
    }
}

/// How a step maps its tool over an array.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ForEach {
    /// The array: a step output or a flow input, or a path inside either.
    #[serde(serialize_with = "serialize_reference")]
    pub over: Reference,
    /// How many items run at once (at least 1).
    pub concurrency: u32,
    /// What a failed item does.
    pub on_item_error: OnItemError,
}

fn serialize_reference<S: serde::Serializer>(r: &Reference, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&r.to_string())
}

/// Why one item's call failed, in an error entry of a `"collect"` step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemErrorKind {
    /// The tool failed (after its retries).
    ToolFailed,
    /// The item's inputs did not fit the tool's inputs.
    InvalidInput,
    /// The tool's output did not fit its contract.
    InvalidOutput,
    /// The item's bindings could not be evaluated (a path into the wrong type).
    Evaluation,
}

impl ItemErrorKind {
    /// Every kind, in the order of the schema's `enum`.
    pub const ALL: [ItemErrorKind; 4] = [
        ItemErrorKind::ToolFailed,
        ItemErrorKind::InvalidInput,
        ItemErrorKind::InvalidOutput,
        ItemErrorKind::Evaluation,
    ];

    /// The word written in the entry.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemErrorKind::ToolFailed => "tool_failed",
            ItemErrorKind::InvalidInput => "invalid_input",
            ItemErrorKind::InvalidOutput => "invalid_output",
            ItemErrorKind::Evaluation => "evaluation",
        }
    }

    /// The entry of a failed item: `{"error": {"kind": …, "message": …}}`.
    pub fn entry(self, message: &str) -> Value {
        serde_json::json!({"error": {"kind": self.as_str(), "message": message}})
    }
}

/// The entry of an item that succeeded, in a `"collect"` step: `{"output": …}`.
pub fn output_entry(output: Value) -> Value {
    serde_json::json!({ "output": output })
}

/// The type of a `for_each` step's output, from its tool's output type: `[output]` for
/// `"fail"`; for `"collect"`, an array of objects with exactly one of `output` (the tool's
/// output) and `error` (`{kind, message}`) — both optional in the type, so a later step reads
/// `steps.ID.output.0.output.price` (`null` for a failed item) or `….0.error.message`.
pub fn collected_schema(output: &Schema, on_item_error: OnItemError) -> Schema {
    match on_item_error {
        OnItemError::Fail => Schema::array(output.clone()),
        OnItemError::Collect => {
            let kind = Schema {
                enum_values: Some(
                    ItemErrorKind::ALL
                        .iter()
                        .map(|k| Value::String(k.as_str().to_owned()))
                        .collect(),
                ),
                ..Schema::string()
            };
            let error = Schema::object([("kind", kind), ("message", Schema::string())]);
            let entry = Schema {
                required: Vec::new(),
                additional_properties: Some(Additional::Forbidden),
                ..Schema::object([("output", output.clone()), ("error", error)])
            };
            Schema::array(entry)
        }
    }
}

//! `std/transform.compare`: a threshold check, for step conditions.

use browserflow_contract::Kind;
use browserflow_rider::{DefineError, Tool, ToolDef, define_tool};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
pub enum CompareOp {
    /// `value < threshold`
    #[serde(rename = "<")]
    Lt,
    /// `value <= threshold`
    #[serde(rename = "<=")]
    Le,
    /// `value == threshold`
    #[serde(rename = "==")]
    Eq,
    /// `value != threshold`
    #[serde(rename = "!=")]
    Ne,
    /// `value >= threshold`
    #[serde(rename = ">=")]
    Ge,
    /// `value > threshold`
    #[serde(rename = ">")]
    Gt,
}

impl CompareOp {
    /// Applies the operator.
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            CompareOp::Lt => value < threshold,
            CompareOp::Le => value <= threshold,
            CompareOp::Eq => value == threshold,
            CompareOp::Ne => value != threshold,
            CompareOp::Ge => value >= threshold,
            CompareOp::Gt => value > threshold,
        }
    }
}

/// The input of `compare`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareInput {
    /// The number checked.
    pub value: f64,
    /// The operator.
    pub op: CompareOp,
    /// What it is compared with.
    pub threshold: f64,
}

/// `std/transform.compare@1.0.0`: `value op threshold` as a boolean.
pub fn compare() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.compare", "1.0.0", Kind::Transform)
            .description("Whether `value op threshold` holds (op: <, <=, ==, !=, >=, >)."),
        |input: CompareInput, _ctx| async move { Ok(input.op.holds(input.value, input.threshold)) },
    )
}

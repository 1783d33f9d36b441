//! FlowSpec and the flow compiler.

mod binding;
mod condition;
mod diagnostic;
mod fields;
mod plan;
mod reference;
mod scope;
mod secret;
mod spec;

pub use binding::{Binding, TemplatePart};
pub use condition::{CompareOp, Condition, ConditionError, Expr};
pub use diagnostic::{Code, Diagnostic, Diagnostics};
pub use plan::{Plan, PlannedStep};
pub use reference::Reference;
pub use scope::{EvalError, Scope, StepState};
pub use secret::{Bound, SecretPart, SecretTemplate};
pub use spec::{FlowSpec, StepSpec};

/// The JSON type name of a value, for messages.
pub(crate) fn json_type_name(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

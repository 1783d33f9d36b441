//! Tool files of the `code` and `model` kinds: `{"contract": {…}, "code": {…}}` or
//! `{"contract": {…}, "model": {…}}`. The flow compiler reads only `contract` from such a
//! file; this turns the whole file into a runnable tool.

use std::sync::Arc;

use browserflow_rider::DynTool;
use serde_json::Value;

use crate::code::CodeTool;
use crate::model::ModelTool;

/// The tool a tool file describes, by its contract's kind: `Ok(None)` for a kind this crate
/// does not run from a file (a browser tool, say), an error naming the problem otherwise.
pub fn tool_from_file(value: &Value) -> Result<Option<DynTool>, String> {
    let kind = value
        .pointer("/contract/kind")
        .and_then(Value::as_str)
        .ok_or_else(|| "a tool file needs `contract.kind`".to_owned())?;
    match kind {
        "code" => CodeTool::from_tool_file(value)
            .map(|t| Some(Arc::new(t) as DynTool))
            .map_err(|e| e.to_string()),
        "model" => ModelTool::from_tool_file(value)
            .map(|t| Some(Arc::new(t) as DynTool))
            .map_err(|e| e.to_string()),
        _ => Ok(None),
    }
}

//! `std/transform.pick` and `std/transform.map`: reshape objects and lists.

use browserflow_contract::Kind;
use browserflow_rider::{DefineError, Tool, ToolDef, ToolError, define_tool};
use serde_json::{Map, Value};

use crate::json_path;

/// The input of `pick`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PickInput {
    /// The value to read from.
    pub input: Value,
    /// Dotted paths to keep; each becomes a member named by the path's last segment.
    pub fields: Vec<String>,
}

/// The input of `map`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapInput {
    /// The list to map over.
    pub items: Vec<Value>,
    /// The dotted path read from each item (`""`: the item itself).
    pub path: String,
}

/// Picks `fields` out of `input`; a missing path is an error naming it.
pub fn pick_fields(input: &Value, fields: &[String]) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for field in fields {
        let value =
            json_path::get(input, field).map_err(|why| format!("field `{field}`: {why}"))?;
        let name = field.rsplit('.').next().unwrap_or(field);
        out.insert(name.to_owned(), value.clone());
    }
    Ok(out)
}

/// `std/transform.pick@1.0.0`: an object with only the chosen fields.
pub fn pick() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.pick", "1.0.0", Kind::Transform)
            .description("An object with only the chosen (dotted-path) fields of the input."),
        |input: PickInput, _ctx| async move {
            pick_fields(&input.input, &input.fields).map_err(ToolError::terminal)
        },
    )
}

/// `std/transform.map@1.0.0`: the value at `path` of every item.
pub fn map() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.map", "1.0.0", Kind::Transform)
            .description("The value at a dotted path of every item of a list."),
        |input: MapInput, _ctx| async move {
            input
                .items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    json_path::get(item, &input.path).cloned().map_err(|why| {
                        ToolError::terminal(format!("item {i}, path `{}`: {why}", input.path))
                    })
                })
                .collect::<Result<Vec<Value>, ToolError>>()
        },
    )
}

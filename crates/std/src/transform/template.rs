//! `std/transform.template`: string templates with `{path}` placeholders.

use std::collections::BTreeMap;

use browserflow_contract::Kind;
use browserflow_flow::{TemplateError, TemplatePiece, scan_template};
use browserflow_rider::{DefineError, Tool, ToolDef, ToolError, define_tool};
use serde_json::Value;

/// The input of `template`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateInput {
    /// Text with `{name}` or `{name.field.0}` placeholders; `{{` and `}}` are literal braces.
    pub template: String,
    /// The values the placeholders read.
    pub values: BTreeMap<String, Value>,
}

/// Renders `template` with `values`. A string is inserted as it is, `null` as nothing, any
/// other value as compact JSON. An unknown placeholder is an error naming it and its offset.
pub fn render_template(template: &str, values: &BTreeMap<String, Value>) -> Result<String, String> {
    // The flow crate's one `{…}` grammar; the messages say "offset", as this tool always has.
    let mut out = String::with_capacity(template.len());
    for piece in scan_template(template) {
        let piece = piece.map_err(|e| match e {
            TemplateError::Unmatched { at } => {
                format!("an unmatched `}}` at offset {at}: write `}}}}` for a literal brace")
            }
            TemplateError::Unclosed { at } => {
                format!("an unclosed `{{` at offset {at}: write `{{{{` for a literal brace")
            }
        })?;
        match piece {
            TemplatePiece::Text(text) => out.push_str(&text),
            TemplatePiece::Placeholder { name: path, at } => {
                let value = lookup(values, path)
                    .map_err(|why| format!("placeholder `{{{path}}}` at offset {at}: {why}"))?;
                match value {
                    Value::String(s) => out.push_str(s),
                    Value::Null => {}
                    other => out.push_str(&other.to_string()),
                }
            }
        }
    }
    Ok(out)
}

/// The value at a dotted path (`a.b.0`) in `values`.
fn lookup<'v>(values: &'v BTreeMap<String, Value>, path: &str) -> Result<&'v Value, String> {
    let mut segments = path.split('.');
    let first = segments.next().unwrap_or_default();
    if first.is_empty() {
        return Err("an empty name".to_owned());
    }
    let mut current = values.get(first).ok_or_else(|| {
        let known: Vec<&str> = values.keys().map(String::as_str).collect();
        format!(
            "no value `{first}` (values: {})",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        )
    })?;
    for segment in segments {
        current = crate::json_path::step(current, segment)?;
    }
    Ok(current)
}

/// `std/transform.template@1.0.0`: fills `{placeholders}` from `values`.
pub fn template() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.template", "1.0.0", Kind::Transform)
            .description("Fill a string template's {placeholders} (dotted paths) from values."),
        |input: TemplateInput, _ctx| async move {
            render_template(&input.template, &input.values).map_err(ToolError::terminal)
        },
    )
}

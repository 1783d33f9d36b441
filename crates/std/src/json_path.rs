//! Dotted paths into JSON values (`items.0.price`), shared by the transform tools.

use serde_json::Value;

/// One step down: an object member or an array index.
pub(crate) fn step<'v>(value: &'v Value, segment: &str) -> Result<&'v Value, String> {
    match value {
        Value::Object(map) => map
            .get(segment)
            .ok_or_else(|| format!("no field `{segment}`")),
        Value::Array(items) => {
            let index: usize = segment
                .parse()
                .map_err(|_| format!("`{segment}` is not an index into an array"))?;
            items.get(index).ok_or_else(|| {
                format!(
                    "index {index} is past the end of an array of {}",
                    items.len()
                )
            })
        }
        other => Err(format!("cannot read `{segment}` of a {}", type_name(other))),
    }
}

/// The value at `path` (dot-separated; the empty path is the value itself).
pub(crate) fn get<'v>(value: &'v Value, path: &str) -> Result<&'v Value, String> {
    if path.is_empty() {
        return Ok(value);
    }
    path.split('.').try_fold(value, step)
}

/// The JSON type name of a value, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

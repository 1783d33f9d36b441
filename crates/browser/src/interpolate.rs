//! Replay inputs referenced from step text as `{{name}}`.
//!
//! Every string in a step (URLs, values, selector values, expected URLs, expressions) is
//! expanded before the step runs. Strings are inserted as they are; other JSON values as their
//! JSON text (`42`, `true`). A reference to an input that was not given is an error, never an
//! empty string. `{{ name }}` (with spaces) is accepted.

use serde_json::{Map, Value};

use crate::steps::Step;

/// Why a step could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterpolateError {
    /// `{{name}}` names an input that was not provided.
    #[error("the input `{0}` is referenced but was not provided")]
    MissingInput(String),
    /// `{{` without a matching `}}`.
    #[error("unclosed `{{{{` in {0:?}")]
    Unclosed(String),
    /// The expanded step is no longer a valid step.
    #[error("the step is invalid after expanding inputs: {0}")]
    Invalid(String),
}

/// Expands `{{name}}` references in `text`.
pub fn expand(text: &str, inputs: &Map<String, Value>) -> Result<String, InterpolateError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err(InterpolateError::Unclosed(text.to_string()));
        };
        let name = after[..close].trim();
        match inputs.get(name) {
            Some(Value::String(s)) => out.push_str(s),
            Some(other) => out.push_str(&other.to_string()),
            None => return Err(InterpolateError::MissingInput(name.to_string())),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Expands every string of `step`.
pub fn expand_step(step: &Step, inputs: &Map<String, Value>) -> Result<Step, InterpolateError> {
    let mut value =
        serde_json::to_value(step).map_err(|e| InterpolateError::Invalid(e.to_string()))?;
    expand_value(&mut value, inputs)?;
    serde_json::from_value(value).map_err(|e| InterpolateError::Invalid(e.to_string()))
}

fn expand_value(value: &mut Value, inputs: &Map<String, Value>) -> Result<(), InterpolateError> {
    match value {
        Value::String(s) if s.contains("{{") => *s = expand(s, inputs)?,
        Value::Array(items) => {
            for item in items {
                expand_value(item, inputs)?;
            }
        }
        Value::Object(map) => {
            for (_, item) in map.iter_mut() {
                expand_value(item, inputs)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn inputs() -> Map<String, Value> {
        json!({ "query": "keyboard", "count": 3 })
            .as_object()
            .cloned()
            .unwrap()
    }

    #[test]
    fn expands_strings_and_numbers() {
        assert_eq!(
            expand("q={{query}}&n={{ count }}", &inputs()).unwrap(),
            "q=keyboard&n=3"
        );
        assert_eq!(expand("plain", &inputs()).unwrap(), "plain");
    }

    #[test]
    fn missing_and_unclosed_references_are_errors() {
        assert_eq!(
            expand("{{nope}}", &inputs()),
            Err(InterpolateError::MissingInput("nope".into()))
        );
        assert!(matches!(
            expand("{{query", &inputs()),
            Err(InterpolateError::Unclosed(_))
        ));
    }
}

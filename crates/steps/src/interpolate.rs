//! Replay inputs referenced from step text as `{{name}}`.
//!
//! Every string in a step (URLs, values, selector values, expected URLs, expressions) is
//! expanded before the step runs. Strings are inserted as they are; other JSON values as their
//! JSON text (`42`, `true`). A reference to an input that was not given is an error, never an
//! empty string. `{{ name }}` (with spaces) is accepted.

use serde_json::{Map, Value};

use crate::Step;

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

/// One piece of a string that may reference inputs as `{{name}}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplatePart<'a> {
    /// Text taken as it is.
    Text(&'a str),
    /// `{{name}}`: the input `name` (spaces inside the braces trimmed).
    Input(&'a str),
    /// A `{{` with no `}}` after it, and everything from it to the end.
    Unclosed(&'a str),
}

/// The one scanner of `{{name}}` references: `text` split into literal text and input
/// references, in order. Empty text between references is left out.
pub fn template_parts(text: &str) -> impl Iterator<Item = TemplatePart<'_>> {
    let mut rest = text;
    let mut pending_input: Option<&str> = None;
    std::iter::from_fn(move || {
        if let Some(name) = pending_input.take() {
            return Some(TemplatePart::Input(name));
        }
        if rest.is_empty() {
            return None;
        }
        let Some(open) = rest.find("{{") else {
            return Some(TemplatePart::Text(std::mem::take(&mut rest)));
        };
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            let (before, unclosed) = rest.split_at(open);
            if before.is_empty() {
                rest = "";
                return Some(TemplatePart::Unclosed(unclosed));
            }
            // The unclosed part comes next time, as the rest starting with `{{`.
            rest = unclosed;
            return Some(TemplatePart::Text(before));
        };
        let before = &rest[..open];
        let name = after[..close].trim();
        rest = &after[close + 2..];
        if before.is_empty() {
            return Some(TemplatePart::Input(name));
        }
        pending_input = Some(name);
        Some(TemplatePart::Text(before))
    })
}

/// Expands `{{name}}` references in `text`.
pub fn expand_text(text: &str, inputs: &Map<String, Value>) -> Result<String, InterpolateError> {
    let mut out = String::with_capacity(text.len());
    for part in template_parts(text) {
        match part {
            TemplatePart::Text(t) => out.push_str(t),
            TemplatePart::Input(name) => match inputs.get(name) {
                Some(Value::String(s)) => out.push_str(s),
                Some(other) => out.push_str(&other.to_string()),
                None => return Err(InterpolateError::MissingInput(name.to_string())),
            },
            TemplatePart::Unclosed(_) => return Err(InterpolateError::Unclosed(text.to_string())),
        }
    }
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
        Value::String(s) if s.contains("{{") => *s = expand_text(s, inputs)?,
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

    #[test]
    fn template_parts_split_text_and_references() {
        use TemplatePart::{Input, Text, Unclosed};
        let parts = |t| template_parts(t).collect::<Vec<_>>();
        assert_eq!(
            parts("a{{x}}b{{ y }}"),
            [Text("a"), Input("x"), Text("b"), Input("y")]
        );
        assert_eq!(parts("{{x}}{{y}}"), [Input("x"), Input("y")]);
        assert_eq!(parts("plain"), [Text("plain")]);
        assert_eq!(parts(""), []);
        assert_eq!(parts("a{{x"), [Text("a"), Unclosed("{{x")]);
        assert_eq!(parts("{{x}}b{{"), [Input("x"), Text("b"), Unclosed("{{")]);
    }

    fn inputs() -> Map<String, Value> {
        json!({ "query": "keyboard", "count": 3 })
            .as_object()
            .cloned()
            .unwrap()
    }

    #[test]
    fn expands_strings_and_numbers() {
        assert_eq!(
            expand_text("q={{query}}&n={{ count }}", &inputs()).unwrap(),
            "q=keyboard&n=3"
        );
        assert_eq!(expand_text("plain", &inputs()).unwrap(), "plain");
    }

    #[test]
    fn missing_and_unclosed_references_are_errors() {
        assert_eq!(
            expand_text("{{nope}}", &inputs()),
            Err(InterpolateError::MissingInput("nope".into()))
        );
        assert!(matches!(
            expand_text("{{query", &inputs()),
            Err(InterpolateError::Unclosed(_))
        ));
    }
}

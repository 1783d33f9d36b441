//! `std/transform.slugify`: the specification's example tool.

use browserflow_contract::Kind;
use browserflow_rider::{DefineError, Tool, ToolDef, define_tool};

/// The input of `slugify`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlugifyInput {
    /// The text to turn into a slug.
    pub text: String,
}

/// Lowercases, joins the runs of letters and digits with `-`, and drops everything else.
pub fn slugify_text(text: &str) -> String {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words.join("-")
}

/// `std/transform.slugify@1.0.0`: lowercase, hyphenate, strip punctuation.
pub fn slugify() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.slugify", "1.0.0", Kind::Transform)
            .description("Lowercase, hyphenate, strip punctuation."),
        |input: SlugifyInput, _ctx| async move { Ok(slugify_text(&input.text)) },
    )
}

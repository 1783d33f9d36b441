//! What an `extract` step read when it was recorded ([`RecordedRead`]): the shape of the text
//! — never the text itself, which changes with the tool's inputs — and the identity of the
//! element it came from. The replayer waits until the value it reads is consistent with it and
//! accepts a lower-ranked candidate only on an element of that identity, so a read never
//! returns an empty or placeholder value (`""`, "Loading…", "—") where the recording saw one.
//! The one classifier of shapes is `injected/src/reads.ts`, shared by recorder and replayer.

use serde::{Deserialize, Serialize};

/// What a recorded `extract` read: the shape of its text and the element's identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct RecordedRead {
    /// The shape of the text read, which still holds for other inputs.
    pub shape: TextShape,
    /// The element read from, as a person sees it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementIdentity>,
}

/// A generic shape of a text: what kind of value it is, not which value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TextShape {
    /// Nothing (the recording read an empty text: any value is consistent with it).
    Empty,
    /// Some characters, but no letter or digit (a dash, a symbol), or words that say a value
    /// is still coming (below).
    Symbols,
    /// Words or figures: at least one letter or digit, and not a value still coming — no
    /// trailing ellipsis ("Loading…"), and not, as the whole text, a word pages show while
    /// they wait ("Loading", "Please wait", "Calculating", "Bitte warten", "Chargement en
    /// cours", "加载中"…: `injected/src/reads.ts` lists them).
    Text,
    /// A number alone: `42`, `-3.5`, `1,299`, `12 %`.
    Number,
    /// A number with a currency symbol or ISO 4217 code: `$1,299.00`, `12,50 €`, `CHF 9.90`.
    Amount,
    /// A calendar date, optionally with a time: `2026-12-02`, `02/12/2026`, `Dec 2, 2026`.
    Date,
}

impl TextShape {
    /// How the shape reads in a failure: `an amount (digits with a currency sign or code)`.
    pub fn describe(self) -> &'static str {
        match self {
            TextShape::Empty => "any text",
            TextShape::Symbols => "a non-empty text",
            TextShape::Text => {
                "a text with letters or digits (not empty, not a placeholder such as \"Loading\")"
            }
            TextShape::Number => "a number",
            TextShape::Amount => "an amount (digits with a currency sign or code)",
            TextShape::Date => "a date",
        }
    }
}

/// The element an extract read, as a person sees it: its tag and role, and the label beside
/// it or the heading of the card or section it is in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ElementIdentity {
    /// The tag name, lower case.
    pub tag: String,
    /// The ARIA role (explicit or implicit), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The label beside it (its `<label>`, the term before it, the cell or text before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The heading of the nearest card or section holding it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
}

impl ElementIdentity {
    /// `<span> beside "Price" under the heading "Basic plan"`.
    pub fn describe(&self) -> String {
        let mut s = format!("<{}>", self.tag);
        if let Some(role) = &self.role {
            s.push_str(&format!(" ({role})"));
        }
        if let Some(label) = &self.label {
            s.push_str(&format!(" beside {label:?}"));
        }
        if let Some(heading) = &self.heading {
            s.push_str(&format!(" under the heading {heading:?}"));
        }
        s
    }
}

impl RecordedRead {
    /// What a replay must read: `an amount (…) from <span> beside "Price"`.
    pub fn describe(&self) -> String {
        match &self.element {
            Some(element) => format!("{} from {}", self.shape.describe(), element.describe()),
            None => self.shape.describe().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_recorded_read_is_pretty_stable_json_and_strict() {
        let read = RecordedRead {
            shape: TextShape::Amount,
            element: Some(ElementIdentity {
                tag: "span".into(),
                role: None,
                label: Some("Price".into()),
                heading: Some("Basic plan".into()),
            }),
        };
        let value = serde_json::to_value(&read).unwrap();
        assert_eq!(
            value,
            json!({ "shape": "amount", "element": { "tag": "span", "label": "Price",
                "heading": "Basic plan" } })
        );
        assert_eq!(serde_json::from_value::<RecordedRead>(value).unwrap(), read);
        assert!(
            serde_json::from_value::<RecordedRead>(json!({ "shape": "amount", "text": "$1" }))
                .is_err()
        );
        assert!(serde_json::from_value::<RecordedRead>(json!({ "shape": "price" })).is_err());
        assert_eq!(
            read.describe(),
            "an amount (digits with a currency sign or code) from <span> beside \"Price\" \
             under the heading \"Basic plan\""
        );
    }
}

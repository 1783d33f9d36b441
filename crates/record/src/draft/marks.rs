//! Marks a person puts on a recording: a recorded value becomes an input slot
//! ([`InputMark`], typed by [`InputType`]), a picked element an output ([`OutputMark`]).

use super::*;
use browserflow_steps::RecordedRead;

/// The JSON type of an input slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputType {
    /// Text.
    #[default]
    String,
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// `true` / `false`.
    Boolean,
}

impl InputType {
    /// The JSON-Schema type name.
    pub fn as_str(self) -> &'static str {
        match self {
            InputType::String => "string",
            InputType::Number => "number",
            InputType::Integer => "integer",
            InputType::Boolean => "boolean",
        }
    }

    /// Parses `string`, `number`, `integer` or `boolean`.
    pub fn parse(text: &str) -> Option<InputType> {
        match text {
            "string" => Some(InputType::String),
            "number" => Some(InputType::Number),
            "integer" => Some(InputType::Integer),
            "boolean" => Some(InputType::Boolean),
            _ => None,
        }
    }

    pub(super) fn coerce(self, text: &str) -> Option<Value> {
        match self {
            InputType::String => Some(Value::String(text.to_string())),
            InputType::Number => text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number),
            InputType::Integer => text.trim().parse::<i64>().ok().map(Value::from),
            InputType::Boolean => match text.trim() {
                "true" | "on" | "yes" | "1" => Some(Value::Bool(true)),
                "false" | "off" | "no" | "0" => Some(Value::Bool(false)),
                _ => None,
            },
        }
    }
}

/// An input slot: a recorded value replaced by `{{name}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputMark {
    /// The slot name (letters, digits, `_`, `-`; starts with a letter or `_`).
    pub name: String,
    /// Its type.
    #[serde(rename = "type", default)]
    pub kind: InputType,
    /// The default value; [`Draft::mark_input`] uses the recorded value when `None`. Always
    /// `None` for secret slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// A secret slot (password fields): no default, the value is never stored.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// No default at all: every call must give a value (the recorded one is not kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// What the slot is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl InputMark {
    /// A string slot whose default is the recorded value.
    pub fn string(name: impl Into<String>) -> Self {
        Self::typed(name, InputType::String)
    }

    /// A slot of `kind` whose default is the recorded value.
    pub fn typed(name: impl Into<String>, kind: InputType) -> Self {
        Self {
            name: name.into(),
            kind,
            default: None,
            secret: false,
            required: false,
            description: None,
        }
    }

    /// A slot of `kind` with no default: each call gives its value.
    pub fn required(name: impl Into<String>, kind: InputType) -> Self {
        Self {
            required: true,
            ..Self::typed(name, kind)
        }
    }

    /// A secret string slot.
    pub fn secret(name: impl Into<String>) -> Self {
        Self {
            secret: true,
            ..Self::string(name)
        }
    }
}

/// An output field: an extract step reading an element into a typed value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputMark {
    /// The output field name.
    pub name: String,
    /// The element to read.
    pub selector: Selector,
    /// What to read.
    #[serde(default)]
    pub from: ExtractSource,
    /// The attribute, when `from` is `attribute`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    /// The type of the field.
    #[serde(default)]
    pub kind: OutputKind,
    /// Also output the currency of a price into this field (needs `kind: number`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency_field: Option<String>,
    /// The page the element is on; a `switch_page` is added when it is not the current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    /// Insert before this step (0-based); at the end when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
    /// What the field is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What the element showed when it was marked (shape, identity), for the replay to check
    /// its read against; none for an output given by selector alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<RecordedRead>,
}

impl OutputMark {
    /// The `extract` step that reads this output.
    pub(crate) fn extract_step(&self) -> Step {
        Step::Extract(ExtractStep {
            label: Some(format!("Read {}", self.name)),
            selector: self.selector.clone(),
            from: self.from,
            attribute: self.attribute.clone(),
            field: self.name.clone(),
            kind: self.kind,
            currency_field: self.currency_field.clone(),
            timeout_ms: None,
            recorded: self.recorded.clone(),
        })
    }

    /// An output read from the text of the element a CSS selector finds.
    pub fn css(name: impl Into<String>, css: impl Into<String>, kind: OutputKind) -> Self {
        Self::with_selector(name, Selector::new([SelectorCandidate::css(css)]), kind)
    }

    /// An output read from the text of an element found by `selector`.
    pub fn with_selector(name: impl Into<String>, selector: Selector, kind: OutputKind) -> Self {
        Self {
            name: name.into(),
            selector,
            from: ExtractSource::Text,
            attribute: None,
            kind,
            currency_field: None,
            page: None,
            position: None,
            description: None,
            recorded: None,
        }
    }

    /// An output read from a picked element: its value for form controls, its text otherwise.
    pub fn picked(name: impl Into<String>, picked: &PickedElement, kind: OutputKind) -> Self {
        Self {
            from: if picked.value.is_some() {
                ExtractSource::Value
            } else {
                ExtractSource::Text
            },
            page: Some(picked.page.clone()),
            recorded: picked.read.clone(),
            ..Self::with_selector(name, picked.selector.clone(), kind)
        }
    }
}

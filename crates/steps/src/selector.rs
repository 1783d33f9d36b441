//! Ranked selectors: the ways to find one element, and the frame it lives in.

use serde::{Deserialize, Serialize};

/// A ranked list of ways to find one element, plus the frame it lives in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    /// Candidates, best first. Replay uses the highest-ranked one that matches.
    pub candidates: Vec<SelectorCandidate>,
    /// The frame to search in; the main frame when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameSelector>,
}

impl Selector {
    /// A selector with the given candidates in the main frame.
    pub fn new(candidates: impl IntoIterator<Item = SelectorCandidate>) -> Self {
        Self {
            candidates: candidates.into_iter().collect(),
            frame: None,
        }
    }

    /// The same selector inside a frame.
    pub fn in_frame(mut self, frame: FrameSelector) -> Self {
        self.frame = Some(frame);
        self
    }
}

/// One way to find an element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectorCandidate {
    /// How `value` is interpreted.
    pub kind: SelectorKind,
    /// The test id, role, label text, placeholder, text, id, CSS selector or XPath.
    pub value: String,
    /// For `role`: the accessible name the element must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// CSS selectors of shadow hosts, outermost first; the candidate is searched inside the
    /// last host's open shadow root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadow: Vec<String>,
}

impl SelectorCandidate {
    /// A candidate of `kind` with `value`.
    pub fn new(kind: SelectorKind, value: impl Into<String>) -> Self {
        Self {
            kind,
            value: value.into(),
            name: None,
            shadow: Vec::new(),
        }
    }

    /// `data-testid` (also `data-test-id`, `data-test`, `data-qa`, `data-cy`).
    pub fn test_id(value: impl Into<String>) -> Self {
        Self::new(SelectorKind::TestId, value)
    }

    /// An ARIA role with an accessible name.
    pub fn role(role: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
            ..Self::new(SelectorKind::Role, role)
        }
    }

    /// A CSS selector.
    pub fn css(value: impl Into<String>) -> Self {
        Self::new(SelectorKind::Css, value)
    }

    /// Text content (exact after collapsing whitespace).
    pub fn text(value: impl Into<String>) -> Self {
        Self::new(SelectorKind::Text, value)
    }

    /// The same candidate inside the given chain of shadow hosts.
    pub fn in_shadow(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.shadow = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// A short human description, for reports and errors: `test_id "search-input"`.
    pub fn describe(&self) -> String {
        let mut s = format!("{} {:?}", self.kind.as_str(), self.value);
        if let Some(name) = &self.name {
            s.push_str(&format!(" name {name:?}"));
        }
        if !self.shadow.is_empty() {
            s.push_str(&format!(" in shadow of {}", self.shadow.join(" >> ")));
        }
        s
    }
}

/// How a selector candidate's value is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectorKind {
    /// A `data-testid`-style attribute.
    TestId,
    /// An ARIA role (explicit or implicit), with the accessible name in `name`.
    Role,
    /// The text of the element's label (`<label>`, `aria-label`, `aria-labelledby`).
    Label,
    /// The `placeholder` attribute.
    Placeholder,
    /// The element's visible text (exact, whitespace collapsed; the innermost element wins).
    Text,
    /// The `id` attribute.
    Id,
    /// A CSS selector.
    Css,
    /// An XPath expression.
    Xpath,
    /// Any element whose computed accessible name equals the value, whatever its role
    /// (what the DevTools Recorder's `aria/NAME` selectors mean).
    AccessibleName,
}

impl SelectorKind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SelectorKind::TestId => "test_id",
            SelectorKind::Role => "role",
            SelectorKind::Label => "label",
            SelectorKind::Placeholder => "placeholder",
            SelectorKind::Text => "text",
            SelectorKind::Id => "id",
            SelectorKind::Css => "css",
            SelectorKind::Xpath => "xpath",
            SelectorKind::AccessibleName => "accessible_name",
        }
    }
}

/// Identifies a frame by stable properties. `url` may use `*` wildcards. The recorder always
/// records a URL or a name; `index_path` exists only for imported DevTools recordings that give
/// nothing else, and every field given must match.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameSelector {
    /// The frame's URL (exact, or a pattern with `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The frame's `name` attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Child-frame indexes from the page's main frame (`[0, 1]`: the second child of the first
    /// child), children counted in the order they were attached, as DevTools Recorder's
    /// `frame` field. Fragile (a new iframe shifts it): a last resort for imports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_path: Option<Vec<u32>>,
}

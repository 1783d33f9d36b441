//! Ranked selectors: the ways to find one element, and the frame it lives in.

use std::fmt;
use std::num::NonZeroU32;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::{CellPlace, ItemPlace, Repeat};

/// A ranked list of ways to find one element, plus the frame it lives in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    /// Candidates, best first. Replay uses the highest-ranked one that matches.
    pub candidates: Vec<SelectorCandidate>,
    /// The frame to search in; the main frame when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameSelector>,
    /// The element sits in a repeating structure (a grid row, a list item, a card): its
    /// place and content there, and which of the two replay relies on (see [`Repeat`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<Repeat>,
}

impl Selector {
    /// A selector with the given candidates in the main frame.
    pub fn new(candidates: impl IntoIterator<Item = SelectorCandidate>) -> Self {
        Self {
            candidates: candidates.into_iter().collect(),
            frame: None,
            repeat: None,
        }
    }

    /// The same selector inside a frame.
    pub fn in_frame(mut self, frame: FrameSelector) -> Self {
        self.frame = Some(frame);
        self
    }
}

/// One way to find an element.
///
/// Read strictly: besides serde's own rules (unknown fields, types), a `structure` candidate
/// must carry `structure` and no other kind may, and no name in it is empty; a refusal is
/// located at the candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelectorCandidate {
    /// How `value` is interpreted.
    pub kind: SelectorKind,
    /// The test id, role, label text, placeholder, text, id, CSS selector or XPath; for
    /// `structure`, the role of the element.
    pub value: String,
    /// For `role`: the accessible name the element must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// For `structure`: the stable element it sits in, and which one of its role it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structure: Option<Structure>,
    /// CSS selectors of shadow hosts, outermost first; the candidate is searched inside the
    /// last host's open shadow root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadow: Vec<String>,
}

/// What a `structure` candidate anchors on: an element that changes less than the target
/// itself (a form by one of its fields, a landmark or labelled region, the popup a combobox
/// controls), and which element of the candidate's role in it is the target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Structure {
    /// The anchor the element sits in.
    pub within: Anchor,
    /// Which element of the role inside the anchor; the only one when absent.
    #[serde(default, skip_serializing_if = "Pick::is_only")]
    pub pick: Pick,
    /// For an `nth` pick: how many elements of the role the anchor held when the step was
    /// recorded. Position names an element only among as many as the recording saw: an
    /// anchor that now holds another number (a second copy of a web component's form, a list
    /// that grew an item) makes the candidate find nothing, naming what it holds, so position
    /// never settles an ambiguity the recording did not see. Absent in tool files written
    /// before it was recorded (and by hand): the n-th, whatever the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<NonZeroU32>,
}

/// The stable element a `structure` candidate is found in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// The `<form>` that holds a field (input, select, textarea) with this label or name.
    FormWithField(FieldRef),
    /// An element with this role and, when given, this accessible name: a landmark
    /// (`navigation`, `main`, `banner`…), a named form or region, a dialog.
    Region(RoleRef),
    /// The element an element of this role and name controls (`aria-controls`, `aria-owns`):
    /// the listbox of a combobox, the menu of a menu button.
    ControlledBy(RoleRef),
    /// The element beside this label: its `<label>`, or the nearest text before it in its row
    /// (a term before its definition, a header cell before its cell, "Price" before "$12").
    /// What a person reads a value by; `reads.ts` `nearLabel` is the one rule.
    BesideLabel(String),
    /// The card or section whose heading has this text: the nearest ancestor that holds a
    /// heading before the element (`reads.ts` `nearHeading`).
    UnderHeading(String),
}

/// A form field, by its label (as a `label` candidate matches it) or its `name` attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FieldRef {
    /// The field's label text.
    Label(String),
    /// The field's `name` attribute.
    Name(String),
}

/// An element by its ARIA role and, when given, its accessible name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct RoleRef {
    /// The ARIA role (explicit or implicit).
    pub role: String,
    /// The accessible name it must have; any when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Which element of the candidate's role inside the anchor is the target.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "StructurePick"))]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// The only element of the role there (two or more: the candidate matches several).
    #[default]
    Only,
    /// The form's default button: its first submit button, the one Enter clicks.
    DefaultButton,
    /// The n-th element of the role there, in document order, counted from 1.
    Nth(NonZeroU32),
    /// The cell of a data row under a column of the anchor (a grid or table): its place,
    /// whatever the row shows (see [`CellPlace`]).
    Cell(CellPlace),
    /// The n-th item of the repeating structure in the anchor (a list's items, or the
    /// largest group of sibling elements of one shape: cards), then the element of the role
    /// in it (see [`ItemPlace`]).
    Item(ItemPlace),
    /// Every item of the repeating structure in the anchor, whatever the candidate's role
    /// (`*`): a list's items, a table's data rows, else the largest group of sibling elements
    /// of one shape, through open shadow roots. What an `extract_list` step's `items` find
    /// whatever classes and ids the page gives them.
    Items,
}

impl Pick {
    fn is_only(&self) -> bool {
        *self == Pick::Only
    }

    /// A place in a repeating structure (a row's cell, an item): the element found there may
    /// show other data on another run.
    pub fn is_repeat_place(&self) -> bool {
        matches!(self, Pick::Cell(_) | Pick::Item(_))
    }
}

impl Structure {
    /// A short human description: `the default button of the form holding the field labelled "Query"`.
    pub fn describe(&self) -> String {
        let within = match &self.within {
            Anchor::FormWithField(FieldRef::Label(l)) => {
                format!("the form holding the field labelled {l:?}")
            }
            Anchor::FormWithField(FieldRef::Name(n)) => {
                format!("the form holding the field named {n:?}")
            }
            Anchor::Region(r) => format!("the {}", r.describe()),
            Anchor::ControlledBy(r) => format!("what the {} controls", r.describe()),
            Anchor::BesideLabel(l) => format!("what is beside the label {l:?}"),
            Anchor::UnderHeading(h) => format!("the card with the heading {h:?}"),
        };
        match &self.pick {
            Pick::Only => format!("in {within}"),
            Pick::DefaultButton => format!("the default button of {within}"),
            Pick::Nth(n) => match self.of {
                Some(of) => format!("number {n} of {of} in {within}"),
                None => format!("number {n} in {within}"),
            },
            Pick::Cell(cell) => format!("{} of {within}", cell.describe()),
            Pick::Item(item) => format!("{} of {within}", item.describe()),
            Pick::Items => format!("every item of {within}"),
        }
    }

    /// The first rule serde cannot express that this structure breaks.
    fn problem(&self) -> Option<String> {
        let mut texts: Vec<(&str, &str)> = Vec::new();
        match &self.within {
            Anchor::FormWithField(FieldRef::Label(l)) => {
                texts.push(("within.form_with_field.label", l));
            }
            Anchor::FormWithField(FieldRef::Name(n)) => {
                texts.push(("within.form_with_field.name", n));
            }
            Anchor::Region(r) => {
                texts.push(("within.region.role", &r.role));
                texts.extend(r.name.as_deref().map(|n| ("within.region.name", n)));
            }
            Anchor::ControlledBy(r) => {
                texts.push(("within.controlled_by.role", &r.role));
                texts.extend(r.name.as_deref().map(|n| ("within.controlled_by.name", n)));
            }
            Anchor::BesideLabel(l) => texts.push(("within.beside_label", l)),
            Anchor::UnderHeading(h) => texts.push(("within.under_heading", h)),
        }
        if let Pick::Cell(cell) = &self.pick {
            texts.push(("pick.cell.column", &cell.column));
        }
        if let Some((path, _)) = texts.iter().find(|(_, text)| text.trim().is_empty()) {
            return Some(format!("`structure.{path}` is empty"));
        }
        if let Some(of) = self.of {
            match self.pick {
                Pick::Nth(n) if n > of => {
                    return Some(format!(
                        "`structure.pick.nth` is {n}, past the {of} elements of `structure.of`"
                    ));
                }
                Pick::Nth(_) => {}
                _ => return Some("`structure.of` goes only with an `nth` pick".into()),
            }
        }
        let in_a_form = match &self.within {
            Anchor::FormWithField(_) => true,
            Anchor::Region(r) => r.role == "form",
            Anchor::ControlledBy(_) | Anchor::BesideLabel(_) | Anchor::UnderHeading(_) => false,
        };
        (self.pick == Pick::DefaultButton && !in_a_form).then(|| {
            "`pick: default_button` needs a form (`form_with_field`, or a `region` of role `form`)"
                .to_owned()
        })
    }
}

impl RoleRef {
    fn describe(&self) -> String {
        match &self.name {
            Some(name) => format!("{} {name:?}", self.role),
            None => self.role.clone(),
        }
    }
}

/// The fields of [`SelectorCandidate`] as serde reads them, before the rules between fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CandidateFields {
    kind: SelectorKind,
    value: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    structure: Option<Structure>,
    #[serde(default)]
    shadow: Vec<String>,
}

impl TryFrom<CandidateFields> for SelectorCandidate {
    type Error = String;

    fn try_from(f: CandidateFields) -> Result<Self, String> {
        match (&f.structure, f.kind) {
            (None, SelectorKind::Structure) => {
                return Err("a `structure` candidate needs the field `structure`".into());
            }
            (Some(_), kind) if kind != SelectorKind::Structure => {
                return Err(format!(
                    "only a `structure` candidate has `structure`, not a `{}` one",
                    kind.as_str()
                ));
            }
            (Some(structure), _) => {
                if let Some(problem) = structure.problem() {
                    return Err(problem);
                }
            }
            (None, _) => {}
        }
        Ok(SelectorCandidate {
            kind: f.kind,
            value: f.value,
            name: f.name,
            structure: f.structure,
            shadow: f.shadow,
        })
    }
}

// By hand, so that a rule between fields is refused inside the candidate's own `visit_map`:
// the located deserializer then names the candidate's pointer.
impl<'de> Deserialize<'de> for SelectorCandidate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CandidateVisitor;
        impl<'de> Visitor<'de> for CandidateVisitor {
            type Value = SelectorCandidate;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a selector candidate (an object)")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SelectorCandidate, A::Error> {
                let fields =
                    CandidateFields::deserialize(de::value::MapAccessDeserializer::new(map))?;
                SelectorCandidate::try_from(fields).map_err(de::Error::custom)
            }
        }
        deserializer.deserialize_struct(
            "SelectorCandidate",
            &["kind", "value", "name", "structure", "shadow"],
            CandidateVisitor,
        )
    }
}

impl SelectorCandidate {
    /// A candidate of `kind` with `value`.
    pub fn new(kind: SelectorKind, value: impl Into<String>) -> Self {
        Self {
            kind,
            value: value.into(),
            name: None,
            structure: None,
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

    /// The element of `role` found by its place in a stable structure.
    pub fn structure(role: impl Into<String>, structure: Structure) -> Self {
        Self {
            structure: Some(structure),
            ..Self::new(SelectorKind::Structure, role)
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
        if let Some(structure) = &self.structure {
            s.push_str(&format!(", {}", structure.describe()));
        }
        if !self.shadow.is_empty() {
            s.push_str(&format!(" in shadow of {}", self.shadow.join(" >> ")));
        }
        s
    }
}

/// How a selector candidate's value is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// The element with the role in `value` found by its place in a stable structure
    /// ([`Structure`]): the default button of the form holding a field, the n-th option of
    /// the listbox a combobox controls, the only link of a navigation landmark.
    Structure,
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
            SelectorKind::Structure => "structure",
        }
    }
}

/// Identifies a frame by stable properties. `url` may use `*` wildcards. The recorder always
/// records a URL or a name, and adds `index_path` only when another frame of the page has the
/// same URL and name (two unnamed `about:blank` frames); imported DevTools recordings may give
/// nothing else. Every field given must match.
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
    /// child), children counted in the order they were attached (the document's order for
    /// frames parsed or added in order), as DevTools Recorder's `frame` field. Fragile (a new
    /// iframe shifts it): a last resort, beside the URL and name it tells apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_path: Option<Vec<u32>>,
}

//! Post-state checks: what a step visibly did, recorded after it and checked after it on replay.
//!
//! A recorded step that replays without doing what it did when recorded (the slider moved by
//! another amount, another option chosen, a click that reached nothing) must fail at that step,
//! never go on to an output made by a different interaction. So the recorder stores, after each
//! element step, the state that step changed on its element (its value, `checked`, a
//! combobox's shown text, `aria-valuenow`, `aria-checked`, `aria-selected`, `aria-expanded`,
//! `aria-pressed`, its active option), where the focus went (the role of the element focus
//! moved to, when not the step's own: names change with a redesign) and the state of that
//! element, and whether the page changed at all. A key that chooses (Enter, Tab, an arrow) in a
//! text field also records the text shown around the field (`shown`), so a choice that did not
//! happen — or chose another option — fails at the key, not steps later. The replayer waits for every check within the
//! step's budget and otherwise fails naming the step, the expected and the actual state.
//!
//! Rules, and why each is sound:
//! - Only what the step *changed* is recorded (a state equal before and after says nothing of
//!   the step), except on the element focus moved to, whose shown state is recorded as it was:
//!   the step put the focus there, so that is what the person saw the step end on.
//! - A check's `equals` may reference inputs as `{{name}}` (a filled field expects the typed
//!   value): it is expanded with the step, by the one expander (`expand_step`).
//! - A state that depends on an input's value but is not that value (an autocomplete's chosen
//!   option after a typed prefix) cannot be known before the run: it is checked to *change*
//!   (`changes: true`), which still fails a step that did nothing.
//! - A state that showed the text typed into a field marked as an input (a filtered list's
//!   chosen option, "Banana" after "ban") is checked to *contain* that input, ignoring case
//!   (`contains: "{{name}}"`): a filter shows what matches what was typed, so another choice —
//!   or none — fails, where `changes` would accept any.
//! - `page` is only ever `changes: true`: "the step changed the document" (a mutation in the
//!   element's document after the action started). It is recorded only when the recorded step
//!   changed the document, so a page that changes by itself can make it weaker, never wrong.

use serde::{Deserialize, Serialize};

/// One post-state check of a step. In a tool file each is one line:
/// `{"state": "aria-valuenow", "equals": "116"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct StateCheck {
    /// Which state is read.
    pub state: CheckedState,
    /// Whose state: the step's own element (the default), or the element focused after it.
    #[serde(default, skip_serializing_if = "CheckSubject::is_element")]
    pub of: CheckSubject,
    /// The state after the step, as recorded (`{{name}}` references inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<String>,
    /// The state after the step must differ from the state before it: used where the value
    /// depends on an input (see the module docs).
    #[serde(default, skip_serializing_if = "is_false")]
    pub changes: bool,
    /// The state after the step holds this text, ignoring case (`{{name}}` references
    /// inputs): what a field filtered by a typed input chose shows that input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
}

impl StateCheck {
    /// The state `state` of the step's element must be `equals` after the step.
    pub fn equals(state: CheckedState, equals: impl Into<String>) -> Self {
        StateCheck {
            state,
            of: CheckSubject::Element,
            equals: Some(equals.into()),
            changes: false,
            contains: None,
        }
    }

    /// The state `state` of the step's element must change during the step.
    pub fn changes(state: CheckedState) -> Self {
        StateCheck {
            state,
            of: CheckSubject::Element,
            equals: None,
            changes: true,
            contains: None,
        }
    }

    /// The state `state` of the step's element must hold `text` (ignoring case) after the step.
    pub fn contains(state: CheckedState, text: impl Into<String>) -> Self {
        StateCheck {
            state,
            of: CheckSubject::Element,
            equals: None,
            changes: false,
            contains: Some(text.into()),
        }
    }

    /// The same check, on the element focused after the step.
    pub fn of_focused(self) -> Self {
        StateCheck {
            of: CheckSubject::Focused,
            ..self
        }
    }

    /// What the check expects, in words: `aria-valuenow is "116"`, `the focused element's
    /// text changes`.
    pub fn describe(&self) -> String {
        let whose = match self.of {
            CheckSubject::Element => "",
            CheckSubject::Focused => "the focused element's ",
        };
        let state = self.state.as_str();
        match (&self.equals, self.state) {
            (_, CheckedState::Page) => "the page changes".to_string(),
            (Some(role), CheckedState::Focus) => format!("focus moves to a {role}"),
            (Some(value), _) => format!("{whose}{state} is {value:?}"),
            (None, _) => match &self.contains {
                Some(text) => format!("{whose}{state} shows {text:?}"),
                None => format!("{whose}{state} changes"),
            },
        }
    }

    /// Why this check cannot be checked, if it cannot: exactly one of `equals`, `contains`
    /// and `changes: true`; `page` only changes, `focus` only equals and only of the element.
    pub fn problem(&self) -> Option<&'static str> {
        let given = usize::from(self.equals.is_some())
            + usize::from(self.changes)
            + usize::from(self.contains.is_some());
        match given {
            0 => return Some("a check needs `equals`, `contains` or `changes: true`"),
            1 => {}
            _ => return Some("a check has one of `equals`, `contains` and `changes: true`"),
        }
        if self.contains.is_some() && matches!(self.state, CheckedState::Page | CheckedState::Focus)
        {
            return Some("a `page` or `focus` check has no `contains`");
        }
        match self.state {
            CheckedState::Page if self.equals.is_some() || self.of != CheckSubject::Element => {
                Some("a `page` check is only `{\"state\": \"page\", \"changes\": true}`")
            }
            CheckedState::Focus if self.changes || self.of != CheckSubject::Element => {
                Some("a `focus` check names the element focused after the step in `equals`")
            }
            _ => None,
        }
    }
}

/// A state a check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum CheckedState {
    /// A field's value (`input`, `textarea`, `select`; a range input's number).
    #[serde(rename = "value")]
    Value,
    /// A checkbox's or radio button's `checked`, `"true"` or `"false"`.
    #[serde(rename = "checked")]
    Checked,
    /// The text a combobox shows (a custom select's chosen option).
    #[serde(rename = "text")]
    Text,
    /// The text shown around a text field (its parent element's text): what a field that
    /// searches and chooses shows once an option is chosen, beside the field itself (Tom
    /// Select's and selectize's item, a multi-select's chips). Recorded for keys that choose.
    #[serde(rename = "shown")]
    Shown,
    /// `aria-valuenow` (a slider, a spinbutton).
    #[serde(rename = "aria-valuenow")]
    AriaValuenow,
    /// `aria-checked` (a custom checkbox, switch or radio).
    #[serde(rename = "aria-checked")]
    AriaChecked,
    /// `aria-selected` (a tab, an option).
    #[serde(rename = "aria-selected")]
    AriaSelected,
    /// `aria-expanded` (a combobox, a menu button, a disclosure).
    #[serde(rename = "aria-expanded")]
    AriaExpanded,
    /// `aria-pressed` (a toggle button).
    #[serde(rename = "aria-pressed")]
    AriaPressed,
    /// The option `aria-activedescendant` points at, as role and name (`option "India"`).
    #[serde(rename = "active-option")]
    ActiveOption,
    /// The role of the element focus moved to, when it is not the step's own (`combobox`):
    /// a role, not a name, because names change with a redesign.
    #[serde(rename = "focus")]
    Focus,
    /// The document changed after the step's action began.
    #[serde(rename = "page")]
    Page,
}

impl CheckedState {
    /// The name used in tool files.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckedState::Value => "value",
            CheckedState::Checked => "checked",
            CheckedState::Text => "text",
            CheckedState::Shown => "shown",
            CheckedState::AriaValuenow => "aria-valuenow",
            CheckedState::AriaChecked => "aria-checked",
            CheckedState::AriaSelected => "aria-selected",
            CheckedState::AriaExpanded => "aria-expanded",
            CheckedState::AriaPressed => "aria-pressed",
            CheckedState::ActiveOption => "active-option",
            CheckedState::Focus => "focus",
            CheckedState::Page => "page",
        }
    }

    /// A state whose value may show what was typed into a field earlier (see the module docs:
    /// such a check becomes `changes: true` once that field is an input).
    pub fn shows_text(self) -> bool {
        matches!(
            self,
            CheckedState::Value
                | CheckedState::Text
                | CheckedState::Shown
                | CheckedState::ActiveOption
        )
    }
}

/// Whose state a check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CheckSubject {
    /// The step's own element (found by its selector).
    #[default]
    Element,
    /// The element that has the focus after the step.
    Focused,
}

impl CheckSubject {
    fn is_element(&self) -> bool {
        *self == CheckSubject::Element
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn checks_read_and_write_as_one_short_object() {
        let check = StateCheck::equals(CheckedState::AriaValuenow, "116");
        assert_eq!(
            serde_json::to_value(&check).unwrap(),
            json!({"state": "aria-valuenow", "equals": "116"})
        );
        let focused = StateCheck::changes(CheckedState::Text).of_focused();
        assert_eq!(
            serde_json::to_value(&focused).unwrap(),
            json!({"state": "text", "of": "focused", "changes": true})
        );
        let back: StateCheck =
            serde_json::from_value(json!({"state": "text", "of": "focused", "changes": true}))
                .unwrap();
        assert_eq!(back, focused);
        assert!(
            serde_json::from_value::<StateCheck>(json!({"state": "colour", "equals": "red"}))
                .is_err()
        );
    }

    #[test]
    fn a_check_says_what_it_expects() {
        assert_eq!(
            StateCheck::equals(CheckedState::AriaValuenow, "116").describe(),
            "aria-valuenow is \"116\""
        );
        assert_eq!(
            StateCheck::changes(CheckedState::Value)
                .of_focused()
                .describe(),
            "the focused element's value changes"
        );
        assert_eq!(
            StateCheck::equals(CheckedState::Focus, "combobox").describe(),
            "focus moves to a combobox"
        );
    }

    #[test]
    fn only_checkable_checks_pass() {
        let both = StateCheck {
            changes: true,
            ..StateCheck::equals(CheckedState::Value, "x")
        };
        assert!(both.problem().is_some());
        let neither = StateCheck {
            changes: false,
            ..StateCheck::changes(CheckedState::Value)
        };
        assert!(neither.problem().is_some());
        assert!(
            StateCheck::equals(CheckedState::Page, "x")
                .problem()
                .is_some()
        );
        assert!(StateCheck::changes(CheckedState::Focus).problem().is_some());
        assert!(
            StateCheck::contains(CheckedState::Shown, "{{fruit}}")
                .problem()
                .is_none()
        );
        assert!(
            StateCheck {
                changes: true,
                ..StateCheck::contains(CheckedState::Shown, "x")
            }
            .problem()
            .is_some()
        );
        assert!(
            StateCheck::contains(CheckedState::Page, "x")
                .problem()
                .is_some()
        );
        assert!(StateCheck::changes(CheckedState::Page).problem().is_none());
        assert!(
            StateCheck::equals(CheckedState::Checked, "true")
                .problem()
                .is_none()
        );
    }
}

//! Elements inside repeating structures (a grid's rows, a list's items, cards): where the
//! element is ([`CellPlace`], [`ItemPlace`], picks of a `structure` candidate), what it showed,
//! and which of the two a step relies on ([`Repeat`], [`Reliance`]).
//!
//! The rule: data is never mistaken for identity. A row's text is its identity only while the
//! rows do not depend on the tool's inputs; when the recording saw the structure re-render
//! after a fill that became an input, the step relies on its place (the first row after
//! filtering and sorting), and the place candidate goes first. Otherwise it relies on content:
//! only the candidates that name the element decide, and one that matches several elements
//! fails the step rather than letting a place decide (see the resolver's `relianceRule`).

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use crate::{Pick, Selector, SelectorCandidate, SelectorKind};

/// The cell of the `row`-th data row of a grid or table (counted from 1: by `aria-rowindex`
/// where the grid gives it — a virtualised grid renders only some rows, in any DOM order —,
/// else in document order; header rows not counted), in the column whose header is named
/// `column`; then the element of the candidate's role there: the cell itself, or the only one
/// (or the `nth`) inside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct CellPlace {
    /// The data row, counted from 1.
    pub row: NonZeroU32,
    /// The accessible name of the column's header.
    pub column: String,
    /// Which element of the role inside the cell, when the cell holds several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<NonZeroU32>,
}

impl CellPlace {
    /// `row 1, column "Name"`.
    pub fn describe(&self) -> String {
        let mut s = format!("row {}, column {:?}", self.row, self.column);
        if let Some(nth) = self.nth {
            s.push_str(&format!(", number {nth} in the cell"));
        }
        s
    }
}

/// The `item`-th item (counted from 1, in document order) of the repeating structure in the
/// anchor — a list's own items, a feed's articles, else the largest group of sibling elements
/// of one shape (tag and classes: cards) —, then the element of the candidate's role in it:
/// the item itself, or the only one (or the `nth`) inside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ItemPlace {
    /// The item, counted from 1.
    pub item: NonZeroU32,
    /// Which element of the role inside the item, when it holds several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<NonZeroU32>,
}

impl ItemPlace {
    /// `item 2`.
    pub fn describe(&self) -> String {
        let mut s = format!("item {}", self.item);
        if let Some(nth) = self.nth {
            s.push_str(&format!(", number {nth} in it"));
        }
        s
    }
}

/// What replay relies on to find an element of a repeating structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reliance {
    /// What the element shows (its text, name, test id): the same data wherever it is. Only
    /// the candidates that name the element are consulted, and one that matches several
    /// elements fails the step; places and paths never decide.
    #[default]
    Content,
    /// Where it is (row 1 under "Name", the 2nd card): whatever data is there on this run.
    /// The candidates that name the element are not consulted (they find the recorded row
    /// wherever it went), and a place that matches several (a grid still swapping its rows)
    /// is waited for.
    Position,
}

impl Reliance {
    /// `content` or `position`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reliance::Content => "content",
            Reliance::Position => "position",
        }
    }
}

/// An element in a repeating structure, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    /// What replay relies on.
    pub relies_on: Reliance,
    /// Its place, for people: `row 1, column "Name" of the grid`.
    pub place: String,
    /// The text of its row, item or card when recorded (trimmed), for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content: String,
}

/// Whether a candidate names the element by what it shows or carries (test id, role and
/// name, label, placeholder, text, accessible name, id) rather than by a place or a path.
pub fn names_element(kind: SelectorKind) -> bool {
    match kind {
        SelectorKind::TestId
        | SelectorKind::Role
        | SelectorKind::Label
        | SelectorKind::Placeholder
        | SelectorKind::Text
        | SelectorKind::AccessibleName
        | SelectorKind::Id => true,
        SelectorKind::Structure | SelectorKind::Css | SelectorKind::Xpath => false,
    }
}

/// Whether a candidate finds the element by its place in a repeating structure.
pub fn is_place_candidate(candidate: &SelectorCandidate) -> bool {
    candidate
        .structure
        .as_ref()
        .is_some_and(|s| s.pick.is_repeat_place())
}

impl Selector {
    /// Makes the step rely on `reliance` (a selector with no [`Repeat`] is left as it is): on
    /// position, the place candidates go first; on content, they go back below every
    /// candidate that names the element, before the other structure and path candidates.
    /// Returns whether anything changed.
    pub fn rely_on(&mut self, reliance: Reliance) -> bool {
        let Some(repeat) = &mut self.repeat else {
            return false;
        };
        let before = (repeat.relies_on, self.candidates.clone());
        repeat.relies_on = reliance;
        let (places, mut others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.candidates)
            .into_iter()
            .partition(is_place_candidate);
        self.candidates = match reliance {
            Reliance::Position => places.into_iter().chain(others).collect(),
            Reliance::Content => {
                let at = others
                    .iter()
                    .position(|c| !names_element(c.kind))
                    .unwrap_or(others.len());
                others.splice(at..at, places);
                others
            }
        };
        (repeat.relies_on, &self.candidates) != (before.0, &before.1)
    }

    /// What replay relies on: `None` outside a repeating structure.
    pub fn reliance(&self) -> Option<Reliance> {
        self.repeat.as_ref().map(|r| r.relies_on)
    }
}

impl Pick {
    /// The cell pick `row`, `column`.
    pub fn cell(row: NonZeroU32, column: impl Into<String>) -> Pick {
        Pick::Cell(CellPlace {
            row,
            column: column.into(),
            nth: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Anchor, RoleRef, Structure};

    fn place() -> SelectorCandidate {
        SelectorCandidate::structure(
            "gridcell",
            Structure {
                within: Anchor::Region(RoleRef {
                    role: "grid".into(),
                    name: None,
                }),
                pick: Pick::cell(1.try_into().unwrap(), "Name"),
                of: None,
            },
        )
    }

    fn selector() -> Selector {
        let mut s = Selector::new([
            SelectorCandidate::text("Alice"),
            SelectorCandidate::role("gridcell", "Alice"),
            place(),
            SelectorCandidate::css(".ag-row > div"),
        ]);
        s.repeat = Some(Repeat {
            relies_on: Reliance::Content,
            place: "row 1".into(),
            content: "Alice 34".into(),
        });
        s
    }

    #[test]
    fn relying_on_position_puts_the_place_first_and_content_puts_it_back() {
        let mut s = selector();
        let recorded = s.clone();
        assert!(s.rely_on(Reliance::Position));
        assert_eq!(s.candidates[0], place());
        assert_eq!(s.reliance(), Some(Reliance::Position));
        assert!(!s.rely_on(Reliance::Position));
        assert!(s.rely_on(Reliance::Content));
        assert_eq!(s, recorded);
        let mut outside = Selector::new([SelectorCandidate::text("Go")]);
        assert!(!outside.rely_on(Reliance::Position));
        assert_eq!(outside.reliance(), None);
    }
}

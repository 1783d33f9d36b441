//! Steps on an element of a repeating structure (a grid's cell, a list's item, a card): the
//! selector records its place and content ([`Repeat`]), relying on content until a fill that
//! re-rendered the structure becomes an input (`Draft::mark_input`), or on position when
//! nothing names the element but its place.

use super::*;
use browserflow_steps::{Reliance, Repeat, is_place_candidate, names_element};

impl Builder {
    /// `sel` with the target's place in a repeating structure, when its place candidate was
    /// kept (it found exactly the target): relying on content when a candidate names the
    /// element, else on its place.
    pub(super) fn with_repeat(&self, mut sel: Selector, target: &TargetInfo) -> Selector {
        let Some(raw) = &target.repeat else {
            return sel;
        };
        if !sel.candidates.iter().any(is_place_candidate) {
            return sel;
        }
        let named = sel.candidates.iter().any(|c| names_element(c.kind));
        sel.repeat = Some(Repeat {
            relies_on: Reliance::Content,
            place: raw.place.clone(),
            content: raw.content.clone(),
        });
        sel.rely_on(if named {
            Reliance::Content
        } else {
            Reliance::Position
        });
        sel
    }

    /// The fills (by their best candidate) whose typing re-rendered the structure `target`
    /// sits in, and those a later step submitted (it navigated: the structure is on a page
    /// made from them, as a search's results are).
    pub(super) fn fills_followed(&self, target: &TargetInfo) -> Vec<SelectorCandidate> {
        let Some(raw) = &target.repeat else {
            return Vec::new();
        };
        let mut out: Vec<SelectorCandidate> = Vec::new();
        let submitted = self
            .steps
            .iter()
            .rposition(|s| {
                s.step
                    .page_effects()
                    .is_some_and(|effects| effects.navigation.is_some())
            })
            .unwrap_or(0);
        for recorded in &self.steps[..submitted] {
            if let Step::Fill(f) = &recorded.step
                && let Some(candidate) = f.selector.candidates.first()
                && !out.contains(candidate)
            {
                out.push(candidate.clone());
            }
        }
        for token in &raw.changed_by {
            let fill = self
                .tokens
                .iter()
                .rposition(|t| t.as_deref() == Some(token.as_str()))
                .and_then(|i| {
                    let Step::Fill(f) = &self.steps[i].step else {
                        return None;
                    };
                    f.selector.candidates.first().cloned()
                });
            if let Some(candidate) = fill
                && !out.contains(&candidate)
            {
                out.push(candidate);
            }
        }
        out
    }
}

//! [`Step::validate`]: the rules of a step that its JSON shape alone cannot express — those of
//! every step with an element or checks here, those of each kind in `kind.rs`.

use crate::Step;

impl Step {
    /// Checks what serde cannot: non-empty candidates, required companions of fields.
    pub fn validate(&self) -> Result<(), String> {
        for (i, check) in self.expect().iter().enumerate() {
            if let Some(problem) = check.problem() {
                return Err(format!("expect[{i}]: {problem}"));
            }
        }
        if let Some(selector) = self.selector() {
            if selector.candidates.is_empty() {
                return Err("the selector has no candidates".into());
            }
            for (i, c) in selector.candidates.iter().enumerate() {
                if c.value.trim().is_empty() {
                    return Err(format!("selector candidate {} has an empty value", i + 1));
                }
            }
            if let Some(frame) = &selector.frame
                && frame.url.is_none()
                && frame.name.is_none()
                && frame.index_path.is_none()
            {
                return Err("the frame selector needs a url, a name or an index path".into());
            }
        }
        self.rules_of_its_kind()
    }
}

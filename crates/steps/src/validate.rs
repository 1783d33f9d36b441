//! What every step has in common (its kind, label and selector) and [`Step::validate`]: the
//! rules of a step that its JSON shape alone cannot express.

use crate::{DownloadOutput, ExtractSource, OutputKind, Selector, StateCheck, Step};

/// The longest press a `click` may hold: a long press is a second or two; a minute is a mistake.
const MAX_HOLD_MS: u64 = 60_000;

impl Step {
    /// The step's snake_case type name.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::Navigate(_) => "navigate",
            Step::Click(_) => "click",
            Step::Fill(_) => "fill",
            Step::KeyPress(_) => "key_press",
            Step::Hover(_) => "hover",
            Step::Drag(_) => "drag",
            Step::Scroll(_) => "scroll",
            Step::SetViewport(_) => "set_viewport",
            Step::WaitForElement(_) => "wait_for_element",
            Step::WaitForExpression(_) => "wait_for_expression",
            Step::Extract(_) => "extract",
            Step::Assert(_) => "assert",
            Step::HandleDialog(_) => "handle_dialog",
            Step::SwitchPage(_) => "switch_page",
            Step::ClosePage(_) => "close_page",
            Step::Download(_) => "download",
            Step::Upload(_) => "upload",
        }
    }

    /// The step's label, if any.
    pub fn label(&self) -> Option<&str> {
        match self {
            Step::Navigate(s) => s.label.as_deref(),
            Step::Click(s) => s.label.as_deref(),
            Step::Fill(s) => s.label.as_deref(),
            Step::KeyPress(s) => s.label.as_deref(),
            Step::Hover(s) => s.label.as_deref(),
            Step::Drag(s) => s.label.as_deref(),
            Step::Scroll(s) => s.label.as_deref(),
            Step::SetViewport(s) => s.label.as_deref(),
            Step::WaitForElement(s) => s.label.as_deref(),
            Step::WaitForExpression(s) => s.label.as_deref(),
            Step::Extract(s) => s.label.as_deref(),
            Step::Assert(s) => s.label.as_deref(),
            Step::HandleDialog(s) => s.label.as_deref(),
            Step::SwitchPage(s) => s.label.as_deref(),
            Step::ClosePage(s) => s.label.as_deref(),
            Step::Download(s) => s.label.as_deref(),
            Step::Upload(s) => s.label.as_deref(),
        }
    }

    /// The element selector of the step, if it has one.
    pub fn selector(&self) -> Option<&Selector> {
        match self {
            Step::Click(s) => Some(&s.selector),
            Step::Fill(s) => Some(&s.selector),
            Step::KeyPress(s) => s.selector.as_ref(),
            Step::Hover(s) => Some(&s.selector),
            Step::Drag(s) => Some(&s.selector),
            Step::Scroll(s) => s.selector.as_ref(),
            Step::WaitForElement(s) => Some(&s.selector),
            Step::Extract(s) => Some(&s.selector),
            Step::Assert(s) => s.selector.as_ref(),
            Step::Download(s) => Some(&s.selector),
            Step::Upload(s) => Some(&s.selector),
            _ => None,
        }
    }

    /// The step's post-state checks (empty for kinds that have none).
    pub fn expect(&self) -> &[StateCheck] {
        match self {
            Step::Click(s) => &s.expect,
            Step::Fill(s) => &s.expect,
            Step::KeyPress(s) => &s.expect,
            Step::Drag(s) => &s.expect,
            _ => &[],
        }
    }

    /// The step's post-state checks, to edit (`None` for kinds that have none).
    pub fn expect_mut(&mut self) -> Option<&mut Vec<StateCheck>> {
        match self {
            Step::Click(s) => Some(&mut s.expect),
            Step::Fill(s) => Some(&mut s.expect),
            Step::KeyPress(s) => Some(&mut s.expect),
            Step::Drag(s) => Some(&mut s.expect),
            _ => None,
        }
    }

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
        match self {
            Step::Click(s) if !(1..=3).contains(&s.click_count) => Err(format!(
                "click_count must be 1, 2 or 3, not {}",
                s.click_count
            )),
            Step::Click(s) if s.hold_ms.is_some() && s.click_count != 1 => {
                Err("a held press (`hold_ms`) is a single click".into())
            }
            Step::Click(s) if s.hold_ms.is_some_and(|ms| ms > MAX_HOLD_MS) => Err(format!(
                "a press is held at most {MAX_HOLD_MS} ms (`hold_ms`)"
            )),
            Step::KeyPress(s) if s.key.is_empty() => Err("key is empty".into()),
            Step::Extract(s) if s.field.trim().is_empty() => Err("field is empty".into()),
            Step::Extract(s) if s.from == ExtractSource::Attribute && s.attribute.is_none() => {
                Err("`from: attribute` needs `attribute`".into())
            }
            Step::Extract(s) if s.currency_field.is_some() && s.kind != OutputKind::Number => {
                Err("`currency_field` needs `kind: number`".into())
            }
            Step::Assert(s) => {
                let element_checks = s.text_equals.is_some()
                    || s.text_contains.is_some()
                    || s.value_equals.is_some();
                if element_checks && s.selector.is_none() {
                    Err("text and value checks need a selector".into())
                } else if !element_checks
                    && s.url.is_none()
                    && s.title.is_none()
                    && s.selector.is_none()
                {
                    Err("an assert step needs at least one check".into())
                } else {
                    Ok(())
                }
            }
            Step::Download(s) if s.field.as_deref().is_some_and(|f| f.trim().is_empty()) => {
                Err("field is empty".into())
            }
            Step::Download(s) if s.field.is_none() && s.output != DownloadOutput::File => {
                Err("`output` needs `field`".into())
            }
            Step::Upload(s) if s.files.is_empty() => Err("`files` is empty".into()),
            Step::Upload(s) if s.files.iter().any(|f| f.trim().is_empty()) => {
                Err("a path in `files` is empty".into())
            }
            Step::SetViewport(s) if s.width == 0 || s.height == 0 => {
                Err("viewport width and height must be positive".into())
            }
            _ => Ok(()),
        }
    }
}

//! Everything decided per step kind, in one place: [`StepKind`], the one list of kinds with
//! their names and the words people use for them, and one exhaustive match per concern over
//! [`Step`] — its label, element, post-state checks, settle, timeout, what it may do to the
//! pages, the output fields it writes, the rules its JSON cannot express (for
//! [`Step::validate`]). Its Playwright code is `playwright.rs`.
//!
//! No concern has a catch-all arm (`_ =>`): a new kind is a compile error at every arm it
//! needs, here and in the replayer's dispatch; a test of the repository's sources keeps it so
//! (`tests/it/kinds.rs`), and `ARCHITECTURE.md` lists the files a new kind touches.

use std::fmt;

use browserflow_contract::Problem;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ExtractListStep;
use crate::step::{
    AssertStep, ClickStep, ClosePageStep, DownloadStep, DragStep, ExtractStep, FillStep,
    HandleDialogStep, HoverStep, KeyPressStep, NavigateStep, ScrollStep, SetViewportStep,
    SwitchPageStep, UploadStep, WaitForElementStep, WaitForExpressionStep,
};
use crate::tool_file::every_problem;
use crate::{
    DownloadOutput, ExpectedNavigation, ExtractSource, OutputKind, Selector, Settle, StateCheck,
    Step,
};

/// The kind of a [`Step`], without its fields: the tool file's `"type"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum StepKind {
    /// See [`Step::Navigate`].
    Navigate,
    /// See [`Step::Click`].
    Click,
    /// See [`Step::Fill`].
    Fill,
    /// See [`Step::KeyPress`].
    KeyPress,
    /// See [`Step::Hover`].
    Hover,
    /// See [`Step::Drag`].
    Drag,
    /// See [`Step::Scroll`].
    Scroll,
    /// See [`Step::SetViewport`].
    SetViewport,
    /// See [`Step::WaitForElement`].
    WaitForElement,
    /// See [`Step::WaitForExpression`].
    WaitForExpression,
    /// See [`Step::Extract`].
    Extract,
    /// See [`Step::ExtractList`].
    ExtractList,
    /// See [`Step::Assert`].
    Assert,
    /// See [`Step::HandleDialog`].
    HandleDialog,
    /// See [`Step::SwitchPage`].
    SwitchPage,
    /// See [`Step::ClosePage`].
    ClosePage,
    /// See [`Step::Download`].
    Download,
    /// See [`Step::Upload`].
    Upload,
}

/// The longest press a `click` may hold: a long press is a second or two; a minute is a mistake.
const MAX_HOLD_MS: u64 = 60_000;

/// The older name of `fill` that tool files may still use (`#[serde(alias)]` on
/// [`Step::Fill`]).
const FILL_ALIAS: &str = "change";

impl StepKind {
    /// Every kind, in the order of [`Step`]'s variants. A test checks it against the kinds
    /// serde reads.
    pub const ALL: [StepKind; 18] = [
        StepKind::Navigate,
        StepKind::Click,
        StepKind::Fill,
        StepKind::KeyPress,
        StepKind::Hover,
        StepKind::Drag,
        StepKind::Scroll,
        StepKind::SetViewport,
        StepKind::WaitForElement,
        StepKind::WaitForExpression,
        StepKind::Extract,
        StepKind::ExtractList,
        StepKind::Assert,
        StepKind::HandleDialog,
        StepKind::SwitchPage,
        StepKind::ClosePage,
        StepKind::Download,
        StepKind::Upload,
    ];

    /// The snake_case name a tool file's `"type"` holds.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Navigate => "navigate",
            StepKind::Click => "click",
            StepKind::Fill => "fill",
            StepKind::KeyPress => "key_press",
            StepKind::Hover => "hover",
            StepKind::Drag => "drag",
            StepKind::Scroll => "scroll",
            StepKind::SetViewport => "set_viewport",
            StepKind::WaitForElement => "wait_for_element",
            StepKind::WaitForExpression => "wait_for_expression",
            StepKind::Extract => "extract",
            StepKind::ExtractList => "extract_list",
            StepKind::Assert => "assert",
            StepKind::HandleDialog => "handle_dialog",
            StepKind::SwitchPage => "switch_page",
            StepKind::ClosePage => "close_page",
            StepKind::Download => "download",
            StepKind::Upload => "upload",
        }
    }

    /// The kind as people say it, for screens (the tool file's names are for machines).
    pub fn label(self) -> &'static str {
        match self {
            StepKind::Navigate => "open page",
            StepKind::Click => "click",
            StepKind::Fill => "fill",
            StepKind::KeyPress => "press key",
            StepKind::Hover => "hover",
            StepKind::Drag => "drag",
            StepKind::Scroll => "scroll",
            StepKind::SetViewport => "set viewport",
            StepKind::WaitForElement => "wait for element",
            StepKind::WaitForExpression => "wait for expression",
            StepKind::Extract => "read",
            StepKind::ExtractList => "read list",
            StepKind::Assert => "assert",
            StepKind::HandleDialog => "handle dialog",
            StepKind::SwitchPage => "switch page",
            StepKind::ClosePage => "close page",
            StepKind::Download => "download",
            StepKind::Upload => "upload",
        }
    }

    /// The kind a tool file's `"type"` names, older names included (`change` is `fill`).
    pub fn from_name(name: &str) -> Option<StepKind> {
        if name == FILL_ALIAS {
            return Some(StepKind::Fill);
        }
        StepKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// Every problem of `fields` (a step's members but its `"type"`) read as this kind's own
    /// struct, each at its exact pointer under `at`: how a tool file locates what is wrong
    /// inside a step (inside the tagged `Step` enum, serde loses where).
    pub(crate) fn every_problem(self, fields: Value, at: &str) -> Vec<Problem> {
        match self {
            StepKind::Navigate => every_problem::<NavigateStep>(fields, at),
            StepKind::Click => every_problem::<ClickStep>(fields, at),
            StepKind::Fill => every_problem::<FillStep>(fields, at),
            StepKind::KeyPress => every_problem::<KeyPressStep>(fields, at),
            StepKind::Hover => every_problem::<HoverStep>(fields, at),
            StepKind::Drag => every_problem::<DragStep>(fields, at),
            StepKind::Scroll => every_problem::<ScrollStep>(fields, at),
            StepKind::SetViewport => every_problem::<SetViewportStep>(fields, at),
            StepKind::WaitForElement => every_problem::<WaitForElementStep>(fields, at),
            StepKind::WaitForExpression => every_problem::<WaitForExpressionStep>(fields, at),
            StepKind::Extract => every_problem::<ExtractStep>(fields, at),
            StepKind::ExtractList => every_problem::<ExtractListStep>(fields, at),
            StepKind::Assert => every_problem::<AssertStep>(fields, at),
            StepKind::HandleDialog => every_problem::<HandleDialogStep>(fields, at),
            StepKind::SwitchPage => every_problem::<SwitchPageStep>(fields, at),
            StepKind::ClosePage => every_problem::<ClosePageStep>(fields, at),
            StepKind::Download => every_problem::<DownloadStep>(fields, at),
            StepKind::Upload => every_problem::<UploadStep>(fields, at),
        }
    }
}

impl fmt::Display for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a gesture may do to the pages (a click or a key press): navigate the page it ran on,
/// or open a popup. See [`Step::page_effects`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageEffects<'a> {
    /// The navigation the gesture must cause.
    pub navigation: Option<&'a ExpectedNavigation>,
    /// The popup it opens, by the name the steps after it use.
    pub opens_popup: Option<&'a str>,
}

impl PageEffects<'_> {
    /// The gesture navigated or opened a popup: that, not the page's state, is what its
    /// replay checks.
    pub fn leaves_page(&self) -> bool {
        self.navigation.is_some() || self.opens_popup.is_some()
    }
}

/// [`PageEffects`], to set. See [`Step::page_effects_mut`].
#[derive(Debug)]
pub struct PageEffectsMut<'a> {
    /// The navigation the gesture must cause.
    pub navigation: &'a mut Option<ExpectedNavigation>,
    /// The popup it opens, by the name the steps after it use.
    pub opens_popup: &'a mut Option<String>,
}

/// An output field a step writes, with the JSON Schema of the value it writes there.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutput {
    /// The output field.
    pub field: String,
    /// Its schema, as the tool's output schema declares it.
    pub schema: Value,
}

impl Step {
    /// The step's kind.
    pub fn kind(&self) -> StepKind {
        match self {
            Step::Navigate(_) => StepKind::Navigate,
            Step::Click(_) => StepKind::Click,
            Step::Fill(_) => StepKind::Fill,
            Step::KeyPress(_) => StepKind::KeyPress,
            Step::Hover(_) => StepKind::Hover,
            Step::Drag(_) => StepKind::Drag,
            Step::Scroll(_) => StepKind::Scroll,
            Step::SetViewport(_) => StepKind::SetViewport,
            Step::WaitForElement(_) => StepKind::WaitForElement,
            Step::WaitForExpression(_) => StepKind::WaitForExpression,
            Step::Extract(_) => StepKind::Extract,
            Step::ExtractList(_) => StepKind::ExtractList,
            Step::Assert(_) => StepKind::Assert,
            Step::HandleDialog(_) => StepKind::HandleDialog,
            Step::SwitchPage(_) => StepKind::SwitchPage,
            Step::ClosePage(_) => StepKind::ClosePage,
            Step::Download(_) => StepKind::Download,
            Step::Upload(_) => StepKind::Upload,
        }
    }

    /// The step's label, if any.
    pub fn label(&self) -> Option<&str> {
        self.label_slot().as_deref()
    }

    /// The step's label, to set.
    pub fn label_mut(&mut self) -> &mut Option<String> {
        match self {
            Step::Navigate(s) => &mut s.label,
            Step::Click(s) => &mut s.label,
            Step::Fill(s) => &mut s.label,
            Step::KeyPress(s) => &mut s.label,
            Step::Hover(s) => &mut s.label,
            Step::Drag(s) => &mut s.label,
            Step::Scroll(s) => &mut s.label,
            Step::SetViewport(s) => &mut s.label,
            Step::WaitForElement(s) => &mut s.label,
            Step::WaitForExpression(s) => &mut s.label,
            Step::Extract(s) => &mut s.label,
            Step::ExtractList(s) => &mut s.label,
            Step::Assert(s) => &mut s.label,
            Step::HandleDialog(s) => &mut s.label,
            Step::SwitchPage(s) => &mut s.label,
            Step::ClosePage(s) => &mut s.label,
            Step::Download(s) => &mut s.label,
            Step::Upload(s) => &mut s.label,
        }
    }

    fn label_slot(&self) -> &Option<String> {
        match self {
            Step::Navigate(s) => &s.label,
            Step::Click(s) => &s.label,
            Step::Fill(s) => &s.label,
            Step::KeyPress(s) => &s.label,
            Step::Hover(s) => &s.label,
            Step::Drag(s) => &s.label,
            Step::Scroll(s) => &s.label,
            Step::SetViewport(s) => &s.label,
            Step::WaitForElement(s) => &s.label,
            Step::WaitForExpression(s) => &s.label,
            Step::Extract(s) => &s.label,
            Step::ExtractList(s) => &s.label,
            Step::Assert(s) => &s.label,
            Step::HandleDialog(s) => &s.label,
            Step::SwitchPage(s) => &s.label,
            Step::ClosePage(s) => &s.label,
            Step::Download(s) => &s.label,
            Step::Upload(s) => &s.label,
        }
    }

    /// The text the step gives the page as a person typed it, which can become an input: a
    /// fill's value, or the text a prompt dialog is answered with.
    pub fn typed_text(&self) -> Option<&str> {
        match self {
            Step::Fill(s) => Some(&s.value),
            Step::HandleDialog(s) => s.prompt_text.as_deref(),
            Step::Navigate(_)
            | Step::Click(_)
            | Step::KeyPress(_)
            | Step::Hover(_)
            | Step::Drag(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// [`Step::typed_text`], to replace (by an input's reference).
    pub fn typed_text_mut(&mut self) -> Option<&mut String> {
        match self {
            Step::Fill(s) => Some(&mut s.value),
            Step::HandleDialog(s) => s.prompt_text.as_mut(),
            Step::Navigate(_)
            | Step::Click(_)
            | Step::KeyPress(_)
            | Step::Hover(_)
            | Step::Drag(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// The element the step acts on or reads, if it has one.
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
            Step::ExtractList(s) => Some(&s.items),
            Step::Assert(s) => s.selector.as_ref(),
            Step::Download(s) => Some(&s.selector),
            Step::Upload(s) => Some(&s.selector),
            Step::Navigate(_)
            | Step::SetViewport(_)
            | Step::WaitForExpression(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_) => None,
        }
    }

    /// The element the step acts on or reads, to edit (its candidates re-ranked, one added).
    pub fn selector_mut(&mut self) -> Option<&mut Selector> {
        match self {
            Step::Click(s) => Some(&mut s.selector),
            Step::Fill(s) => Some(&mut s.selector),
            Step::KeyPress(s) => s.selector.as_mut(),
            Step::Hover(s) => Some(&mut s.selector),
            Step::Drag(s) => Some(&mut s.selector),
            Step::Scroll(s) => s.selector.as_mut(),
            Step::WaitForElement(s) => Some(&mut s.selector),
            Step::Extract(s) => Some(&mut s.selector),
            Step::ExtractList(s) => Some(&mut s.items),
            Step::Assert(s) => s.selector.as_mut(),
            Step::Download(s) => Some(&mut s.selector),
            Step::Upload(s) => Some(&mut s.selector),
            Step::Navigate(_)
            | Step::SetViewport(_)
            | Step::WaitForExpression(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_) => None,
        }
    }

    /// The step's post-state checks (empty for kinds that have none).
    pub fn expect(&self) -> &[StateCheck] {
        match self {
            Step::Click(s) => &s.expect,
            Step::Fill(s) => &s.expect,
            Step::KeyPress(s) => &s.expect,
            Step::Drag(s) => &s.expect,
            Step::Navigate(_)
            | Step::Hover(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => &[],
        }
    }

    /// The step's post-state checks, to edit (`None` for kinds that have none).
    pub fn expect_mut(&mut self) -> Option<&mut Vec<StateCheck>> {
        match self {
            Step::Click(s) => Some(&mut s.expect),
            Step::Fill(s) => Some(&mut s.expect),
            Step::KeyPress(s) => Some(&mut s.expect),
            Step::Drag(s) => Some(&mut s.expect),
            Step::Navigate(_)
            | Step::Hover(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// What the step's gesture set off, when recorded (the kinds with post-state checks).
    pub fn settle(&self) -> Option<&Settle> {
        match self {
            Step::Click(s) => s.settle.as_ref(),
            Step::Fill(s) => s.settle.as_ref(),
            Step::KeyPress(s) => s.settle.as_ref(),
            Step::Drag(s) => s.settle.as_ref(),
            Step::Navigate(_)
            | Step::Hover(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// The step's settle, to set (`None` for kinds that have none).
    pub fn settle_mut(&mut self) -> Option<&mut Option<Settle>> {
        match self {
            Step::Click(s) => Some(&mut s.settle),
            Step::Fill(s) => Some(&mut s.settle),
            Step::KeyPress(s) => Some(&mut s.settle),
            Step::Drag(s) => Some(&mut s.settle),
            Step::Navigate(_)
            | Step::Hover(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// The budget the step's gesture has for what follows it — its settle and its post-state
    /// checks — when it overrides the replay's: the kinds with post-state checks.
    pub fn after_timeout_ms(&self) -> Option<u64> {
        match self {
            Step::Click(s) => s.timeout_ms,
            Step::Fill(s) => s.timeout_ms,
            Step::KeyPress(s) => s.timeout_ms,
            Step::Drag(s) => s.timeout_ms,
            Step::Navigate(_)
            | Step::Hover(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// What the step's gesture may do to the pages — navigate, open a popup — for the kinds
    /// that can (a click, a key press); `None` for every other kind.
    pub fn page_effects(&self) -> Option<PageEffects<'_>> {
        match self {
            Step::Click(s) => Some(PageEffects {
                navigation: s.navigation.as_ref(),
                opens_popup: s.opens_popup.as_deref(),
            }),
            Step::KeyPress(s) => Some(PageEffects {
                navigation: s.navigation.as_ref(),
                opens_popup: s.opens_popup.as_deref(),
            }),
            Step::Navigate(_)
            | Step::Fill(_)
            | Step::Hover(_)
            | Step::Drag(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// [`Step::page_effects`], to set.
    pub fn page_effects_mut(&mut self) -> Option<PageEffectsMut<'_>> {
        match self {
            Step::Click(s) => Some(PageEffectsMut {
                navigation: &mut s.navigation,
                opens_popup: &mut s.opens_popup,
            }),
            Step::KeyPress(s) => Some(PageEffectsMut {
                navigation: &mut s.navigation,
                opens_popup: &mut s.opens_popup,
            }),
            Step::Navigate(_)
            | Step::Fill(_)
            | Step::Hover(_)
            | Step::Drag(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Extract(_)
            | Step::ExtractList(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Download(_)
            | Step::Upload(_) => None,
        }
    }

    /// The rules of the step's own kind that its JSON shape cannot express (see
    /// [`Step::validate`]).
    pub(crate) fn rules_of_its_kind(&self) -> Result<(), String> {
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
            Step::Click(_) => Ok(()),
            Step::KeyPress(s) if s.key.is_empty() => Err("key is empty".into()),
            Step::KeyPress(_) => Ok(()),
            Step::Extract(s) if s.field.trim().is_empty() => Err("field is empty".into()),
            Step::Extract(s) if s.from == ExtractSource::Attribute && s.attribute.is_none() => {
                Err("`from: attribute` needs `attribute`".into())
            }
            Step::Extract(s) if s.currency_field.is_some() && s.kind != OutputKind::Number => {
                Err("`currency_field` needs `kind: number`".into())
            }
            Step::Extract(_) => Ok(()),
            Step::ExtractList(s) => s.problem().map_or(Ok(()), Err),
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
            Step::Download(_) => Ok(()),
            Step::Upload(s) if s.files.is_empty() => Err("`files` is empty".into()),
            Step::Upload(s) if s.files.iter().any(|f| f.trim().is_empty()) => {
                Err("a path in `files` is empty".into())
            }
            Step::Upload(_) => Ok(()),
            Step::SetViewport(s) if s.width == 0 || s.height == 0 => {
                Err("viewport width and height must be positive".into())
            }
            Step::SetViewport(_) => Ok(()),
            // Their JSON shape says all there is to say.
            Step::Navigate(_)
            | Step::Fill(_)
            | Step::Hover(_)
            | Step::Drag(_)
            | Step::Scroll(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_) => Ok(()),
        }
    }

    /// The output fields the step writes and the schema of each: what it adds to the tool's
    /// output object.
    pub fn outputs(&self) -> Vec<StepOutput> {
        let output = |field: &str, schema: Value| StepOutput {
            field: field.to_owned(),
            schema,
        };
        match self {
            Step::Extract(s) => {
                let mut out = vec![output(
                    s.field.as_str(),
                    json!({ "type": s.kind.json_type() }),
                )];
                if let Some(currency) = &s.currency_field {
                    out.push(output(currency.as_str(), json!({ "type": "string" })));
                }
                out
            }
            Step::ExtractList(s) => vec![output(s.field.as_str(), s.schema())],
            Step::Download(s) => s
                .field
                .iter()
                .map(|field| output(field.as_str(), s.output.schema()))
                .collect(),
            Step::Navigate(_)
            | Step::Click(_)
            | Step::Fill(_)
            | Step::KeyPress(_)
            | Step::Hover(_)
            | Step::Drag(_)
            | Step::Scroll(_)
            | Step::SetViewport(_)
            | Step::WaitForElement(_)
            | Step::WaitForExpression(_)
            | Step::Assert(_)
            | Step::HandleDialog(_)
            | Step::SwitchPage(_)
            | Step::ClosePage(_)
            | Step::Upload(_) => Vec::new(),
        }
    }
}

impl OutputKind {
    /// The JSON Schema `type` of the value.
    pub fn json_type(self) -> &'static str {
        match self {
            OutputKind::String => "string",
            OutputKind::Number => "number",
            OutputKind::Integer => "integer",
            OutputKind::Boolean => "boolean",
        }
    }
}

impl DownloadOutput {
    /// The JSON Schema of what a download writes to its field.
    pub fn schema(self) -> Value {
        match self {
            DownloadOutput::File => json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string" },
                    "path": { "type": "string" },
                    "size": { "type": "integer" },
                    "sha256": { "type": "string" },
                    "url": { "type": "string" },
                },
                "required": ["name", "path", "sha256", "size", "url"],
            }),
            DownloadOutput::Path | DownloadOutput::Name | DownloadOutput::Sha256 => {
                json!({ "type": "string" })
            }
            DownloadOutput::Size => json!({ "type": "integer" }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_labels_are_distinct() {
        let mut labels = std::collections::BTreeSet::new();
        for kind in StepKind::ALL {
            assert_eq!(StepKind::from_name(kind.name()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.name()));
            assert!(labels.insert(kind.label()), "{kind}: label used twice");
        }
        assert_eq!(StepKind::from_name(FILL_ALIAS), Some(StepKind::Fill));
        assert_eq!(StepKind::from_name("select"), None);
    }
}

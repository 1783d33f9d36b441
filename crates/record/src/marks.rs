//! Marks given by CSS selector rather than by step index or pick: what a scripted recording
//! (`bflow record --input NAME=SELECTOR --extract NAME=SELECTOR`) asks for. Selectors are
//! looked up in the live page while it is still open ([`Recorder::resolve_marks`]), so an
//! output gets the page's ranked candidates and an input finds its fill by any candidate the
//! page gives that field; the marks then apply to the stopped recording's draft
//! ([`Draft::apply_marks`]).
//!
//! ```no_run
//! use browserflow_record::{InputBySelector, InputType, OutputBySelector, RecordOptions, Recorder};
//! use browserflow_steps::OutputKind;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let recorder = Recorder::start(RecordOptions::new("http://127.0.0.1:4780/index.html")).await?;
//! recorder.wait_closed().await;
//! let inputs = vec![InputBySelector::new("query", "#search", InputType::String)];
//! let outputs = vec![OutputBySelector::new("price", "#product-price", OutputKind::Number)];
//! let marks = recorder.resolve_marks(inputs, outputs).await;
//! let mut draft = recorder.stop().await?;
//! if let Err(unresolved) = draft.apply_marks(marks) {
//!     for mark in &unresolved {
//!         eprintln!("{mark}"); // `--extract price=#product-price: matched nothing on the page …`
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use browserflow_steps::{OutputKind, SelectorCandidate};

use crate::{Draft, InputMark, InputType, MAIN_PAGE, OutputMark, Recorder};

/// How long an input's field is looked for in the live page: the page may be gone or busy,
/// and the draft's own candidates are a good enough fallback.
const INPUT_LOOKUP: Duration = Duration::from_secs(1);

/// An input slot named by the field its value was typed into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputBySelector {
    /// The slot name.
    pub name: String,
    /// The filled field, as a person types it (`#search`, a test id, a label).
    pub selector: String,
    /// The slot's JSON type.
    pub kind: InputType,
}

impl InputBySelector {
    /// The input `name` of type `kind` replacing what was typed into `selector`.
    pub fn new(name: impl Into<String>, selector: impl Into<String>, kind: InputType) -> Self {
        Self {
            name: name.into(),
            selector: selector.into(),
            kind,
        }
    }
}

/// An output field read from the element a CSS selector finds at the end of the recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputBySelector {
    /// The output field.
    pub name: String,
    /// The CSS selector of the element read.
    pub selector: String,
    /// The type its text is coerced to.
    pub kind: OutputKind,
}

impl OutputBySelector {
    /// The output field `name` of type `kind`, read from `selector`.
    pub fn new(name: impl Into<String>, selector: impl Into<String>, kind: OutputKind) -> Self {
        Self {
            name: name.into(),
            selector: selector.into(),
            kind,
        }
    }
}

/// Marks by selector, looked up in the live page, ready for [`Draft::apply_marks`].
#[derive(Debug, Clone)]
pub struct SelectorMarks {
    /// Each input with the candidates the live page gave its selector (none when the page
    /// was closed or did not answer).
    inputs: Vec<(InputBySelector, Vec<SelectorCandidate>)>,
    /// Each output with what its selector found.
    outputs: Vec<(OutputBySelector, Found)>,
}

/// What an output's selector found in the pages of the recording.
#[derive(Debug, Clone)]
enum Found {
    /// The element, with the page's ranked candidates for it.
    Element(Box<OutputMark>),
    /// Nothing, on any live page it was looked up in (the last one is named).
    Nothing { url: String },
    /// It was never looked up: the window was closed first. Only the selector is kept.
    NotLookedUp,
    /// It was checked in a kept page of the recording and does not resolve, for this reason.
    Refused { why: String },
}

/// A mark by selector that the recording does not satisfy: no tool is written with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedMark {
    /// The flag it came from: `--input` or `--extract`.
    pub flag: &'static str,
    /// The slot or field name.
    pub name: String,
    /// The selector as given.
    pub selector: String,
    /// Why it does not resolve, in words.
    pub why: String,
}

impl std::fmt::Display for UnresolvedMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}={}: {}",
            self.flag, self.name, self.selector, self.why
        )
    }
}

/// Marks by selector being watched while the recording runs: each output's selector is looked
/// up after every recorded step, so that the element it names is known even when the window is
/// closed before the recording ends (and an output that matched nothing on any page is known
/// to be wrong, rather than written into a tool that can never replay).
#[derive(Debug, Clone)]
pub struct MarkWatch {
    inputs: Vec<(InputBySelector, Vec<SelectorCandidate>)>,
    outputs: Vec<(OutputBySelector, Found)>,
}

impl MarkWatch {
    /// Watches `inputs` and `outputs`; nothing is looked up yet.
    pub fn new(inputs: Vec<InputBySelector>, outputs: Vec<OutputBySelector>) -> Self {
        Self {
            inputs: inputs.into_iter().map(|i| (i, Vec::new())).collect(),
            outputs: outputs
                .into_iter()
                .map(|o| (o, Found::NotLookedUp))
                .collect(),
        }
    }

    /// Looks every output's selector up in the page of the last step, while the recording is
    /// live; an element found is kept until a later look finds it again (or replaces it).
    pub async fn look(&mut self, recorder: &Recorder, patience: Duration) {
        if recorder.is_closed() {
            return;
        }
        let steps = recorder.steps();
        let Some(last) = steps.last() else { return };
        let (page, url) = (last.page.clone(), last.url.clone());
        for (output, found) in &mut self.outputs {
            let live = tokio::time::timeout(patience, recorder.element(&page, &output.selector))
                .await
                .ok()
                .and_then(Result::ok);
            *found = match (live, &*found) {
                (Some(picked), _) => Found::Element(Box::new(OutputMark::picked(
                    &output.name,
                    &picked,
                    output.kind,
                ))),
                // Found on an earlier page: the output reads the page the journey ends on,
                // and a later look there decides.
                (None, Found::Element(mark)) => Found::Element(mark.clone()),
                (None, _) => Found::Nothing { url: url.clone() },
            };
        }
    }

    /// The last look, when the recording ends with the page still open: outputs on the page
    /// of the last step (waiting a little for an element still arriving), inputs on the main
    /// page.
    pub async fn look_last(mut self, recorder: &Recorder) -> SelectorMarks {
        if !recorder.is_closed() {
            // The journey's end decides: a stale element from an earlier page does not count.
            for (_, found) in &mut self.outputs {
                if matches!(found, Found::Element(_)) {
                    *found = Found::NotLookedUp;
                }
            }
            self.look(recorder, Duration::from_secs(5)).await;
            for (input, candidates) in &mut self.inputs {
                *candidates = tokio::time::timeout(
                    INPUT_LOOKUP,
                    recorder.element(MAIN_PAGE, &input.selector),
                )
                .await
                .ok()
                .and_then(Result::ok)
                .map(|p| p.selector.candidates)
                .unwrap_or_default();
            }
        }
        SelectorMarks {
            inputs: self.inputs,
            outputs: self.outputs,
        }
    }
}

impl Recorder {
    /// Looks the selectors of `inputs` and `outputs` up in the live page, when it is still
    /// open: outputs on the page of the last step, inputs on the main page.
    pub async fn resolve_marks(
        &self,
        inputs: Vec<InputBySelector>,
        outputs: Vec<OutputBySelector>,
    ) -> SelectorMarks {
        MarkWatch::new(inputs, outputs).look_last(self).await
    }
}

impl SelectorMarks {
    /// Marks for a recording that is no longer live (a saved draft): nothing can be looked up;
    /// inputs find their fill by the selector's own words, outputs keep only their selector.
    pub fn unchecked(inputs: Vec<InputBySelector>, outputs: Vec<OutputBySelector>) -> Self {
        let watch = MarkWatch::new(inputs, outputs);
        SelectorMarks {
            inputs: watch.inputs,
            outputs: watch.outputs,
        }
    }

    /// Marks for a kept draft whose outputs were checked in its kept pages
    /// ([`SelectorMarks::checked_in_pages`]): an output that resolved keeps its selector, one
    /// that did not says why.
    pub(crate) fn checked(
        inputs: Vec<InputBySelector>,
        outputs: Vec<(OutputBySelector, Result<(), String>)>,
    ) -> Self {
        SelectorMarks {
            inputs: inputs.into_iter().map(|i| (i, Vec::new())).collect(),
            outputs: outputs
                .into_iter()
                .map(|(output, verdict)| {
                    let found = match verdict {
                        Ok(()) => Found::Element(Box::new(OutputMark::css(
                            &output.name,
                            &output.selector,
                            output.kind,
                        ))),
                        Err(why) => Found::Refused { why },
                    };
                    (output, found)
                })
                .collect(),
        }
    }

    /// The outputs whose element was never looked up (the window closed first): they are
    /// written with their selector alone, unchecked.
    pub fn unchecked_outputs(&self) -> Vec<String> {
        self.outputs
            .iter()
            .filter(|(_, found)| matches!(found, Found::NotLookedUp))
            .map(|(o, _)| o.name.clone())
            .collect()
    }
}

impl Draft {
    /// Marks every input (on the fill its selector names) and then every output. Every mark
    /// that does not resolve is reported, not only the first; the draft then holds the marks
    /// that did (and nothing is lost: its steps are untouched).
    pub fn apply_marks(&mut self, marks: SelectorMarks) -> Result<(), Vec<UnresolvedMark>> {
        let mut unresolved = Vec::new();
        for (input, live) in &marks.inputs {
            let applied = self.fill_step_for(&input.selector, live).and_then(|index| {
                self.mark_input(index, InputMark::typed(&input.name, input.kind))
            });
            if let Err(e) = applied {
                unresolved.push(UnresolvedMark {
                    flag: "--input",
                    name: input.name.clone(),
                    selector: input.selector.clone(),
                    why: e.to_string(),
                });
            }
        }
        for (output, found) in marks.outputs {
            let mark = match found {
                Found::Element(mark) => *mark,
                Found::NotLookedUp => OutputMark::css(&output.name, &output.selector, output.kind),
                Found::Nothing { url } => {
                    unresolved.push(UnresolvedMark {
                        flag: "--extract",
                        name: output.name.clone(),
                        selector: output.selector.clone(),
                        why: format!("matched nothing on the page (last looked at {url})"),
                    });
                    continue;
                }
                Found::Refused { why } => {
                    unresolved.push(UnresolvedMark {
                        flag: "--extract",
                        name: output.name.clone(),
                        selector: output.selector.clone(),
                        why,
                    });
                    continue;
                }
            };
            if let Err(e) = self.mark_output(mark) {
                unresolved.push(UnresolvedMark {
                    flag: "--extract",
                    name: output.name.clone(),
                    selector: output.selector.clone(),
                    why: e.to_string(),
                });
            }
        }
        if unresolved.is_empty() {
            Ok(())
        } else {
            Err(unresolved)
        }
    }
}

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
//! draft.apply_marks(marks)?;
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use browserflow_steps::{OutputKind, SelectorCandidate};

use crate::{Draft, InputMark, InputType, MAIN_PAGE, OutputMark, RecordError, Recorder};

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
    /// The output marks, with the live page's candidates when it was open.
    outputs: Vec<OutputMark>,
}

/// Why a mark by selector does not fit the draft.
#[derive(Debug, thiserror::Error)]
pub enum SelectorMarkError {
    /// No recorded fill matches an input's selector.
    #[error(transparent)]
    NoFill(RecordError),
    /// The draft refused the mark (a name taken, a step that cannot be an input, …).
    #[error(transparent)]
    Mark(#[from] RecordError),
}

impl Recorder {
    /// Looks the selectors of `inputs` and `outputs` up in the live page, when it is still
    /// open: outputs on the page of the last step, inputs on the main page. A selector the
    /// page does not find keeps only what was given.
    pub async fn resolve_marks(
        &self,
        inputs: Vec<InputBySelector>,
        outputs: Vec<OutputBySelector>,
    ) -> SelectorMarks {
        let mut output_marks = Vec::new();
        for output in &outputs {
            let live = if self.is_closed() {
                None
            } else {
                let page = self
                    .steps()
                    .last()
                    .map(|s| s.page.clone())
                    .unwrap_or_else(|| MAIN_PAGE.into());
                self.element(&page, &output.selector).await.ok()
            };
            output_marks.push(match live {
                Some(picked) => OutputMark::picked(&output.name, &picked, output.kind),
                None => OutputMark::css(&output.name, &output.selector, output.kind),
            });
        }
        let mut resolved_inputs = Vec::new();
        for input in inputs {
            let live = if self.is_closed() {
                None
            } else {
                tokio::time::timeout(INPUT_LOOKUP, self.element(MAIN_PAGE, &input.selector))
                    .await
                    .ok()
                    .and_then(Result::ok)
            };
            let candidates = live.map(|p| p.selector.candidates).unwrap_or_default();
            resolved_inputs.push((input, candidates));
        }
        SelectorMarks {
            inputs: resolved_inputs,
            outputs: output_marks,
        }
    }
}

impl Draft {
    /// Marks every input (on the fill its selector names) and then every output.
    pub fn apply_marks(&mut self, marks: SelectorMarks) -> Result<(), SelectorMarkError> {
        for (input, live) in &marks.inputs {
            let index = self
                .fill_step_for(&input.selector, live)
                .map_err(SelectorMarkError::NoFill)?;
            self.mark_input(index, InputMark::typed(&input.name, input.kind))?;
        }
        for mark in marks.outputs {
            self.mark_output(mark)?;
        }
        Ok(())
    }
}

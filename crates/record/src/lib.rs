//! The recorder: a person (or a test sending trusted CDP input) drives a real Chromium page;
//! every action becomes a replayable [`Step`] with ranked selector candidates; typed values can
//! become inputs and picked elements outputs; the result is a browser [`ToolFile`].
//!
//! * Capture: a recorder script runs in an isolated world of every frame, present and future
//!   (`Page.addScriptToEvaluateOnNewDocument` + `Runtime.addBinding` on the page, on every
//!   auto-attached out-of-process iframe and on every popup). Only trusted events count
//!   (`event.isTrusted`): clicks (lifted to the nearest interactive ancestor), double clicks,
//!   fills (one step per field), Enter/Tab/Escape and shortcuts, selects, checkboxes and radios;
//!   the CDP side adds navigations (asserted on the step that caused them), popups
//!   (`opens_popup` + `switch_page`) and dialogs (`handle_dialog` with the answer given, before
//!   the step that opened them: the person answers in a headed recording, the recorder says OK
//!   in a headless one; see [`DialogAnswers`]).
//! * Hovers that matter: when a click's target was hidden before the pointer entered an
//!   element and shown after, a `hover` step on that element comes before the click. Plain
//!   pointer movement records nothing.
//! * Scrolls that matter: a person's scrolls (wheel, touch, scrolling keys; not page scripts)
//!   are coalesced per container (the window or an element) into one `scroll` step with the
//!   final position, kept only when the next step's element appeared after the scroll began
//!   (an infinite list loading more); other scrolls are dropped.
//! * Downloads: the recording context downloads into [`RecordOptions::download_dir`] (a
//!   temporary folder by default); a click that starts a download becomes a `download` step
//!   with the suggested file name, and [`RecordedStep::download`] describes the file (path,
//!   size, SHA-256) once it finished.
//! * File choosers are intercepted: [`RecordEvent::FileChooser`] reports one, and
//!   [`Recorder::answer_file_chooser`] sets its files and turns the click that opened it into
//!   an `upload` step with those paths. Files dropped on a file input directly become an
//!   `upload` step with the names the page saw (a page never sees their folders).
//! * Selectors: candidates ranked test id, role+name, label, placeholder, text, id, CSS, XPath,
//!   inside shadow-root chains and with a frame identity (name or URL). Each candidate is checked
//!   in the live page with the replayer's own resolver: it must match exactly one element, the
//!   target; generated ids (`ember123`), hashed class names and long `nth` chains go last.
//! * Waits: an element that appeared after the page loaded gets an explicit `wait_for_element`
//!   step before the step that uses it, so replay never depends on timing.
//! * Marks: [`Draft::mark_input`] turns a recorded value into an input slot (the recorded value
//!   is its `default`); password fields are secret inputs from the start, and their values never
//!   reach Rust, the draft or any file. [`Draft::mark_output`] adds a typed extract step.
//! * Model assistance ([`model_assist`], off unless configured) suggests names and descriptions
//!   ([`ModelAssist::suggest`]) and better selectors ([`Recorder::suggest_selector`]: kept only
//!   when the live page shows it unique and on the recorded element); every call and its
//!   outcome is kept in the tool file's metadata. Replay never calls a model.
//! * Thumbnails: with [`RecordOptions::thumbnails`], every step gets a small PNG of the page
//!   as the step left it, as a [`RecordEvent::StepUpdated`]: taken when the next press or
//!   named key is announced by the page, or once the page is quiet and loaded (the first
//!   navigation and steps that navigate show the document they reached); never while an
//!   element is picked, and with the page's password values masked.
//!
//! # Example
//!
//! ```no_run
//! use browserflow_record::{Draft, InputMark, OutputMark, RecordOptions, Recorder};
//! use browserflow_steps::OutputKind;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let recorder = Recorder::start(RecordOptions::new("http://127.0.0.1:4780/index.html")).await?;
//! let mut events = recorder.subscribe();
//! tokio::spawn(async move {
//!     while let Ok(event) = events.recv().await {
//!         println!("{event:?}");
//!     }
//! });
//! recorder.wait_closed().await; // the person closes the window
//! let mut draft: Draft = recorder.stop().await?;
//! draft.mark_input(1, InputMark::string("query"))?; // step 2 filled the search box
//! draft.mark_output(OutputMark::css("price", "#product-price", OutputKind::Number))?;
//! let tool = draft.into_tool_file("search-price", "1.0.0", Some("Search and read a price"))?;
//! std::fs::write("search-price@1.0.0.json", tool.to_json_pretty())?;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod capture;
mod draft;
mod event_loop;
mod lists;
mod marks;
pub mod model_assist;
pub mod protocol;
mod recorded_pages;
mod recorder;
mod selectors;
mod settle;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use browserflow_cdp::BrowserError;
use browserflow_cdp::downloads::DownloadRecord;
use browserflow_steps::{Selector, SelectorCandidate, Step};

pub use draft::{Draft, InputMark, InputType, OutputMark};
pub use lists::{FieldBySelector, ListBySelector, TableBySelector};
pub use marks::{InputBySelector, MarkWatch, OutputBySelector, SelectorMarks, UnresolvedMark};
pub use model_assist::{ModelAssist, ModelCall, SelectorSuggestion, Suggestions};
pub use recorded_pages::RecordedPage;
pub use recorder::{Recorder, Snapshots};

/// The name of the first page of a recording (popups get `popup`, `popup2`, …).
pub const MAIN_PAGE: &str = "main";

/// How to start a recording.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// The page the recording starts on (recorded as the first `navigate` step).
    pub start_url: String,
    /// Show the browser window (default true: a person drives it).
    pub headed: bool,
    /// The Chromium executable (default: `BROWSERFLOW_CHROME`, then the system's chromium).
    pub chrome: Option<PathBuf>,
    /// Connect to this running browser's CDP endpoint instead of launching one.
    pub browser_ws: Option<String>,
    /// Emulate this viewport (width, height); recorded as a `set_viewport` step.
    pub viewport: Option<(u32, u32)>,
    /// Take a small PNG thumbnail after each step (for the app's live step list).
    pub thumbnails: bool,
    /// Who answers JavaScript dialogs (`None`: the person when headed, else the recorder).
    pub dialogs: Option<DialogAnswers>,
    /// Where files downloaded while recording are saved (default: a temporary folder removed
    /// when the recording stops).
    pub download_dir: Option<PathBuf>,
}

impl RecordOptions {
    /// Headed, system Chromium, no viewport override, no thumbnails.
    pub fn new(start_url: impl Into<String>) -> Self {
        Self {
            start_url: start_url.into(),
            headed: true,
            chrome: None,
            browser_ws: None,
            viewport: None,
            thumbnails: false,
            dialogs: None,
            download_dir: None,
        }
    }

    /// Who answers dialogs, the default applied.
    pub fn dialog_answers(&self) -> DialogAnswers {
        self.dialogs.unwrap_or(if self.headed {
            DialogAnswers::Person
        } else {
            DialogAnswers::AcceptAll
        })
    }
}

/// Who answers the page's JavaScript dialogs (alert, confirm, prompt, beforeunload) while
/// recording. Either way the answer given is recorded as a `handle_dialog` step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogAnswers {
    /// The person at the window sees the dialog and answers it (the default when headed).
    Person,
    /// The recorder accepts every dialog at once (the default headless, where nobody could
    /// answer).
    AcceptAll,
}

/// `1 step`, `3 steps`.
fn steps(n: usize) -> String {
    if n == 1 {
        "1 step".into()
    } else {
        format!("{n} steps")
    }
}

/// One recorded step with what a person needs to review it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedStep {
    /// The replayable step.
    pub step: Step,
    /// What the step does, for people: `Click button "Search"`.
    pub description: String,
    /// The element acted on, for people: `searchbox "Search products"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The best selector candidate, described (`test_id "search-input"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_selector: Option<String>,
    /// The page the step ran on (`main` or a popup name).
    pub page: String,
    /// The page URL when the step was recorded.
    pub url: String,
    /// For fills: the value as typed (never set for password fields); for a prompt dialog
    /// accepted with text: that text. Kept so that marking the step as an input can use it as
    /// the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_value: Option<String>,
    /// For fills: the field is a password; its value was never captured.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// A PNG thumbnail taken after the step (when [`RecordOptions::thumbnails`] is on).
    /// Not serialized.
    #[serde(skip)]
    pub thumbnail_png: Option<Vec<u8>>,
    /// For download steps: the file the recording downloaded, once it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<DownloadRecord>,
    /// A click after which nothing changed: no state of its element, no focus, no change of
    /// the page, no navigation (see the post-state checks). Shown in the draft as "no effect
    /// — remove?": kept until the person decides.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_effect: bool,
    /// For a step in a repeating structure (a grid, a list, cards): the fills, by their best
    /// candidate, after which the recording saw the structure's content change. Marking one
    /// as an input makes the step rely on its position (`Draft::mark_input`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content_follows: Vec<SelectorCandidate>,
    /// The step relies on its position because one of those fills became an input, not by
    /// the person's choice: once none of them is an input any more (its mark or its step
    /// removed), it relies on its content again (`draft/reliance.rs`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub position_follows_input: bool,
}

/// A file chooser the page opened while recording: answer it with
/// [`Recorder::answer_file_chooser`] (the click that opened it becomes an `upload` step).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChooserRequest {
    /// Identifies the request (to answer one that is not the oldest).
    pub id: u64,
    /// The page it opened on (`main` or a popup name).
    pub page: String,
    /// Several files may be chosen.
    pub multiple: bool,
    /// The CDP session of the frame's target (`None`: the page's own).
    #[serde(skip)]
    pub(crate) session: Option<String>,
    /// The file input's backend node.
    #[serde(skip)]
    pub(crate) backend_node_id: i64,
}

/// What the live step stream reports ([`Recorder::subscribe`]).
#[derive(Debug, Clone)]
pub enum RecordEvent {
    /// A step was appended at `index`.
    StepAdded {
        /// Position in the step list.
        index: usize,
        /// The step.
        step: Box<RecordedStep>,
    },
    /// The step at `index` changed (a fill got more text, a click became a double click, a
    /// navigation or popup was attached, a thumbnail arrived).
    StepUpdated {
        /// Position in the step list.
        index: usize,
        /// The step as it is now.
        step: Box<RecordedStep>,
    },
    /// A step was inserted at `index` (a `handle_dialog` or `wait_for_element` before the step
    /// that needs it); later steps moved up by one.
    StepInserted {
        /// Position in the step list.
        index: usize,
        /// The step.
        step: Box<RecordedStep>,
    },
    /// A popup opened and is recorded under `name`.
    PageOpened {
        /// The page name used by `opens_popup` / `switch_page`.
        name: String,
        /// Its URL when it opened.
        url: String,
    },
    /// Every frame is in pick mode ([`Recorder::pick_element`]): from now on a click picks
    /// its element instead of being recorded. Until then a click is still a step, so a screen
    /// says "click an element" only after this.
    PickArmed,
    /// An element was picked ([`Recorder::pick_element`]).
    Picked(Box<PickedElement>),
    /// The page opened a file chooser; it stays open (no step is recorded) until
    /// [`Recorder::answer_file_chooser`] gives it files.
    FileChooser(FileChooserRequest),
    /// The recorded window closed or the browser went away; the recording is over.
    Closed,
    /// The recorder script sent a message the recorder cannot read (see [`protocol`]): which
    /// message, which field, the frame and page. What it reported is not recorded.
    ProtocolError(Box<protocol::ProtocolError>),
}

/// An element chosen for extraction ([`Recorder::pick_element`], or found by CSS with
/// [`Recorder::element`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PickedElement {
    /// Ranked, live-checked candidates (and the frame), ready for an extract step.
    pub selector: Selector,
    /// The element, for people: `heading "Mechanical Keyboard"`.
    pub description: String,
    /// Its text (whitespace collapsed) when picked.
    pub text: String,
    /// Its value, for form controls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The page it is on (`main` or a popup name).
    pub page: String,
    /// What a read of it saw: the shape of its text and its identity (tag, role, the label
    /// beside it, the heading of its card), computed in the page by `injected/src/reads.ts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<browserflow_steps::RecordedRead>,
}

/// Why recording failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The browser could not be launched or reached.
    #[error("could not start the browser for recording: {0}")]
    Browser(#[from] BrowserError),
    /// Installing the recorder into a page failed.
    #[error("could not install the recorder in {what}: {message}")]
    Install {
        /// The page or frame.
        what: String,
        /// What went wrong.
        message: String,
    },
    /// The start URL did not load.
    #[error("the start page {url} did not load: {message}")]
    StartPage {
        /// The URL.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The recording is over (window closed) and the request needs a live page.
    #[error("the recorded page is closed")]
    Closed,
    /// The person left pick mode (Escape in the page, or the app's cancel) before picking.
    #[error("picking was cancelled")]
    PickCancelled,
    /// The recorder script answered something the recorder cannot read.
    #[error(transparent)]
    Protocol(Box<protocol::ProtocolError>),
    /// A step index is out of range.
    #[error("there is no step {} (the draft has {})", .index + 1, steps(*.len))]
    NoSuchStep {
        /// The 0-based index asked for.
        index: usize,
        /// How many steps there are.
        len: usize,
    },
    /// A mark does not fit the step or the draft.
    #[error("step {}: {message}", .index + 1)]
    Mark {
        /// The 0-based step index.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// An input or output name is invalid or already taken.
    #[error("{0}")]
    Name(String),
    /// An input marked by `@promptN` when fewer prompt dialogs were answered with text.
    #[error(
        "{selector} names prompt dialog {nth}, and the recording answered {answered} with text"
    )]
    NoPrompt {
        /// The selector as given.
        selector: String,
        /// Which prompt it names (from 1).
        nth: usize,
        /// How many prompts were answered with text.
        answered: usize,
    },
    /// No recorded fill matches the selector an input was marked by.
    #[error("no recorded fill matches {selector:?} (fills: {fills})")]
    NoFill {
        /// The selector as given.
        selector: String,
        /// The draft's fill steps, each with its best candidate, or `none`.
        fills: String,
    },
    /// No element matches a selector given to [`Recorder::element`].
    #[error("no element matches {selector:?} on the {page} page: {message}")]
    NoElement {
        /// The CSS selector.
        selector: String,
        /// The page searched.
        page: String,
        /// What the page said.
        message: String,
    },
    /// The tool built from the draft is not a valid browser tool.
    #[error("the recorded tool is invalid: {0}")]
    InvalidTool(String),
    /// A model-assistance call failed (the recording itself is unaffected).
    #[error("model assistance failed: {0}")]
    Model(String),
    /// No file chooser is waiting for files.
    #[error("no file chooser is open")]
    NoFileChooser,
    /// Answering a file chooser failed.
    #[error("could not answer the file chooser: {0}")]
    FileChooser(String),
}

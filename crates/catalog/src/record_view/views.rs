//! The views the Record screen shows (TypeScript types behind the `ts` feature), the output
//! kinds it offers, and its error codes.

use super::*;

/// How to start a recording: the Record screen's options and `bflow record`'s flags, by the
/// same names (`url`, `browser_ws`, `headless`, `viewport`) with the same defaults, read by
/// one rule ([`RecordStart::options`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct RecordStart {
    /// The page the recording starts on (`http://` added when no scheme is given).
    pub url: String,
    /// Record in an already running Chromium (its CDP endpoint, `ws://…` or
    /// `http://host:port`) instead of launching one. Blank is none.
    #[serde(default)]
    pub browser_ws: Option<String>,
    /// Run without a window (default false: a person drives the window).
    #[serde(default)]
    pub headless: bool,
    /// Emulate a viewport, `WIDTHxHEIGHT` (default none: the window's own size). Blank is
    /// none.
    #[serde(default)]
    pub viewport: Option<String>,
}

impl RecordStart {
    /// The recorder's options: the start URL checked ([`start_url`]), the viewport read
    /// ([`viewport`]), a blank endpoint or viewport taken as none — before any browser starts.
    pub fn options(&self) -> Result<RecordOptions, RecordViewError> {
        let url = start_url(&self.url)?;
        let viewport = match self.viewport.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => Some(viewport(text)?),
            _ => None,
        };
        Ok(RecordOptions {
            headed: !self.headless,
            browser_ws: self
                .browser_ws
                .as_deref()
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
            viewport,
            ..RecordOptions::new(&url)
        })
    }
}

/// `WIDTHxHEIGHT` (`1280x800`), both above zero.
pub fn viewport(text: &str) -> Result<(u32, u32), RecordViewError> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if w > 0 && h > 0 => Ok((w, h)),
        _ => Err(RecordViewError::BadViewport(text.to_owned())),
    }
}

/// One recorded step, for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecordedStepView {
    /// Position in the step list.
    pub index: usize,
    /// The step type (`click`, `fill`, …).
    pub kind: StepKind,
    /// What it does: `Click button "Search"`.
    pub description: String,
    /// The element acted on.
    pub target: Option<String>,
    /// The best selector candidate, described.
    pub best_selector: Option<String>,
    /// The page it ran on.
    pub page: String,
    /// The page URL when recorded.
    pub url: String,
    /// A password field: a secret input whose value was never captured.
    pub secret: bool,
    /// The thumbnail after the step, as a data URL.
    pub thumbnail: Option<String>,
    /// What the step did, checked after it on replay, in words (`aria-valuenow is "116"`);
    /// each removable by its position (`draft_remove_check`).
    pub checks: Vec<String>,
    /// A click after which nothing changed: the screen asks "no effect — remove?".
    pub no_effect: bool,
    /// Its element sits in a repeating structure (a grid, a list, cards): its place, what it
    /// showed, and which of the two the tool relies on (`draft_rely_on` switches it).
    pub repeat: Option<RepeatView>,
}

/// A step's element in a repeating structure, for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RepeatView {
    /// Where it is: `row 1, column "Name" of the grid`.
    pub place: String,
    /// What its row, item or card showed when recorded.
    pub content: String,
    /// What the tool relies on to find it.
    pub relies_on: RelianceName,
}

// The step model's `Reliance`, for the screen. The doc line below is also the TypeScript
// binding's.
/// What a step in a repeating structure relies on: its content or its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RelianceName {
    /// What the element shows: the same data wherever it is.
    Content,
    /// Where it is: whatever data is there on this run.
    Position,
}

impl From<Reliance> for RelianceName {
    fn from(r: Reliance) -> Self {
        match r {
            Reliance::Content => RelianceName::Content,
            Reliance::Position => RelianceName::Position,
        }
    }
}

impl From<RelianceName> for Reliance {
    fn from(r: RelianceName) -> Self {
        match r {
            RelianceName::Content => Reliance::Content,
            RelianceName::Position => Reliance::Position,
        }
    }
}

/// An element picked for extraction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PickedView {
    /// Position among the picks (what `draft_mark_output` takes).
    pub index: usize,
    /// The element, for people.
    pub description: String,
    /// Its text when picked.
    pub text: String,
    /// The best selector candidate, described.
    pub best_selector: Option<String>,
    /// The page it is on.
    pub page: String,
}

/// A live recording event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RecordEventView {
    /// A step was appended.
    StepAdded {
        /// Its position.
        index: usize,
        /// The step.
        step: RecordedStepView,
    },
    /// A step changed (more text typed, a navigation attached, a thumbnail arrived).
    StepUpdated {
        /// Its position.
        index: usize,
        /// The step as it is now.
        step: RecordedStepView,
    },
    /// A step was inserted before later ones.
    StepInserted {
        /// Its position.
        index: usize,
        /// The step.
        step: RecordedStepView,
    },
    /// A popup opened.
    PageOpened {
        /// Its page name.
        name: String,
        /// Its URL.
        url: String,
    },
    /// The browser is ready to pick: the next click there picks an element (before this, a
    /// click is still recorded as a step).
    PickArmed,
    /// An element was picked.
    Picked {
        /// The pick.
        pick: PickedView,
    },
    /// The page opened a file chooser: it waits for `record_answer_file_chooser`.
    FileChooser {
        /// Which request (they are answered oldest first).
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        id: u64,
        /// The page it opened on.
        page: String,
        /// Several files may be chosen.
        multiple: bool,
    },
    /// Something the person did was not recorded: the recorder script sent a message the
    /// recorder cannot read. Said, never dropped, so a missing step is not a surprise at
    /// replay.
    NotRecorded {
        /// The page it happened on.
        page: String,
        /// What could not be read, in words.
        message: String,
    },
    /// The window closed; the recording is over.
    Closed,
}

/// An input slot marked on the draft.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InputView {
    /// The slot name.
    pub name: String,
    /// Its JSON type.
    pub kind: String,
    /// A secret slot.
    pub secret: bool,
    /// The step whose value it replaces.
    pub step: Option<usize>,
    /// Its default as JSON text (`"keyboard"`, `3`), when it has one: the value recorded, unless
    /// the input was made without.
    pub default: Option<String>,
}

/// A problem with one field of the Save form, in words, for beside that field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldProblem {
    /// `name` or `version`.
    pub field: String,
    /// What is wrong and how to write it.
    pub message: String,
}

// What the Record screen offers: one of the step model's `OutputKind`s (`text` is
// `OutputKind::String`), or a price, a number plus its currency (see `output_kind`). The doc
// line below is also the TypeScript binding's.
/// The type of an extracted output field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum OutputKindName {
    /// Text as shown.
    Text,
    /// A number parsed from the text.
    Number,
    /// An integer parsed from the text.
    Integer,
    /// A boolean.
    Boolean,
    /// A price: a number plus its currency.
    Price,
}

/// The field a price's currency is stored in, beside its number.
pub const CURRENCY_FIELD: &str = "currency";

impl OutputKindName {
    /// The step model's kind the value is coerced to.
    pub fn output_kind(self) -> OutputKind {
        match self {
            OutputKindName::Text => OutputKind::String,
            OutputKindName::Number | OutputKindName::Price => OutputKind::Number,
            OutputKindName::Integer => OutputKind::Integer,
            OutputKindName::Boolean => OutputKind::Boolean,
        }
    }

    /// The field the currency also goes to: only a price has one.
    pub fn currency_field(self) -> Option<&'static str> {
        (self == OutputKindName::Price).then_some(CURRENCY_FIELD)
    }

    /// The output mark that reads `picked` into the field `name`.
    pub fn mark(self, name: &str, picked: &PickedElement) -> OutputMark {
        OutputMark {
            currency_field: self.currency_field().map(str::to_owned),
            ..OutputMark::picked(name, picked, self.output_kind())
        }
    }
}

impl From<OutputKind> for OutputKindName {
    fn from(kind: OutputKind) -> Self {
        match kind {
            OutputKind::String => OutputKindName::Text,
            OutputKind::Number => OutputKindName::Number,
            OutputKind::Integer => OutputKindName::Integer,
            OutputKind::Boolean => OutputKindName::Boolean,
        }
    }
}

/// The [`OutputKind`] named as in tool files (`string`, `number`, `integer`, `boolean`): how
/// `bflow record --extract NAME=SELECTOR:TYPE` names it. `None` for any other word.
pub fn parse_output_kind(name: &str) -> Option<OutputKind> {
    // The step model's own serde names, so there is no second spelling to keep in step.
    serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
}

/// The draft after the recording stopped: what the Record screen edits before saving.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DraftView {
    /// The start page.
    pub start_url: String,
    /// The steps.
    pub steps: Vec<RecordedStepView>,
    /// The marked inputs.
    pub inputs: Vec<InputView>,
    /// The output fields (extract steps).
    pub outputs: Vec<String>,
    /// The elements picked during the recording.
    pub picks: Vec<PickedView>,
    /// Whether an edit can be taken back ([`RecordSession::undo`](super::RecordSession::undo)).
    pub can_undo: bool,
    /// Why the draft as it is now could not be kept on disk (it is only in memory until a
    /// later change is kept, or it is saved).
    pub unkept: Option<String>,
}

/// An unsaved recording kept on disk from an earlier session, offered again.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KeptDraftView {
    /// How many steps it has.
    pub steps: usize,
    /// Its start page.
    pub start_url: String,
    /// When it was last kept, in seconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub kept_at: u64,
    /// Its recording was cut short (the app closed or crashed while recording).
    pub cut_short: bool,
}

/// What the Record screen shows when it opens, whatever screen was shown before: nothing yet,
/// the recording still running (with its steps and picks so far), or the draft being edited.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RecordStatusView {
    /// No recording and no draft: the start form, and the unsaved recording of an earlier
    /// session if one is kept.
    Idle {
        /// The unsaved recording kept from before, offered again.
        kept: Option<KeptDraftView>,
    },
    /// A recording is running.
    Recording {
        /// The steps recorded so far.
        steps: Vec<RecordedStepView>,
        /// The elements picked so far.
        picks: Vec<PickedView>,
    },
    /// A stopped recording is being edited (also a recording whose window was closed).
    Editing {
        /// The draft.
        draft: DraftView,
    },
}

/// Why a Record screen operation failed; [`RecordViewError::code`] is the stable code the
/// screen matches on.
#[derive(Debug, thiserror::Error)]
pub enum RecordViewError {
    /// A recording is already running.
    #[error(
        "a recording is already running: open Record to go back to it, then stop or discard it"
    )]
    AlreadyRecording,
    /// A pick is still waiting for the person: the recorder cannot stop under it.
    #[error("finish picking an element before stopping")]
    StillPicking,
    /// The start URL is not a web page's address.
    #[error("{0}")]
    BadUrl(String),
    /// The viewport is not `WIDTHxHEIGHT`.
    #[error("the viewport {0} is not WIDTHxHEIGHT, for example 1280x800")]
    BadViewport(String),
    /// No recording is running.
    #[error("no recording is running")]
    NotRecording,
    /// No edit of the draft is left to take back.
    #[error("there is no edit to undo")]
    NothingToUndo,
    /// No recording has stopped: there is no draft.
    #[error("there is no stopped recording to edit")]
    NoDraft,
    /// Not one of `string`, `number`, `integer`, `boolean`.
    #[error("`{0}` is not an input type")]
    NotAnInputType(String),
    /// No pick has this index.
    #[error("there is no pick {0}")]
    NoSuchPick(usize),
    /// The recorder refused (or the browser failed).
    #[error(transparent)]
    Record(RecordError),
    /// The draft does not make a valid tool under that name and version.
    #[error(transparent)]
    InvalidTool(RecordError),
    /// Saving would overwrite a file.
    #[error("{} already exists: choose another version", .0.display())]
    Exists(PathBuf),
    /// The file could not be written.
    #[error("{}", browserflow_contract::io_in_words(.0))]
    Io(#[from] std::io::Error),
    /// An unsaved recording (of this many steps) is kept from before: a new recording would
    /// replace it.
    #[error(
        "an unsaved recording ({}) is kept from before: open it or discard it before recording again",
        if *.0 == 1 { "1 step".to_string() } else { format!("{} steps", .0) }
    )]
    UnsavedKept(usize),
    /// The kept recording could not be read or written.
    #[error(transparent)]
    Kept(#[from] super::KeptDraftError),
}

impl From<RecordError> for RecordViewError {
    fn from(e: RecordError) -> Self {
        RecordViewError::Record(e)
    }
}

impl RecordViewError {
    /// The stable snake_case code: `busy`, `not_recording`, `no_draft`, `bad_input`,
    /// `pick_cancelled`, `record`, `invalid_tool`, `exists`, `io` or `unsaved_kept`.
    pub fn code(&self) -> &'static str {
        match self {
            RecordViewError::AlreadyRecording | RecordViewError::StillPicking => "busy",
            RecordViewError::NotRecording => "not_recording",
            RecordViewError::NoDraft => "no_draft",
            RecordViewError::NothingToUndo => "nothing_to_undo",
            RecordViewError::NotAnInputType(_)
            | RecordViewError::NoSuchPick(_)
            | RecordViewError::BadUrl(_)
            | RecordViewError::BadViewport(_) => "bad_input",
            RecordViewError::Record(RecordError::PickCancelled) => "pick_cancelled",
            RecordViewError::Record(_) => "record",
            RecordViewError::InvalidTool(_) => "invalid_tool",
            RecordViewError::Exists(_) => "exists",
            RecordViewError::Io(_) | RecordViewError::Kept(_) => "io",
            RecordViewError::UnsavedKept(_) => "unsaved_kept",
        }
    }
}

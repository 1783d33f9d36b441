//! The Record screen: start a recording in a real Chromium window, stream its steps as
//! `record://event` events, pick elements to extract, then edit the draft (delete, reorder,
//! mark inputs and outputs) and save it as a tool file in `recordings/`. Each command is a few
//! lines over `browserflow_record`.

use std::path::PathBuf;
use std::sync::Arc;

use base64::Engine;
use browserflow_catalog::library::{ItemSource, LibraryItem, describe};
use browserflow_record::{
    Draft, InputMark, InputType, OutputMark, PickedElement, RecordEvent, RecordOptions,
    RecordedStep, Recorder,
};
use browserflow_steps::OutputKind;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::error::AppError;
use crate::events::RECORD_EVENT;
use crate::state::AppState;

/// How to start a recording.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct RecordStart {
    /// The page the recording starts on.
    pub url: String,
    /// Record in an already running Chromium (its CDP WebSocket URL) instead of launching one.
    pub cdp: Option<String>,
    /// Show the window (default true; a person drives it).
    pub headed: bool,
}

/// One recorded step, for people.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct RecordedStepView {
    /// Position in the step list.
    pub index: usize,
    /// The step type (`click`, `fill`, …).
    pub kind: String,
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
}

/// An element picked for extraction.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
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
    /// An element was picked.
    Picked {
        /// The pick.
        pick: PickedView,
    },
    /// The page opened a file chooser: it waits for `record_answer_file_chooser`.
    FileChooser {
        /// Which request (they are answered oldest first).
        #[ts(type = "number")]
        id: u64,
        /// The page it opened on.
        page: String,
        /// Several files may be chosen.
        multiple: bool,
    },
    /// The window closed; the recording is over.
    Closed,
}

/// An input slot marked on the draft.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct InputView {
    /// The slot name.
    pub name: String,
    /// Its JSON type.
    pub kind: String,
    /// A secret slot.
    pub secret: bool,
    /// The step whose value it replaces.
    pub step: Option<usize>,
}

/// The type of an extracted output field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
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

/// The draft after the recording stopped: what the Record screen edits before saving.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
}

/// The recording in progress, if any: the live recorder, then the draft being edited.
#[derive(Default)]
pub struct Session {
    recorder: Option<Arc<Recorder>>,
    pub(crate) draft: Option<Draft>,
    picks: Vec<PickedElement>,
}

pub(crate) fn record_error(e: impl std::fmt::Display) -> AppError {
    AppError::new("record", e)
}

pub(crate) fn no_draft() -> AppError {
    AppError::new("no_draft", "there is no stopped recording to edit")
}

/// Starts recording at `start.url` in a new Chromium window (or in the browser at
/// `start.cdp`); steps stream as `record://event` events.
#[tauri::command]
pub async fn record_start<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    start: RecordStart,
) -> Result<(), AppError> {
    let mut session = state.recording.lock().await;
    if session.recorder.is_some() {
        return Err(AppError::new("busy", "a recording is already running"));
    }
    let options = RecordOptions {
        headed: start.headed,
        browser_ws: start.cdp.filter(|c| !c.trim().is_empty()),
        thumbnails: true,
        ..RecordOptions::new(start.url.trim())
    };
    let recorder = Recorder::start(options).await.map_err(record_error)?;
    let mut events = recorder.subscribe();
    // Steps recorded before the subscription (the start page's navigation) come first; any
    // overlap is harmless: a step sent twice at its index replaces itself.
    let earlier: Vec<RecordEventView> = recorder
        .steps()
        .iter()
        .enumerate()
        .map(|(index, step)| RecordEventView::StepAdded {
            index,
            step: step_view(index, step),
        })
        .collect();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        for view in earlier {
            let _ = app.emit(RECORD_EVENT, view);
        }
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(view) = event_view(event) {
                        let _ = app.emit(RECORD_EVENT, view);
                    }
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
    });
    *session = Session {
        recorder: Some(Arc::new(recorder)),
        ..Session::default()
    };
    Ok(())
}

/// Waits for the person to click an element in the recorded window; it becomes a pick that
/// `draft_mark_output` can turn into an output.
#[tauri::command]
pub async fn record_pick(state: State<'_, AppState>) -> Result<PickedView, AppError> {
    let recorder = live_recorder(&state).await?;
    let picked = recorder.pick_element().await.map_err(record_error)?;
    let mut session = state.recording.lock().await;
    session.picks.push(picked);
    let index = session.picks.len() - 1;
    Ok(pick_view(index, &session.picks[index]))
}

/// Answers the oldest open file chooser with `paths` (files on this machine); the click that
/// opened it becomes an `upload` step, whose index is returned.
#[tauri::command]
pub async fn record_answer_file_chooser(
    state: State<'_, AppState>,
    paths: Vec<String>,
) -> Result<Option<usize>, AppError> {
    let recorder = live_recorder(&state).await?;
    let paths: Vec<PathBuf> = paths
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    recorder
        .answer_file_chooser(&paths)
        .await
        .map_err(record_error)
}

/// The running recorder (an error when no recording runs).
pub(crate) async fn live_recorder(state: &AppState) -> Result<Arc<Recorder>, AppError> {
    state
        .recording
        .lock()
        .await
        .recorder
        .clone()
        .ok_or_else(|| AppError::new("not_recording", "no recording is running"))
}

/// Ends the recording (the window closes) and returns the draft to edit.
#[tauri::command]
pub async fn record_stop(state: State<'_, AppState>) -> Result<DraftView, AppError> {
    let mut session = state.recording.lock().await;
    let recorder = session
        .recorder
        .take()
        .ok_or_else(|| AppError::new("not_recording", "no recording is running"))?;
    let recorder = Arc::try_unwrap(recorder).map_err(|still_shared| {
        AppError::new("busy", "finish picking an element before stopping")
            .with_restore(&mut session.recorder, still_shared)
    })?;
    let draft = recorder.stop().await.map_err(record_error)?;
    session.draft = Some(draft);
    draft_view(&session)
}

/// The draft being edited, if any.
#[tauri::command]
pub async fn record_draft(state: State<'_, AppState>) -> Result<Option<DraftView>, AppError> {
    let session = state.recording.lock().await;
    session
        .draft
        .as_ref()
        .map(|_| draft_view(&session))
        .transpose()
}

/// Deletes the step at `index`.
#[tauri::command]
pub async fn draft_remove_step(
    state: State<'_, AppState>,
    index: usize,
) -> Result<DraftView, AppError> {
    edit(&state, |draft| draft.remove_step(index).map(|_| ())).await
}

/// Moves the step at `from` to `to`.
#[tauri::command]
pub async fn draft_move_step(
    state: State<'_, AppState>,
    from: usize,
    to: usize,
) -> Result<DraftView, AppError> {
    edit(&state, |draft| draft.move_step(from, to)).await
}

/// Turns the value typed at step `index` into the input `name` of type `kind`.
#[tauri::command]
pub async fn draft_mark_input(
    state: State<'_, AppState>,
    index: usize,
    name: String,
    kind: String,
) -> Result<DraftView, AppError> {
    let kind = InputType::parse(&kind)
        .ok_or_else(|| AppError::new("bad_input", format!("`{kind}` is not an input type")))?;
    edit(&state, |draft| {
        draft.mark_input(index, InputMark::typed(name.trim(), kind))
    })
    .await
}

/// Turns pick number `pick` into the output field `name` of type `kind`.
#[tauri::command]
pub async fn draft_mark_output(
    state: State<'_, AppState>,
    pick: usize,
    name: String,
    kind: OutputKindName,
) -> Result<DraftView, AppError> {
    let mut session = state.recording.lock().await;
    let picked = session
        .picks
        .get(pick)
        .cloned()
        .ok_or_else(|| AppError::new("bad_input", format!("there is no pick {pick}")))?;
    let draft = session.draft.as_mut().ok_or_else(no_draft)?;
    draft
        .mark_output(output_mark(name.trim(), &picked, kind))
        .map_err(record_error)?;
    draft_view(&session)
}

/// Saves the draft as `recordings/NAME@VERSION.json` and returns it as a library item.
#[tauri::command]
pub async fn draft_save(
    state: State<'_, AppState>,
    name: String,
    version: String,
    description: Option<String>,
) -> Result<LibraryItem, AppError> {
    let mut session = state.recording.lock().await;
    let draft = session.draft.clone().ok_or_else(no_draft)?;
    let (name, version) = (name.trim(), version.trim());
    let tool = draft
        .into_tool_file(
            name,
            version,
            description.as_deref().filter(|d| !d.trim().is_empty()),
        )
        .map_err(|e| AppError::new("invalid_tool", e))?;
    let dir = &state.paths.recordings;
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{name}@{version}.json"));
    if path.exists() {
        return Err(AppError::new(
            "exists",
            format!("{} already exists: choose another version", path.display()),
        ));
    }
    std::fs::write(&path, tool.to_json_pretty())?;
    session.draft = None;
    session.picks.clear();
    let digest = tool.contract.contract_digest().to_string();
    let source = ItemSource::Folder {
        dir: dir.display().to_string(),
    };
    Ok(describe(&tool.contract, &digest, &path, source))
}

/// Throws the recording or draft away (closing the window of a running recording).
#[tauri::command]
pub async fn record_discard(state: State<'_, AppState>) -> Result<(), AppError> {
    let mut session = state.recording.lock().await;
    if let Some(recorder) = session
        .recorder
        .take()
        .and_then(|r| Arc::try_unwrap(r).ok())
    {
        let _ = recorder.stop().await;
    }
    *session = Session::default();
    Ok(())
}

async fn edit(
    state: &AppState,
    change: impl FnOnce(&mut Draft) -> Result<(), browserflow_record::RecordError>,
) -> Result<DraftView, AppError> {
    let mut session = state.recording.lock().await;
    let draft = session.draft.as_mut().ok_or_else(no_draft)?;
    change(draft).map_err(record_error)?;
    draft_view(&session)
}

fn output_mark(name: &str, picked: &PickedElement, kind: OutputKindName) -> OutputMark {
    let (kind, currency) = match kind {
        OutputKindName::Text => (OutputKind::String, None),
        OutputKindName::Number => (OutputKind::Number, None),
        OutputKindName::Integer => (OutputKind::Integer, None),
        OutputKindName::Boolean => (OutputKind::Boolean, None),
        OutputKindName::Price => (OutputKind::Number, Some("currency".to_string())),
    };
    OutputMark {
        currency_field: currency,
        ..OutputMark::picked(name, picked, kind)
    }
}

fn data_url(png: &[u8]) -> String {
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    )
}

fn step_view(index: usize, step: &RecordedStep) -> RecordedStepView {
    RecordedStepView {
        index,
        kind: step.step.kind().to_string(),
        description: step.description.clone(),
        target: step.target.clone(),
        best_selector: step.best_selector.clone(),
        page: step.page.clone(),
        url: step.url.clone(),
        secret: step.secret,
        thumbnail: step.thumbnail_png.as_deref().map(data_url),
    }
}

fn pick_view(index: usize, picked: &PickedElement) -> PickedView {
    PickedView {
        index,
        description: picked.description.clone(),
        text: picked.text.clone(),
        best_selector: picked.selector.candidates.first().map(|c| c.describe()),
        page: picked.page.clone(),
    }
}

fn event_view(event: RecordEvent) -> Option<RecordEventView> {
    Some(match event {
        RecordEvent::StepAdded { index, step } => RecordEventView::StepAdded {
            index,
            step: step_view(index, &step),
        },
        RecordEvent::StepUpdated { index, step } => RecordEventView::StepUpdated {
            index,
            step: step_view(index, &step),
        },
        RecordEvent::StepInserted { index, step } => RecordEventView::StepInserted {
            index,
            step: step_view(index, &step),
        },
        RecordEvent::PageOpened { name, url } => RecordEventView::PageOpened { name, url },
        RecordEvent::Closed => RecordEventView::Closed,
        // Picks are answered by `record_pick`, which knows their index.
        RecordEvent::Picked(_) => return None,
        RecordEvent::FileChooser(request) => RecordEventView::FileChooser {
            id: request.id,
            page: request.page,
            multiple: request.multiple,
        },
    })
}

pub(crate) fn draft_view(session: &Session) -> Result<DraftView, AppError> {
    let draft = session.draft.as_ref().ok_or_else(no_draft)?;
    let uses = |name: &str| {
        let needle = format!("{{{{{name}}}}}");
        draft.steps.iter().position(|s| {
            serde_json::to_value(&s.step)
                .ok()
                .and_then(|v| {
                    v.get("value")
                        .and_then(|v| v.as_str())
                        .map(|v| v.contains(&needle))
                })
                .unwrap_or(false)
        })
    };
    Ok(DraftView {
        start_url: draft.start_url.clone(),
        steps: draft
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| step_view(i, s))
            .collect(),
        inputs: draft
            .inputs
            .iter()
            .map(|i| InputView {
                name: i.name.clone(),
                kind: i.kind.as_str().to_string(),
                secret: i.secret,
                step: uses(&i.name),
            })
            .collect(),
        outputs: draft.output_fields(),
        picks: session
            .picks
            .iter()
            .enumerate()
            .map(|(i, p)| pick_view(i, p))
            .collect(),
    })
}

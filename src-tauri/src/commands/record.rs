//! The Record screen: start a recording in a real Chromium window, stream its steps as
//! `record://event` events, pick elements to extract, then edit the draft (delete, reorder,
//! mark inputs and outputs) and save it as a tool file in `recordings/`. What the screen shows
//! and its rules are `browserflow_catalog::record_view`; each command is a few lines over it.

use std::path::PathBuf;

use browserflow_catalog::library::LibraryItem;
use browserflow_catalog::record_view::{
    DraftView, FieldProblem, OutputKindName, PickedView, RecordEventView, RecordStart,
    RecordStatusView, RelianceName, check_name_and_version,
};
use tauri::{AppHandle, Emitter, Manager, Runtime, State};

use crate::error::AppError;
use crate::events::RECORD_EVENT;
use crate::state::AppState;

/// Starts recording at `start.url` in a new Chromium window (or in the browser at
/// `start.cdp`); steps stream as `record://event` events.
#[tauri::command]
pub async fn record_start<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    start: RecordStart,
) -> Result<(), AppError> {
    let mut events = state.recording.lock().await.start(&start).await?;
    tauri::async_runtime::spawn(async move {
        while let Some(view) = events.next().await {
            if matches!(view, RecordEventView::Closed) {
                // The window was closed: the recording ends here, its steps kept as the draft,
                // before the screen hears of it and asks for the status.
                let state = app.state::<AppState>();
                let _ = state.recording.lock().await.end_if_closed().await;
            }
            let _ = app.emit(RECORD_EVENT, view);
        }
    });
    Ok(())
}

/// What the Record screen shows on opening: the running recording (steps and picks so far),
/// the draft being edited, or nothing; a recording whose window was closed shows as its draft.
#[tauri::command]
pub async fn record_status(state: State<'_, AppState>) -> Result<RecordStatusView, AppError> {
    Ok(state.recording.lock().await.status().await?)
}

/// Waits for the person to click an element in the recorded window; it becomes a pick that
/// `draft_mark_output` can turn into an output.
#[tauri::command]
pub async fn record_pick(state: State<'_, AppState>) -> Result<PickedView, AppError> {
    // The session is not held while the person picks: the screen stays usable.
    let recorder = state.recording.lock().await.live_recorder()?;
    let picked = recorder
        .pick_element()
        .await
        .map_err(|e| AppError::new("record", e))?;
    Ok(state.recording.lock().await.add_pick(picked))
}

/// Leaves pick mode with nothing picked (the pending `record_pick` answers `pick_cancelled`).
#[tauri::command]
pub async fn record_cancel_pick(state: State<'_, AppState>) -> Result<(), AppError> {
    state.recording.lock().await.live_recorder()?.cancel_pick();
    Ok(())
}

/// Answers the oldest open file chooser with `paths` (files on this machine); the click that
/// opened it becomes an `upload` step, whose index is returned.
#[tauri::command]
pub async fn record_answer_file_chooser(
    state: State<'_, AppState>,
    paths: Vec<String>,
) -> Result<Option<usize>, AppError> {
    let recorder = state.recording.lock().await.live_recorder()?;
    let paths: Vec<PathBuf> = paths
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| browserflow_catalog::typed_path(p))
        .collect();
    recorder
        .answer_file_chooser(&paths)
        .await
        .map_err(|e| AppError::new("record", e))
}

/// Ends the recording (the window closes) and returns the draft to edit.
#[tauri::command]
pub async fn record_stop(state: State<'_, AppState>) -> Result<DraftView, AppError> {
    Ok(state.recording.lock().await.stop().await?)
}

/// Deletes the step at `index`.
#[tauri::command]
pub async fn draft_remove_step(
    state: State<'_, AppState>,
    index: usize,
) -> Result<DraftView, AppError> {
    let mut session = state.recording.lock().await;
    Ok(session.edit(|draft| draft.remove_step(index).map(|_| ()))?)
}

/// Moves the step at `from` to `to`.
#[tauri::command]
pub async fn draft_move_step(
    state: State<'_, AppState>,
    from: usize,
    to: usize,
) -> Result<DraftView, AppError> {
    let mut session = state.recording.lock().await;
    Ok(session.edit(|draft| draft.move_step(from, to))?)
}

/// Takes back the last edit of the draft (a deleted or moved step, a marked input or output).
#[tauri::command]
pub async fn draft_undo(state: State<'_, AppState>) -> Result<DraftView, AppError> {
    Ok(state.recording.lock().await.undo()?)
}

/// Turns the value typed at step `index` into the input `name` of type `kind`.
#[tauri::command]
pub async fn draft_mark_input(
    state: State<'_, AppState>,
    index: usize,
    name: String,
    kind: String,
) -> Result<DraftView, AppError> {
    let mut session = state.recording.lock().await;
    Ok(session.mark_input(index, &name, &kind)?)
}

/// Like `draft_mark_input`, but the input keeps no default: each call gives its value.
#[tauri::command]
pub async fn draft_mark_required_input(
    state: State<'_, AppState>,
    index: usize,
    name: String,
    kind: String,
) -> Result<DraftView, AppError> {
    let mut session = state.recording.lock().await;
    Ok(session.mark_required_input(index, &name, &kind)?)
}

/// Makes step `index` (an element of a grid, list or cards) rely on its content or position.
#[tauri::command]
pub async fn draft_rely_on(
    state: State<'_, AppState>,
    index: usize,
    relies_on: RelianceName,
) -> Result<DraftView, AppError> {
    Ok(state.recording.lock().await.rely_on(index, relies_on)?)
}

/// Removes post-state check `check` of step `index`.
#[tauri::command]
pub async fn draft_remove_check(
    state: State<'_, AppState>,
    index: usize,
    check: usize,
) -> Result<DraftView, AppError> {
    Ok(state.recording.lock().await.remove_check(index, check)?)
}

/// Removes the output field `name` (a price's currency field alone, when that is `name`).
#[tauri::command]
pub async fn draft_remove_output(
    state: State<'_, AppState>,
    name: String,
) -> Result<DraftView, AppError> {
    Ok(state.recording.lock().await.remove_output(&name)?)
}

/// Renames the output field `from` to `to`.
#[tauri::command]
pub async fn draft_rename_output(
    state: State<'_, AppState>,
    from: String,
    to: String,
) -> Result<DraftView, AppError> {
    Ok(state.recording.lock().await.rename_output(&from, &to)?)
}

/// What is wrong with a tool name and version typed into the Save form, field by field.
#[tauri::command]
pub async fn draft_check_names(name: String, version: String) -> Vec<FieldProblem> {
    check_name_and_version(&name, &version)
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
    Ok(session.mark_output(pick, &name, kind)?)
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
    Ok(session.save(
        &state.paths.recordings,
        &name,
        &version,
        description.as_deref(),
    )?)
}

/// Makes the unsaved recording kept from an earlier session the draft being edited.
#[tauri::command]
pub async fn record_restore_kept(state: State<'_, AppState>) -> Result<DraftView, AppError> {
    Ok(state.recording.lock().await.restore_kept()?)
}

/// Throws away the unsaved recording kept from an earlier session.
#[tauri::command]
pub async fn record_discard_kept(state: State<'_, AppState>) -> Result<(), AppError> {
    Ok(state.recording.lock().await.discard_kept()?)
}

/// Closes the app after the person answered the close dialog: the recording or draft is
/// kept on disk (a running recording is stopped first, its window closed), or discarded.
#[tauri::command]
pub async fn app_close<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    discard: bool,
) -> Result<(), AppError> {
    {
        let mut session = state.recording.lock().await;
        if discard {
            session.discard().await;
        } else {
            session.stop_if_recording().await?;
        }
    }
    app.exit(0);
    Ok(())
}

/// Throws the recording or draft away (closing the window of a running recording).
#[tauri::command]
pub async fn record_discard(state: State<'_, AppState>) -> Result<(), AppError> {
    state.recording.lock().await.discard().await;
    Ok(())
}

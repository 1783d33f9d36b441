//! The Replay preview: the steps of a tool, then a run whose steps stream to the UI as
//! `preview://step` events; the result records the library's last-run status.

use browserflow_catalog::batch_view::{BatchRequest, BatchResultView, run_batch_in};
use browserflow_catalog::library::{LastRun, RunHistory, RunStatus, now_epoch_seconds};
use browserflow_catalog::preview::{
    PreviewRequest, PreviewResult, StepView, pending_steps, run_preview_in,
};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::error::AppError;
use crate::events::{BATCH_ROW, PREVIEW_STEP};
use crate::state::AppState;

/// The timeline before a run: every step of the tool `tool` (a file or `name@version`),
/// pending.
#[tauri::command]
pub async fn preview_plan(
    state: State<'_, AppState>,
    tool: String,
) -> Result<Vec<StepView>, AppError> {
    let file = state
        .paths
        .library()
        .catalog()
        .tool_file(&tool)
        .map_err(|e| AppError::new("tool_file", e))?;
    Ok(pending_steps(&file))
}

/// Runs the tool once; each step is also emitted as a `preview://step` event.
#[tauri::command]
pub async fn preview_run<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    request: PreviewRequest,
) -> Result<PreviewResult, AppError> {
    let emitter = app.clone();
    let catalog = state.paths.library().catalog();
    let result = run_preview_in(&request, &catalog, &state.paths.runs(), move |step| {
        let _ = emitter.emit(PREVIEW_STEP, step);
    })
    .await;
    let run = LastRun {
        status: if result.ok {
            RunStatus::Passed
        } else {
            RunStatus::Failed
        },
        finished_at: now_epoch_seconds(),
        duration_ms: result.duration_ms,
        run_id: result.run_id.clone(),
        error: result.error.clone(),
        warnings: result.warnings.clone(),
    };
    RunHistory::record(&state.paths.history(), &result.reference, run)
        .map_err(|e| AppError::new("io", e))?;
    Ok(result)
}

/// Runs the tool over every row of a CSV or JSONL file ("Run on a file…"); each finished row
/// is also emitted as a `batch://row` event. The results go to a new file under the runs
/// folder, named in the answer.
#[tauri::command]
pub async fn preview_batch<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    request: BatchRequest,
) -> Result<BatchResultView, AppError> {
    let catalog = state.paths.library().catalog();
    let results = state.paths.runs().join("batches");
    run_batch_in(&request, &catalog, &results, move |row| {
        let _ = app.emit(BATCH_ROW, row);
    })
    .await
    .map_err(|e| AppError::new("batch", e))
}

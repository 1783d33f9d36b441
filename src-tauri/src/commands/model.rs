//! Authoring-time model assistance on the Record screen (optional: only when
//! `BROWSERFLOW_MODEL_URL` is set): names and descriptions for the draft, and a better selector
//! for a recorded step. Every call is kept in the recording's metadata by the recorder; a
//! tool's replay never calls a model.

use std::collections::BTreeMap;
use std::sync::Arc;

use browserflow_record::ModelAssist;
use serde::Serialize;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;
use browserflow_catalog::record_view::DraftView;

/// Whether model assistance is on.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ModelStatus {
    /// A model endpoint is configured.
    pub configured: bool,
    /// Its chat-completions URL (never its key).
    pub endpoint: Option<String>,
}

/// What the model suggested for the draft; the draft already has the description applied.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DraftSuggestions {
    /// A tool name.
    pub name: Option<String>,
    /// A one-sentence description.
    pub description: Option<String>,
    /// Input name → description.
    pub inputs: BTreeMap<String, String>,
    /// Output field → description.
    pub outputs: BTreeMap<String, String>,
    /// The draft after the suggestions were applied.
    pub draft: DraftView,
}

/// What became of a selector suggestion.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SelectorSuggestionView {
    /// The suggested candidate, described, when the model named one.
    pub candidate: Option<String>,
    /// Where it was added among the step's candidates (`None`: rejected).
    pub position: Option<usize>,
    /// Why it was rejected.
    pub rejected: Option<String>,
}

fn model(state: &AppState) -> Result<Arc<ModelAssist>, AppError> {
    state.model.clone().ok_or_else(|| {
        AppError::new(
            "model_off",
            "model assistance is off: set BROWSERFLOW_MODEL_URL (and BROWSERFLOW_MODEL, \
             BROWSERFLOW_SECRET_MODEL_KEY) before starting the app",
        )
    })
}

/// Whether a model is configured.
#[tauri::command]
pub fn model_status(state: State<'_, AppState>) -> ModelStatus {
    ModelStatus {
        configured: state.model.is_some(),
        endpoint: state.model.as_ref().map(|m| m.endpoint()),
    }
}

/// Asks the model to name and describe the stopped recording's draft.
#[tauri::command]
pub async fn draft_suggest(state: State<'_, AppState>) -> Result<DraftSuggestions, AppError> {
    let assist = model(&state)?;
    let mut session = state.recording.lock().await;
    let draft = session.draft_mut()?;
    let suggestions = assist
        .suggest(draft)
        .await
        .map_err(|e| AppError::new("record", e))?;
    Ok(DraftSuggestions {
        name: suggestions.name,
        description: suggestions.description,
        inputs: suggestions.inputs,
        outputs: suggestions.outputs,
        draft: session.draft_view()?,
    })
}

/// Asks the model for a better selector for step `index` of the running recording; it is
/// added only when the live page shows it unique and on the recorded element.
#[tauri::command]
pub async fn record_suggest_selector(
    state: State<'_, AppState>,
    index: usize,
) -> Result<SelectorSuggestionView, AppError> {
    let assist = model(&state)?;
    let recorder = state.recording.lock().await.live_recorder()?;
    let suggestion = recorder
        .suggest_selector(&assist, index)
        .await
        .map_err(|e| AppError::new("record", e))?;
    Ok(SelectorSuggestionView {
        candidate: suggestion.candidate.as_ref().map(|c| c.describe()),
        position: suggestion.position,
        rejected: suggestion.rejected,
    })
}

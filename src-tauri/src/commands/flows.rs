//! The Flows screen: a flow and the compiler's diagnostics on its steps and slots.

use browserflow_catalog::flow_view::{FlowView, check_flow};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Reads and checks the flow file at `path` against the app's pack store (what `bflow check`
/// does).
#[tauri::command]
pub async fn flow_check(state: State<'_, AppState>, path: String) -> Result<FlowView, AppError> {
    if !std::path::Path::new(&path).is_file() {
        return Err(AppError::new(
            "not_found",
            format!("no flow file at {path}"),
        ));
    }
    Ok(check_flow(path.as_ref(), Some(&state.paths.store)))
}

//! The Flows screen: a flow and the compiler's diagnostics on its steps and slots.

use browserflow_catalog::flow_view::{FlowView, check_flow};

use crate::error::AppError;

/// Reads and checks the flow file at `path` (what `bflow check` does).
#[tauri::command]
pub async fn flow_check(path: String) -> Result<FlowView, AppError> {
    if !std::path::Path::new(&path).is_file() {
        return Err(AppError::new(
            "not_found",
            format!("no flow file at {path}"),
        ));
    }
    Ok(check_flow(path.as_ref()))
}

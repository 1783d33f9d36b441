//! The Library screen: every tool and flow in `recordings/` and in the installed packs.

use browserflow_catalog::library::LibraryItem;
use tauri::State;

use crate::error::AppError;
use crate::state::{AppPaths, AppState};

/// Every tool and flow, with its interface and last run.
#[tauri::command]
pub async fn library_list(state: State<'_, AppState>) -> Result<Vec<LibraryItem>, AppError> {
    Ok(state.paths.library().items())
}

/// The folders the app uses.
#[tauri::command]
pub async fn app_paths(state: State<'_, AppState>) -> Result<AppPaths, AppError> {
    Ok(state.paths.clone())
}

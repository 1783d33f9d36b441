//! The Export screen: the manifest before writing, writing the pack, verifying and importing.

use browserflow_catalog::pack_view::{
    ExportPlan, ManifestView, OnConflict, VerifyView, export_pack, export_preview, import_pack,
    remove_pack, verify_pack,
};
use serde::Deserialize;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// What the person chose on the Export screen.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ExportChoice {
    /// The pack name.
    pub name: String,
    /// The pack version.
    pub version: String,
    /// The chosen tools and flows, `name@version`.
    pub roots: Vec<String>,
}

fn plan(state: &AppState, choice: ExportChoice) -> ExportPlan {
    let recordings = state.paths.recordings.clone();
    ExportPlan {
        name: choice.name,
        version: choice.version,
        roots: choice.roots,
        dirs: vec![recordings.clone(), recordings.join("contracts")],
    }
}

/// The manifest the export would write; nothing is written.
#[tauri::command]
pub async fn pack_preview(
    state: State<'_, AppState>,
    choice: ExportChoice,
) -> Result<ManifestView, AppError> {
    Ok(export_preview(&plan(&state, choice))?)
}

/// Writes the pack to `out` (default: `<data>/packs/NAME-VERSION.bfpack`); returns its path
/// and manifest.
#[tauri::command]
pub async fn pack_export(
    state: State<'_, AppState>,
    choice: ExportChoice,
    out: Option<String>,
) -> Result<(String, ManifestView), AppError> {
    let out = match out.filter(|o| !o.trim().is_empty()) {
        Some(out) => browserflow_catalog::typed_path(&out),
        None => {
            std::fs::create_dir_all(state.paths.packs())?;
            let name = format!("{}-{}.bfpack", choice.name.trim(), choice.version.trim());
            state.paths.packs().join(name)
        }
    };
    let manifest = export_pack(&plan(&state, choice), &out)?;
    Ok((out.display().to_string(), manifest))
}

/// Verifies a pack file: every digest, and the signatures it has.
#[tauri::command]
pub async fn pack_verify(path: String) -> Result<VerifyView, AppError> {
    Ok(verify_pack(&browserflow_catalog::typed_path(&path)))
}

/// Verifies a pack file and installs it into the store, first comparing it with the
/// workspace: a tool the workspace defines differently is a conflict, refused unless
/// `on_conflict` says to replace the workspace file or keep it.
#[tauri::command]
pub async fn pack_import(
    state: State<'_, AppState>,
    path: String,
    on_conflict: Option<OnConflict>,
) -> Result<VerifyView, AppError> {
    Ok(import_pack(
        &browserflow_catalog::typed_path(&path),
        &state.paths.store,
        &state.paths.library().dirs,
        on_conflict.unwrap_or_default(),
    ))
}

/// Uninstalls the pack `pack` (`name@version` or digest) from the store; returns its
/// `name@version`.
#[tauri::command]
pub async fn pack_remove(state: State<'_, AppState>, pack: String) -> Result<String, AppError> {
    Ok(remove_pack(&state.paths.store, &pack)?)
}

//! The browserflow desktop app: Tauri 2 commands and events, each a few lines over the crates
//! (`browserflow-catalog` for the library, previews, packs, flow checks and the Record
//! screen, over `browserflow-record`). Errors reach the UI as `{code, message}`
//! ([`AppError`]); the TypeScript types of everything crossing the bridge are generated from
//! these Rust types (`ui/src/bindings/`, written by the `bindings` test).
//!
//! ```no_run
//! // What `main` does:
//! browserflow_app::run();
//! ```
//!
//! Tests build the same app on Tauri's mock runtime:
//!
//! ```no_run
//! # fn test() -> Result<(), tauri::Error> {
//! let state = browserflow_app::AppState::new(browserflow_app::AppPaths::under("/tmp/x".as_ref()));
//! let app = browserflow_app::builder(tauri::test::mock_builder(), state)
//!     .build(tauri::test::mock_context(tauri::test::noop_assets()))?;
//! # let _ = app; Ok(()) }
//! ```

pub mod commands;
pub mod error;
pub mod events;
mod linux;
pub mod state;

pub use error::AppError;
pub use state::{AppPaths, AppState};

/// The app's commands and state on `builder` (the real runtime, or the mock one in tests).
pub fn builder<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    state: AppState,
) -> tauri::Builder<R> {
    use commands::*;
    builder
        .manage(state)
        .on_window_event(ask_before_closing)
        .invoke_handler(tauri::generate_handler![
            library::library_list,
            library::app_paths,
            flows::flow_check,
            packs::pack_preview,
            packs::pack_export,
            packs::pack_verify,
            packs::pack_import,
            packs::pack_remove,
            preview::preview_plan,
            preview::preview_run,
            preview::preview_batch,
            shop::shop_serve,
            record::record_start,
            record::record_pick,
            record::record_stop,
            record::record_status,
            record::record_cancel_pick,
            record::draft_undo,
            record::draft_remove_check,
            record::draft_rely_on,
            record::draft_mark_required_input,
            record::draft_remove_output,
            record::draft_rename_output,
            record::draft_check_names,
            record::record_discard,
            record::record_restore_kept,
            record::record_discard_kept,
            record::app_close,
            record::draft_remove_step,
            record::draft_move_step,
            record::draft_mark_input,
            record::draft_mark_output,
            record::draft_save,
            record::record_answer_file_chooser,
            model::model_status,
            model::draft_suggest,
            model::record_suggest_selector,
        ])
}

/// Closing the window with a recording or an unsaved draft open asks the screen first
/// (`app://close-requested`; it answers with `app_close`). Everything is kept on disk as it
/// changes, so a close that cannot ask (a crash, a kill) loses nothing either.
fn ask_before_closing<R: tauri::Runtime>(window: &tauri::Window<R>, event: &tauri::WindowEvent) {
    use tauri::{Emitter, Manager};
    let tauri::WindowEvent::CloseRequested { api, .. } = event else {
        return;
    };
    let state = window.state::<AppState>();
    // A session busy with a command (a pick, a save) has something open: ask.
    let unsaved = state
        .recording
        .try_lock()
        .map(|session| session.has_unsaved())
        .unwrap_or(true);
    if unsaved {
        api.prevent_close();
        let _ = window.emit(events::CLOSE_REQUESTED, ());
    }
}

/// Starts the app with the folders named by the environment ([`AppPaths::from_env`]).
pub fn run() {
    linux::apply_workarounds();
    // Model assistance is optional: a bad configuration only turns it off, with a warning.
    let model = browserflow_record::ModelAssist::from_env().unwrap_or_else(|e| {
        eprintln!("browserflow: model assistance is off: {e}");
        None
    });
    let state = AppState::new(AppPaths::from_env()).with_model(model);
    // The native file picker (pack import, upload files); the screens call it directly.
    let app = builder(tauri::Builder::default(), state)
        .plugin(tauri_plugin_dialog::init())
        .run(tauri::generate_context!());
    if let Err(e) = app {
        eprintln!("browserflow: the app stopped: {e}");
        std::process::exit(1);
    }
}

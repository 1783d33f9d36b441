//! The one error every command returns, serialised as `{code, message}` so the UI can match
//! on a stable code and show a sentence.

use serde::Serialize;

/// A command's error: a stable snake_case `code` and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    /// Stable, snake_case: `not_found`, `bad_input`, `export`, `record`, `io`, …
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
}

impl AppError {
    /// An error with `code` and `message`.
    pub fn new(code: &str, message: impl std::fmt::Display) -> AppError {
        AppError {
            code: code.to_string(),
            message: message.to_string(),
        }
    }
}

impl AppError {
    /// Puts `value` back into `slot` before failing with this error (a resource taken out of
    /// the state for an operation that could not proceed).
    pub fn with_restore<T>(self, slot: &mut Option<T>, value: T) -> AppError {
        *slot = Some(value);
        self
    }
}

impl From<browserflow_catalog::pack_view::PackViewError> for AppError {
    fn from(e: browserflow_catalog::pack_view::PackViewError) -> Self {
        use browserflow_catalog::pack_view::PackViewError as E;
        let code = match &e {
            E::Version(_) | E::NoRoots | E::NotRunnable(_) => "bad_input",
            E::Builtins(_) | E::Pack(_) => "export",
        };
        AppError::new(code, e)
    }
}

impl From<browserflow_pack::PackError> for AppError {
    fn from(e: browserflow_pack::PackError) -> Self {
        let code = match &e {
            browserflow_pack::PackError::NotInstalled(_) => "not_found",
            _ => "pack",
        };
        AppError::new(code, e)
    }
}

impl From<browserflow_catalog::record_view::RecordViewError> for AppError {
    fn from(e: browserflow_catalog::record_view::RecordViewError) -> Self {
        AppError::new(e.code(), e)
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        // In words: the screens never show the OS's numbered text.
        AppError::new("io", browserflow_contract::io_in_words(&e))
    }
}

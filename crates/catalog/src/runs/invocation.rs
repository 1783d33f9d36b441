//! What a run was started with, kept in the run's folder so `resume RUN_ID` can rebuild the
//! same plan: `<runs folder>/<run id>/invocation.json`, the runs folder being the journal's
//! ([`JournalAt::runs_folder`](crate::JournalAt::runs_folder): for a journal file, `runs/`
//! beside it). It holds paths only — never input values, which live (redacted) in the
//! journal.

use std::path::{Path, PathBuf};

/// Errors reading or writing an invocation.
#[derive(Debug, thiserror::Error)]
pub enum InvocationError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be read as strict JSON (missing, too large, not JSON, a repeated key).
    #[error(transparent)]
    Unreadable(#[from] browserflow_contract::JsonFileError),
    /// The file is not an invocation.
    #[error("{path}: not a run invocation: {source}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

/// The flow file and tool folders of a run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invocation {
    /// The flow file, absolute.
    pub flow: PathBuf,
    /// The extra tool folders, absolute.
    pub tools: Vec<PathBuf>,
}

impl Invocation {
    /// An invocation of `flow` with `tools`, made absolute so a resume from another working
    /// directory finds them.
    pub fn new(flow: &Path, tools: &[PathBuf]) -> Invocation {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        Invocation {
            flow: absolute(flow),
            tools: tools.iter().map(|t| absolute(t)).collect(),
        }
    }

    /// The folder of run `run_id` in `runs_folder`: screenshots and the invocation go there.
    pub fn run_folder(runs_folder: &Path, run_id: &str) -> PathBuf {
        runs_folder.join(run_id)
    }

    /// Writes the invocation of run `run_id` into its folder in `runs_folder`.
    pub fn save(&self, runs_folder: &Path, run_id: &str) -> Result<(), InvocationError> {
        let folder = Invocation::run_folder(runs_folder, run_id);
        let path = folder.join("invocation.json");
        let io = |source| InvocationError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&folder).map_err(io)?;
        let text =
            serde_json::to_string_pretty(self).map_err(|source| InvocationError::Format {
                path: path.clone(),
                source,
            })?;
        std::fs::write(&path, text + "\n").map_err(io)
    }

    /// Reads the invocation of run `run_id` from its folder in `runs_folder`.
    pub fn load(runs_folder: &Path, run_id: &str) -> Result<Invocation, InvocationError> {
        let path = Invocation::run_folder(runs_folder, run_id).join("invocation.json");
        let value = browserflow_contract::read_json_file(&path)?;
        serde_json::from_value(value).map_err(|source| InvocationError::Format { path, source })
    }
}

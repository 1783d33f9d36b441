//! The preview's "Run on a file…": the previewed tool over every row of a CSV or JSONL file,
//! as `bflow run TOOL --inputs ROWS` runs it ([`crate::batch`]), described for the screen —
//! each row the moment it finishes, with where the batch stands, then a summary and the
//! results file.
//!
//! ```no_run
//! # async fn demo() {
//! use browserflow_catalog::Catalog;
//! use browserflow_catalog::batch_view::{BatchRequest, run_batch_in};
//! let request = BatchRequest {
//!     tool: "search-price@1.2.0".into(),
//!     rows: "products.csv".into(),
//!     concurrency: 2,
//! };
//! let catalog = Catalog { dirs: vec!["recordings".into()], store: None };
//! let done = run_batch_in(&request, &catalog, "runs/batches".as_ref(), |row| {
//!     println!("{}/{} rows", row.finished, row.total)
//! })
//! .await;
//! # }
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use browserflow_cdp::BrowserConfig;
use browserflow_replay::{ReplayOptions, SharedBrowser};
use serde::{Deserialize, Serialize};

use crate::batch::{self, BatchError, BatchOptions, Results, RowStatus};
use crate::{Catalog, LookupError, RunSetup};

/// What to run on which file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BatchRequest {
    /// The tool (a file, or `name@version`).
    pub tool: String,
    /// The rows: a `.csv` (a header row naming the inputs) or `.jsonl` file.
    pub rows: String,
    /// Rows replayed at once (1–8).
    pub concurrency: u16,
}

/// A row that finished, and where the batch stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BatchRowView {
    /// The row (1 = the first row of data).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub row: usize,
    /// Whether it returned an output.
    pub ok: bool,
    /// Its output (redacted), when `ok`.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub output: serde_json::Value,
    /// Why it failed (redacted), in words.
    pub error: Option<String>,
    /// Where its failing page and report were kept.
    pub run_folder: Option<String>,
    /// Its wall time, in milliseconds.
    pub duration_ms: f64,
    /// Rows finished so far.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub finished: usize,
    /// Of them, failed.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub failed: usize,
    /// Rows of the file.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: usize,
    /// Rows finished a second so far.
    pub rows_per_second: f64,
    /// The time left at that rate, in seconds.
    pub seconds_left: Option<f64>,
}

/// How the batch ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BatchResultView {
    /// Rows of the file.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub rows: usize,
    /// Rows that returned an output.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub ok: usize,
    /// Rows that failed.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub failed: usize,
    /// Wall time, in seconds.
    pub seconds: f64,
    /// Rows a second.
    pub rows_per_second: f64,
    /// The results file: one JSON line a row (status, output or error).
    pub results: String,
}

/// Why a batch could not start or go on (a row's own failure is that row's outcome).
#[derive(Debug, thiserror::Error)]
pub enum BatchViewError {
    /// The tool is not found or does not load.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// The rows or the results file.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// The results folder cannot be made.
    #[error("{}: {cause}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why, in words.
        cause: String,
    },
}

/// Runs `request.tool` (found in `catalog`) over every row of `request.rows` on one headless
/// browser, writing the results into a new file in `results_dir`, and calls `on_row` as each
/// row finishes.
pub async fn run_batch_in(
    request: &BatchRequest,
    catalog: &Catalog,
    results_dir: &Path,
    on_row: impl Fn(&BatchRowView),
) -> Result<BatchResultView, BatchViewError> {
    let file = catalog.tool_file(&request.tool)?;
    let rows = batch::read_rows(Path::new(&request.rows), &file)?;
    std::fs::create_dir_all(results_dir).map_err(|e| BatchViewError::Folder {
        path: results_dir.to_path_buf(),
        cause: browserflow_contract::io_in_words(&e),
    })?;
    let stamp = crate::library::now_epoch_seconds();
    let safe: String = file
        .contract
        .reference()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "@.-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = unused_path(results_dir, &format!("{safe}-{stamp}"));
    let mut results = Results::open(&path, &file, false)?;
    let browser = Arc::new(
        SharedBrowser::new(BrowserConfig::default()).with_replay_options(ReplayOptions {
            failure_screenshot: true,
            ..ReplayOptions::default()
        }),
    );
    let setup = RunSetup {
        browser: browser.clone(),
        ..RunSetup::default()
    };
    let options = BatchOptions {
        concurrency: usize::from(request.concurrency.clamp(1, 8)),
        keep_failed: true,
    };
    let outcome = batch::run_batch(
        &file,
        rows,
        setup,
        &mut results,
        options,
        |row, progress| {
            on_row(&BatchRowView {
                row: row.row,
                ok: row.status == RowStatus::Ok,
                output: row.output.clone().unwrap_or(serde_json::Value::Null),
                error: row.error.clone(),
                run_folder: row.run_folder.as_ref().map(|f| f.display().to_string()),
                duration_ms: row.duration_ms,
                finished: progress.finished,
                failed: progress.failed,
                total: progress.total,
                rows_per_second: progress.rows_per_second(),
                seconds_left: progress.time_left().map(|t| t.as_secs_f64()),
            });
        },
    )
    .await;
    browser.close().await;
    let summary = outcome?;
    Ok(BatchResultView {
        rows: summary.rows,
        ok: summary.ok,
        failed: summary.failed,
        seconds: summary.elapsed.as_secs_f64(),
        rows_per_second: summary.rows_per_second(),
        results: path.display().to_string(),
    })
}

/// `dir/<stem>.jsonl`, or `dir/<stem>-2.jsonl`… when taken: a batch never writes into the
/// results of another.
fn unused_path(dir: &Path, stem: &str) -> PathBuf {
    let mut path = dir.join(format!("{stem}.jsonl"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{stem}-{n}.jsonl"));
        n += 1;
    }
    path
}

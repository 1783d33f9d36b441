//! Batch runs: one tool over many rows of inputs, on one browser.
//!
//! The rows come from a CSV file (a header row naming the tool's inputs) or a JSONL file (one
//! JSON object a line, keyed by input). Each cell is typed by the tool's contract with the
//! command line's one rule ([`RunInput::from_written`]): a secret input's cell names a
//! secret (`secret.NAME`), never holds one. A cell that does not fit is that row's error,
//! located by row and column; the other rows run.
//!
//! Every row is its own run of the tool ([`run_tool`]) in a fresh browser context of one
//! shared browser, so rows never share cookies or storage, and a browser that crashes is
//! relaunched and the step retried by the Rider. Outcomes are appended to the results file
//! ([`Results`]) the moment each row finishes, one line a row: a crash loses no finished
//! row, and [`Results::open`] with `resume` reads which rows are done so they are skipped.
//!
//! ```no_run
//! # async fn example(file: browserflow_steps::ToolFile) -> Result<(), Box<dyn std::error::Error>> {
//! use browserflow_catalog::RunSetup;
//! use browserflow_catalog::batch::{BatchOptions, Results, read_rows, run_batch};
//!
//! let rows = read_rows("products.csv".as_ref(), &file)?;
//! let mut results = Results::open("prices.jsonl".as_ref(), &file, false)?;
//! let summary = run_batch(&file, rows, RunSetup::default(), &mut results,
//!     BatchOptions { concurrency: 4, keep_failed: true }, |outcome, progress| {
//!         eprintln!("{}/{} row {}: {}", progress.finished, progress.total, outcome.row,
//!             outcome.status.as_str());
//!     }).await?;
//! println!("{} ok, {} failed", summary.ok, summary.failed);
//! # Ok(()) }
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use browserflow_contract::{CompiledSchema, InputDecl};
use browserflow_steps::ToolFile;
use serde_json::Value;

mod results;

pub use results::Results;

use super::run_tool::{RunToolError, keep_failed_run, run_tool};
use super::{RunInput, RunInputs, RunSetup};

/// The format of a rows or results file, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// `.csv`: a header row, then one row of cells a line.
    Csv,
    /// `.jsonl` or `.ndjson`: one JSON object a line.
    Jsonl,
}

impl TableFormat {
    /// The format of `path`, by its extension.
    pub fn of(path: &Path) -> Result<TableFormat, BatchError> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("csv") => Ok(TableFormat::Csv),
            Some("jsonl" | "ndjson") => Ok(TableFormat::Jsonl),
            _ => Err(BatchError::Format {
                path: path.to_path_buf(),
            }),
        }
    }
}

/// One row of inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Its number: 1 for the first row of data (a CSV's header is not a row).
    pub number: usize,
    /// Its inputs, or why its cells do not fit the tool (`column `price`: …`).
    pub inputs: Result<RunInputs, String>,
}

/// Why a batch cannot start or go on (a row's own failure is not one: it is that row's
/// outcome).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The file cannot be read or written.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong, in words.
        cause: String,
    },
    /// Neither `.csv` nor `.jsonl`.
    #[error(
        "{}: a batch file is .csv (a header row naming the inputs) or .jsonl (one JSON object a line)",
        path.display()
    )]
    Format {
        /// The file.
        path: PathBuf,
    },
    /// The CSV cannot be read (a row of another width, bad UTF-8…).
    #[error("{}: {message}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// What is wrong and where.
        message: String,
    },
    /// A JSONL line is not a JSON object.
    #[error("{}, line {line}: {message}", path.display())]
    Jsonl {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Columns (or keys) that name no input of the tool.
    #[error("{}: {} no input of `{tool}` (its inputs: {inputs})", path.display(), columns_named(.columns))]
    UnknownColumns {
        /// The file.
        path: PathBuf,
        /// The columns.
        columns: Vec<String>,
        /// The tool, `name@version`.
        tool: String,
        /// Its inputs, comma-separated.
        inputs: String,
    },
    /// Required inputs (no default) that no column gives: every row would fail.
    #[error("{}: no column gives the required {} of `{tool}`", path.display(), inputs_named(.inputs))]
    MissingColumns {
        /// The file.
        path: PathBuf,
        /// The inputs.
        inputs: Vec<String>,
        /// The tool, `name@version`.
        tool: String,
    },
    /// The results file holds rows already, and the batch was not asked to resume.
    #[error(
        "{}: holds the results of an earlier batch; resume it (--resume) or choose another output file",
        path.display()
    )]
    ResultsExist {
        /// The file.
        path: PathBuf,
    },
    /// The results file is not one this batch writes (another header, another format).
    #[error("{}: cannot resume: {reason}", path.display())]
    NotResults {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

fn columns_named(columns: &[String]) -> String {
    let named: Vec<String> = columns.iter().map(|c| format!("`{c}`")).collect();
    match columns.len() {
        1 => format!("the column {} names", named[0]),
        _ => format!("the columns {} name", named.join(", ")),
    }
}

fn inputs_named(inputs: &[String]) -> String {
    let named: Vec<String> = inputs.iter().map(|i| format!("`{i}`")).collect();
    match inputs.len() {
        1 => format!("input {}", named[0]),
        _ => format!("inputs {}", named.join(", ")),
    }
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> BatchError + '_ {
    move |e| BatchError::Io {
        path: path.to_path_buf(),
        cause: browserflow_contract::io_in_words(&e),
    }
}

/// The rows of `path` (CSV or JSONL), typed for the tool `file`.
pub fn read_rows(path: &Path, file: &ToolFile) -> Result<Vec<Row>, BatchError> {
    let format = TableFormat::of(path)?;
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    let typer = CellTyper::new(file);
    match format {
        TableFormat::Csv => read_csv(path, &text, &typer),
        TableFormat::Jsonl => read_jsonl(path, &text, &typer),
    }
}

/// Types cells by the tool's inputs.
struct CellTyper<'a> {
    tool: String,
    decls: &'a [InputDecl],
    /// Each input's compiled schema (`None` when it does not compile: the Rider says so).
    schemas: Vec<Option<CompiledSchema>>,
}

impl<'a> CellTyper<'a> {
    fn new(file: &'a ToolFile) -> CellTyper<'a> {
        let decls = file.contract.inputs();
        CellTyper {
            tool: file.contract.reference(),
            decls,
            schemas: decls
                .iter()
                .map(|d| CompiledSchema::new(&d.schema).ok())
                .collect(),
        }
    }

    fn decl(&self, name: &str) -> Option<(usize, &InputDecl)> {
        self.decls.iter().enumerate().find(|(_, d)| d.name == name)
    }

    /// Columns naming no input, and required inputs no column gives.
    fn check_columns<'c>(
        &self,
        path: &Path,
        columns: impl Iterator<Item = &'c str> + Clone,
    ) -> Result<(), BatchError> {
        let unknown: Vec<String> = columns
            .clone()
            .filter(|c| self.decl(c).is_none())
            .map(str::to_owned)
            .collect();
        if !unknown.is_empty() {
            let inputs: Vec<&str> = self.decls.iter().map(|d| d.name.as_str()).collect();
            return Err(BatchError::UnknownColumns {
                path: path.to_path_buf(),
                columns: unknown,
                tool: self.tool.clone(),
                inputs: if inputs.is_empty() {
                    "none".to_owned()
                } else {
                    inputs.join(", ")
                },
            });
        }
        let missing: Vec<String> = self
            .decls
            .iter()
            .filter(|d| d.schema.default.is_none() && !columns.clone().any(|c| c == d.name))
            .map(|d| d.name.clone())
            .collect();
        if !missing.is_empty() {
            return Err(BatchError::MissingColumns {
                path: path.to_path_buf(),
                inputs: missing,
                tool: self.tool.clone(),
            });
        }
        Ok(())
    }

    /// The input of column `name` from a written cell, or from a JSON value (JSONL).
    fn cell(&self, name: &str, cell: Cell<'_>) -> Result<Option<RunInput>, String> {
        let Some((index, decl)) = self.decl(name) else {
            return Err(format!("column `{name}` names no input"));
        };
        let input = match cell {
            Cell::Written("") | Cell::Json(Value::Null) => return Ok(None),
            Cell::Written(text) => RunInput::from_written(decl, text),
            Cell::Json(Value::String(text)) if decl.secret => RunInput::from_written(decl, text),
            Cell::Json(_) if decl.secret => Err(super::InputError::SecretValue(decl.name.clone())),
            Cell::Json(value) => Ok(RunInput::Value(value.clone())),
        }
        // Never the cell itself: a secret's cell that holds a value is not repeated.
        .map_err(|e| match e {
            super::InputError::NotSecret(_) => format!("column `{name}`: {e}"),
            _ => format!("column `{name}`: {e}: its cells name a secret, `secret.NAME`"),
        })?;
        if let (RunInput::Value(value), Some(Some(schema))) = (&input, self.schemas.get(index))
            && let Err(errors) = schema.validate(value)
        {
            let said: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
            return Err(format!(
                "column `{name}`: expected {}: {}",
                decl.schema.describe(),
                said.join("; ")
            ));
        }
        Ok(Some(input))
    }

    /// A row's inputs from its cells; a required input left empty is the row's error.
    fn row<'c>(
        &self,
        cells: impl Iterator<Item = (&'c str, Cell<'c>)>,
    ) -> Result<RunInputs, String> {
        let mut inputs = RunInputs::new();
        let mut problems = Vec::new();
        for (name, cell) in cells {
            match self.cell(name, cell) {
                Ok(Some(input)) => {
                    inputs.insert(name.to_owned(), input);
                }
                Ok(None) => {}
                Err(problem) => problems.push(problem),
            }
        }
        for decl in self.decls {
            if decl.schema.default.is_none() && !inputs.contains_key(&decl.name) {
                let said = format!(
                    "column `{}` is empty and the input has no default",
                    decl.name
                );
                if !problems
                    .iter()
                    .any(|p| p.starts_with(&format!("column `{}`", decl.name)))
                {
                    problems.push(said);
                }
            }
        }
        if problems.is_empty() {
            Ok(inputs)
        } else {
            Err(problems.join("; "))
        }
    }
}

/// A cell as the file has it.
enum Cell<'a> {
    /// A CSV cell's text.
    Written(&'a str),
    /// A JSONL value.
    Json(&'a Value),
}

fn read_csv(path: &Path, text: &str, typer: &CellTyper<'_>) -> Result<Vec<Row>, BatchError> {
    let csv_error = |e: csv::Error| BatchError::Csv {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::Headers)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(csv_error)?
        .iter()
        .map(str::to_owned)
        .collect();
    typer.check_columns(path, headers.iter().map(String::as_str))?;
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(csv_error)?;
        let cells = headers
            .iter()
            .zip(record.iter())
            .map(|(name, cell)| (name.as_str(), Cell::Written(cell)));
        rows.push(Row {
            number: i + 1,
            inputs: typer.row(cells),
        });
    }
    Ok(rows)
}

fn read_jsonl(path: &Path, text: &str, typer: &CellTyper<'_>) -> Result<Vec<Row>, BatchError> {
    let mut objects = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let refuse = |message: String| BatchError::Jsonl {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(object)) => objects.push(object),
            Ok(other) => {
                return Err(refuse(format!(
                    "a row is a JSON object keyed by input, not {}",
                    json_kind(&other)
                )));
            }
            Err(e) => return Err(refuse(format!("not JSON: {e}"))),
        }
    }
    let keys: BTreeSet<&str> = objects
        .iter()
        .flat_map(|o| o.keys().map(String::as_str))
        .collect();
    // Required inputs are checked per row (a line may leave out an input others give).
    let unknown: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| typer.decl(k).is_none())
        .collect();
    if !unknown.is_empty() {
        typer.check_columns(path, unknown.iter().copied())?;
    }
    Ok(objects
        .iter()
        .enumerate()
        .map(|(i, object)| Row {
            number: i + 1,
            inputs: typer.row(object.iter().map(|(k, v)| (k.as_str(), Cell::Json(v)))),
        })
        .collect())
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How a row ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowStatus {
    /// The tool returned a valid output.
    Ok,
    /// Its cells did not fit, or the run failed.
    Failed,
}

impl RowStatus {
    /// `ok` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Ok => "ok",
            RowStatus::Failed => "failed",
        }
    }
}

/// One row's outcome, as written to the results.
#[derive(Debug, Clone, PartialEq)]
pub struct RowOutcome {
    /// The row.
    pub row: usize,
    /// How it ended.
    pub status: RowStatus,
    /// The output (redacted), when it is `ok`.
    pub output: Option<Value>,
    /// Why it failed (redacted), in words.
    pub error: Option<String>,
    /// Its wall time, in milliseconds (0 for a row whose cells did not fit).
    pub duration_ms: f64,
    /// Where a failed row's page and report were kept.
    pub run_folder: Option<PathBuf>,
}

/// Where a batch stands, after each row.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Rows of the file.
    pub total: usize,
    /// Rows done before this batch started (a resume).
    pub skipped: usize,
    /// Rows finished in this batch.
    pub finished: usize,
    /// Of them, failed.
    pub failed: usize,
    /// Since the batch started.
    pub elapsed: Duration,
}

impl Progress {
    /// Rows finished a second.
    pub fn rows_per_second(&self) -> f64 {
        let seconds = self.elapsed.as_secs_f64();
        if seconds > 0.0 {
            self.finished as f64 / seconds
        } else {
            0.0
        }
    }

    /// The time left at the rate so far, once a row finished.
    pub fn time_left(&self) -> Option<Duration> {
        let rate = self.rows_per_second();
        let left = self.total.saturating_sub(self.skipped + self.finished);
        (rate > 0.0).then(|| Duration::from_secs_f64(left as f64 / rate))
    }
}

/// How a batch ended.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSummary {
    /// Rows of the file.
    pub rows: usize,
    /// Rows done before (a resume), not run again.
    pub skipped: usize,
    /// Rows that returned an output.
    pub ok: usize,
    /// Rows that failed.
    pub failed: usize,
    /// Wall time.
    pub elapsed: Duration,
}

impl BatchSummary {
    /// Rows run a second.
    pub fn rows_per_second(&self) -> f64 {
        let seconds = self.elapsed.as_secs_f64();
        if seconds > 0.0 {
            (self.ok + self.failed) as f64 / seconds
        } else {
            0.0
        }
    }
}

/// How a batch runs.
#[derive(Debug, Clone, Copy)]
pub struct BatchOptions {
    /// Rows replayed at once (each in its own context of the one browser); at least 1.
    pub concurrency: usize,
    /// Keep a failed row's page and report (in the user's runs folder) when the setup has no
    /// runs folder of its own.
    pub keep_failed: bool,
}

/// Runs `rows` of `file` (those not already in `results`), `options.concurrency` at a time,
/// each through the Rider `setup` builds, writing each outcome to `results` as it finishes
/// and telling `on_row`. A row's failure is its outcome; only the results file failing stops
/// the batch.
pub async fn run_batch(
    file: &ToolFile,
    rows: Vec<Row>,
    setup: RunSetup,
    results: &mut Results,
    options: BatchOptions,
    mut on_row: impl FnMut(&RowOutcome, &Progress),
) -> Result<BatchSummary, BatchError> {
    let started = Instant::now();
    let total = rows.len();
    let pending: Vec<Row> = rows
        .into_iter()
        .filter(|r| !results.done().contains(&r.number))
        .collect();
    let mut progress = Progress {
        total,
        skipped: total - pending.len(),
        finished: 0,
        failed: 0,
        elapsed: Duration::ZERO,
    };
    let file = Arc::new(file.clone());
    let mut queue = pending.into_iter();
    let mut running = tokio::task::JoinSet::new();
    let concurrency = options.concurrency.max(1);
    loop {
        while running.len() < concurrency {
            let Some(row) = queue.next() else { break };
            let inputs = match row.inputs {
                Ok(inputs) => inputs,
                Err(problem) => {
                    let outcome = RowOutcome {
                        row: row.number,
                        status: RowStatus::Failed,
                        output: None,
                        error: Some(format!("row {}, {problem}", row.number)),
                        duration_ms: 0.0,
                        run_folder: None,
                    };
                    finish_row(results, &outcome, &mut progress, started)?;
                    on_row(&outcome, &progress);
                    continue;
                }
            };
            let (file, setup) = (file.clone(), setup.clone());
            running.spawn(async move {
                let row_started = Instant::now();
                let result = run_tool(&file, &inputs, setup).await;
                let duration_ms = row_started.elapsed().as_secs_f64() * 1000.0;
                row_outcome(&file, row.number, result, duration_ms, options.keep_failed)
            });
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        let outcome = match joined {
            Ok(outcome) => outcome,
            // A row's task cannot panic on input; if it did, the batch says so and goes on.
            Err(e) => RowOutcome {
                row: 0,
                status: RowStatus::Failed,
                output: None,
                error: Some(format!("a row's run stopped unexpectedly: {e}")),
                duration_ms: 0.0,
                run_folder: None,
            },
        };
        finish_row(results, &outcome, &mut progress, started)?;
        on_row(&outcome, &progress);
    }
    Ok(BatchSummary {
        rows: total,
        skipped: progress.skipped,
        ok: progress.finished - progress.failed,
        failed: progress.failed,
        elapsed: started.elapsed(),
    })
}

fn finish_row(
    results: &mut Results,
    outcome: &RowOutcome,
    progress: &mut Progress,
    started: Instant,
) -> Result<(), BatchError> {
    results.write(outcome)?;
    progress.finished += 1;
    if outcome.status == RowStatus::Failed {
        progress.failed += 1;
    }
    progress.elapsed = started.elapsed();
    Ok(())
}

fn row_outcome(
    file: &ToolFile,
    row: usize,
    result: Result<super::run_tool::ToolRun, RunToolError>,
    duration_ms: f64,
    keep_failed: bool,
) -> RowOutcome {
    match result {
        Ok(run) => RowOutcome {
            row,
            status: RowStatus::Ok,
            output: Some(run.output),
            error: None,
            duration_ms,
            run_folder: None,
        },
        Err(error) => {
            let run_folder = if keep_failed {
                keep_failed_run(file, &error).and_then(Result::ok)
            } else {
                None
            };
            RowOutcome {
                row,
                status: RowStatus::Failed,
                output: None,
                // Redacted by the Rider, like everything a run writes.
                error: Some(format!("row {row}: {error}")),
                duration_ms,
                run_folder,
            }
        }
    }
}

#[cfg(test)]
mod tests;

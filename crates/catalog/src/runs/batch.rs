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
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use browserflow_contract::{CompiledSchema, InputDecl};
use browserflow_steps::ToolFile;
use serde_json::{Map, Value, json};

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

/// The results file of a batch, written a row at a time.
pub struct Results {
    path: PathBuf,
    format: TableFormat,
    /// `None`: standard output.
    file: Option<std::fs::File>,
    /// The output's columns (CSV): the output object's fields, or `output`.
    fields: Vec<String>,
    done: BTreeSet<usize>,
}

impl Results {
    /// Opens `path` for the results of `file`'s batch. A file with results is refused unless
    /// `resume`, when the rows it holds are read ([`Results::done`]) and a last line cut short
    /// by a crash is dropped (that row runs again).
    pub fn open(path: &Path, file: &ToolFile, resume: bool) -> Result<Results, BatchError> {
        let format = TableFormat::of(path)?;
        let fields = output_fields(file);
        let mut handle = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_error(path))?;
        let mut text = String::new();
        handle.read_to_string(&mut text).map_err(io_error(path))?;
        let mut results = Results {
            path: path.to_path_buf(),
            format,
            file: Some(handle),
            fields,
            done: BTreeSet::new(),
        };
        let header = results.csv_header();
        if text.trim().is_empty() {
            if format == TableFormat::Csv {
                results.append(&header)?;
            }
            return Ok(results);
        }
        if !resume {
            return Err(BatchError::ResultsExist {
                path: path.to_path_buf(),
            });
        }
        // A line without its newline was being written when the batch stopped.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        if whole < text.len()
            && let Some(handle) = &mut results.file
        {
            handle.set_len(whole as u64).map_err(io_error(path))?;
            handle
                .seek(std::io::SeekFrom::End(0))
                .map_err(io_error(path))?;
        }
        let not_results = |reason: String| BatchError::NotResults {
            path: path.to_path_buf(),
            reason,
        };
        let mut lines = text[..whole].lines();
        if format == TableFormat::Csv && lines.next() != Some(header.trim_end()) {
            return Err(not_results(format!(
                "its header is not `{}`",
                header.trim_end()
            )));
        }
        for (i, line) in lines.enumerate() {
            let row = match format {
                TableFormat::Jsonl => serde_json::from_str::<Value>(line)
                    .ok()
                    .and_then(|v| v["row"].as_u64()),
                TableFormat::Csv => line.split(',').next().and_then(|c| c.parse().ok()),
            };
            let Some(row) = row else {
                return Err(not_results(format!("line {} names no row", i + 1)));
            };
            results.done.insert(row as usize);
        }
        Ok(results)
    }

    /// Results of `file`'s batch written to standard output as JSON lines (nothing to resume).
    pub fn stdout(file: &ToolFile) -> Results {
        Results {
            path: PathBuf::from("<stdout>"),
            format: TableFormat::Jsonl,
            file: None,
            fields: output_fields(file),
            done: BTreeSet::new(),
        }
    }

    /// The rows this file holds already.
    pub fn done(&self) -> &BTreeSet<usize> {
        &self.done
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn csv_header(&self) -> String {
        let mut header = vec!["row".to_owned(), "status".to_owned()];
        header.extend(self.fields.iter().cloned());
        header.push("error".to_owned());
        csv_line(&header)
    }

    /// Writes one row's outcome as one line, flushed before this returns.
    pub fn write(&mut self, outcome: &RowOutcome) -> Result<(), BatchError> {
        let line = match self.format {
            TableFormat::Jsonl => {
                let mut object = Map::new();
                object.insert("row".into(), json!(outcome.row));
                object.insert("status".into(), json!(outcome.status.as_str()));
                if let Some(output) = &outcome.output {
                    object.insert("output".into(), output.clone());
                }
                if let Some(error) = &outcome.error {
                    object.insert("error".into(), json!(error));
                }
                if let Some(folder) = &outcome.run_folder {
                    object.insert("run_folder".into(), json!(folder.display().to_string()));
                }
                object.insert("duration_ms".into(), json!(outcome.duration_ms.round()));
                Value::Object(object).to_string() + "\n"
            }
            TableFormat::Csv => {
                let mut cells = vec![outcome.row.to_string(), outcome.status.as_str().to_owned()];
                for field in &self.fields {
                    let value = match &outcome.output {
                        Some(Value::Object(o)) => o.get(field),
                        Some(other) if field == "output" => Some(other),
                        _ => None,
                    };
                    cells.push(match value {
                        None | Some(Value::Null) => String::new(),
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                    });
                }
                cells.push(outcome.error.clone().unwrap_or_default());
                csv_line(&cells)
            }
        };
        self.append(&line)?;
        self.done.insert(outcome.row);
        Ok(())
    }

    fn append(&mut self, line: &str) -> Result<(), BatchError> {
        // One write of the whole line, then to the OS: a kill after it loses nothing.
        let written = match &mut self.file {
            Some(file) => file.write_all(line.as_bytes()).and_then(|()| file.flush()),
            None => {
                let mut out = std::io::stdout().lock();
                out.write_all(line.as_bytes()).and_then(|()| out.flush())
            }
        };
        written.map_err(io_error(&self.path))
    }
}

/// The output's columns: an object output's fields (as its schema lists them), else `output`.
fn output_fields(file: &ToolFile) -> Vec<String> {
    let schema = file.contract.output().to_json();
    match schema["properties"].as_object() {
        Some(properties) if !properties.is_empty() => properties.keys().cloned().collect(),
        _ => vec!["output".to_owned()],
    }
}

/// `cells` as one CSV line (quoted where needed), newline included.
fn csv_line(cells: &[String]) -> String {
    let mut writer = csv::WriterBuilder::new().from_writer(Vec::new());
    // Writing into memory cannot fail.
    let _ = writer.write_record(cells);
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
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
mod tests {
    use super::*;

    fn tool() -> ToolFile {
        ToolFile::from_json_str(
            r#"{"contract": {"name": "price", "version": "1.0.0", "kind": "browser",
                "description": "",
                "inputs": [{"name": "query", "schema": {"type": "string"}, "secret": false},
                           {"name": "count", "schema": {"type": "integer", "default": 1}, "secret": false},
                           {"name": "token", "schema": {"type": "string"}, "secret": true}],
                "output": {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "number"}}},
                "capabilities": ["browser", "secrets"]},
                "steps": [{"type": "navigate", "url": "http://127.0.0.1:9/"}]}"#,
        )
        .unwrap_or_else(|e| panic!("a tool: {e}"))
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn csv_cells_are_typed_by_the_contract_and_a_bad_cell_is_its_rows_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "rows.csv",
            "query, count ,token\nkeyboard,3,secret.API\n\"mouse, wireless\",,secret.API\nlamp,three,secret.API\nfan,2,hunter2\n,1,secret.API\n",
        );
        let rows = read_rows(&path, &tool()).unwrap();
        assert_eq!(rows.len(), 5);
        let first = rows[0].inputs.as_ref().unwrap();
        assert_eq!(first["query"], RunInput::Value(json!("keyboard")));
        assert_eq!(first["count"], RunInput::Value(json!(3)));
        assert_eq!(first["token"], RunInput::Secret("API".into()));
        // Quoted cells keep their commas; an empty cell leaves the default.
        let second = rows[1].inputs.as_ref().unwrap();
        assert_eq!(second["query"], RunInput::Value(json!("mouse, wireless")));
        assert!(!second.contains_key("count"));
        let third = rows[2].inputs.as_ref().unwrap_err();
        assert!(
            third.starts_with("column `count`: expected integer"),
            "{third}"
        );
        // A secret's cell holding a value: refused, the value not repeated.
        let fourth = rows[3].inputs.as_ref().unwrap_err();
        assert!(fourth.contains("column `token`"), "{fourth}");
        assert!(!fourth.contains("hunter2"), "{fourth}");
        let fifth = rows[4].inputs.as_ref().unwrap_err();
        assert_eq!(
            fifth,
            "column `query` is empty and the input has no default"
        );
    }

    #[test]
    fn columns_must_name_inputs_and_give_every_required_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "a.csv", "query,colour,token\nx,red,secret.A\n");
        let err = read_rows(&path, &tool()).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "a.csv: the column `colour` names no input of `price@1.0.0` (its inputs: query, count, token)"
            ),
            "{err}"
        );
        let path = write(dir.path(), "b.csv", "count\n1\n");
        let err = read_rows(&path, &tool()).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "b.csv: no column gives the required inputs `query`, `token` of `price@1.0.0`"
            ),
            "{err}"
        );
        let path = write(dir.path(), "c.csv", "query,token\nx,secret.A,extra\n");
        let err = read_rows(&path, &tool()).unwrap_err().to_string();
        assert!(err.contains("c.csv: "), "{err}");
        let err = read_rows(&dir.path().join("rows.txt"), &tool()).unwrap_err();
        assert!(matches!(err, BatchError::Format { .. }), "{err}");
    }

    #[test]
    fn jsonl_rows_are_objects_keyed_by_input() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "rows.jsonl",
            "{\"query\": \"keyboard\", \"count\": 2, \"token\": \"secret.API\"}\n\n{\"query\": 5, \"token\": \"secret.API\"}\n{\"query\": \"x\", \"token\": 42}\n",
        );
        let rows = read_rows(&path, &tool()).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[0].inputs.as_ref().unwrap()["count"],
            RunInput::Value(json!(2))
        );
        assert!(
            rows[1]
                .inputs
                .as_ref()
                .unwrap_err()
                .starts_with("column `query`: expected string"),
            "{:?}",
            rows[1].inputs
        );
        assert!(
            rows[2]
                .inputs
                .as_ref()
                .unwrap_err()
                .contains("column `token`")
        );
        let path = write(dir.path(), "bad.jsonl", "{\"query\": \"x\"}\n[1]\n");
        let err = read_rows(&path, &tool()).unwrap_err().to_string();
        assert!(
            err.ends_with("bad.jsonl, line 2: a row is a JSON object keyed by input, not an array"),
            "{err}"
        );
    }

    fn outcome(row: usize, ok: bool) -> RowOutcome {
        RowOutcome {
            row,
            status: if ok { RowStatus::Ok } else { RowStatus::Failed },
            output: ok.then(|| json!({"name": "Keyboard, mechanical", "price": 89.99})),
            error: (!ok).then(|| format!("row {row}: step 3 failed")),
            duration_ms: 12.0,
            run_folder: None,
        }
    }

    #[test]
    fn results_are_written_a_row_at_a_time_and_a_resume_reads_them_back() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["out.jsonl", "out.csv"] {
            let path = dir.path().join(name);
            let mut results = Results::open(&path, &tool(), false).unwrap();
            results.write(&outcome(2, true)).unwrap();
            results.write(&outcome(1, false)).unwrap();
            drop(results);
            // Not asked to resume: the file is kept as it is.
            let before = std::fs::read(&path).unwrap();
            assert!(matches!(
                Results::open(&path, &tool(), false),
                Err(BatchError::ResultsExist { .. })
            ));
            assert_eq!(std::fs::read(&path).unwrap(), before);
            // A line cut short by a kill is dropped on resume; the rows before it are done.
            let mut torn = before.clone();
            torn.extend_from_slice(b"3,ok,Lamp");
            std::fs::write(&path, &torn).unwrap();
            let mut resumed = Results::open(&path, &tool(), true).unwrap();
            assert_eq!(
                resumed.done().iter().copied().collect::<Vec<_>>(),
                [1, 2],
                "{name}"
            );
            resumed.write(&outcome(3, true)).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!text.contains("Lamp"), "{text}");
            assert_eq!(
                text.lines().count(),
                if name.ends_with("csv") { 4 } else { 3 }
            );
        }
        let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("row,status,name,price,error"));
        assert_eq!(lines.next(), Some("2,ok,\"Keyboard, mechanical\",89.99,"));
        assert_eq!(lines.next(), Some("1,failed,,,row 1: step 3 failed"));
        let jsonl = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
        let first: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
        assert_eq!(first["output"]["price"], 89.99);
        assert_eq!(first["status"], "ok");
    }
}

//! The results file of a batch: one line a row, written and flushed the moment the row
//! finishes, read back by a resume.

use std::collections::BTreeSet;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use browserflow_steps::ToolFile;
use serde_json::{Map, Value, json};

use super::{BatchError, RowOutcome, TableFormat, io_error};

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

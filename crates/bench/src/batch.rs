//! The batch comparison: the journey over many rows on one browser, a fresh context per row,
//! N rows at once — `bflow run TOOL --inputs rows.csv --concurrency N` against a Playwright
//! and a Puppeteer script doing the same rows the way their users would
//! (`bench/batch-peers.js`). Each batch is one process tree in a cgroup of its own
//! ([`crate::cgroup`]): its CPU time and peak memory are everything it started. Every row's
//! product name is checked against the catalog: a batch counts only when every row is right.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cgroup::{CgroupUsage, OUTLIVE_GRACE, RunCgroup, command_in};
use crate::stats::Summary;
use crate::systems::Layout;

/// The queries the rows cycle through, with the product each must open first.
pub const QUERIES: [(&str, &str); 5] = [
    ("keyboard", "Mechanical Keyboard"),
    ("mouse", "Wireless Mouse"),
    ("desk", "Standing Desk"),
    ("compact", "Compact Keyboard"),
    ("espresso", "Espresso Machine"),
];

/// A batch system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchSystem {
    /// `bflow run --inputs`.
    Browserflow,
    /// `bench/batch-peers.js playwright`.
    Playwright,
    /// `bench/batch-peers.js puppeteer`.
    Puppeteer,
}

impl BatchSystem {
    /// All of them, browserflow first.
    pub const ALL: [BatchSystem; 3] = [
        BatchSystem::Browserflow,
        BatchSystem::Playwright,
        BatchSystem::Puppeteer,
    ];

    /// Its name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            BatchSystem::Browserflow => "browserflow",
            BatchSystem::Playwright => "playwright",
            BatchSystem::Puppeteer => "puppeteer",
        }
    }
}

/// The row files of one batch size, written once.
#[derive(Debug)]
pub struct Rows {
    /// `query` then one query per row (for `bflow`).
    pub csv: PathBuf,
    /// One query per line (for the peers).
    pub text: PathBuf,
    /// The product name each row must find, in row order.
    pub expected: Vec<&'static str>,
}

impl Rows {
    /// `count` rows cycling through [`QUERIES`], written into `dir`.
    pub fn write(dir: &Path, count: usize) -> std::io::Result<Rows> {
        let picked: Vec<(&str, &str)> = (0..count).map(|i| QUERIES[i % QUERIES.len()]).collect();
        let csv = dir.join("rows.csv");
        let text = dir.join("rows.txt");
        let mut csv_text = String::from("query\n");
        let mut plain = String::new();
        for (query, _) in &picked {
            csv_text.push_str(query);
            csv_text.push('\n');
            plain.push_str(query);
            plain.push('\n');
        }
        std::fs::write(&csv, csv_text)?;
        std::fs::write(&text, plain)?;
        Ok(Rows {
            csv,
            text,
            expected: picked.iter().map(|(_, name)| *name).collect(),
        })
    }
}

/// One batch run.
#[derive(Debug, Clone)]
pub struct BatchRun {
    /// From spawn to exit.
    pub wall: Duration,
    /// Each row's own time, in row order.
    pub row_ms: Vec<f64>,
    /// Rows of the batch.
    pub total: usize,
    /// Rows whose product was the expected one.
    pub right: usize,
    /// Rows that failed or found another product, with why (the first few).
    pub wrong: Vec<String>,
    /// Its cost, where cgroups can be used.
    pub cost: Option<CgroupUsage>,
}

impl BatchRun {
    /// Right rows per second over the whole process (launch included).
    pub fn throughput(&self) -> f64 {
        self.right as f64 / self.wall.as_secs_f64()
    }
}

/// Runs one batch of `system` at `concurrency` over `rows`.
pub fn run_batch(
    system: BatchSystem,
    layout: &Layout,
    tool: &Path,
    origin: &str,
    rows: &Rows,
    concurrency: usize,
    scratch: &Path,
) -> Result<BatchRun, String> {
    let output = scratch.join(format!("{}-{concurrency}.jsonl", system.name()));
    let _ = std::fs::remove_file(&output);
    let (program, args): (PathBuf, Vec<String>) = match system {
        BatchSystem::Browserflow => (
            layout.bflow.clone(),
            vec![
                "run".into(),
                tool.display().to_string(),
                "--inputs".into(),
                rows.csv.display().to_string(),
                "--concurrency".into(),
                concurrency.to_string(),
                "--output".into(),
                output.display().to_string(),
            ],
        ),
        BatchSystem::Playwright | BatchSystem::Puppeteer => (
            layout.node.clone(),
            vec![
                layout
                    .bench_dir
                    .join("batch-peers.js")
                    .display()
                    .to_string(),
                system.name().into(),
                origin.into(),
                rows.text.display().to_string(),
                concurrency.to_string(),
                layout.chrome.display().to_string(),
            ],
        ),
    };
    let cgroup = RunCgroup::create().ok();
    let mut command = command_in(cgroup.as_ref(), &program, &args);
    command
        .env("BROWSERFLOW_CHROME", &layout.chrome)
        .current_dir(scratch)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped());
    let started = Instant::now();
    let finished = command
        .output()
        .map_err(|e| format!("could not start {}: {e}", program.display()))?;
    let wall = started.elapsed();
    let cost = cgroup.and_then(|c| c.finish(OUTLIVE_GRACE).ok());
    let lines = match system {
        BatchSystem::Browserflow => std::fs::read_to_string(&output).unwrap_or_default(),
        _ => String::from_utf8_lossy(&finished.stdout).into_owned(),
    };
    let mut by_row: BTreeMap<usize, (f64, Result<String, String>)> = BTreeMap::new();
    for line in lines.lines() {
        let Ok(row) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(index) = row["row"].as_u64() else {
            continue;
        };
        let (ms, found) = match system {
            BatchSystem::Browserflow => (
                row["duration_ms"].as_f64().unwrap_or(0.0),
                match row["status"].as_str() {
                    Some("ok") => Ok(row["output"]["name"].as_str().unwrap_or("").to_string()),
                    _ => Err(row["error"].as_str().unwrap_or("failed").to_string()),
                },
            ),
            _ => (
                row["ms"].as_f64().unwrap_or(0.0),
                if row["ok"] == true {
                    Ok(row["name"].as_str().unwrap_or("").to_string())
                } else {
                    Err(row["error"].as_str().unwrap_or("failed").to_string())
                },
            ),
        };
        by_row.insert(index as usize, (ms, found));
    }
    let mut right = 0;
    let mut wrong = Vec::new();
    let mut row_ms = Vec::new();
    for (i, expected) in rows.expected.iter().enumerate() {
        match by_row.get(&(i + 1)) {
            Some((ms, Ok(name))) if name == expected => {
                right += 1;
                row_ms.push(*ms);
            }
            Some((ms, found)) => {
                row_ms.push(*ms);
                wrong.push(format!("row {}: expected {expected}, got {found:?}", i + 1));
            }
            None => wrong.push(format!("row {}: no outcome", i + 1)),
        }
    }
    if by_row.is_empty() {
        return Err(format!(
            "{} wrote no row ({}): {}",
            system.name(),
            finished.status,
            String::from_utf8_lossy(&finished.stderr)
                .lines()
                .rev()
                .take(5)
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    wrong.truncate(5);
    Ok(BatchRun {
        wall,
        row_ms,
        total: rows.expected.len(),
        right,
        wrong,
        cost,
    })
}

/// Every batch of one system at one level.
#[derive(Debug, Clone)]
pub struct BatchResults {
    /// The system.
    pub system: BatchSystem,
    /// Rows at once.
    pub concurrency: usize,
    /// Its batches.
    pub runs: Vec<BatchRun>,
    /// Batches that did not run, with why.
    pub failures: Vec<String>,
}

impl BatchResults {
    /// Median rows per second.
    pub fn throughput(&self) -> Option<Summary> {
        Summary::of(
            &self
                .runs
                .iter()
                .map(BatchRun::throughput)
                .collect::<Vec<_>>(),
        )
    }

    /// Every row's time, pooled over the batches.
    pub fn row_ms(&self) -> Vec<f64> {
        self.runs.iter().flat_map(|r| r.row_ms.clone()).collect()
    }

    /// Median CPU-seconds per row.
    pub fn cpu_per_row(&self) -> Option<Summary> {
        let values: Vec<f64> = self
            .runs
            .iter()
            .filter_map(|r| r.cost.map(|c| c.cpu_seconds / r.total.max(1) as f64))
            .collect();
        Summary::of(&values)
    }

    /// Median peak memory, bytes.
    pub fn peak_bytes(&self) -> Option<Summary> {
        let values: Vec<f64> = self
            .runs
            .iter()
            .filter_map(|r| r.cost.map(|c| c.peak_bytes as f64))
            .collect();
        Summary::of(&values)
    }

    /// Rows right / rows in all batches.
    pub fn right_of(&self) -> (usize, usize) {
        self.runs
            .iter()
            .fold((0, 0), |(r, t), run| (r + run.right, t + run.total))
    }
}

/// The `q`-quantile of `values` (nearest rank), `None` when empty.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

/// Runs every system at every level `rounds` times, interleaved within each level (round
/// `i` starts with system `i mod 3`). `progress` hears each batch.
#[allow(clippy::too_many_arguments)]
pub fn run_batches(
    layout: &Layout,
    tool: &Path,
    origin: &str,
    rows: &Rows,
    levels: &[usize],
    rounds: usize,
    scratch: &Path,
    mut progress: impl FnMut(BatchSystem, usize, &Result<BatchRun, String>),
) -> Vec<BatchResults> {
    let mut results = Vec::new();
    for &concurrency in levels {
        let mut level: Vec<BatchResults> = BatchSystem::ALL
            .iter()
            .map(|&system| BatchResults {
                system,
                concurrency,
                runs: Vec::new(),
                failures: Vec::new(),
            })
            .collect();
        for round in 0..rounds {
            for offset in 0..BatchSystem::ALL.len() {
                let index = (round + offset) % BatchSystem::ALL.len();
                let system = BatchSystem::ALL[index];
                let outcome = run_batch(system, layout, tool, origin, rows, concurrency, scratch);
                progress(system, concurrency, &outcome);
                match outcome {
                    Ok(run) => level[index].runs.push(run),
                    Err(why) => level[index].failures.push(why),
                }
            }
        }
        results.extend(level);
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&values, 0.5), Some(50.0));
        assert_eq!(quantile(&values, 0.95), Some(95.0));
        assert_eq!(quantile(&[7.0], 0.95), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn rows_cycle_through_the_queries() {
        let dir = tempfile::tempdir().unwrap();
        let rows = Rows::write(dir.path(), 7).unwrap();
        let csv = std::fs::read_to_string(&rows.csv).unwrap();
        assert_eq!(csv.lines().count(), 8);
        assert!(csv.starts_with("query\nkeyboard\nmouse\n"));
        assert_eq!(rows.expected[5], "Mechanical Keyboard");
        assert_eq!(
            std::fs::read_to_string(&rows.text).unwrap().lines().count(),
            7
        );
    }
}

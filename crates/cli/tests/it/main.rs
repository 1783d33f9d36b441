//! Integration tests of the `bflow` binary: real processes, real files.

// Helpers outside `#[test]` functions unwrap too: a panic is how a test fails.
#![allow(clippy::unwrap_used)]

mod batch;
mod browser_crash;
mod budget;
mod canary;
mod check;
mod contract;
mod daily_price_watch;
mod edges;
mod errors;
mod fencing;
mod flow;
mod for_each;
mod lists;
mod mcp;
mod pack;
#[path = "../../../rider/tests/it/pg_cluster.rs"]
mod pg_cluster;
mod postgres_journal;
mod queue;
mod record;
mod resume_guard;
mod resume_secrets;
mod run_output;
mod schedule;
mod shop;
mod strict_input;
mod titles;
mod webhook;
mod workspace;

use std::path::Path;
use std::process::{Command, Output};

/// Runs `bflow` with `args`. Its data folder (the run folders a failed `bflow run` keeps) is
/// the tests' own, not the user's.
pub fn bflow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(args)
        .env(
            "XDG_DATA_HOME",
            std::env::temp_dir().join("browserflow-cli-tests-data"),
        )
        .output()
        .expect("bflow runs")
}

/// Writes `text` to `name` inside `dir` and returns the path as a string.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write fixture");
    path.to_string_lossy().into_owned()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

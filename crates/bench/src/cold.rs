//! Whole-process runs: each system is a command that replays the journey from a cold start
//! (its own Chromium, fresh profile) and prints the product; runs are interleaved so that
//! drifting machine load hits every system alike.

use std::io::Read;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::cgroup::{CgroupUsage, OUTLIVE_GRACE, RunCgroup, command_in};
use crate::proc_tree::{Peak, PeakSampler, Scope};

/// A system under test: one process per replay.
#[derive(Debug, Clone)]
pub struct ColdSystem {
    /// Short name for the table (`browserflow`, `floor`, …).
    pub name: String,
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Text its stdout must contain for the run to count (the extracted price).
    pub expect: String,
}

impl ColdSystem {
    /// The command line, for the report.
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.display().to_string())
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One measured run.
#[derive(Debug, Clone, Copy)]
pub struct ColdRun {
    /// From spawn to exit.
    pub wall: Duration,
    /// Peak summed RSS of the process and its descendants.
    pub peak: Peak,
    /// CPU time and peak memory of everything the run started, from its cgroup (`None`
    /// where cgroups cannot be used: [`crate::cgroup`]).
    pub cost: Option<CgroupUsage>,
}

/// Why a run did not count.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The process could not be started.
    #[error("could not start {program}: {source}")]
    Spawn {
        /// The executable.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// It exited unsuccessfully or did not print the expected output.
    #[error(
        "{name} failed ({status}); expected `{expect}` in stdout.\nstdout: {stdout}\nstderr: {stderr}"
    )]
    Failed {
        /// The system.
        name: String,
        /// Exit status.
        status: String,
        /// What was expected.
        expect: String,
        /// The tail of stdout.
        stdout: String,
        /// The tail of stderr.
        stderr: String,
    },
}

/// Runs `system` once, sampling its process tree every `interval`.
pub fn run_once(system: &ColdSystem, interval: Duration) -> Result<ColdRun, RunError> {
    let cgroup = RunCgroup::create().ok();
    let mut command = command_in(cgroup.as_ref(), &system.program, &system.args);
    command
        .envs(system.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| RunError::Spawn {
        program: system.program.display().to_string(),
        source,
    })?;
    let sampler =
        PeakSampler::start(Scope::Tree(child.id()), interval).map_err(|source| RunError::Spawn {
            program: "the memory sampler thread".into(),
            source,
        });
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = child.wait();
    let wall = started.elapsed();
    let peak = sampler.map(PeakSampler::stop).unwrap_or_default();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let cost = cgroup.and_then(|c| c.finish(OUTLIVE_GRACE).ok());
    let ok = status.as_ref().is_ok_and(|s| s.success()) && stdout.contains(&system.expect);
    if !ok {
        return Err(RunError::Failed {
            name: system.name.clone(),
            status: match status {
                Ok(s) => s.to_string(),
                Err(e) => e.to_string(),
            },
            expect: system.expect.clone(),
            stdout: tail(&stdout),
            stderr: tail(&stderr),
        });
    }
    Ok(ColdRun { wall, peak, cost })
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        text
    })
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// All runs of one system.
#[derive(Debug, Clone, Default)]
pub struct SystemRuns {
    /// The system's name.
    pub name: String,
    /// Runs that succeeded.
    pub runs: Vec<ColdRun>,
    /// Runs that failed, with why.
    pub failures: Vec<String>,
}

/// Runs every system `runs` times, interleaved: round `i` starts with system `i mod n`, so no
/// system always runs first (or right after the same neighbour). `progress` hears each run.
pub fn run_interleaved(
    systems: &[ColdSystem],
    runs: usize,
    interval: Duration,
    mut progress: impl FnMut(usize, &ColdSystem, &Result<ColdRun, RunError>),
) -> Vec<SystemRuns> {
    let mut results: Vec<SystemRuns> = systems
        .iter()
        .map(|s| SystemRuns {
            name: s.name.clone(),
            ..SystemRuns::default()
        })
        .collect();
    for round in 0..runs {
        for offset in 0..systems.len() {
            let index = (round + offset) % systems.len();
            let outcome = run_once(&systems[index], interval);
            progress(round, &systems[index], &outcome);
            match outcome {
                Ok(run) => results[index].runs.push(run),
                Err(error) => results[index].failures.push(error.to_string()),
            }
        }
    }
    results
}

//! The `spawn` capability: runs the programs it allows, and no other.
//!
//! Children start with an empty environment plus `PATH` and the variables the caller passes,
//! so secrets held in the Rider's own environment (`BROWSERFLOW_SECRET_*`) never reach them.
//! A child is killed when the run is cancelled.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;

use tokio::io::AsyncWriteExt;

use crate::signal::CancelSignal;

/// Why a program could not be run.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The program is not on the allow list.
    #[error("program `{program}` is not allowed (allowed: {allowed})")]
    NotAllowed {
        /// The program asked for.
        program: String,
        /// The allow list, comma-separated.
        allowed: String,
    },
    /// Starting or talking to the program failed.
    #[error("program `{program}`: {source}")]
    Io {
        /// The program.
        program: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The run was cancelled while the program ran; it was killed.
    #[error("program `{0}` was killed: the run was cancelled")]
    Cancelled(String),
}

/// What a finished program produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnOutput {
    /// The exit code; `None` when killed by a signal.
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

impl SpawnOutput {
    /// Whether the program exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// One program invocation.
#[derive(Debug, Clone, Default)]
pub struct Command {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    cwd: Option<PathBuf>,
}

impl Command {
    /// Runs `program` (a name looked up on `PATH`, or a path).
    pub fn new(program: impl Into<String>) -> Command {
        Command {
            program: program.into(),
            ..Command::default()
        }
    }

    /// Appends an argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Command {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the child.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Command {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Feeds `input` to the child's standard input.
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Command {
        self.stdin = Some(input.into());
        self
    }

    /// Runs the child in `dir`.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Command {
        self.cwd = Some(dir.into());
        self
    }
}

/// Runs allowed programs.
#[derive(Debug, Clone)]
pub struct SpawnCap {
    allowed: Arc<BTreeSet<String>>,
    signal: CancelSignal,
}

impl SpawnCap {
    /// A capability allowing exactly `allowed` (program names or paths, matched exactly).
    pub fn new<I, S>(allowed: I, signal: CancelSignal) -> SpawnCap
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        SpawnCap {
            allowed: Arc::new(allowed.into_iter().map(Into::into).collect()),
            signal,
        }
    }

    /// The allowed programs.
    pub fn allowed(&self) -> impl Iterator<Item = &str> {
        self.allowed.iter().map(String::as_str)
    }

    /// Runs `command` to completion, collecting its output.
    pub async fn run(&self, command: Command) -> Result<SpawnOutput, SpawnError> {
        if !self.allowed.contains(&command.program) {
            return Err(SpawnError::NotAllowed {
                program: command.program,
                allowed: self.allowed.iter().cloned().collect::<Vec<_>>().join(", "),
            });
        }
        let program = command.program.clone();
        let io = |source| SpawnError::Io {
            program: program.clone(),
            source,
        };
        let mut child_cmd = tokio::process::Command::new(&command.program);
        child_cmd
            .args(&command.args)
            .env_clear()
            .env(
                "PATH",
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            )
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .stdin(if command.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &command.cwd {
            child_cmd.current_dir(dir);
        }
        let mut child = child_cmd.spawn().map_err(io)?;
        if let (Some(input), Some(mut pipe)) = (command.stdin, child.stdin.take()) {
            pipe.write_all(&input).await.map_err(io)?;
            drop(pipe);
        }
        tokio::select! {
            output = child.wait_with_output() => {
                let output = output.map_err(io)?;
                Ok(SpawnOutput { code: output.status.code(), stdout: output.stdout, stderr: output.stderr })
            }
            // Dropping the child future kills the process (kill_on_drop).
            _ = self.signal.cancelled() => Err(SpawnError::Cancelled(program.clone())),
        }
    }
}

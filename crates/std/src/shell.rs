//! `std/shell`: runs an allowed program with arguments and captures what it prints.
//!
//! `std/shell.run` declares `spawn`: the Rider's allow list decides which programs may run
//! (a program not on it is refused before anything starts). `std/shell.run-in-root`
//! declares `spawn` and `fs` and runs the program inside the run's `fs` root (or a
//! directory below it). A program still running at `timeout_ms` is killed.

use std::collections::BTreeMap;
use std::time::Duration;

use browserflow_contract::{Capability, Kind};
use browserflow_rider::{Command, DefineError, Tool, ToolCtx, ToolDef, ToolError, define_tool};

/// The default time limit of a program: one minute.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// The input of `std/shell.run`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellInput {
    /// The program: a name on `PATH` or a path, exactly as on the allow list.
    pub program: String,
    /// Its arguments (no shell is involved: no quoting, no globbing).
    #[serde(default)]
    pub args: Vec<String>,
    /// Text fed to its standard input.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Environment variables for it (it gets no other, besides `PATH`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Kill it after this many milliseconds (default 60 000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// The input of `std/shell.run-in-root`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellInRootInput {
    /// The program.
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Text fed to its standard input.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Environment variables for it.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Kill it after this many milliseconds (default 60 000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The working directory, relative to the `fs` root (default: the root itself).
    #[serde(default)]
    pub dir: Option<String>,
}

/// What the program did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ShellOutput {
    /// The exit code; `null` when it was killed by a signal.
    pub exit_code: Option<i32>,
    /// Whether it exited with code 0.
    pub success: bool,
    /// Its standard output (UTF-8; invalid bytes replaced).
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

async fn run(
    ctx: &ToolCtx,
    program: String,
    args: Vec<String>,
    stdin: Option<String>,
    env: BTreeMap<String, String>,
    timeout_ms: Option<u64>,
    dir: Option<std::path::PathBuf>,
) -> Result<ShellOutput, ToolError> {
    let spawn = ctx.require_spawn()?;
    let mut command = Command::new(program.clone()).args(args);
    for (name, value) in env {
        command = command.env(name, value);
    }
    if let Some(text) = stdin {
        command = command.stdin(text.into_bytes());
    }
    if let Some(dir) = dir {
        command = command.current_dir(dir);
    }
    let limit = Duration::from_millis(timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
    // Dropping the run on timeout kills the child (the capability spawns with kill_on_drop).
    let output = tokio::time::timeout(limit, spawn.run(command))
        .await
        .map_err(|_| {
            ToolError::terminal(format!(
                "program `{program}` was killed: it ran longer than {} ms",
                limit.as_millis()
            ))
        })??;
    ctx.logger()
        .info(format!("`{program}` exited with {:?}", output.code));
    Ok(ShellOutput {
        exit_code: output.code,
        success: output.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// `std/shell.run@1.0.0`: `spawn` only.
pub fn shell_run() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/shell.run", "1.0.0", Kind::Shell)
            .description(
                "Run an allowed program with arguments; capture stdout, stderr and the exit code.",
            )
            .capabilities([Capability::Spawn]),
        |input: ShellInput, ctx| async move {
            run(
                &ctx,
                input.program,
                input.args,
                input.stdin,
                input.env,
                input.timeout_ms,
                None,
            )
            .await
        },
    )
}

/// `std/shell.run-in-root@1.0.0`: `spawn` and `fs`; runs inside the `fs` root.
pub fn shell_run_in_root() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/shell.run-in-root", "1.0.0", Kind::Shell)
            .description("Run an allowed program inside the run's fs root; capture stdout, stderr and the exit code.")
            .capabilities([Capability::Fs, Capability::Spawn]),
        |input: ShellInRootInput, ctx| async move {
            let fs = ctx.require_fs()?;
            let dir = fs.resolve(input.dir.as_deref().unwrap_or("."))?;
            if !dir.is_dir() {
                return Err(ToolError::terminal(format!(
                    "`dir` {:?} is not a directory inside the fs root",
                    input.dir.as_deref().unwrap_or(".")
                )));
            }
            run(&ctx, input.program, input.args, input.stdin, input.env, input.timeout_ms, Some(dir)).await
        },
    )
}

//! `bflow contract check|digest FILE`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use browserflow_contract::{JsonError, JsonFileError, Problems, ToolContract, read_json_file};
use browserflow_steps::ToolFile;
use clap::Subcommand;
use serde_json::Value;

use crate::exit::Outcome;

#[derive(Subcommand)]
pub enum ContractCommand {
    /// Check a contract, or a whole browser tool file (contract and steps; of `code` and
    /// `model` tool files, the contract): a one-line summary, or every problem.
    Check {
        /// A JSON file holding a ToolContract, or a tool file with a top-level `contract`.
        file: PathBuf,
    },
    /// Print the contract digest (`sha256:<hex>`) and nothing else.
    Digest {
        /// A JSON file holding a ToolContract, or a tool file with a top-level `contract`.
        file: PathBuf,
    },
}

pub fn run(command: ContractCommand) -> Outcome {
    match command {
        ContractCommand::Check { file } => match check(&file)? {
            Ok((contract, checked)) => {
                let inputs: Vec<String> = contract
                    .inputs()
                    .iter()
                    .map(|i| {
                        let secret = if i.secret { " (secret)" } else { "" };
                        format!("{}: {}{secret}", i.name, i.schema)
                    })
                    .collect();
                let capabilities: Vec<&str> =
                    contract.capabilities().iter().map(|c| c.as_str()).collect();
                println!(
                    "ok {} ({}) inputs [{}] output {} capabilities [{}] {}{checked}",
                    contract.reference(),
                    contract.kind(),
                    inputs.join(", "),
                    contract.output(),
                    capabilities.join(", "),
                    contract.contract_digest()
                );
                Ok(true)
            }
            Err(problems) => {
                print_problems(&file, &problems);
                Ok(false)
            }
        },
        ContractCommand::Digest { file } => match load(&file)? {
            Ok(contract) => {
                println!("{}", contract.contract_digest());
                Ok(true)
            }
            Err(problems) => {
                print_problems(&file, &problems);
                Ok(false)
            }
        },
    }
}

/// Reads and checks a contract file or a tool file: its contract and what the summary line
/// adds about the rest (`Err` for a file that cannot be read, `Ok(Err)` for one with problems).
fn check(file: &Path) -> anyhow::Result<Result<(ToolContract, String), Problems>> {
    let value = match read(file)? {
        Ok(value) => value,
        Err(problems) => return Ok(Err(problems)),
    };
    let is_tool_file = value.get("contract").is_some() && value.get("kind").is_none();
    let kind = value.pointer("/contract/kind").and_then(Value::as_str);
    if !is_tool_file {
        return Ok(ToolContract::from_json(&value).map(|c| (c, String::new())));
    }
    if kind == Some("browser") || value.get("steps").is_some() {
        return Ok(ToolFile::from_json(&value).map(|tool| {
            let count = tool.steps.len();
            let plural = if count == 1 { "" } else { "s" };
            (
                tool.contract,
                format!(" (tool file: {count} step{plural} checked)"),
            )
        }));
    }
    // Only the browser kind's steps live in this crate's reach; a `code` or `model` tool's
    // body is checked when the tool is loaded, so the line says what was checked.
    Ok(ToolContract::from_document(&value).map(|c| {
        let kind = c.kind();
        (
            c,
            format!(" (tool file: the contract only; its `{kind}` part is checked when it loads)"),
        )
    }))
}

/// Reads and parses a contract file: `Err` for I/O, `Ok(Err)` for a file with problems.
fn load(file: &Path) -> anyhow::Result<Result<ToolContract, Problems>> {
    Ok(read(file)?.and_then(|value| ToolContract::from_document(&value)))
}

/// The file as strict JSON (bounded, no repeated key): `Err` when it cannot be read or is too
/// large, `Ok(Err)` when it is not strict JSON.
fn read(file: &Path) -> anyhow::Result<Result<Value, Problems>> {
    match read_json_file(file) {
        Ok(value) => Ok(Ok(value)),
        Err(JsonFileError {
            reason: JsonError::Io(io),
            ..
        }) => Err(io).with_context(|| format!("cannot read {}", file.display())),
        Err(
            e @ JsonFileError {
                reason: JsonError::TooLarge { .. },
                ..
            },
        ) => Err(e.into()),
        Err(JsonFileError { reason, .. }) => Ok(Err(Problems(vec![reason.to_problem()]))),
    }
}

fn print_problems(file: &Path, problems: &Problems) {
    let count = problems.iter().count();
    eprintln!(
        "{}: {count} problem{}",
        file.display(),
        if count == 1 { "" } else { "s" }
    );
    for problem in problems.iter() {
        eprintln!("{}:{problem}", file.display());
    }
}

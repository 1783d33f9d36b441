//! `bflow contract check|digest FILE`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use browserflow_contract::{Problems, ToolContract};
use clap::Subcommand;

use crate::exit::Outcome;

#[derive(Subcommand)]
pub enum ContractCommand {
    /// Check a contract (or a tool file's contract): a one-line summary, or every problem.
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
        ContractCommand::Check { file } => match load(&file)? {
            Ok(contract) => {
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
                    "ok {} ({}) inputs [{}] output {} capabilities [{}] {}",
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

/// Reads and parses a contract file: `Err` for I/O, `Ok(Err)` for a file with problems.
fn load(file: &Path) -> anyhow::Result<Result<ToolContract, Problems>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            return Ok(Err(Problems(vec![browserflow_contract::Problem::new(
                "",
                browserflow_contract::Rule::InvalidJson,
                format!("not valid JSON: {e}"),
            )])));
        }
    };
    Ok(ToolContract::from_document(&value))
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

//! `bflow`: the browserflow command line. A thin shell over the crates: each command parses
//! its arguments, calls one library function, and prints the result.

mod check_cmd;
mod contract_cmd;
mod exit;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Record browser journeys once; replay them as typed, versioned tools.
#[derive(Parser)]
#[command(name = "bflow", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Type-check a flow: every wire, every pin, the secret boundary.
    Check(check_cmd::CheckArgs),
    /// Check or digest a tool contract.
    #[command(subcommand)]
    Contract(contract_cmd::ContractCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check_cmd::run(args),
        Command::Contract(command) => contract_cmd::run(command),
    };
    exit::report(result)
}

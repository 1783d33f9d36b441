//! `bflow`: the browserflow command line. A thin shell over the crates: each command parses
//! its arguments, calls one library function, and prints the result.

mod browser_cmd;
mod check_cmd;
mod contract_cmd;
mod exit;
mod flow_cmd;
mod inputs;
mod journal_cmd;
mod logging;
mod mcp_cmd;
mod pack_cmd;
mod progress;
mod record_cmd;
mod runs_cmd;
mod runtime;
mod schedule_cmd;
mod tools_cmd;
mod words;

use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

/// Record browser journeys once; replay them as typed, versioned tools.
#[derive(Parser)]
#[command(name = "bflow", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay one tool (a file or `name@version`) and print its typed output as JSON.
    Run(browser_cmd::RunArgs),
    /// Serve the embedded fixture shop and replay search-price headless.
    Demo(browser_cmd::DemoArgs),
    /// Record a journey in Chromium and write it as a browser tool.
    Record(record_cmd::RecordArgs),
    /// Import a recording made elsewhere.
    #[command(subcommand)]
    Import(browser_cmd::ImportCommand),
    /// Export a tool to another tool's format.
    #[command(subcommand)]
    Export(browser_cmd::ExportCommand),
    /// Type-check a flow: every wire, every pin, the secret boundary.
    Check(check_cmd::CheckArgs),
    /// Check or digest a tool contract.
    #[command(subcommand)]
    Contract(contract_cmd::ContractCommand),
    /// Run or resume a flow.
    #[command(subcommand)]
    Flow(flow_cmd::FlowCommand),
    /// Show what the journal recorded.
    #[command(subcommand)]
    Journal(journal_cmd::JournalCommand),
    /// The runs of a journal, queued ones included: list, show, cancel.
    #[command(subcommand)]
    Runs(runs_cmd::RunsCommand),
    /// Export, verify, import, sign and publish packs.
    #[command(subcommand)]
    Pack(pack_cmd::PackCommand),
    /// Serve tools and flows to agents over the Model Context Protocol.
    #[command(subcommand)]
    Mcp(mcp_cmd::McpCommand),
    /// Run flows at the times a cron expression names, in a time zone.
    #[command(subcommand)]
    Schedule(schedule_cmd::ScheduleCommand),
    /// Fire due schedules (each slot once, with any number of workers on the journal)
    /// until SIGTERM or Ctrl-C.
    Worker(schedule_cmd::WorkerArgs),
    /// The built-in standard pack.
    #[command(subcommand)]
    Tools(tools_cmd::ToolsCommand),
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    // Redacting from the first line; each run forwards its secrets to the log redactor.
    logging::init();
    if let Err(error) = runtime::check_browser_connection(leaf(&matches)) {
        return exit::report(Err(error));
    }
    let result = match cli.command {
        Command::Run(args) => browser_cmd::run_tool(args),
        Command::Demo(args) => browser_cmd::demo(args),
        Command::Record(args) => record_cmd::run(args),
        Command::Import(command) => browser_cmd::import(command),
        Command::Export(command) => browser_cmd::export(command),
        Command::Check(args) => check_cmd::run(args),
        Command::Contract(command) => contract_cmd::run(command),
        Command::Flow(command) => flow_cmd::run(command),
        Command::Journal(command) => journal_cmd::run(command),
        Command::Runs(command) => runs_cmd::run(command),
        Command::Pack(command) => pack_cmd::run(command),
        Command::Mcp(command) => mcp_cmd::run(command),
        Command::Schedule(command) => schedule_cmd::run(command),
        Command::Worker(args) => schedule_cmd::worker(args),
        Command::Tools(command) => tools_cmd::run(command),
    };
    exit::report(result)
}

/// The matches of the command that runs (the innermost subcommand).
fn leaf(matches: &ArgMatches) -> &ArgMatches {
    match matches.subcommand() {
        Some((_, inner)) => leaf(inner),
        None => matches,
    }
}

//! `bflow run TOOL`, `bflow demo`, `bflow import devtools`, `bflow export playwright`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use anyhow::Context;
use browserflow_catalog::run_tool::{self as browser_run, RunToolError};
use browserflow_catalog::{Catalog, JournalAt, RunSetup, RunsFolder, batch};
use browserflow_replay::{ReplayOptions, SharedBrowser, StepObserver};
use clap::{Args, Subcommand};

use crate::exit::Outcome;
use crate::runtime::{BrowserArgs, BudgetArgs};

#[derive(Args)]
pub struct RunArgs {
    /// A tool file, or `name@version` looked up in `--tools` folders, `recordings/` and the
    /// pack store.
    tool: String,
    /// A tool input, `name=value` (`name=secret.NAME` for secret inputs). Repeatable.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// Run the tool once per row of this file, on one browser: CSV (a header row naming the
    /// inputs) or JSONL (one JSON object a line). A secret input's cells name a secret
    /// (`secret.NAME`), never hold one.
    #[arg(long = "inputs", value_name = "ROWS", conflicts_with = "inputs")]
    rows: Option<PathBuf>,
    /// With `--inputs`: rows replayed at once, each in its own browser context.
    #[arg(long, default_value_t = 1, requires = "rows", value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: u16,
    /// With `--inputs`: where each row's outcome goes the moment it finishes (`.jsonl` or
    /// `.csv`); default: standard output, as JSON lines.
    #[arg(long, value_name = "FILE", requires = "rows")]
    output: Option<PathBuf>,
    /// With `--output`: skip the rows it holds already (a batch that was stopped goes on).
    #[arg(long, requires = "output")]
    resume: bool,
    /// A folder of tool files (repeatable).
    #[arg(long = "tools", value_name = "DIR")]
    tools: Vec<PathBuf>,
    /// Where per-step screenshots and `report.json` go.
    #[arg(long, value_name = "DIR")]
    screenshots: Option<PathBuf>,
    /// A secrets file (mode 0600, `NAME=value` lines), read after `BROWSERFLOW_SECRET_*`.
    #[arg(long, value_name = "PATH")]
    secrets_file: Option<PathBuf>,
    /// The store of installed packs searched after the folders (default: the user's data
    /// folder).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    #[command(flatten)]
    browser: BrowserArgs,
    #[command(flatten)]
    budget: BudgetArgs,
}

#[derive(Args)]
pub struct DemoArgs {
    /// Only serve the fixture shop (until Ctrl-C), so `bflow run` and flows can target it.
    #[arg(long)]
    serve: bool,
    /// The address `--serve` listens on.
    #[arg(long, default_value = browser_run::DEMO_ADDR)]
    addr: SocketAddr,
    /// What to search for.
    #[arg(long, default_value = "keyboard")]
    query: String,
    /// Where the step screenshots go (default: a `bflow-demo` folder in the temp dir).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    browser: BrowserArgs,
}

#[derive(Subcommand)]
pub enum ImportCommand {
    /// Convert a Chrome DevTools Recorder recording (JSON) into a browser tool file.
    Devtools {
        /// The recording.
        recording: PathBuf,
        /// The tool name.
        #[arg(long)]
        name: String,
        /// The tool version.
        #[arg(long, default_value = "1.0.0")]
        version: String,
        /// Where to write the tool file (default: stdout).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
pub enum ExportCommand {
    /// Write a browser tool as an equivalent Playwright (playwright-core) script.
    Playwright {
        /// The tool file.
        tool: PathBuf,
        /// Where to write the script (default: stdout).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

pub fn run_tool(args: RunArgs) -> Outcome {
    if let Some(rows) = args.rows.clone() {
        return run_batch(&args, &rows);
    }
    tracing::debug!(target: "browserflow::timing", "bflow run starts");
    if let Some(dir) = &args.screenshots {
        browser_run::prepare_run_dir(dir)?;
    }
    let runtime = runtime()?;
    // One call: no spare context after it. Chromium starts now, while the tool is looked up
    // and the Rider prepared. Each step is said the moment it finishes (the candidates of
    // the tool's steps arrive once it is found, before its first step); a failing step's
    // page is captured, so a failure always leaves something to look at.
    let ranked: Arc<OnceLock<Vec<Vec<String>>>> = Arc::default();
    let said = ranked.clone();
    let printer = StepObserver::new(move |progress| {
        let ranked = said.get().map(Vec::as_slice).unwrap_or_default();
        for line in crate::progress::replay_step(&progress.report, ranked) {
            eprintln!("{line}");
        }
    });
    let browser = Arc::new(
        SharedBrowser::new(args.browser.config())
            .with_spare_context(false)
            .with_replay_options(ReplayOptions {
                on_step: Some(printer),
                failure_screenshot: true,
                ..ReplayOptions::default()
            }),
    );
    {
        let _inside = runtime.enter();
        browser.prelaunch();
    }
    let outcome = run_prelaunched(&args, &runtime, &browser, &ranked);
    // The answer is out (or the run failed); the browser goes (killed, its throwaway profile
    // removed), never left for the orphan guard.
    runtime.block_on(browser.close());
    tracing::debug!(target: "browserflow::timing", "browser closed");
    outcome
}

fn run_prelaunched(
    args: &RunArgs,
    runtime: &tokio::runtime::Runtime,
    browser: &Arc<SharedBrowser>,
    ranked: &OnceLock<Vec<Vec<String>>>,
) -> Outcome {
    let mut dirs = args.tools.clone();
    dirs.push(PathBuf::from("recordings"));
    let catalog = Catalog::with_store(dirs, args.store.clone());
    crate::logging::warn_strangers(&catalog);
    let file = catalog.tool_file(&args.tool)?;
    let _ = ranked.set(
        file.steps
            .iter()
            .map(|s| {
                s.selector()
                    .map(|sel| sel.candidates.iter().map(|c| c.describe()).collect())
                    .unwrap_or_default()
            })
            .collect(),
    );
    let reference = file.contract.reference();
    let inputs = crate::inputs::parse_input_args(
        file.contract.inputs(),
        &args.inputs,
        crate::inputs::Subject::Tool(&reference),
    )?;
    let mut setup = RunSetup {
        journal: JournalAt::Temporary,
        runs_folder: args
            .screenshots
            .clone()
            .map_or(RunsFolder::None, RunsFolder::At),
        secrets_file: args.secrets_file.clone(),
        browser: browser.clone(),
        log_redactor: Some(crate::logging::redactor().clone()),
        ..RunSetup::default()
    };
    if let Some(budget) = args.budget.step_budget {
        setup.rider.step_budget = budget;
    }
    let run = match runtime.block_on(browser_run::run_tool(&file, &inputs, setup)) {
        Ok(run) => run,
        Err(RunToolError::MissingInputs { tool, missing }) => {
            return Err(missing_inputs(&tool, &missing));
        }
        Err(error) => {
            keep_failure(args, &file, &error);
            return Err(error.into());
        }
    };
    if let Some(dir) = &run.call_dir {
        eprintln!("screenshots: {}", dir.display());
    }
    println!("{}", serde_json::to_string_pretty(&run.output)?);
    tracing::debug!(target: "browserflow::timing", "output printed");
    Ok(true)
}

/// `bflow run TOOL --inputs ROWS`: every row on one browser, each outcome written as it
/// finishes, a line of progress a row on stderr, a summary at the end; fails when a row did.
fn run_batch(args: &RunArgs, rows_path: &std::path::Path) -> Outcome {
    if let Some(dir) = &args.screenshots {
        browser_run::prepare_run_dir(dir)?;
    }
    let runtime = runtime()?;
    // Only a failed row's page is captured, unless `--screenshots` asks for every step.
    let browser = Arc::new(
        SharedBrowser::new(args.browser.config()).with_replay_options(ReplayOptions {
            failure_screenshot: true,
            ..ReplayOptions::default()
        }),
    );
    {
        let _inside = runtime.enter();
        browser.prelaunch();
    }
    let outcome = (|| -> Outcome {
        let mut dirs = args.tools.clone();
        dirs.push(PathBuf::from("recordings"));
        let catalog = Catalog::with_store(dirs, args.store.clone());
        crate::logging::warn_strangers(&catalog);
        let file = catalog.tool_file(&args.tool)?;
        let rows = batch::read_rows(rows_path, &file)?;
        let mut results = match &args.output {
            Some(path) => batch::Results::open(path, &file, args.resume)?,
            None => batch::Results::stdout(&file),
        };
        let mut setup = RunSetup {
            journal: JournalAt::Temporary,
            runs_folder: args
                .screenshots
                .clone()
                .map_or(RunsFolder::None, RunsFolder::At),
            secrets_file: args.secrets_file.clone(),
            browser: browser.clone(),
            log_redactor: Some(crate::logging::redactor().clone()),
            ..RunSetup::default()
        };
        if let Some(budget) = args.budget.step_budget {
            setup.rider.step_budget = budget;
        }
        let options = batch::BatchOptions {
            concurrency: usize::from(args.concurrency),
            keep_failed: args.screenshots.is_none(),
        };
        let summary = runtime.block_on(batch::run_batch(
            &file,
            rows,
            setup,
            &mut results,
            options,
            |row, progress| {
                for line in crate::progress::batch_row(row, progress) {
                    eprintln!("{line}");
                }
            },
        ))?;
        // Before the browser goes: its processes are this process's children.
        let cpu = browserflow_cdp::launch::tree_cpu_seconds(std::process::id());
        eprintln!("{}", crate::progress::batch_summary(&summary, cpu));
        Ok(summary.failed == 0)
    })();
    runtime.block_on(browser.close());
    outcome
}

/// Required tool inputs not given, with the `--input` that gives each.
fn missing_inputs(tool: &str, missing: &[browser_run::MissingInput]) -> anyhow::Error {
    let each: Vec<String> = missing
        .iter()
        .map(|m| {
            let how = if m.secret {
                format!("--input {}=secret.NAME", m.name)
            } else {
                format!("--input {}=…", m.name)
            };
            format!("`{}` ({}; give it with {how})", m.name, m.describe)
        })
        .collect();
    anyhow::anyhow!(
        "`{tool}` needs the tool input{} {}",
        if missing.len() == 1 { "" } else { "s" },
        each.join(", ")
    )
}

/// After a failed `bflow run`: says where its run folder is — the `--screenshots` folder, or
/// the one [`browser_run::keep_failed_run`] made for it.
fn keep_failure(args: &RunArgs, file: &browserflow_steps::ToolFile, error: &RunToolError) {
    if let Some(dir) = &args.screenshots {
        eprintln!("run folder (screenshots, report.json): {}", dir.display());
        return;
    }
    match browser_run::keep_failed_run(file, error) {
        Some(Ok(dir)) => eprintln!(
            "run folder (the failing page, report.json): {}",
            dir.display()
        ),
        Some(Err(e)) => eprintln!("warning: could not keep the failed run's folder: {e}"),
        None => {}
    }
}

pub fn demo(args: DemoArgs) -> Outcome {
    if args.serve {
        let shop = browserflow_shop::serve_shop(args.addr)
            .with_context(|| format!("cannot serve the shop on {}", args.addr))?;
        eprintln!(
            "serving the fixture shop at {} (Ctrl-C to stop)",
            shop.origin()
        );
        loop {
            std::thread::park();
        }
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("bflow-demo"));
    let browser = Arc::new(SharedBrowser::new(args.browser.config()));
    eprintln!("serving the embedded fixture shop and replaying search-price@1.2.0 …");
    let outcome = runtime()?.block_on(browser_run::demo(&args.query, &out, browser))?;
    if let Some(report) = &outcome.report {
        for step in &outcome_steps(report) {
            eprintln!("  {step}");
        }
    }
    println!("{}", serde_json::to_string_pretty(&outcome.output)?);
    eprintln!("step screenshots: {}", outcome.screenshots.display());
    Ok(true)
}

fn outcome_steps(report: &browserflow_replay::ReplayReport) -> Vec<String> {
    report
        .steps
        .iter()
        .map(|s| format!("{} {:?} {:.0} ms", s.kind, s.status, s.duration_ms))
        .collect()
}

pub fn import(command: ImportCommand) -> Outcome {
    let ImportCommand::Devtools {
        recording,
        name,
        version,
        out,
    } = command;
    let file = browserflow_steps::import_devtools_file(&recording, &name, &version)
        .with_context(|| format!("{} cannot be imported", recording.display()))?;
    write_or_print(out, &file.to_json_pretty())
}

pub fn export(command: ExportCommand) -> Outcome {
    let ExportCommand::Playwright { tool, out } = command;
    let file = browserflow_steps::ToolFile::load(&tool)?;
    write_or_print(out, &browserflow_steps::export_playwright(&file))
}

fn write_or_print(out: Option<PathBuf>, text: &str) -> Outcome {
    match out {
        Some(path) => crate::words::write_file(&path, text)?,
        None => print!("{text}"),
    }
    Ok(true)
}

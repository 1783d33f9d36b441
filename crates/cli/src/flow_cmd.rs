//! `bflow flow run FLOW --input k=v…` and `bflow flow resume RUN_ID`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use browserflow_catalog::{Catalog, Invocation, JournalAt, RunSetup, RunsFolder};
use browserflow_flow::Plan;
use browserflow_replay::SharedBrowser;
use browserflow_rider::{JournalLocation, Rider, RunEvent, RunFailure, RunOutcome};
use clap::{Args, Subcommand};

use crate::exit::Outcome;
use crate::runtime::{BrowserArgs, BudgetArgs};

#[derive(Subcommand)]
pub enum FlowCommand {
    /// Run a flow; prints the run id and the output as JSON (progress on stderr).
    Run(RunArgs),
    /// Resume a run that crashed or failed, without repeating a recorded effect.
    Resume(ResumeArgs),
}

#[derive(Args)]
pub struct RunArgs {
    /// The flow file (`*.flow.json`).
    flow: PathBuf,
    /// A flow input, `name=value` (JSON, or plain text for string inputs; a secret input
    /// takes `secret.NAME`). Repeatable.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// A folder of tool files to resolve refs from (repeatable).
    #[arg(long = "tools", value_name = "DIR")]
    tools: Vec<PathBuf>,
    /// Queue the run instead of running it: its inputs and its plan are recorded now, its
    /// id printed, and a `bflow worker` on the same journal runs it (a flow file changed
    /// since is refused then, as a divergence).
    #[arg(long)]
    enqueue: bool,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Args)]
pub struct ResumeArgs {
    /// The run to resume.
    run_id: String,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Args)]
pub struct CommonArgs {
    /// The journal: a file path (default: the user's data folder) or a
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL. Run folders (screenshots, how
    /// the run was started) go in its runs folder: beside a file, in the data folder of this
    /// machine for a database.
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "BROWSERFLOW_JOURNAL",
        hide_env_values = true
    )]
    journal: Option<JournalLocation>,
    /// A secrets file (mode 0600, `NAME=value` lines), read after `BROWSERFLOW_SECRET_*`.
    #[arg(long, value_name = "PATH")]
    secrets_file: Option<PathBuf>,
    #[command(flatten)]
    browser: BrowserArgs,
    #[command(flatten)]
    budget: BudgetArgs,
}

pub fn run(command: FlowCommand) -> Outcome {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    match command {
        FlowCommand::Run(args) => runtime.block_on(run_flow(args)),
        FlowCommand::Resume(args) => runtime.block_on(resume_flow(args)),
    }
}

async fn run_flow(args: RunArgs) -> Outcome {
    let Some((catalog, plan)) = compile(&args.flow, &args.tools) else {
        return Ok(false);
    };
    let typed =
        crate::inputs::parse_input_args(&plan.inputs, &args.inputs, crate::inputs::Subject::Flow)?;
    let inputs = browserflow_catalog::runs::bind_inputs(&plan.inputs, &typed)?;
    if args.enqueue {
        return enqueue_flow(&args, &catalog, &plan, inputs);
    }
    let invocation = Invocation::new(&args.flow, &args.tools);
    let journal = journal_at(&args.common);
    let runs_folder = journal.runs_folder()?;
    let setup = setup(&args.common, journal, move |event| {
        if let RunEvent::RunStarted { run_id, .. } = event
            && let Err(e) = invocation.save(&runs_folder, run_id)
        {
            eprintln!("warning: {e}");
        }
    });
    setup.check_secrets(&plan, &inputs)?;
    let rider = catalog.rider(&setup)?;
    crate::logging::redact_run(rider.redactor());
    finish(&rider, rider.run(&plan, inputs).await, &args.common)
}

/// `flow run --enqueue`: records the run queued and prints its id; a worker runs it.
fn enqueue_flow(
    args: &RunArgs,
    catalog: &browserflow_catalog::Catalog,
    plan: &browserflow_flow::Plan,
    inputs: std::collections::BTreeMap<String, browserflow_flow::Bound>,
) -> Outcome {
    let absolute = |path: &PathBuf| {
        std::path::absolute(path)
            .unwrap_or_else(|_| path.clone())
            .display()
            .to_string()
    };
    let origin = browserflow_rider::QueueOrigin {
        flow_file: absolute(&args.flow),
        tools: args.tools.iter().map(absolute).collect(),
    };
    let setup = setup(&args.common, journal_at(&args.common), |_| {});
    let rider = catalog.rider(&setup)?;
    crate::logging::redact_run(rider.redactor());
    let run_id = rider.enqueue(plan, inputs, &origin)?;
    println!("{run_id}");
    eprintln!(
        "queued run {run_id} of {}: a `bflow worker` on this journal runs it (`bflow runs show {run_id}`)",
        plan.reference()
    );
    Ok(true)
}

async fn resume_flow(args: ResumeArgs) -> Outcome {
    let journal = journal_at(&args.common);
    let invocation = Invocation::load(&journal.runs_folder()?, &args.run_id)
        .with_context(|| format!("cannot find how run {} was started", args.run_id))?;
    let Some((catalog, plan)) = compile(&invocation.flow, &invocation.tools) else {
        return Ok(false);
    };
    let setup = setup(&args.common, journal, |_| {});
    let rider = catalog.rider(&setup)?;
    // Every secret the resumed run needs — those the flow binds and those its recorded inputs
    // reference — is checked before anything runs.
    let recorded = rider.recorded_inputs(&args.run_id)?;
    setup.check_secrets(&plan, &recorded)?;
    crate::logging::redact_run(rider.redactor());
    finish(
        &rider,
        rider.resume(&args.run_id, &plan).await,
        &args.common,
    )
}

/// The catalog and compiled plan of `flow` (the catalog's warnings said), or `None` with the
/// diagnostics printed: [`Catalog::check_flow`], the verdict `bflow check` gives.
fn compile(flow: &Path, tools: &[PathBuf]) -> Option<(Catalog, Plan)> {
    let catalog = Catalog::for_flow(flow, tools);
    let checked = catalog.check_flow(flow);
    crate::logging::warn_catalog(&checked.warnings);
    match checked.plan {
        Ok(plan) => Some((catalog, plan)),
        Err(diagnostics) => {
            eprintln!("{}: the flow does not compile", flow.display());
            for d in diagnostics.iter() {
                eprintln!("{d}");
            }
            None
        }
    }
}

/// The journal `--journal` names, or the user's.
fn journal_at(common: &CommonArgs) -> JournalAt {
    match &common.journal {
        Some(location) => JournalAt::At(location.clone()),
        None => JournalAt::UserDefault,
    }
}

fn setup(
    common: &CommonArgs,
    journal: JournalAt,
    also: impl Fn(&RunEvent) + Send + Sync + 'static,
) -> RunSetup {
    let mut setup = RunSetup {
        journal,
        runs_folder: RunsFolder::OfJournal,
        secrets_file: common.secrets_file.clone(),
        browser: Arc::new(SharedBrowser::new(common.browser.config())),
        ..RunSetup::default()
    };
    setup.rider.on_event = Some(Arc::new(move |event: &RunEvent| {
        crate::progress::print(event);
        also(event);
    }));
    setup.rider.crash_hook = browserflow_catalog::crash_hook_from_env();
    if let Some(ttl) = browserflow_catalog::lease_ttl_from_env() {
        setup.rider.lease_ttl = ttl;
    }
    if let Some(budget) = common.budget.step_budget {
        setup.rider.step_budget = budget;
    }
    setup
}

/// Prints the outcome (the output through the run's redactor, like everything it writes),
/// after the warnings its steps gave.
fn finish(rider: &Rider, result: Result<RunOutcome, RunFailure>, common: &CommonArgs) -> Outcome {
    let run_id = match &result {
        Ok(outcome) => Some(outcome.run_id.as_str()),
        Err(failure) => failure.run_id.as_deref(),
    };
    if let Some(run_id) = run_id {
        print_warnings(rider, run_id);
    }
    match result {
        Ok(outcome) => {
            let output = rider.redactor().redact_json(&outcome.output);
            let report = serde_json::json!({"run_id": outcome.run_id, "output": output});
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(true)
        }
        Err(failure) => {
            eprintln!("error [{}]: {}", failure.code(), failure.message);
            // A run another process holds (or took over from this one) is not this one's to
            // resume; the message says why.
            let held = matches!(
                failure.error,
                browserflow_rider::RunError::LeaseHeld { .. }
                    | browserflow_rider::RunError::Journal(
                        browserflow_rider::JournalError::LeaseLost { .. }
                    )
            );
            if let (Some(run_id), false) = (&failure.run_id, held) {
                eprintln!("resume with: {}", resume_command(run_id, common));
            }
            Ok(false)
        }
    }
}

/// The warnings the run's steps gave (a page drifting from its recording), as the journal
/// keeps them: the same words `journal show` and the app's Library say.
fn print_warnings(rider: &Rider, run_id: &str) {
    match rider.journal().show(run_id) {
        Ok(report) => {
            for step in &report.steps {
                for warning in &step.warnings {
                    eprintln!(
                        "warning: step `{}` ({}): {warning}",
                        step.step_id, step.tool
                    );
                }
            }
        }
        Err(e) => eprintln!("warning: cannot read the run's warnings back: {e}"),
    }
}

/// The command that resumes `run_id`, as it can be pasted into a shell: this `bflow` as it
/// was started, and the journal, secrets file and browser options this run used (a resume
/// without them would look in the default journal, or miss a secret).
fn resume_command(run_id: &str, common: &CommonArgs) -> String {
    let program = std::env::args()
        .next()
        .unwrap_or_else(|| "bflow".to_owned());
    let mut words = vec![program, "flow".into(), "resume".into(), run_id.to_owned()];
    if let Some(journal) = &common.journal {
        words.push("--journal".into());
        words.push(match journal {
            JournalLocation::Sqlite(path) => crate::runtime::absolute(path),
            // Without its password: the command is printed; give the password again the way
            // it was given (BROWSERFLOW_JOURNAL keeps it out of the shell's history).
            JournalLocation::Postgres(_) => journal.to_string(),
        });
    }
    if let Some(secrets) = &common.secrets_file {
        words.push("--secrets-file".into());
        words.push(crate::runtime::absolute(secrets));
    }
    words.extend(common.browser.as_args());
    if let Some(budget) = common.budget.step_budget {
        words.push("--step-budget".into());
        words.push(budget.as_secs_f64().to_string());
    }
    // Quoting fails only on a NUL byte, which no argument can hold.
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
}

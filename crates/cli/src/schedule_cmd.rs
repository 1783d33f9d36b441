//! `bflow schedule add|list|show|pause|resume|remove|run-now` and `bflow worker`: thin
//! shells over `browserflow-schedule`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use browserflow_catalog::RunSetup;
use browserflow_replay::SharedBrowser;
use browserflow_rider::{FiringRecord, FiringState, JournalLocation, ScheduleRecord};
use browserflow_schedule::jiff::Timestamp;
use browserflow_schedule::{
    CatchUp, Overlap, QueuedEnd, ScheduleSpec, SetupFactory, Timing, Worker, WorkerEvent,
    WorkerOptions,
};
use clap::{Args, Subcommand};

use crate::exit::Outcome;
use crate::runtime::{BrowserArgs, BudgetArgs};

#[derive(Subcommand)]
pub enum ScheduleCommand {
    /// Add a schedule: a flow run at the times a cron expression names, in a time zone.
    Add(AddArgs),
    /// Every schedule: its expression, whether paused, its next run (in its time zone and
    /// in UTC) and its last firing.
    List(JournalArg),
    /// One schedule and its latest firings.
    Show {
        /// The schedule.
        name: String,
        /// How many firings.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Print JSON (for scripts) instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        journal: JournalArg,
    },
    /// Pause a schedule: workers fire none of its slots until it is resumed.
    Pause {
        /// The schedule.
        name: String,
        #[command(flatten)]
        journal: JournalArg,
    },
    /// Resume a paused schedule from now (the slots passed while paused are not caught up).
    Resume {
        /// The schedule.
        name: String,
        #[command(flatten)]
        journal: JournalArg,
    },
    /// Remove a schedule and its firings (the runs they started stay in the journal).
    Remove {
        /// The schedule.
        name: String,
        #[command(flatten)]
        journal: JournalArg,
    },
    /// Run a schedule's flow now, here, to its end (recorded as a manual firing).
    RunNow {
        /// The schedule.
        name: String,
        #[command(flatten)]
        run: RunArgs,
    },
}

#[derive(Args)]
pub struct JournalArg {
    /// The journal holding the schedules: a file path (default: the user's data folder) or
    /// a `postgres://` URL.
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "BROWSERFLOW_JOURNAL",
        hide_env_values = true
    )]
    journal: Option<JournalLocation>,
}

impl JournalArg {
    fn location(&self) -> anyhow::Result<JournalLocation> {
        match &self.journal {
            Some(location) => Ok(location.clone()),
            None => Ok(JournalLocation::user_default()?),
        }
    }
}

#[derive(Args)]
pub struct AddArgs {
    /// Its name (letters, digits, `-`, `_`); part of each run's id.
    name: String,
    /// The flow file (`*.flow.json`).
    flow: PathBuf,
    /// The cron expression: 5 fields (minute hour day month weekday) or 6 (seconds first).
    #[arg(long)]
    cron: String,
    /// The IANA time zone the expression is read in (default: this machine's).
    #[arg(long = "tz", value_name = "ZONE")]
    time_zone: Option<String>,
    /// A flow input, `name=value` (a secret input takes `secret.NAME`). Repeatable.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// A folder of tool files to resolve refs from (repeatable).
    #[arg(long = "tools", value_name = "DIR")]
    tools: Vec<PathBuf>,
    /// When a slot comes while the previous run is still running: `skip` it, or `queue`
    /// it until that run ends.
    #[arg(long, default_value = "skip")]
    overlap: Overlap,
    /// Slots missed while no worker ran: `latest` runs the latest once, `none` runs none.
    #[arg(long, default_value = "latest")]
    catch_up: CatchUp,
    /// A webhook told when a firing's run failed: `secret.NAME`, the secret holding its URL.
    #[arg(long, value_name = "secret.NAME")]
    notify: Option<String>,
    #[command(flatten)]
    journal: JournalArg,
}

/// What running a schedule's flow needs (run-now and the worker).
#[derive(Args)]
pub struct RunArgs {
    /// A secrets file (mode 0600, `NAME=value` lines), read after `BROWSERFLOW_SECRET_*`.
    #[arg(long, value_name = "PATH")]
    secrets_file: Option<PathBuf>,
    #[command(flatten)]
    browser: BrowserArgs,
    #[command(flatten)]
    budget: BudgetArgs,
    #[command(flatten)]
    journal: JournalArg,
}

#[derive(Args)]
pub struct WorkerArgs {
    /// How often it looks for due slots, in seconds.
    #[arg(long, default_value_t = 1.0, value_name = "SECONDS", value_parser = seconds)]
    poll: f64,
    /// How late a slot may be seen and still run as on time, in seconds (older slots were
    /// missed and are caught up as the schedule says).
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = seconds)]
    grace: f64,
    /// How many runs it executes at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: u16,
    /// On SIGTERM or Ctrl-C, how long its runs may take to finish before they are cancelled
    /// (they stay resumable: another worker takes them over), in seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS", value_parser = seconds)]
    drain: f64,
    /// Answer health probes over HTTP on this address (`/livez`, `/readyz`, `/status`), e.g.
    /// `0.0.0.0:8080` in a container; port 0 takes a free port (printed).
    #[arg(long, value_name = "ADDRESS:PORT")]
    health: Option<std::net::SocketAddr>,
    #[command(flatten)]
    run: RunArgs,
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "`{text}`: give a number of seconds between 0 and 86400"
        )),
    }
}

pub fn run(command: ScheduleCommand) -> Outcome {
    match command {
        ScheduleCommand::Add(args) => add(args),
        ScheduleCommand::List(journal) => list(&journal),
        ScheduleCommand::Show {
            name,
            limit,
            json,
            journal,
        } => show(&name, limit, json, &journal),
        ScheduleCommand::Pause { name, journal } => set_paused(&name, true, &journal),
        ScheduleCommand::Resume { name, journal } => set_paused(&name, false, &journal),
        ScheduleCommand::Remove { name, journal } => {
            journal
                .location()?
                .open_schedules()?
                .remove_schedule(&name)?;
            println!("removed schedule `{name}`");
            Ok(true)
        }
        ScheduleCommand::RunNow { name, run } => run_now(&name, run),
    }
}

fn add(args: AddArgs) -> Outcome {
    let time_zone = match args.time_zone {
        Some(zone) => zone,
        None => browserflow_schedule::jiff::tz::TimeZone::system()
            .iana_name()
            .map(str::to_owned)
            .context("this machine's time zone has no IANA name: give one with --tz")?,
    };
    let spec = ScheduleSpec {
        name: args.name,
        flow: args.flow,
        tools: args.tools,
        cron: args.cron,
        time_zone,
        inputs: args.inputs,
        overlap: args.overlap,
        catch_up: args.catch_up,
        notify: args.notify,
    };
    let book = args.journal.location()?.open_schedules()?;
    let now = Timestamp::now();
    let record = browserflow_schedule::add(book.as_ref(), &spec, now)?;
    let timing = Timing::parse(&record.cron, &record.time_zone)?;
    println!(
        "added schedule `{}`: {} ({})",
        record.name,
        timing.describe(),
        record.time_zone
    );
    match timing.next_after(now) {
        Ok(next) => println!(
            "next run: {} ({} UTC); a `bflow worker` on this journal runs it",
            timing.local(next).strftime("%Y-%m-%d %H:%M:%S %Z"),
            next.strftime("%Y-%m-%d %H:%M:%S")
        ),
        Err(e) => println!("next run: none ({e})"),
    }
    Ok(true)
}

fn list(journal: &JournalArg) -> Outcome {
    // Read commands never write.
    let book = journal.location()?.open_schedules_read_only()?;
    let schedules = book.schedules()?;
    if schedules.is_empty() {
        println!("no schedules (add one with `bflow schedule add`)");
        return Ok(true);
    }
    let now = Timestamp::now();
    let mut rows = vec![[
        "NAME".to_owned(),
        "CRON".to_owned(),
        "TIME ZONE".to_owned(),
        "STATE".to_owned(),
        "NEXT (LOCAL)".to_owned(),
        "NEXT (UTC)".to_owned(),
        "LAST FIRING".to_owned(),
    ]];
    for schedule in &schedules {
        let (next_local, next_utc) = next_run(schedule, now);
        let last = book
            .firings(&schedule.name, 1)?
            .first()
            .map(firing_text)
            .unwrap_or_else(|| "-".to_owned());
        rows.push([
            schedule.name.clone(),
            schedule.cron.clone(),
            schedule.time_zone.clone(),
            if schedule.paused { "paused" } else { "active" }.to_owned(),
            next_local,
            next_utc,
            last,
        ]);
    }
    print!("{}", table(&rows));
    Ok(true)
}

fn show(name: &str, limit: usize, json: bool, journal: &JournalArg) -> Outcome {
    let book = journal.location()?.open_schedules_read_only()?;
    let schedule = book.schedule(name)?;
    let (next_local, next_utc) = next_run(&schedule, Timestamp::now());
    let firings = book.firings(name, limit)?;
    if json {
        let shown = serde_json::json!({
            "schedule": {
                "name": schedule.name,
                "flow": schedule.flow,
                "tools": schedule.tools,
                "cron": schedule.cron,
                "time_zone": schedule.time_zone,
                "inputs": schedule.inputs,
                "overlap": schedule.overlap,
                "catch_up": schedule.catch_up,
                "notify": schedule.notify.as_ref().map(|n| format!("secret.{n}")),
                "paused": schedule.paused,
                "next_local": next_local,
                "next_utc": next_utc,
            },
            "firings": firings.iter().map(|f| serde_json::json!({
                "slot_ms": f.slot_ms,
                "run_id": f.run_id,
                "state": f.state.as_str(),
                "worker": f.worker,
                "claimed_at_ms": f.claimed_at_ms,
                "updated_at_ms": f.updated_at_ms,
                "detail": f.detail,
                "manual": f.manual,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&shown)?);
        return Ok(true);
    }
    println!("schedule   {}", schedule.name);
    println!("flow       {}", schedule.flow);
    for tools in &schedule.tools {
        println!("tools      {tools}");
    }
    println!("cron       {} ({})", schedule.cron, schedule.time_zone);
    for input in &schedule.inputs {
        println!("input      {input}");
    }
    println!("overlap    {}", schedule.overlap);
    println!("catch-up   {}", schedule.catch_up);
    if let Some(notify) = &schedule.notify {
        println!("notify     secret.{notify}");
    }
    println!(
        "state      {}",
        if schedule.paused { "paused" } else { "active" }
    );
    println!("next       {next_local} ({next_utc} UTC)");
    if firings.is_empty() {
        println!("firings    none yet");
    }
    for firing in &firings {
        println!("firing     {}", firing_text(firing));
    }
    Ok(true)
}

fn set_paused(name: &str, paused: bool, journal: &JournalArg) -> Outcome {
    let book = journal.location()?.open_schedules()?;
    book.set_paused(name, paused, Timestamp::now().as_millisecond())?;
    println!(
        "{} schedule `{name}`",
        if paused { "paused" } else { "resumed" }
    );
    Ok(true)
}

/// The next run of `schedule` after `now`, in its time zone and in UTC (`-` when paused or
/// when it has none).
fn next_run(schedule: &ScheduleRecord, now: Timestamp) -> (String, String) {
    if schedule.paused {
        return ("- (paused)".to_owned(), "-".to_owned());
    }
    match Timing::parse(&schedule.cron, &schedule.time_zone).and_then(|t| {
        let next = t.next_after(now)?;
        Ok((t.local(next), next))
    }) {
        Ok((local, utc)) => (
            local.strftime("%Y-%m-%d %H:%M:%S %Z").to_string(),
            utc.strftime("%Y-%m-%d %H:%M:%S").to_string(),
        ),
        Err(e) => (format!("none: {e}"), "-".to_owned()),
    }
}

fn firing_text(firing: &FiringRecord) -> String {
    let slot = Timestamp::from_millisecond(firing.slot_ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|_| firing.slot_ms.to_string());
    let mut text = format!(
        "{slot} {} {}{}",
        firing.state.as_str(),
        firing.run_id,
        if firing.manual { " (run-now)" } else { "" }
    );
    if let Some(detail) = &firing.detail {
        text.push_str(": ");
        text.push_str(detail);
    }
    text
}

fn table<const N: usize>(rows: &[[String; N]]) -> String {
    let mut widths = [0usize; N];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:width$}"))
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

/// The setup of each run a worker (or run-now) executes; the worker sets its journal.
fn setup_factory(args: &RunArgs) -> SetupFactory {
    // One browser for every run of the process: each run gets its own isolated contexts.
    let browser = Arc::new(SharedBrowser::new(args.browser.config()));
    let secrets_file = args.secrets_file.clone();
    let step_budget = args.budget.step_budget;
    Arc::new(move || {
        let mut setup = RunSetup {
            secrets_file: secrets_file.clone(),
            browser: browser.clone(),
            // Every secret a run resolves is redacted from this process's log from then on.
            log_redactor: Some(crate::logging::redactor().clone()),
            ..RunSetup::default()
        };
        setup.rider.crash_hook = browserflow_catalog::crash_hook_from_env();
        if let Some(ttl) = browserflow_catalog::lease_ttl_from_env() {
            setup.rider.lease_ttl = ttl;
        }
        if let Some(budget) = step_budget {
            setup.rider.step_budget = budget;
        }
        setup
    })
}

fn worker_options(journal: JournalLocation) -> WorkerOptions {
    WorkerOptions {
        journal,
        poll: Duration::from_secs(1),
        grace: Duration::from_secs(60),
        concurrency: 2,
        drain: Duration::from_secs(30),
        takeover_after: browserflow_catalog::lease_ttl_from_env()
            .unwrap_or(browserflow_rider::RiderOptions::default().lease_ttl),
    }
}

/// Prints each event on stderr, one line each.
fn print_event(event: &WorkerEvent) {
    let line = match event {
        WorkerEvent::Fired {
            schedule,
            slot,
            run_id,
        } => format!("fired `{schedule}` slot {slot}: run {run_id}"),
        WorkerEvent::Skipped {
            schedule,
            slot,
            running,
        } => format!("skipped `{schedule}` slot {slot}: {running} was still running"),
        WorkerEvent::Missed { schedule, count } => {
            format!("`{schedule}`: {count} slot(s) missed while no worker ran")
        }
        WorkerEvent::TookOver { schedule, run_id } => {
            format!("took over `{schedule}` run {run_id} (its worker is gone)")
        }
        WorkerEvent::Finished {
            schedule,
            run_id,
            state,
            detail,
        } => match (state, detail) {
            (FiringState::Running, _) => {
                format!("`{schedule}` run {run_id} stopped unfinished; it stays resumable")
            }
            (state, Some(detail)) => {
                format!("`{schedule}` run {run_id} {}: {detail}", state.as_str())
            }
            (state, None) => format!("`{schedule}` run {run_id} {}", state.as_str()),
        },
        WorkerEvent::Broken { schedule, reason } => {
            format!("`{schedule}` cannot fire: {reason}")
        }
        WorkerEvent::Claimed { run_id, taken_over } => match taken_over {
            true => format!("claimed queued run {run_id} (took it over: its worker is gone)"),
            false => format!("claimed queued run {run_id}"),
        },
        WorkerEvent::QueuedEnded { run_id, end } => match end {
            QueuedEnd::Succeeded => format!("queued run {run_id} succeeded"),
            QueuedEnd::Failed(why) => format!("queued run {run_id} failed: {why}"),
            QueuedEnd::Cancelled => format!("queued run {run_id} cancelled"),
            QueuedEnd::Released => {
                format!("queued run {run_id} stopped unfinished: back in the queue")
            }
            QueuedEnd::Left => format!("queued run {run_id} left to the worker that holds it"),
        },
    };
    eprintln!("worker: {line}");
}

fn run_now(name: &str, args: RunArgs) -> Outcome {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let options = worker_options(args.journal.location()?);
    let mut worker = Worker::new(options, setup_factory(&args), Arc::new(print_event))?;
    let done = runtime.block_on(worker.run_now(name))?;
    match done.state {
        FiringState::Succeeded => {
            println!(
                "{}",
                serde_json::json!({"run_id": done.run_id, "status": "succeeded"})
            );
            Ok(true)
        }
        FiringState::Running => {
            eprintln!(
                "run {} is executed by another process now; `bflow journal show {}` follows it",
                done.run_id, done.run_id
            );
            Ok(false)
        }
        _ => {
            eprintln!(
                "run {} failed: {}",
                done.run_id,
                done.detail.as_deref().unwrap_or("see `bflow journal show`")
            );
            Ok(false)
        }
    }
}

pub fn worker(args: WorkerArgs) -> Outcome {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let location = args.run.journal.location()?;
    let mut options = worker_options(location.clone());
    options.poll = Duration::from_secs_f64(args.poll);
    options.grace = Duration::from_secs_f64(args.grace);
    options.concurrency = usize::from(args.concurrency);
    options.drain = Duration::from_secs_f64(args.drain);
    let worker = Worker::new(options, setup_factory(&args.run), Arc::new(print_event))?;
    eprintln!(
        "worker {} on {}: firing due schedules and running queued runs (SIGTERM or Ctrl-C stops it)",
        worker.id(),
        location
    );
    runtime.block_on(async move {
        // Bound before the first tick, so that a probe never finds nothing listening on a
        // worker that runs.
        let (served, health_stop) = match args.health {
            Some(address) => {
                let listener = tokio::net::TcpListener::bind(address)
                    .await
                    .with_context(|| format!("cannot listen for health probes on {address}"))?;
                let bound = listener.local_addr()?;
                eprintln!("worker health: http://{bound}/livez, /readyz, /status");
                let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
                let serving = tokio::spawn(browserflow_schedule::serve_health(
                    listener,
                    worker.health(),
                    async move {
                        let _ = stop_rx.await;
                    },
                ));
                (Some(serving), Some(stop_tx))
            }
            None => (None, None),
        };
        let stop = async {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(term) => term,
                    Err(e) => {
                        tracing::warn!("cannot listen for SIGTERM: {e}");
                        let _ = tokio::signal::ctrl_c().await;
                        return;
                    }
                };
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            eprintln!("worker: stopping — claiming nothing more, letting runs finish");
        };
        let ran = worker.run(stop).await;
        // The probes answer through the drain (not ready), and stop with the worker.
        if let (Some(serving), Some(stop)) = (served, health_stop) {
            let _ = stop.send(());
            let _ = serving.await;
        }
        anyhow::Ok(ran?)
    })?;
    eprintln!("worker: stopped");
    Ok(true)
}

//! Adding a schedule: everything checked before anything is stored — the name, the cron
//! expression and time zone, the flow (it compiles) and its inputs (they fit, required ones
//! given, secret ones by reference) — so a worker never meets a schedule that could not
//! have run when it was added.

use std::path::PathBuf;

use browserflow_rider::{JournalError, ScheduleBook, ScheduleRecord};
use jiff::Timestamp;

use crate::flow_run::{FlowError, compile};
use crate::timing::{CatchUp, Overlap, Timing, TimingError};

/// A schedule as a person asks for it (`bflow schedule add`).
#[derive(Debug, Clone)]
pub struct ScheduleSpec {
    /// Its name: letters, digits, `-` and `_` (it is part of each run's id).
    pub name: String,
    /// The flow file.
    pub flow: PathBuf,
    /// Folders of tool files the flow resolves refs from.
    pub tools: Vec<PathBuf>,
    /// The cron expression.
    pub cron: String,
    /// The IANA time zone.
    pub time_zone: String,
    /// The flow's inputs, `name=value` (secret inputs `secret.NAME`).
    pub inputs: Vec<String>,
    /// See [`Overlap`].
    pub overlap: Overlap,
    /// See [`CatchUp`].
    pub catch_up: CatchUp,
    /// A secret holding a webhook URL to tell when a firing's run failed.
    pub notify: Option<String>,
}

/// Why a schedule was not added.
#[derive(Debug, thiserror::Error)]
pub enum AddError {
    /// A name that cannot be one.
    #[error(
        "schedule name `{0}`: use 1 to 64 letters, digits, `-` or `_` (it becomes part of each run's id)"
    )]
    BadName(String),
    /// The cron expression or time zone.
    #[error(transparent)]
    Timing(#[from] TimingError),
    /// The flow or its inputs.
    #[error(transparent)]
    Flow(#[from] FlowError),
    /// The flow does not accept the inputs as a whole (a required one missing…).
    #[error("{flow}: {reason}")]
    Inputs {
        /// The flow file.
        flow: String,
        /// Why.
        reason: String,
    },
    /// The notify secret's name.
    #[error(
        "--notify `{0}`: expected secret.NAME (the webhook URL is a secret, never written here)"
    )]
    Notify(String),
    /// The journal.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Checks `spec` and stores it in `book`, active from `now`. Returns what was stored.
pub fn add(
    book: &dyn ScheduleBook,
    spec: &ScheduleSpec,
    now: Timestamp,
) -> Result<ScheduleRecord, AddError> {
    if !valid_name(&spec.name) {
        return Err(AddError::BadName(spec.name.clone()));
    }
    // An expression that names no time (`0 0 30 2 *`) would never fire: said now.
    Timing::parse(&spec.cron, &spec.time_zone)?.next_after(now)?;
    let notify = match &spec.notify {
        None => None,
        Some(reference) => match reference.strip_prefix("secret.") {
            Some(name) if !name.is_empty() => Some(name.to_owned()),
            _ => return Err(AddError::Notify(reference.clone())),
        },
    };
    let flow = std::path::absolute(&spec.flow).unwrap_or_else(|_| spec.flow.clone());
    let tools: Vec<PathBuf> = spec
        .tools
        .iter()
        .map(|t| std::path::absolute(t).unwrap_or_else(|_| t.clone()))
        .collect();
    let compiled = compile(&flow, &tools, &spec.inputs)?;
    compiled
        .plan
        .start_scope(compiled.inputs.clone())
        .map_err(|e| AddError::Inputs {
            flow: flow.display().to_string(),
            reason: e.to_string(),
        })?;
    let record = ScheduleRecord {
        name: spec.name.clone(),
        flow: flow.display().to_string(),
        tools: tools.iter().map(|t| t.display().to_string()).collect(),
        cron: spec.cron.clone(),
        time_zone: spec.time_zone.clone(),
        inputs: spec.inputs.clone(),
        overlap: spec.overlap.as_str().to_owned(),
        catch_up: spec.catch_up.as_str().to_owned(),
        notify,
        paused: false,
        active_since_ms: now.as_millisecond(),
        created_at_ms: now.as_millisecond(),
    };
    book.add_schedule(&record)?;
    Ok(record)
}

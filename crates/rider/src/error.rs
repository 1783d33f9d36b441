//! The errors of a run. Every message is redacted before it leaves the Rider.

use browserflow_contract::Capability;

use crate::journal::{JournalError, LeaseHolder};
use crate::plan_identity::PlanChange;
use crate::tool::ErrorClass;
use crate::validate::Violation;

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// On resume, a position does not match what was recorded.
    #[error(
        "divergence at step `{step}`: the {what} was {recorded} when the run was recorded, and is now {current}; the run cannot be resumed with this flow"
    )]
    Divergence {
        /// The step (or `(flow)` for the flow itself).
        step: String,
        /// What differs: `tool`, `contract digest`, `input digest`, `position`, `flow`,
        /// `step` (a recorded step the flow no longer has).
        what: &'static str,
        /// What the journal says.
        recorded: String,
        /// What the flow says now.
        current: String,
    },
    /// On resume, the flow differs from the recorded plan at or before the last step the
    /// run recorded. Found before any step ran: nothing was executed.
    #[error(
        "divergence: the flow changed at or before step `{last_recorded}`, the last step this run recorded: {}; nothing was run. Restore the flow as it was when the run started and resume again, or start a new run with `bflow flow run`",
        changes.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    PlanChanged {
        /// The last step the journal holds a row for.
        last_recorded: String,
        /// Every change at or before it.
        changes: Vec<PlanChange>,
    },
    /// A queued run whose flow changed since it was queued. Found before any step ran.
    #[error(
        "divergence: the flow changed since the run was queued: {changes}; nothing was run. Restore the flow as it was when the run was queued, or queue a new run"
    )]
    ChangedSinceQueued {
        /// Every change, in words.
        changes: String,
    },
    /// Another live process is executing the run.
    #[error(
        "run `{run_id}` is being executed by {holder}, whose lease is live (last heartbeat at {heartbeat}); nothing was run. Wait for it to finish, or stop that process and resume again"
        , heartbeat = crate::clock::Clock::at_unix_millis(holder.heartbeat_at_ms).rfc3339()
    )]
    LeaseHeld {
        /// The run.
        run_id: String,
        /// Who holds its lease.
        holder: Box<LeaseHolder>,
    },
    /// The flow inputs do not fit the flow.
    #[error("flow inputs: {0}")]
    FlowInput(String),
    /// A step's input fails its contract.
    #[error("step `{step}`: invalid input: {}", list(violations))]
    InvalidInput {
        /// The step.
        step: String,
        /// Every violation, each with its slot and JSON path.
        violations: Vec<Violation>,
    },
    /// A step's output fails its contract.
    #[error("step `{step}`: invalid output from `{tool}`: {}", list(violations))]
    InvalidOutput {
        /// The step.
        step: String,
        /// The tool.
        tool: String,
        /// Every violation, each with its JSON path.
        violations: Vec<Violation>,
    },
    /// A tool failed (after any retries).
    #[error("step `{step}`: `{tool}` failed after {}: {message}", attempts_said(*attempts))]
    ToolFailed {
        /// The step.
        step: String,
        /// The tool.
        tool: String,
        /// Transient (retries exhausted) or terminal.
        class: ErrorClass,
        /// Attempts made in this session.
        attempts: u32,
        /// The tool's message (redacted).
        message: String,
    },
    /// The run was cancelled.
    #[error("cancelled{}", step.as_ref().map(|s| format!(" during step `{s}`")).unwrap_or_default())]
    Cancelled {
        /// The step that was running, if any.
        step: Option<String>,
    },
    /// A per-run limit was reached.
    #[error("{0}")]
    LimitExceeded(String),
    /// No factory for the step's tool.
    #[error("step `{step}`: no tool `{tool}` is registered")]
    UnknownTool {
        /// The step.
        step: String,
        /// The tool.
        tool: String,
    },
    /// The registered tool's contract is not the one the plan was compiled against.
    #[error(
        "step `{step}`: the registered `{tool}` has contract {registered}, but the flow was compiled against {planned}; recompile the flow"
    )]
    ContractMismatch {
        /// The step.
        step: String,
        /// The tool.
        tool: String,
        /// The registry's digest.
        registered: String,
        /// The plan's digest.
        planned: String,
    },
    /// A declared capability the Rider was not given (no browser, no fs root…).
    #[error("step `{step}`: the tool needs `{capability}`, but this Rider has none: {hint}")]
    CapabilityUnavailable {
        /// The step.
        step: String,
        /// The capability.
        capability: Capability,
        /// How to provide it.
        hint: &'static str,
    },
    /// A binding or condition could not be evaluated.
    #[error("step `{step}`: {message}")]
    Evaluation {
        /// The step (or `(output)`).
        step: String,
        /// What went wrong.
        message: String,
    },
    /// The tool registry failed to make a tool.
    #[error("step `{step}`: {message}")]
    Registry {
        /// The step.
        step: String,
        /// What went wrong.
        message: String,
    },
    /// The journal failed.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

impl RunError {
    /// A stable snake_case code, for scripts and the journal.
    pub fn code(&self) -> &'static str {
        match self {
            RunError::Divergence { .. }
            | RunError::PlanChanged { .. }
            | RunError::ChangedSinceQueued { .. } => "divergence",
            RunError::LeaseHeld { .. } => "lease_held",
            RunError::FlowInput(_) => "invalid_flow_input",
            RunError::InvalidInput { .. } => "invalid_input",
            RunError::InvalidOutput { .. } => "invalid_output",
            RunError::ToolFailed { .. } => "tool_failed",
            RunError::Cancelled { .. } => "cancelled",
            RunError::LimitExceeded(_) => "limit_exceeded",
            RunError::UnknownTool { .. } => "unknown_tool",
            RunError::ContractMismatch { .. } => "contract_mismatch",
            RunError::CapabilityUnavailable { .. } => "capability_unavailable",
            RunError::Evaluation { .. } => "evaluation",
            RunError::Registry { .. } => "registry",
            RunError::Journal(_) => "journal",
        }
    }
}

fn list(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A run that did not complete: its id (when it got one, to resume it) and why.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct RunFailure {
    /// The run id, when the run was recorded.
    pub run_id: Option<String>,
    /// Why it stopped.
    pub error: RunError,
    /// The error's message, redacted.
    pub message: String,
    /// What the steps' tool calls left to look at, by step id (the failing step's report
    /// and page among them).
    pub artifacts: std::collections::BTreeMap<String, crate::artifacts::Artifacts>,
}

impl RunFailure {
    /// The stable code of the error.
    pub fn code(&self) -> &'static str {
        self.error.code()
    }
}

/// "1 attempt", "4 attempts".
fn attempts_said(attempts: u32) -> String {
    match attempts {
        1 => "1 attempt".to_owned(),
        n => format!("{n} attempts"),
    }
}

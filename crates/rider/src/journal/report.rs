//! A run read back from the journal: `bflow journal show RUN_ID` and `bflow journal list`.

use serde_json::Value;

/// A run as the journal tells it: steps, status, timings, outputs (redacted).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunReport {
    /// The run id.
    pub run_id: String,
    /// The flow, `name@version`.
    pub flow: String,
    /// The flow digest.
    pub flow_digest: String,
    /// `running`, `succeeded`, `failed` or `cancelled`. A run still `running` with no
    /// process behind it crashed: resume it.
    pub status: String,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// When the last session ended.
    pub finished_at: Option<String>,
    /// The run's logical time, as its tools saw it.
    pub clock: String,
    /// How many sessions ran it (1 + resumes).
    pub sessions: i64,
    /// The flow inputs (secret inputs as references).
    pub inputs: Value,
    /// The flow output, once it succeeded.
    pub output: Option<Value>,
    /// Why it failed or stopped.
    pub error: Option<ErrorReport>,
    /// The steps, in plan order.
    pub steps: Vec<StepReport>,
}

/// An error, by stable code and message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ErrorReport {
    /// Stable code (`divergence`, `tool_failed`, `cancelled`, …).
    pub code: String,
    /// What went wrong.
    pub message: String,
}

/// One step of a [`RunReport`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StepReport {
    /// The step id (`outer/inner` inside a composite).
    pub step_id: String,
    /// Its position in the plan.
    pub position: i64,
    /// The tool, `name@version`.
    pub tool: String,
    /// The tool's contract digest.
    pub contract_digest: String,
    /// The digest of its input.
    pub input_digest: Option<String>,
    /// Whether it holds capabilities (its outcome is recorded, not re-run).
    pub effectful: bool,
    /// `succeeded`, `failed`, `skipped`, `started` (crashed or running), `retrying`,
    /// `cancelled`.
    pub status: String,
    /// Attempts made.
    pub attempts: i64,
    /// When it started.
    pub started_at: Option<String>,
    /// How long it took, in milliseconds.
    pub duration_ms: Option<f64>,
    /// Its input.
    pub input: Option<Value>,
    /// Its output.
    pub output: Option<Value>,
    /// Its error.
    pub error: Option<String>,
    /// The idempotency key its effect was recorded under.
    pub idempotency_key: Option<String>,
    /// What a person should know although it succeeded (a page drifting from its
    /// recording), one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One line of `bflow journal list`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RunSummary {
    /// The run id.
    pub run_id: String,
    /// The flow, `name@version`.
    pub flow: String,
    /// The status.
    pub status: String,
    /// When it started.
    pub started_at: String,
    /// How many warnings its steps gave (see [`StepReport::warnings`]).
    pub warnings: usize,
}

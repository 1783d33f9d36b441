//! Progress events, for the command line's progress display and the app's live timeline.

use std::sync::Arc;

/// Something that happened in a run. Carries ids, statuses and timings, never values.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// A run (or a resumed session of one) started.
    RunStarted {
        /// The run id.
        run_id: String,
        /// The flow, `name@version`.
        flow: String,
        /// The number of top-level steps.
        steps: usize,
        /// Whether this is a resume.
        resumed: bool,
    },
    /// A step attempt started.
    StepStarted {
        /// The step id.
        step_id: String,
        /// The tool, `name@version`.
        tool: String,
        /// The attempt number (1 for the first).
        attempt: u32,
    },
    /// A step ended (or was skipped, or replayed from the journal).
    StepFinished {
        /// The step id.
        step_id: String,
        /// `succeeded`, `replayed`, `skipped`, `failed`, `retrying`, `cancelled`.
        status: &'static str,
        /// Wall time, in milliseconds.
        duration_ms: f64,
    },
    /// The run ended.
    RunFinished {
        /// The run id.
        run_id: String,
        /// `succeeded`, `failed` or `cancelled`.
        status: &'static str,
    },
}

/// Receives [`RunEvent`]s; must return quickly.
pub type EventSink = Arc<dyn Fn(&RunEvent) + Send + Sync>;

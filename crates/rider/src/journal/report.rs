//! Reading the journal back: `bflow journal show RUN_ID`.

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::{Journal, JournalError};
use crate::clock::Clock;

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
}

impl Journal {
    /// The report of run `run_id`.
    pub fn show(&self, run_id: &str) -> Result<RunReport, JournalError> {
        let conn = self.lock();
        let err = |c| self.sqlite_error(c);
        type RunRow = (
            String,
            String,
            String,
            String,
            i64,
            i64,
            Option<i64>,
            Option<String>,
            Option<String>,
            Option<String>,
            i64,
        );
        let run: Option<RunRow> = conn
            .query_row(
                "SELECT flow, flow_digest, status, inputs, clock_ms, started_at_ms, finished_at_ms,
                        output, error_code, error, sessions
                 FROM runs WHERE run_id = ?1",
                [run_id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                        r.get(9)?,
                        r.get(10)?,
                    ))
                },
            )
            .optional()
            .map_err(err("cannot read the run"))?;
        let Some((
            flow,
            flow_digest,
            status,
            inputs,
            clock_ms,
            started,
            finished,
            output,
            code,
            error,
            sessions,
        )) = run
        else {
            return Err(JournalError::UnknownRun {
                path: self.path.clone(),
                run_id: run_id.to_owned(),
            });
        };
        let mut query = conn
            .prepare(
                "SELECT s.step_id, s.position, s.tool_ref, s.contract_digest, s.input_digest, s.effectful,
                        s.status, s.attempts, s.started_at_ms, s.duration_us, s.input, s.output, s.error,
                        e.idempotency_key
                 FROM steps s LEFT JOIN effects e ON e.run_id = s.run_id AND e.step_id = s.step_id
                 WHERE s.run_id = ?1 ORDER BY s.position, s.step_id",
            )
            .map_err(err("cannot read the steps"))?;
        let steps = query
            .query_map(params![run_id], |r| {
                Ok(StepReport {
                    step_id: r.get(0)?,
                    position: r.get(1)?,
                    tool: r.get(2)?,
                    contract_digest: r.get(3)?,
                    input_digest: r.get(4)?,
                    effectful: r.get(5)?,
                    status: r.get(6)?,
                    attempts: r.get(7)?,
                    started_at: r.get::<_, Option<i64>>(8)?.map(rfc3339),
                    duration_ms: r.get::<_, Option<i64>>(9)?.map(|us| us as f64 / 1000.0),
                    input: r.get::<_, Option<String>>(10)?.map(|t| self.reread(&t)),
                    output: r.get::<_, Option<String>>(11)?.map(|t| self.reread(&t)),
                    error: r.get::<_, Option<String>>(12)?.map(|t| self.text(&t)),
                    idempotency_key: r.get(13)?,
                })
            })
            .map_err(err("cannot read the steps"))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err("cannot read a step"))?;
        Ok(RunReport {
            run_id: run_id.to_owned(),
            flow,
            flow_digest,
            status,
            started_at: rfc3339(started),
            finished_at: finished.map(rfc3339),
            clock: rfc3339(clock_ms),
            sessions,
            inputs: self.reread(&inputs),
            output: output.map(|t| self.reread(&t)),
            error: code.map(|code| ErrorReport {
                code,
                message: self.text(error.as_deref().unwrap_or_default()),
            }),
            steps,
        })
    }

    /// The most recent runs, newest first.
    pub fn runs(&self, limit: usize) -> Result<Vec<RunSummary>, JournalError> {
        let conn = self.lock();
        let mut query = conn
            .prepare(
                "SELECT run_id, flow, status, started_at_ms FROM runs
                 ORDER BY started_at_ms DESC, run_id DESC LIMIT ?1",
            )
            .map_err(self.sqlite_error("cannot list the runs"))?;
        query
            .query_map([limit as i64], |r| {
                Ok(RunSummary {
                    run_id: r.get(0)?,
                    flow: r.get(1)?,
                    status: r.get(2)?,
                    started_at: rfc3339(r.get(3)?),
                })
            })
            .map_err(self.sqlite_error("cannot list the runs"))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.sqlite_error("cannot read a run"))
    }

    /// A stored JSON column, redacted again (a secret registered since it was written is
    /// hidden too); text that is not JSON comes back as a string.
    fn reread(&self, text: &str) -> Value {
        let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
        self.redactor.redact_json(&value)
    }
}

fn rfc3339(unix_millis: i64) -> String {
    Clock::at_unix_millis(unix_millis).rfc3339()
}

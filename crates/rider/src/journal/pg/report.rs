//! Reading the journal back: `bflow journal show RUN_ID`, `bflow journal list`.

use serde_json::Value;

use super::PgJournal;
use crate::clock::Clock;
use crate::journal::{ErrorReport, JournalError, RunReport, RunSummary, StepReport};

impl PgJournal {
    /// The report of run `run_id`, read in one read-only transaction.
    pub(super) fn read_report(&self, run_id: &str) -> Result<RunReport, JournalError> {
        self.with_client(|client| {
            let err = |c| self.pg_error(c);
            let mut tx = client
                .build_transaction()
                .read_only(true)
                .start()
                .map_err(err("cannot start a transaction"))?;
            let Some(run) = tx
                .query_opt(
                    "SELECT flow, flow_digest, status, inputs, clock_ms, started_at_ms,
                            finished_at_ms, output, error_code, error, sessions
                     FROM runs WHERE run_id = $1",
                    &[&run_id],
                )
                .map_err(err("cannot read the run"))?
            else {
                return Err(self.unknown_run(run_id));
            };
            let steps = tx
                .query(
                    "SELECT s.step_id, s.position, s.tool_ref, s.contract_digest, s.input_digest,
                            s.effectful, s.status, s.attempts, s.started_at_ms, s.duration_us,
                            s.input, s.output, s.error, e.idempotency_key, s.warnings
                     FROM steps s
                     LEFT JOIN effects e ON e.run_id = s.run_id AND e.step_id = s.step_id
                     WHERE s.run_id = $1 ORDER BY s.position, s.step_id",
                    &[&run_id],
                )
                .map_err(err("cannot read the steps"))?
                .into_iter()
                .map(|r| StepReport {
                    step_id: r.get(0),
                    position: r.get(1),
                    tool: r.get(2),
                    contract_digest: r.get(3),
                    input_digest: r.get(4),
                    effectful: r.get(5),
                    status: r.get(6),
                    attempts: r.get(7),
                    started_at: r.get::<_, Option<i64>>(8).map(rfc3339),
                    duration_ms: r.get::<_, Option<i64>>(9).map(|us| us as f64 / 1000.0),
                    input: r.get::<_, Option<&str>>(10).map(|t| self.reread(t)),
                    output: r.get::<_, Option<&str>>(11).map(|t| self.reread(t)),
                    error: r.get::<_, Option<&str>>(12).map(|t| self.text(t)),
                    idempotency_key: r.get(13),
                    warnings: r
                        .get::<_, Option<&str>>(14)
                        .map(|t| self.warnings_of(t))
                        .unwrap_or_default(),
                })
                .collect();
            let code: Option<String> = run.get(8);
            let error: Option<String> = run.get(9);
            Ok(RunReport {
                run_id: run_id.to_owned(),
                flow: run.get(0),
                flow_digest: run.get(1),
                status: run.get(2),
                started_at: rfc3339(run.get(5)),
                finished_at: run.get::<_, Option<i64>>(6).map(rfc3339),
                clock: rfc3339(run.get(4)),
                sessions: run.get(10),
                inputs: self.reread(run.get(3)),
                output: run.get::<_, Option<&str>>(7).map(|t| self.reread(t)),
                error: code.map(|code| ErrorReport {
                    code,
                    message: self.text(error.as_deref().unwrap_or_default()),
                }),
                steps,
            })
        })
    }

    /// The most recent runs, newest first.
    pub(super) fn read_runs(&self, limit: usize) -> Result<Vec<RunSummary>, JournalError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with_client(|client| {
            let rows = client
                .query(
                    "SELECT run_id, flow, status, started_at_ms,
                            (SELECT COALESCE(SUM(json_array_length(s.warnings::json)), 0)::BIGINT
                             FROM steps s
                             WHERE s.run_id = runs.run_id AND s.warnings IS NOT NULL)
                     FROM runs ORDER BY started_at_ms DESC, run_id DESC LIMIT $1",
                    &[&limit],
                )
                .map_err(self.pg_error("cannot list the runs"))?;
            Ok(rows
                .into_iter()
                .map(|r| RunSummary {
                    run_id: r.get(0),
                    flow: r.get(1),
                    status: r.get(2),
                    started_at: rfc3339(r.get(3)),
                    warnings: r.get::<_, i64>(4).max(0) as usize,
                })
                .collect())
        })
    }

    /// A step's stored warnings, each redacted again; a column that is not a JSON array of
    /// strings is one warning, as text.
    fn warnings_of(&self, text: &str) -> Vec<String> {
        match serde_json::from_str::<Vec<String>>(text) {
            Ok(warnings) => warnings.iter().map(|w| self.text(w)).collect(),
            Err(_) => vec![self.text(text)],
        }
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

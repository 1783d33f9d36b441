//! Reading the journal back: `bflow journal show RUN_ID`, `bflow journal list`.

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::{SqliteJournal, has_column};
use crate::clock::Clock;
use crate::journal::{ErrorReport, JournalError, RunReport, RunSummary, StepReport};

impl SqliteJournal {
    /// The report of run `run_id`.
    pub(super) fn read_report(&self, run_id: &str) -> Result<RunReport, JournalError> {
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
            return Err(self.unknown_run(run_id));
        };
        // A journal of version 3 or older (opened read-only, unmigrated) has no warnings.
        let warnings_column =
            if has_column(&conn, "steps", "warnings").map_err(err("cannot read the steps"))? {
                "s.warnings"
            } else {
                "NULL"
            };
        let mut query = conn
            .prepare(&format!(
                "SELECT s.step_id, s.position, s.tool_ref, s.contract_digest, s.input_digest, s.effectful,
                        s.status, s.attempts, s.started_at_ms, s.duration_us, s.input, s.output, s.error,
                        e.idempotency_key, {warnings_column}
                 FROM steps s LEFT JOIN effects e ON e.run_id = s.run_id AND e.step_id = s.step_id
                 WHERE s.run_id = ?1 ORDER BY s.position, s.step_id"
            ))
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
                    warnings: r
                        .get::<_, Option<String>>(14)?
                        .map(|t| self.warnings_of(&t))
                        .unwrap_or_default(),
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
    pub(super) fn read_runs(&self, limit: usize) -> Result<Vec<RunSummary>, JournalError> {
        let conn = self.lock();
        // A journal of version 3 or older (opened read-only, unmigrated) has no warnings.
        let warnings = if has_column(&conn, "steps", "warnings")
            .map_err(self.sqlite_error("cannot list the runs"))?
        {
            "(SELECT COALESCE(SUM(json_array_length(s.warnings)), 0) FROM steps s
              WHERE s.run_id = runs.run_id AND s.warnings IS NOT NULL)"
        } else {
            "0"
        };
        let mut query = conn
            .prepare(&format!(
                "SELECT run_id, flow, status, started_at_ms, {warnings} FROM runs
                 ORDER BY started_at_ms DESC, run_id DESC LIMIT ?1"
            ))
            .map_err(self.sqlite_error("cannot list the runs"))?;
        query
            .query_map([limit as i64], |r| {
                Ok(RunSummary {
                    run_id: r.get(0)?,
                    flow: r.get(1)?,
                    status: r.get(2)?,
                    started_at: rfc3339(r.get(3)?),
                    warnings: r.get::<_, i64>(4)?.max(0) as usize,
                })
            })
            .map_err(self.sqlite_error("cannot list the runs"))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.sqlite_error("cannot read a run"))
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

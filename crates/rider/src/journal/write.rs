//! What the Rider writes to the journal, and reads back to resume.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use serde_json::Value;

use super::lease::{LeaseOwner, write_lease};
use super::{Journal, JournalError};
use crate::plan_identity::StepIdentity;

/// The start of a new run.
pub(crate) struct RunStart<'a> {
    pub run_id: &'a str,
    pub flow: &'a str,
    pub flow_digest: &'a str,
    /// Tagged inputs: `{"name": {"value": …}}` or `{"name": {"secret_template": "…"}}`.
    pub inputs: &'a Value,
    pub env: &'a Value,
    pub clock_ms: i64,
    pub started_at_ms: i64,
    /// Every step's identity, recorded so a resume can check the whole plan first.
    pub plan: &'a [StepIdentity],
    /// The session that executes it: its lease is taken with the run.
    pub owner: &'a LeaseOwner,
}

/// A run as recorded, for resuming it.
pub(crate) struct RunRecord {
    pub flow: String,
    pub inputs: Value,
    pub env: Value,
    pub clock_ms: i64,
    /// The plan's identity as recorded (empty for runs of schema version 1).
    pub plan: Vec<StepIdentity>,
    /// Every step the journal holds a row for.
    pub steps: HashMap<String, RecordedStep>,
}

/// A step as recorded.
#[derive(Debug, Clone)]
pub(crate) struct RecordedStep {
    pub position: i64,
    pub tool_ref: String,
    pub contract_digest: String,
    pub input_digest: Option<String>,
    pub attempts: i64,
    /// The recorded outcome of an effectful step.
    pub effect: Option<Value>,
}

/// An effectful step about to be attempted.
pub(crate) struct StepStart<'a> {
    pub step_id: &'a str,
    pub position: i64,
    pub tool_ref: &'a str,
    pub contract_digest: &'a str,
    pub input_digest: &'a str,
    pub input: &'a Value,
    pub idempotency_key: &'a str,
}

/// A row for a step that has no effect to record (pure, skipped, failed before running),
/// written with the next commit.
#[derive(Debug, Clone)]
pub(crate) struct PendingStep {
    pub step_id: String,
    pub position: i64,
    pub tool_ref: String,
    pub contract_digest: String,
    pub input_digest: Option<String>,
    pub effectful: bool,
    pub status: &'static str,
    pub input: Option<Value>,
    pub output: Option<Value>,
    pub error: Option<String>,
    pub attempts: i64,
    pub started_at_ms: i64,
    pub duration_us: i64,
}

impl Journal {
    /// Records a new run, its plan's identity and its owner's lease, in one transaction.
    pub(crate) fn begin_run(&self, run: &RunStart<'_>) -> Result<(), JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction()
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        tx.execute(
            "INSERT INTO runs (run_id, flow, flow_digest, status, inputs, env, clock_ms, started_at_ms, sessions)
             VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7, 1)",
            params![
                run.run_id,
                run.flow,
                run.flow_digest,
                self.json_text(run.inputs),
                self.json_text(run.env),
                run.clock_ms,
                run.started_at_ms
            ],
        )
        .map_err(self.sqlite_error("cannot record the run start"))?;
        self.write_plan(&tx, run.run_id, run.plan)?;
        write_lease(&tx, run.run_id, run.owner, run.started_at_ms)
            .map_err(self.sqlite_error("cannot record the run's lease"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the run start"))
    }

    /// Everything recorded for run `run_id`, read without changing it.
    pub(crate) fn read_run(&self, run_id: &str) -> Result<RunRecord, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction()
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        let row = tx
            .query_row(
                "SELECT flow, inputs, env, clock_ms FROM runs WHERE run_id = ?1",
                [run_id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
            .optional()
            .map_err(self.sqlite_error("cannot read the run"))?;
        let Some((flow, inputs, env, clock_ms)) = row else {
            return Err(self.unknown_run(run_id));
        };
        let steps = read_steps(&tx, run_id).map_err(self.sqlite_error("cannot read the steps"))?;
        let plan = self.read_plan(&tx, run_id)?;
        Ok(RunRecord {
            flow,
            inputs: self.parse(&inputs, "run inputs")?,
            env: self.parse(&env, "run env")?,
            clock_ms,
            plan,
            steps,
        })
    }

    /// Opens a new session of run `run_id` for `owner`, who holds its lease; returns the
    /// session number (2 for the first resume…).
    pub(crate) fn open_session(&self, run_id: &str, owner: &str) -> Result<i64, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        self.fence(&tx, run_id, owner)?;
        let sessions: i64 = tx
            .query_row(
                "SELECT sessions FROM runs WHERE run_id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.sqlite_error("cannot read the run"))?
            .ok_or_else(|| self.unknown_run(run_id))?;
        let session = sessions + 1;
        tx.prepare_cached(
            "UPDATE runs SET status = 'running', sessions = ?2, finished_at_ms = NULL,
                 error_code = NULL, error = NULL WHERE run_id = ?1",
        )
        .and_then(|mut statement| statement.execute(params![run_id, session]))
        .map_err(self.sqlite_error("cannot reopen the run"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the resume"))?;
        Ok(session)
    }

    pub(crate) fn unknown_run(&self, run_id: &str) -> JournalError {
        JournalError::UnknownRun {
            path: self.path.clone(),
            run_id: run_id.to_owned(),
        }
    }

    /// Records the intent to attempt an effectful step (before the effect), with any pending
    /// rows, in one commit.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn effect_started(
        &self,
        run_id: &str,
        owner: &str,
        step: &StepStart<'_>,
        attempt: i64,
        session: i64,
        now_ms: i64,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError> {
        let mut conn = self.lock();
        // Immediate: the fence reads the lease under the write lock, so no takeover can
        // commit between the check and this step's intent.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        self.fence(&tx, run_id, owner)?;
        self.write_pending(&tx, run_id, pending)?;
        tx.prepare_cached(
            "INSERT INTO steps (run_id, step_id, position, tool_ref, contract_digest, input_digest,
                 effectful, status, input, attempts, started_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, 'started', ?7, ?8, ?9)
             ON CONFLICT (run_id, step_id) DO UPDATE SET position = ?3, tool_ref = ?4,
                 contract_digest = ?5, input_digest = ?6, effectful = 1, status = 'started',
                 input = ?7, attempts = ?8, error = NULL",
        )
        .and_then(|mut statement| {
            statement.execute(params![
                run_id,
                step.step_id,
                step.position,
                step.tool_ref,
                step.contract_digest,
                step.input_digest,
                self.json_text(step.input),
                attempt,
                now_ms
            ])
        })
        .map_err(self.sqlite_error("cannot record the step start"))?;
        tx.prepare_cached(
            "INSERT OR REPLACE INTO attempts (run_id, step_id, attempt, session, started_at_ms, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, 'started')",
        )
        .and_then(|mut statement| statement.execute(params![run_id, step.step_id, attempt, session, now_ms]))
        .map_err(self.sqlite_error("cannot record the attempt"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the step start"))
    }

    /// Records the outcome of an attempt of an effectful step. A success is recorded once:
    /// if another session recorded this step first, its outcome wins and is returned.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn effect_finished(
        &self,
        run_id: &str,
        step: &StepStart<'_>,
        attempt: i64,
        outcome: Result<&Value, &str>,
        failure_status: &str,
        duration_us: i64,
        now_ms: i64,
    ) -> Result<Option<Value>, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction()
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        let (attempt_outcome, error) = match outcome {
            Ok(_) => ("ok", None),
            Err(message) => ("error", Some(self.text(message))),
        };
        tx.prepare_cached(
            "UPDATE attempts SET outcome = ?4, error = ?5, duration_us = ?6
             WHERE run_id = ?1 AND step_id = ?2 AND attempt = ?3",
        )
        .and_then(|mut statement| {
            statement.execute(params![
                run_id,
                step.step_id,
                attempt,
                attempt_outcome,
                error,
                duration_us
            ])
        })
        .map_err(self.sqlite_error("cannot record the attempt outcome"))?;
        let recorded = match outcome {
            Ok(output) => {
                let text = self.json_text(output);
                let inserted = tx
                    .prepare_cached(
                        "INSERT OR IGNORE INTO effects (run_id, step_id, idempotency_key, tool_ref,
                             contract_digest, input_digest, output, recorded_at_ms)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    )
                    .and_then(|mut statement| {
                        statement.execute(params![
                            run_id,
                            step.step_id,
                            step.idempotency_key,
                            step.tool_ref,
                            step.contract_digest,
                            step.input_digest,
                            text,
                            now_ms
                        ])
                    })
                    .map_err(self.sqlite_error("cannot record the effect"))?;
                // Another session may have recorded this step first: its outcome wins.
                let stored: String = if inserted == 1 {
                    text
                } else {
                    tx.prepare_cached(
                        "SELECT output FROM effects WHERE run_id = ?1 AND step_id = ?2",
                    )
                    .and_then(|mut statement| {
                        statement.query_row(params![run_id, step.step_id], |r| r.get(0))
                    })
                    .map_err(self.sqlite_error("cannot read the effect back"))?
                };
                tx.prepare_cached(
                    "UPDATE steps SET status = 'succeeded', output = ?3, duration_us = ?4
                     WHERE run_id = ?1 AND step_id = ?2",
                )
                .and_then(|mut statement| {
                    statement.execute(params![run_id, step.step_id, stored, duration_us])
                })
                .map_err(self.sqlite_error("cannot record the step outcome"))?;
                // What a resume would read back, exactly (redacted).
                if inserted == 1 && self.redactor.is_empty() {
                    None
                } else {
                    Some(self.parse(&stored, "effect output")?)
                }
            }
            Err(_) => {
                tx.prepare_cached(
                    "UPDATE steps SET status = ?3, error = ?4, duration_us = ?5
                     WHERE run_id = ?1 AND step_id = ?2",
                )
                .and_then(|mut statement| {
                    statement.execute(params![
                        run_id,
                        step.step_id,
                        failure_status,
                        error,
                        duration_us
                    ])
                })
                .map_err(self.sqlite_error("cannot record the step failure"))?;
                None
            }
        };
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the step outcome"))?;
        Ok(recorded)
    }

    /// Ends a session of a run: its status, output or error, every pending row, and the
    /// release of `owner`'s lease.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish_run(
        &self,
        run_id: &str,
        owner: &str,
        status: &str,
        output: Option<&Value>,
        error: Option<(&str, &str)>,
        finished_at_ms: i64,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        // An owner that lost the lease must not write its outcome over the new owner's.
        self.fence(&tx, run_id, owner)?;
        self.write_pending(&tx, run_id, pending)?;
        tx.execute(
            "DELETE FROM leases WHERE run_id = ?1 AND owner = ?2",
            params![run_id, owner],
        )
        .map_err(self.sqlite_error("cannot release the lease"))?;
        tx.prepare_cached(
            "UPDATE runs SET status = ?2, output = ?3, error_code = ?4, error = ?5, finished_at_ms = ?6
             WHERE run_id = ?1",
        )
        .and_then(|mut statement| statement.execute(params![
                run_id,
                status,
                output.map(|v| self.json_text(v)),
                error.map(|(code, _)| code),
                error.map(|(_, message)| self.text(message)),
                finished_at_ms
            ]))
        .map_err(self.sqlite_error("cannot record the run outcome"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the run outcome"))
    }

    fn write_pending(
        &self,
        tx: &Transaction<'_>,
        run_id: &str,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError> {
        if pending.is_empty() {
            return Ok(());
        }
        let mut insert = tx
            .prepare_cached(
                "INSERT OR REPLACE INTO steps (run_id, step_id, position, tool_ref, contract_digest,
                     input_digest, effectful, status, input, output, error, attempts, started_at_ms, duration_us)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )
            .map_err(self.sqlite_error("cannot prepare the step rows"))?;
        for step in pending.drain(..) {
            insert
                .execute(params![
                    run_id,
                    step.step_id,
                    step.position,
                    step.tool_ref,
                    step.contract_digest,
                    step.input_digest,
                    step.effectful,
                    step.status,
                    step.input.as_ref().map(|v| self.json_text(v)),
                    step.output.as_ref().map(|v| self.json_text(v)),
                    step.error.as_deref().map(|e| self.text(e)),
                    step.attempts,
                    step.started_at_ms,
                    step.duration_us
                ])
                .map_err(self.sqlite_error("cannot record a step"))?;
        }
        Ok(())
    }

    pub(crate) fn parse(&self, text: &str, what: &str) -> Result<Value, JournalError> {
        serde_json::from_str(text).map_err(|e| JournalError::Corrupt {
            path: self.path.clone(),
            message: format!("{what} is not JSON: {e}"),
        })
    }
}

fn read_steps(
    tx: &Transaction<'_>,
    run_id: &str,
) -> rusqlite::Result<HashMap<String, RecordedStep>> {
    let mut steps = HashMap::new();
    let mut query = tx.prepare(
        "SELECT s.step_id, s.position, s.tool_ref, s.contract_digest, s.input_digest, s.attempts, e.output,
                e.tool_ref, e.contract_digest, e.input_digest
         FROM steps s LEFT JOIN effects e ON e.run_id = s.run_id AND e.step_id = s.step_id
         WHERE s.run_id = ?1",
    )?;
    let rows = query.query_map([run_id], |r| {
        let effect: Option<String> = r.get(6)?;
        // The effect row is authoritative for what produced the recorded outcome.
        let (tool_ref, contract_digest, input_digest) = match effect {
            Some(_) => (r.get(7)?, r.get(8)?, r.get::<_, Option<String>>(9)?),
            None => (r.get(2)?, r.get(3)?, r.get(4)?),
        };
        Ok((
            r.get::<_, String>(0)?,
            RecordedStep {
                position: r.get(1)?,
                tool_ref,
                contract_digest,
                input_digest,
                attempts: r.get(5)?,
                effect: effect
                    .map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text))),
            },
        ))
    })?;
    for row in rows {
        let (id, step) = row?;
        steps.insert(id, step);
    }
    Ok(steps)
}

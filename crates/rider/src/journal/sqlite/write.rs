//! What the Rider writes to the journal, and reads back to resume.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use serde_json::Value;

use super::SqliteJournal;
use super::lease::{release, write_lease};
use crate::journal::JournalError;
use crate::journal::lease::Fence;
use crate::journal::new_run::NewRunRow;
use crate::journal::store::{
    Attempt, AttemptOutcome, EffectStart, PendingStep, RecordedStep, RunEnd, RunRecord, RunStart,
};

impl SqliteJournal {
    /// Records a new run, its plan's identity and its owner's lease (epoch 1), in one
    /// transaction.
    pub(super) fn write_run_start(&self, run: &RunStart<'_>) -> Result<Fence, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction()
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        self.insert_run(&tx, &NewRunRow::started(run))?;
        let fence = Fence {
            owner: run.owner.owner.clone(),
            epoch: 1,
        };
        write_lease(&tx, run.run_id, run.owner, run.started_at_ms, fence.epoch)
            .map_err(self.sqlite_error("cannot record the run's lease"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the run start"))?;
        Ok(fence)
    }

    /// Everything recorded for run `run_id`, read without changing it.
    pub(super) fn read_run_record(&self, run_id: &str) -> Result<RunRecord, JournalError> {
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

    /// Opens a new session of run `run_id` for the holder of `fence`; returns the session
    /// number (2 for the first resume…).
    pub(super) fn write_session(&self, run_id: &str, fence: &Fence) -> Result<i64, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        self.fence(&tx, run_id, fence)?;
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

    /// Records the intent to attempt an effectful step (before the effect), with any pending
    /// rows, in one commit under the fence — unless its effect is already recorded.
    pub(super) fn write_effect_start(
        &self,
        attempt: &Attempt<'_>,
        now_ms: i64,
        pending: &mut Vec<PendingStep>,
    ) -> Result<EffectStart, JournalError> {
        let step = attempt.step;
        let mut conn = self.lock();
        // Immediate: the fence reads the lease under the write lock, so no takeover can
        // commit between the check and this step's intent.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        self.fence(&tx, attempt.run_id, attempt.fence)?;
        self.write_pending(&tx, attempt.run_id, pending)?;
        // The recorded effects first: a recorded step is never attempted again.
        if let Some(recorded) = recorded_effect(&tx, attempt.run_id, step.step_id)
            .map_err(self.sqlite_error("cannot read the recorded effect"))?
        {
            let output = self.parse(&recorded, "effect output")?;
            tx.commit()
                .map_err(self.sqlite_error("cannot commit the pending rows"))?;
            return Ok(EffectStart::Recorded(output));
        }
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
                attempt.run_id,
                step.step_id,
                step.position,
                step.tool_ref,
                step.contract_digest,
                step.input_digest,
                self.json_text(step.input),
                attempt.number,
                now_ms
            ])
        })
        .map_err(self.sqlite_error("cannot record the step start"))?;
        tx.prepare_cached(
            "INSERT OR REPLACE INTO attempts (run_id, step_id, attempt, session, started_at_ms, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, 'started')",
        )
        .and_then(|mut statement| {
            statement.execute(params![
                attempt.run_id,
                step.step_id,
                attempt.number,
                attempt.session,
                now_ms
            ])
        })
        .map_err(self.sqlite_error("cannot record the attempt"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the step start"))?;
        Ok(EffectStart::Started)
    }

    /// Records the outcome of an attempt of an effectful step, under the fence. A success
    /// is recorded once: if another session recorded this step first, its outcome wins and
    /// is returned.
    pub(super) fn write_effect_outcome(
        &self,
        attempt: &Attempt<'_>,
        outcome: AttemptOutcome<'_>,
        duration_us: i64,
        now_ms: i64,
    ) -> Result<Option<Value>, JournalError> {
        let (run_id, step) = (attempt.run_id, attempt.step);
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        // A deposed owner writes no attempt row and no outcome over the new owner's.
        self.fence(&tx, run_id, attempt.fence)?;
        let (attempt_outcome, error) = match outcome {
            AttemptOutcome::Succeeded { .. } => ("ok", None),
            AttemptOutcome::Failed { message, .. } => ("error", Some(self.text(message))),
        };
        tx.prepare_cached(
            "UPDATE attempts SET outcome = ?4, error = ?5, duration_us = ?6
             WHERE run_id = ?1 AND step_id = ?2 AND attempt = ?3",
        )
        .and_then(|mut statement| {
            statement.execute(params![
                run_id,
                step.step_id,
                attempt.number,
                attempt_outcome,
                error,
                duration_us
            ])
        })
        .map_err(self.sqlite_error("cannot record the attempt outcome"))?;
        let recorded = match outcome {
            AttemptOutcome::Succeeded { output, warnings } => {
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
                    recorded_effect(&tx, run_id, step.step_id)
                        .map_err(self.sqlite_error("cannot read the effect back"))?
                        .unwrap_or_default()
                };
                tx.prepare_cached(
                    "UPDATE steps SET status = 'succeeded', output = ?3, duration_us = ?4
                     WHERE run_id = ?1 AND step_id = ?2",
                )
                .and_then(|mut statement| {
                    statement.execute(params![run_id, step.step_id, stored, duration_us])
                })
                .map_err(self.sqlite_error("cannot record the step outcome"))?;
                if inserted == 1 {
                    tx.prepare_cached(
                        "UPDATE steps SET warnings = ?3 WHERE run_id = ?1 AND step_id = ?2",
                    )
                    .and_then(|mut statement| {
                        statement.execute(params![
                            run_id,
                            step.step_id,
                            self.warnings_text(warnings)
                        ])
                    })
                    .map_err(self.sqlite_error("cannot record the step's warnings"))?;
                }
                // What a resume would read back, exactly (redacted).
                if inserted == 1 && self.redactor.is_empty() {
                    None
                } else {
                    Some(self.parse(&stored, "effect output")?)
                }
            }
            AttemptOutcome::Failed { status, .. } => {
                tx.prepare_cached(
                    "UPDATE steps SET status = ?3, error = ?4, duration_us = ?5
                     WHERE run_id = ?1 AND step_id = ?2",
                )
                .and_then(|mut statement| {
                    statement.execute(params![run_id, step.step_id, status, error, duration_us])
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
    /// release of `fence`'s lease.
    pub(super) fn write_run_end(
        &self,
        run_id: &str,
        fence: &Fence,
        end: &RunEnd<'_>,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError> {
        let RunEnd {
            status,
            output,
            error,
            finished_at_ms,
        } = *end;
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        // An owner that lost the lease must not write its outcome over the new owner's.
        self.fence(&tx, run_id, fence)?;
        self.write_pending(&tx, run_id, pending)?;
        release(&tx, run_id, fence).map_err(self.sqlite_error("cannot release the lease"))?;
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
                     input_digest, effectful, status, input, output, error, attempts, started_at_ms, duration_us,
                     warnings)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
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
                    step.duration_us,
                    self.warnings_text(&step.warnings)
                ])
                .map_err(self.sqlite_error("cannot record a step"))?;
        }
        Ok(())
    }

    /// A step's warnings as stored: a JSON array of redacted sentences, `NULL` for none.
    fn warnings_text(&self, warnings: &[String]) -> Option<String> {
        if warnings.is_empty() {
            return None;
        }
        let redacted: Vec<String> = warnings.iter().map(|w| self.text(w)).collect();
        serde_json::to_string(&redacted).ok()
    }

    pub(super) fn parse(&self, text: &str, what: &str) -> Result<Value, JournalError> {
        serde_json::from_str(text).map_err(|e| self.corrupt(format!("{what} is not JSON: {e}")))
    }
}

/// The recorded output of step `step_id`'s effect, if any.
fn recorded_effect(
    conn: &Connection,
    run_id: &str,
    step_id: &str,
) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT output FROM effects WHERE run_id = ?1 AND step_id = ?2")?
        .query_row(params![run_id, step_id], |r| r.get(0))
        .optional()
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

//! What the Rider writes to the journal, and reads back to resume: the SQLite backend's
//! transactions (`sqlite/write.rs`, `sqlite/plan.rs`), statement for statement.

use std::collections::{BTreeMap, HashMap};

use postgres::{GenericClient, Transaction};
use serde_json::Value;

use super::lease::{release, write_lease};
use super::{PgJournal, is_unique_violation};
use crate::journal::JournalError;
use crate::journal::lease::Fence;
use crate::journal::new_run::NewRunRow;
use crate::journal::store::{
    Attempt, AttemptOutcome, EffectStart, JournalStore, PendingStep, RecordedStep, RunEnd,
    RunRecord, RunStart,
};
use crate::plan_identity::StepIdentity;

impl PgJournal {
    /// Records a new run, its plan's identity and its owner's lease (epoch 1), in one
    /// transaction.
    pub(super) fn write_run_start(&self, run: &RunStart<'_>) -> Result<Fence, JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            self.insert_run(&mut tx, &NewRunRow::started(run))?;
            let fence = Fence {
                owner: run.owner.owner.clone(),
                epoch: 1,
            };
            write_lease(
                &mut tx,
                run.run_id,
                run.owner,
                run.started_at_ms,
                fence.epoch,
            )
            .map_err(self.pg_error("cannot record the run's lease"))?;
            tx.commit()
                .map_err(self.pg_error("cannot commit the run start"))?;
            Ok(fence)
        })
    }

    /// Inserts a new run's row and its plan in `tx`: a run id already recorded is
    /// [`JournalError::RunExists`].
    pub(super) fn insert_run(
        &self,
        tx: &mut Transaction<'_>,
        row: &NewRunRow<'_>,
    ) -> Result<(), JournalError> {
        let (status, sessions) = row.status.column_and_sessions();
        tx.execute(
            "INSERT INTO runs (run_id, flow, flow_digest, status, inputs, env, clock_ms,
                 started_at_ms, sessions)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &row.run_id,
                &row.flow,
                &row.flow_digest,
                &status,
                &self.json_text(row.inputs),
                &self.json_text(row.env),
                &row.clock_ms,
                &row.at_ms,
                &sessions,
            ],
        )
        .map_err(|e| {
            if is_unique_violation(&e) {
                JournalError::RunExists {
                    journal: self.describe(),
                    run_id: row.run_id.to_owned(),
                }
            } else {
                self.pg_error(row.status.recording())(e)
            }
        })?;
        self.write_plan(tx, row.run_id, row.plan)
    }

    pub(super) fn write_plan(
        &self,
        tx: &mut Transaction<'_>,
        run_id: &str,
        plan: &[StepIdentity],
    ) -> Result<(), JournalError> {
        let insert = tx
            .prepare(
                "INSERT INTO plan_steps (run_id, position, step_id, tool_ref, contract_digest,
                     bindings, when_digest, when_text)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .map_err(self.pg_error("cannot prepare the plan rows"))?;
        for step in plan {
            let bindings = serde_json::to_string(&step.bindings).unwrap_or_default();
            tx.execute(
                &insert,
                &[
                    &run_id,
                    &(step.position as i64),
                    &step.step_id,
                    &step.tool_ref,
                    &step.contract_digest,
                    &bindings,
                    &step.when.as_ref().map(|(digest, _)| digest),
                    // The condition's text is only for messages; literals in it are redacted.
                    &step.when.as_ref().map(|(_, text)| self.text(text)),
                ],
            )
            .map_err(self.pg_error("cannot record the plan"))?;
        }
        Ok(())
    }

    /// Everything recorded for run `run_id`, read in one transaction without changing it.
    pub(super) fn read_run_record(&self, run_id: &str) -> Result<RunRecord, JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .build_transaction()
                .read_only(true)
                .start()
                .map_err(self.pg_error("cannot start a transaction"))?;
            let row = tx
                .query_opt(
                    "SELECT flow, inputs, env, clock_ms FROM runs WHERE run_id = $1",
                    &[&run_id],
                )
                .map_err(self.pg_error("cannot read the run"))?;
            let Some(row) = row else {
                return Err(self.unknown_run(run_id));
            };
            let (flow, inputs, env, clock_ms): (String, String, String, i64) =
                (row.get(0), row.get(1), row.get(2), row.get(3));
            let steps =
                read_steps(&mut tx, run_id).map_err(self.pg_error("cannot read the steps"))?;
            let plan = self.read_plan(&mut tx, run_id)?;
            Ok(RunRecord {
                flow,
                inputs: self.parse(&inputs, "run inputs")?,
                env: self.parse(&env, "run env")?,
                clock_ms,
                plan,
                steps,
            })
        })
    }

    /// The recorded identity of run `run_id`'s plan, in position order.
    fn read_plan(
        &self,
        tx: &mut Transaction<'_>,
        run_id: &str,
    ) -> Result<Vec<StepIdentity>, JournalError> {
        let rows = tx
            .query(
                "SELECT position, step_id, tool_ref, contract_digest, bindings, when_digest,
                        when_text
                 FROM plan_steps WHERE run_id = $1 ORDER BY position",
                &[&run_id],
            )
            .map_err(self.pg_error("cannot read the plan"))?;
        let mut plan = Vec::new();
        for row in rows {
            let step_id: String = row.get(1);
            let bindings: BTreeMap<String, String> = serde_json::from_str(row.get::<_, &str>(4))
                .map_err(|e| {
                    self.corrupt(format!("the plan row of step `{step_id}` is not JSON: {e}"))
                })?;
            let when_digest: Option<String> = row.get(5);
            let when_text: Option<String> = row.get(6);
            plan.push(StepIdentity {
                position: usize::try_from(row.get::<_, i64>(0)).unwrap_or(usize::MAX),
                step_id,
                tool_ref: row.get(2),
                contract_digest: row.get(3),
                bindings,
                when: when_digest.map(|d| (d, when_text.unwrap_or_default())),
            });
        }
        Ok(plan)
    }

    /// Opens a new session of run `run_id` for the holder of `fence`; returns the session
    /// number (2 for the first resume…).
    pub(super) fn write_session(&self, run_id: &str, fence: &Fence) -> Result<i64, JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            self.fence(&mut tx, run_id, fence)?;
            let session: i64 = tx
                .query_opt(
                    "UPDATE runs SET status = 'running', sessions = sessions + 1,
                         finished_at_ms = NULL, error_code = NULL, error = NULL
                     WHERE run_id = $1 RETURNING sessions",
                    &[&run_id],
                )
                .map_err(self.pg_error("cannot reopen the run"))?
                .map(|row| row.get(0))
                .ok_or_else(|| self.unknown_run(run_id))?;
            tx.commit()
                .map_err(self.pg_error("cannot commit the resume"))?;
            Ok(session)
        })
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
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            self.fence(&mut tx, attempt.run_id, attempt.fence)?;
            self.write_pending(&mut tx, attempt.run_id, pending)?;
            // The recorded effects first: a recorded step is never attempted again.
            if let Some(recorded) = recorded_effect(&mut tx, attempt.run_id, step.step_id)
                .map_err(self.pg_error("cannot read the recorded effect"))?
            {
                let output = self.parse(&recorded, "effect output")?;
                tx.commit()
                    .map_err(self.pg_error("cannot commit the pending rows"))?;
                return Ok(EffectStart::Recorded(output));
            }
            tx.execute(
                "INSERT INTO steps (run_id, step_id, position, tool_ref, contract_digest,
                     input_digest, effectful, status, input, attempts, started_at_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, TRUE, 'started', $7, $8, $9)
                 ON CONFLICT (run_id, step_id) DO UPDATE SET position = $3, tool_ref = $4,
                     contract_digest = $5, input_digest = $6, effectful = TRUE,
                     status = 'started', input = $7, attempts = $8, error = NULL",
                &[
                    &attempt.run_id,
                    &step.step_id,
                    &step.position,
                    &step.tool_ref,
                    &step.contract_digest,
                    &step.input_digest,
                    &self.json_text(step.input),
                    &attempt.number,
                    &now_ms,
                ],
            )
            .map_err(self.pg_error("cannot record the step start"))?;
            tx.execute(
                "INSERT INTO attempts (run_id, step_id, attempt, session, started_at_ms, outcome)
                 VALUES ($1, $2, $3, $4, $5, 'started')
                 ON CONFLICT (run_id, step_id, attempt) DO UPDATE SET session = $4,
                     started_at_ms = $5, outcome = 'started', duration_us = NULL, error = NULL",
                &[
                    &attempt.run_id,
                    &step.step_id,
                    &attempt.number,
                    &attempt.session,
                    &now_ms,
                ],
            )
            .map_err(self.pg_error("cannot record the attempt"))?;
            tx.commit()
                .map_err(self.pg_error("cannot commit the step start"))?;
            Ok(EffectStart::Started)
        })
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
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            // A deposed owner writes no attempt row and no outcome over the new owner's.
            self.fence(&mut tx, run_id, attempt.fence)?;
            let (attempt_outcome, error) = match outcome {
                AttemptOutcome::Succeeded { .. } => ("ok", None),
                AttemptOutcome::Failed { message, .. } => ("error", Some(self.text(message))),
            };
            tx.execute(
                "UPDATE attempts SET outcome = $4, error = $5, duration_us = $6
                 WHERE run_id = $1 AND step_id = $2 AND attempt = $3",
                &[
                    &run_id,
                    &step.step_id,
                    &attempt.number,
                    &attempt_outcome,
                    &error,
                    &duration_us,
                ],
            )
            .map_err(self.pg_error("cannot record the attempt outcome"))?;
            let recorded = match outcome {
                AttemptOutcome::Succeeded { output, warnings } => {
                    let text = self.json_text(output);
                    let inserted = tx
                        .execute(
                            "INSERT INTO effects (run_id, step_id, idempotency_key, tool_ref,
                                 contract_digest, input_digest, output, recorded_at_ms)
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                             ON CONFLICT (run_id, step_id) DO NOTHING",
                            &[
                                &run_id,
                                &step.step_id,
                                &step.idempotency_key,
                                &step.tool_ref,
                                &step.contract_digest,
                                &step.input_digest,
                                &text,
                                &now_ms,
                            ],
                        )
                        .map_err(self.pg_error("cannot record the effect"))?;
                    // Another session may have recorded this step first: its outcome wins.
                    let stored: String = if inserted == 1 {
                        text
                    } else {
                        recorded_effect(&mut tx, run_id, step.step_id)
                            .map_err(self.pg_error("cannot read the effect back"))?
                            .unwrap_or_default()
                    };
                    tx.execute(
                        "UPDATE steps SET status = 'succeeded', output = $3, duration_us = $4
                         WHERE run_id = $1 AND step_id = $2",
                        &[&run_id, &step.step_id, &stored, &duration_us],
                    )
                    .map_err(self.pg_error("cannot record the step outcome"))?;
                    if inserted == 1 {
                        tx.execute(
                            "UPDATE steps SET warnings = $3 WHERE run_id = $1 AND step_id = $2",
                            &[&run_id, &step.step_id, &self.warnings_text(warnings)],
                        )
                        .map_err(self.pg_error("cannot record the step's warnings"))?;
                    }
                    // What a resume would read back, exactly (redacted).
                    if inserted == 1 && self.redactor.is_empty() {
                        None
                    } else {
                        Some(self.parse(&stored, "effect output")?)
                    }
                }
                AttemptOutcome::Failed { status, .. } => {
                    tx.execute(
                        "UPDATE steps SET status = $3, error = $4, duration_us = $5
                         WHERE run_id = $1 AND step_id = $2",
                        &[&run_id, &step.step_id, &status, &error, &duration_us],
                    )
                    .map_err(self.pg_error("cannot record the step failure"))?;
                    None
                }
            };
            tx.commit()
                .map_err(self.pg_error("cannot commit the step outcome"))?;
            Ok(recorded)
        })
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
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            // An owner that lost the lease must not write its outcome over the new owner's.
            self.fence(&mut tx, run_id, fence)?;
            self.write_pending(&mut tx, run_id, pending)?;
            release(&mut tx, run_id, fence).map_err(self.pg_error("cannot release the lease"))?;
            tx.execute(
                "UPDATE runs SET status = $2, output = $3, error_code = $4, error = $5,
                     finished_at_ms = $6
                 WHERE run_id = $1",
                &[
                    &run_id,
                    &status,
                    &output.map(|v| self.json_text(v)),
                    &error.map(|(code, _)| code),
                    &error.map(|(_, message)| self.text(message)),
                    &finished_at_ms,
                ],
            )
            .map_err(self.pg_error("cannot record the run outcome"))?;
            tx.commit()
                .map_err(self.pg_error("cannot commit the run outcome"))
        })
    }

    fn write_pending(
        &self,
        tx: &mut Transaction<'_>,
        run_id: &str,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError> {
        if pending.is_empty() {
            return Ok(());
        }
        let insert = tx
            .prepare(
                "INSERT INTO steps (run_id, step_id, position, tool_ref, contract_digest,
                     input_digest, effectful, status, input, output, error, attempts,
                     started_at_ms, duration_us, warnings)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
                 ON CONFLICT (run_id, step_id) DO UPDATE SET position = $3, tool_ref = $4,
                     contract_digest = $5, input_digest = $6, effectful = $7, status = $8,
                     input = $9, output = $10, error = $11, attempts = $12,
                     started_at_ms = $13, duration_us = $14, warnings = $15",
            )
            .map_err(self.pg_error("cannot prepare the step rows"))?;
        for step in pending.drain(..) {
            tx.execute(
                &insert,
                &[
                    &run_id,
                    &step.step_id,
                    &step.position,
                    &step.tool_ref,
                    &step.contract_digest,
                    &step.input_digest,
                    &step.effectful,
                    &step.status,
                    &step.input.as_ref().map(|v| self.json_text(v)),
                    &step.output.as_ref().map(|v| self.json_text(v)),
                    &step.error.as_deref().map(|e| self.text(e)),
                    &step.attempts,
                    &step.started_at_ms,
                    &step.duration_us,
                    &self.warnings_text(&step.warnings),
                ],
            )
            .map_err(self.pg_error("cannot record a step"))?;
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
}

/// The recorded output of step `step_id`'s effect, if any.
fn recorded_effect(
    client: &mut impl GenericClient,
    run_id: &str,
    step_id: &str,
) -> Result<Option<String>, postgres::Error> {
    Ok(client
        .query_opt(
            "SELECT output FROM effects WHERE run_id = $1 AND step_id = $2",
            &[&run_id, &step_id],
        )?
        .map(|row| row.get(0)))
}

fn read_steps(
    client: &mut impl GenericClient,
    run_id: &str,
) -> Result<HashMap<String, RecordedStep>, postgres::Error> {
    let rows = client.query(
        "SELECT s.step_id, s.position, s.tool_ref, s.contract_digest, s.input_digest,
                s.attempts, e.output, e.tool_ref, e.contract_digest, e.input_digest
         FROM steps s LEFT JOIN effects e ON e.run_id = s.run_id AND e.step_id = s.step_id
         WHERE s.run_id = $1",
        &[&run_id],
    )?;
    let mut steps = HashMap::new();
    for row in rows {
        let effect: Option<String> = row.get(6);
        // The effect row is authoritative for what produced the recorded outcome.
        let (tool_ref, contract_digest, input_digest) = match effect {
            Some(_) => (row.get(7), row.get(8), row.get::<_, Option<String>>(9)),
            None => (row.get(2), row.get(3), row.get(4)),
        };
        steps.insert(
            row.get::<_, String>(0),
            RecordedStep {
                position: row.get(1),
                tool_ref,
                contract_digest,
                input_digest,
                attempts: row.get(5),
                effect: effect
                    .map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text))),
            },
        );
    }
    Ok(steps)
}

//! A new run's row, and its `plan_steps` rows: each step's identity, written with the run's
//! start (or its enqueueing).

use std::collections::BTreeMap;

use rusqlite::{Connection, Transaction, params};

use super::SqliteJournal;
use crate::journal::JournalError;
use crate::journal::new_run::NewRunRow;
use crate::journal::store::JournalStore;
use crate::plan_identity::StepIdentity;

impl SqliteJournal {
    /// Inserts a new run's row and its plan in `tx`: a run id already recorded is
    /// [`JournalError::RunExists`].
    pub(crate) fn insert_run(
        &self,
        tx: &Transaction<'_>,
        row: &NewRunRow<'_>,
    ) -> Result<(), JournalError> {
        let (status, sessions) = row.status.column_and_sessions();
        tx.execute(
            "INSERT INTO runs (run_id, flow, flow_digest, status, inputs, env, clock_ms,
                 started_at_ms, sessions)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                row.run_id,
                row.flow,
                row.flow_digest,
                status,
                self.json_text(row.inputs),
                self.json_text(row.env),
                row.clock_ms,
                row.at_ms,
                sessions
            ],
        )
        .map_err(|e| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::ConstraintViolation) => JournalError::RunExists {
                journal: self.describe(),
                run_id: row.run_id.to_owned(),
            },
            _ => self.sqlite_error(row.status.recording())(e),
        })?;
        self.write_plan(tx, row.run_id, row.plan)
    }

    pub(crate) fn write_plan(
        &self,
        tx: &Transaction<'_>,
        run_id: &str,
        plan: &[StepIdentity],
    ) -> Result<(), JournalError> {
        let mut insert = tx
            .prepare_cached(
                "INSERT INTO plan_steps (run_id, position, step_id, tool_ref, contract_digest,
                     bindings, when_digest, when_text)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .map_err(self.sqlite_error("cannot prepare the plan rows"))?;
        for step in plan {
            let bindings = serde_json::to_string(&step.bindings).unwrap_or_default();
            insert
                .execute(params![
                    run_id,
                    step.position as i64,
                    step.step_id,
                    step.tool_ref,
                    step.contract_digest,
                    bindings,
                    step.when.as_ref().map(|(digest, _)| digest),
                    // The condition's text is only for messages; literals in it are redacted.
                    step.when.as_ref().map(|(_, text)| self.text(text)),
                ])
                .map_err(self.sqlite_error("cannot record the plan"))?;
        }
        Ok(())
    }

    /// The recorded identity of run `run_id`'s plan, in position order (empty for a run
    /// recorded before schema version 2).
    pub(crate) fn read_plan(
        &self,
        conn: &Connection,
        run_id: &str,
    ) -> Result<Vec<StepIdentity>, JournalError> {
        let mut query = conn
            .prepare_cached(
                "SELECT position, step_id, tool_ref, contract_digest, bindings, when_digest,
                        when_text
                 FROM plan_steps WHERE run_id = ?1 ORDER BY position",
            )
            .map_err(self.sqlite_error("cannot read the plan"))?;
        let rows = query
            .query_map([run_id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, Option<String>>(6)?,
                ))
            })
            .map_err(self.sqlite_error("cannot read the plan"))?;
        let mut plan = Vec::new();
        for row in rows {
            let (position, step_id, tool_ref, contract_digest, bindings, when_digest, when_text) =
                row.map_err(self.sqlite_error("cannot read a plan row"))?;
            let bindings: BTreeMap<String, String> =
                serde_json::from_str(&bindings).map_err(|e| {
                    self.corrupt(format!("the plan row of step `{step_id}` is not JSON: {e}"))
                })?;
            plan.push(StepIdentity {
                position: usize::try_from(position).unwrap_or(usize::MAX),
                step_id,
                tool_ref,
                contract_digest,
                bindings,
                when: when_digest.map(|d| (d, when_text.unwrap_or_default())),
            });
        }
        Ok(plan)
    }
}

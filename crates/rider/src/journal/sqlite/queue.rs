//! The run queue on SQLite (see [`crate::journal::queue`]): every claim, requeue and cancel
//! is one `BEGIN IMMEDIATE` transaction, so the file's single writer serialises claimers.

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::SqliteJournal;
use super::lease::{read_holder, release, write_lease};
use crate::journal::JournalError;
use crate::journal::lease::{Fence, LeaseOwner};
use crate::journal::new_run::NewRunRow;
use crate::journal::queue::{CancelAnswer, Claim, QueueOrigin, RunEntry};
use crate::journal::store::{JournalStore, QueuedStart};

/// The schema version that has the queue.
const QUEUE_VERSION: i64 = 6;

impl SqliteJournal {
    pub(super) fn write_enqueue(&self, run: &QueuedStart<'_>) -> Result<(), JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        self.insert_run(&tx, &NewRunRow::queued(run))?;
        tx.execute(
            "INSERT INTO run_queue (run_id, flow_file, tools, enqueued_at_ms)
             VALUES (?1, ?2, ?3, ?4)",
            params![
                run.run_id,
                run.origin.flow_file,
                serde_json::to_string(&run.origin.tools).unwrap_or_else(|_| "[]".into()),
                run.enqueued_at_ms
            ],
        )
        .map_err(self.sqlite_error("cannot queue the run"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the queued run"))
    }

    pub(super) fn write_claim(
        &self,
        owner: &LeaseOwner,
        worker: &str,
        now_ms: i64,
    ) -> Result<Option<Claim>, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start the claim"))?;
        let read = self.sqlite_error("cannot read the queue");
        // Queued runs first, oldest first; then runs whose worker may be gone.
        let candidates: Vec<(String, String, String, String, i64, Option<i64>)> = tx
            .prepare_cached(
                "SELECT q.run_id, r.status, q.flow_file, q.tools, r.lease_epoch,
                        r.cancel_requested_at_ms
                 FROM run_queue q JOIN runs r ON r.run_id = q.run_id
                 WHERE r.status IN ('queued', 'running')
                 ORDER BY r.status = 'running', q.enqueued_at_ms, q.run_id",
            )
            .and_then(|mut s| {
                s.query_map([], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                })?
                .collect()
            })
            .map_err(&read)?;
        let mut claimed = None;
        for (run_id, status, flow_file, tools, last_epoch, cancel) in candidates {
            let taken_over = status == "running";
            if taken_over {
                let holder = read_holder(&tx, &run_id, true).map_err(&read)?;
                if holder.is_some_and(|h| h.gone(&owner.host_key, now_ms).is_none()) {
                    continue;
                }
                if cancel.is_some() {
                    // Its worker died while it was being cancelled: it ends cancelled.
                    tx.execute("DELETE FROM leases WHERE run_id = ?1", [&run_id])
                        .and_then(|_| {
                            tx.execute(
                                "UPDATE runs SET status = 'cancelled', error_code = 'cancelled',
                                     error = 'cancelled (bflow runs cancel)',
                                     finished_at_ms = ?2 WHERE run_id = ?1",
                                params![run_id, now_ms],
                            )
                        })
                        .map_err(self.sqlite_error("cannot end the cancelled run"))?;
                    continue;
                }
            }
            let tools: Vec<String> = serde_json::from_str(&tools)
                .map_err(|e| self.corrupt(format!("queued run `{run_id}`: its tools: {e}")))?;
            claimed = Some(Claim {
                fence: Fence {
                    owner: owner.owner.clone(),
                    epoch: last_epoch + 1,
                },
                run_id,
                origin: QueueOrigin { flow_file, tools },
                taken_over,
            });
            break;
        }
        if let Some(claim) = &claimed {
            let write = self.sqlite_error("cannot write the claim");
            write_lease(&tx, &claim.run_id, owner, now_ms, claim.fence.epoch).map_err(&write)?;
            tx.execute(
                "UPDATE runs SET status = 'running' WHERE run_id = ?1",
                [&claim.run_id],
            )
            .map_err(&write)?;
            tx.execute(
                "UPDATE run_queue SET worker = ?2, claimed_at_ms = ?3 WHERE run_id = ?1",
                params![claim.run_id, worker, now_ms],
            )
            .map_err(&write)?;
        }
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the claim"))?;
        Ok(claimed)
    }

    pub(super) fn write_requeue(&self, run_id: &str, fence: &Fence) -> Result<bool, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        release(&tx, run_id, fence).map_err(self.sqlite_error("cannot release the lease"))?;
        // Only while no one took the run since this fence's grant, and no cancel was asked.
        let changed = tx
            .execute(
                "UPDATE runs SET status = 'queued', error_code = NULL, error = NULL,
                     finished_at_ms = NULL
                 WHERE run_id = ?1 AND lease_epoch = ?2 AND status IN ('running', 'cancelled')
                   AND cancel_requested_at_ms IS NULL
                   AND NOT EXISTS (SELECT 1 FROM leases WHERE run_id = ?1)",
                params![run_id, fence.epoch],
            )
            .map_err(self.sqlite_error("cannot put the run back in the queue"))?;
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the requeue"))?;
        Ok(changed == 1)
    }

    pub(super) fn write_cancel(
        &self,
        run_id: &str,
        now_ms: i64,
    ) -> Result<CancelAnswer, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start a transaction"))?;
        let status: String = tx
            .query_row("SELECT status FROM runs WHERE run_id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(self.sqlite_error("cannot read the run"))?
            .ok_or_else(|| self.unknown_run(run_id))?;
        let write = self.sqlite_error("cannot record the cancel");
        let answer = match status.as_str() {
            "queued" => {
                tx.execute(
                    "UPDATE runs SET status = 'cancelled', error_code = 'cancelled',
                         error = 'cancelled before it started (bflow runs cancel)',
                         finished_at_ms = ?2, cancel_requested_at_ms = ?2
                     WHERE run_id = ?1",
                    params![run_id, now_ms],
                )
                .map_err(&write)?;
                CancelAnswer::Dequeued
            }
            "running" => {
                tx.execute(
                    "UPDATE runs SET cancel_requested_at_ms = COALESCE(cancel_requested_at_ms, ?2)
                     WHERE run_id = ?1",
                    params![run_id, now_ms],
                )
                .map_err(&write)?;
                CancelAnswer::Requested
            }
            _ => {
                return Err(JournalError::RunFinished {
                    journal: self.describe(),
                    run_id: run_id.to_owned(),
                    status,
                });
            }
        };
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the cancel"))?;
        Ok(answer)
    }

    pub(super) fn read_cancel_requested(&self, run_id: &str) -> Result<bool, JournalError> {
        if self.schema_version()? < QUEUE_VERSION {
            return Ok(false);
        }
        let conn = self.lock();
        conn.prepare_cached("SELECT cancel_requested_at_ms FROM runs WHERE run_id = ?1")
            .and_then(|mut s| {
                s.query_row([run_id], |r| r.get::<_, Option<i64>>(0))
                    .optional()
            })
            .map(|found| found.flatten().is_some())
            .map_err(self.sqlite_error("cannot read the run's cancel request"))
    }

    pub(super) fn read_run_entries(
        &self,
        limit: usize,
        run_id: Option<&str>,
    ) -> Result<Vec<RunEntry>, JournalError> {
        let queue = self.schema_version()? >= QUEUE_VERSION;
        let conn = self.lock();
        let (join, worker, queued, cancel) = if queue {
            (
                "LEFT JOIN run_queue q ON q.run_id = r.run_id",
                "q.worker",
                "q.run_id IS NOT NULL",
                "r.cancel_requested_at_ms",
            )
        } else {
            ("", "NULL", "0", "NULL")
        };
        conn.prepare(&format!(
            "SELECT r.run_id, r.flow, r.status, r.started_at_ms, r.finished_at_ms, {worker},
                    {queued}, {cancel}
             FROM runs r {join}
             WHERE ?2 IS NULL OR r.run_id = ?2
             ORDER BY r.started_at_ms DESC, r.run_id DESC LIMIT ?1"
        ))
        .and_then(|mut s| {
            s.query_map(
                params![i64::try_from(limit).unwrap_or(i64::MAX), run_id],
                |r| {
                    let status: String = r.get(2)?;
                    let cancel: Option<i64> = r.get(7)?;
                    Ok(RunEntry {
                        run_id: r.get(0)?,
                        flow: r.get(1)?,
                        cancel_requested_at_ms: cancel.filter(|_| status == "running"),
                        status,
                        created_at_ms: r.get(3)?,
                        finished_at_ms: r.get(4)?,
                        worker: r.get(5)?,
                        queued: r.get(6)?,
                    })
                },
            )?
            .collect()
        })
        .map_err(self.sqlite_error("cannot list the runs"))
    }
}

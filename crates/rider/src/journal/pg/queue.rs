//! The run queue on PostgreSQL (see [`crate::journal::queue`]). A claim locks the run's row
//! with `FOR UPDATE SKIP LOCKED` — the row every fenced write and every lease take locks
//! first — so claimers on any number of hosts pass over each other's candidates instead of
//! waiting, and take the lease in the transaction that picked the run.

use super::PgJournal;
use super::lease::{read_holder, release, write_lease};
use crate::journal::JournalError;
use crate::journal::lease::{Fence, LeaseOwner};
use crate::journal::new_run::NewRunRow;
use crate::journal::queue::{CancelAnswer, Claim, QueueOrigin, RunEntry};
use crate::journal::store::{JournalStore, QueuedStart};

/// The schema version that has the queue.
const QUEUE_VERSION: i64 = 2;

/// How many running runs one claim looks at for a gone worker.
const TAKEOVER_CANDIDATES: i64 = 16;

impl PgJournal {
    pub(super) fn write_enqueue(&self, run: &QueuedStart<'_>) -> Result<(), JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            self.insert_run(&mut tx, &NewRunRow::queued(run))?;
            let tools = serde_json::to_string(&run.origin.tools).unwrap_or_else(|_| "[]".into());
            tx.execute(
                "INSERT INTO run_queue (run_id, flow_file, tools, enqueued_at_ms)
                 VALUES ($1, $2, $3, $4)",
                &[
                    &run.run_id,
                    &run.origin.flow_file,
                    &tools,
                    &run.enqueued_at_ms,
                ],
            )
            .map_err(self.pg_error("cannot queue the run"))?;
            tx.commit()
                .map_err(self.pg_error("cannot commit the queued run"))
        })
    }

    pub(super) fn write_claim(
        &self,
        owner: &LeaseOwner,
        worker: &str,
        now_ms: i64,
    ) -> Result<Option<Claim>, JournalError> {
        self.with_client(|client| {
            let read = self.pg_error("cannot read the queue");
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start the claim"))?;
            // A queued run, oldest first: rows other claimers hold are passed over.
            let queued = tx
                .query_opt(
                    "SELECT r.run_id, q.flow_file, q.tools, r.lease_epoch
                     FROM runs r JOIN run_queue q ON q.run_id = r.run_id
                     WHERE r.status = 'queued'
                     ORDER BY q.enqueued_at_ms, r.run_id
                     LIMIT 1
                     FOR UPDATE OF r SKIP LOCKED",
                    &[],
                )
                .map_err(&read)?;
            let mut picked =
                queued.map(|row| (row.get(0), row.get(1), row.get(2), row.get(3), false));
            if picked.is_none() {
                // A queued run started by a worker that is gone: expired, or on this host
                // and dead (the one liveness rule, [`LeaseHolder::gone`]).
                let running = tx
                    .query(
                        "SELECT r.run_id, q.flow_file, q.tools, r.lease_epoch,
                                r.cancel_requested_at_ms
                         FROM runs r JOIN run_queue q ON q.run_id = r.run_id
                         LEFT JOIN leases l ON l.run_id = r.run_id
                         WHERE r.status = 'running'
                           AND (l.run_id IS NULL OR l.expires_at_ms <= $1 OR l.host_key = $2)
                         ORDER BY q.enqueued_at_ms, r.run_id
                         LIMIT $3
                         FOR UPDATE OF r SKIP LOCKED",
                        &[&now_ms, &owner.host_key, &TAKEOVER_CANDIDATES],
                    )
                    .map_err(&read)?;
                for row in running {
                    let run_id: String = row.get(0);
                    let holder = read_holder(&mut tx, &run_id)
                        .map_err(&read)?
                        .transpose()
                        .map_err(|m| self.corrupt(m))?;
                    if holder.is_some_and(|h| h.gone(&owner.host_key, now_ms).is_none()) {
                        continue;
                    }
                    if row.get::<_, Option<i64>>(4).is_some() {
                        // Its worker died while it was being cancelled: it ends cancelled.
                        tx.execute("DELETE FROM leases WHERE run_id = $1", &[&run_id])
                            .and_then(|_| {
                                tx.execute(
                                    "UPDATE runs SET status = 'cancelled',
                                         error_code = 'cancelled',
                                         error = 'cancelled (bflow runs cancel)',
                                         finished_at_ms = $2 WHERE run_id = $1",
                                    &[&run_id, &now_ms],
                                )
                            })
                            .map_err(self.pg_error("cannot end the cancelled run"))?;
                        continue;
                    }
                    picked = Some((run_id, row.get(1), row.get(2), row.get(3), true));
                    break;
                }
            }
            let Some((run_id, flow_file, tools, last_epoch, taken_over)) = picked else {
                tx.commit()
                    .map_err(self.pg_error("cannot commit the claim"))?;
                return Ok(None);
            };
            let last_epoch: i64 = last_epoch;
            let tools: String = tools;
            let tools: Vec<String> = serde_json::from_str(&tools)
                .map_err(|e| self.corrupt(format!("queued run `{run_id}`: its tools: {e}")))?;
            let claim = Claim {
                fence: Fence {
                    owner: owner.owner.clone(),
                    epoch: last_epoch + 1,
                },
                run_id,
                origin: QueueOrigin { flow_file, tools },
                taken_over,
            };
            let write = self.pg_error("cannot write the claim");
            write_lease(&mut tx, &claim.run_id, owner, now_ms, claim.fence.epoch)
                .map_err(&write)?;
            tx.execute(
                "UPDATE runs SET status = 'running' WHERE run_id = $1",
                &[&claim.run_id],
            )
            .map_err(&write)?;
            tx.execute(
                "UPDATE run_queue SET worker = $2, claimed_at_ms = $3 WHERE run_id = $1",
                &[&claim.run_id, &worker, &now_ms],
            )
            .map_err(&write)?;
            tx.commit()
                .map_err(self.pg_error("cannot commit the claim"))?;
            Ok(Some(claim))
        })
    }

    pub(super) fn write_requeue(&self, run_id: &str, fence: &Fence) -> Result<bool, JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            self.lock_run(&mut tx, run_id)?;
            release(&mut tx, run_id, fence).map_err(self.pg_error("cannot release the lease"))?;
            // Only while no one took the run since this fence's grant, and no cancel was
            // asked.
            let changed = tx
                .execute(
                    "UPDATE runs SET status = 'queued', error_code = NULL, error = NULL,
                         finished_at_ms = NULL
                     WHERE run_id = $1 AND lease_epoch = $2
                       AND status IN ('running', 'cancelled')
                       AND cancel_requested_at_ms IS NULL
                       AND NOT EXISTS (SELECT 1 FROM leases WHERE run_id = $1)",
                    &[&run_id, &fence.epoch],
                )
                .map_err(self.pg_error("cannot put the run back in the queue"))?;
            tx.commit()
                .map_err(self.pg_error("cannot commit the requeue"))?;
            Ok(changed == 1)
        })
    }

    pub(super) fn write_cancel(
        &self,
        run_id: &str,
        now_ms: i64,
    ) -> Result<CancelAnswer, JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            let status: String = tx
                .query_opt(
                    "SELECT status FROM runs WHERE run_id = $1 FOR UPDATE",
                    &[&run_id],
                )
                .map_err(self.pg_error("cannot read the run"))?
                .map(|row| row.get(0))
                .ok_or_else(|| self.unknown_run(run_id))?;
            let write = self.pg_error("cannot record the cancel");
            let answer = match status.as_str() {
                "queued" => {
                    tx.execute(
                        "UPDATE runs SET status = 'cancelled', error_code = 'cancelled',
                             error = 'cancelled before it started (bflow runs cancel)',
                             finished_at_ms = $2, cancel_requested_at_ms = $2
                         WHERE run_id = $1",
                        &[&run_id, &now_ms],
                    )
                    .map_err(&write)?;
                    CancelAnswer::Dequeued
                }
                "running" => {
                    tx.execute(
                        "UPDATE runs
                         SET cancel_requested_at_ms = COALESCE(cancel_requested_at_ms, $2)
                         WHERE run_id = $1",
                        &[&run_id, &now_ms],
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
                .map_err(self.pg_error("cannot commit the cancel"))?;
            Ok(answer)
        })
    }

    pub(super) fn read_cancel_requested(&self, run_id: &str) -> Result<bool, JournalError> {
        if self.schema_version()? < QUEUE_VERSION {
            return Ok(false);
        }
        self.with_client(|client| {
            let requested: Option<Option<i64>> = client
                .query_opt(
                    "SELECT cancel_requested_at_ms FROM runs WHERE run_id = $1",
                    &[&run_id],
                )
                .map_err(self.pg_error("cannot read the run's cancel request"))?
                .map(|row| row.get(0));
            Ok(requested.flatten().is_some())
        })
    }

    pub(super) fn read_run_entries(
        &self,
        limit: usize,
        run_id: Option<&str>,
    ) -> Result<Vec<RunEntry>, JournalError> {
        let queue = self.schema_version()? >= QUEUE_VERSION;
        let (join, worker, queued, cancel) = if queue {
            (
                "LEFT JOIN run_queue q ON q.run_id = r.run_id",
                "q.worker",
                "q.run_id IS NOT NULL",
                "r.cancel_requested_at_ms",
            )
        } else {
            ("", "NULL::TEXT", "FALSE", "NULL::BIGINT")
        };
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with_client(|client| {
            let err = self.pg_error("cannot list the runs");
            let mut tx = client
                .build_transaction()
                .read_only(true)
                .start()
                .map_err(&err)?;
            let rows = tx
                .query(
                    &format!(
                        "SELECT r.run_id, r.flow, r.status, r.started_at_ms, r.finished_at_ms,
                                {worker}, {queued}, {cancel}
                         FROM runs r {join}
                         WHERE $2::TEXT IS NULL OR r.run_id = $2
                         ORDER BY r.started_at_ms DESC, r.run_id DESC LIMIT $1"
                    ),
                    &[&limit, &run_id],
                )
                .map_err(&err)?;
            tx.commit().map_err(&err)?;
            Ok(rows
                .iter()
                .map(|r| {
                    let status: String = r.get(2);
                    let cancel: Option<i64> = r.get(7);
                    RunEntry {
                        run_id: r.get(0),
                        flow: r.get(1),
                        cancel_requested_at_ms: cancel.filter(|_| status == "running"),
                        status,
                        created_at_ms: r.get(3),
                        finished_at_ms: r.get(4),
                        worker: r.get(5),
                        queued: r.get(6),
                    }
                })
                .collect())
        })
    }
}

//! The `leases` rows and `runs.lease_epoch`: the rules of [`crate::journal::lease`] in SQL.

use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::SqliteJournal;
use crate::journal::lease::{Fence, LeaseAnswer, LeaseGrant, LeaseHolder, LeaseOwner, ttl_ms};
use crate::journal::{JournalError, JournalStore as _};

impl SqliteJournal {
    /// [`JournalStore::take_lease`](crate::journal::JournalStore::take_lease): reads the
    /// lease and the run's epoch and writes the new owner under `BEGIN IMMEDIATE`.
    pub(super) fn write_lease_take(
        &self,
        run_id: &str,
        owner: &LeaseOwner,
        now_ms: i64,
    ) -> Result<LeaseAnswer, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start the lease transaction"))?;
        let last_epoch: i64 = tx
            .query_row(
                "SELECT lease_epoch FROM runs WHERE run_id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.sqlite_error("cannot read the run"))?
            .ok_or_else(|| self.unknown_run(run_id))?;
        let next = Fence {
            owner: owner.owner.clone(),
            epoch: last_epoch + 1,
        };
        let holder =
            read_holder(&tx, run_id, true).map_err(self.sqlite_error("cannot read the lease"))?;
        let answer = match holder {
            // A retry of this owner's own take: the same lease, the same epoch.
            Some(holder) if holder.owner == owner.owner => LeaseAnswer::Granted(LeaseGrant {
                fence: Fence {
                    owner: holder.owner,
                    epoch: holder.epoch,
                },
                taken_over: None,
            }),
            Some(holder) => match holder.gone(&owner.host_key, now_ms) {
                None => LeaseAnswer::Held(holder),
                Some(why) => LeaseAnswer::Granted(LeaseGrant {
                    fence: next,
                    taken_over: Some((holder, why)),
                }),
            },
            None => LeaseAnswer::Granted(LeaseGrant {
                fence: next,
                taken_over: None,
            }),
        };
        if let LeaseAnswer::Granted(grant) = &answer {
            write_lease(&tx, run_id, owner, now_ms, grant.fence.epoch)
                .map_err(self.sqlite_error("cannot write the lease"))?;
        }
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the lease"))?;
        Ok(answer)
    }

    /// Renews the lease `fence` holds: conditional on the owner and the epoch.
    pub(super) fn write_lease_renewal(
        &self,
        run_id: &str,
        fence: &Fence,
        ttl: Duration,
        now_ms: i64,
    ) -> Result<bool, JournalError> {
        let conn = self.lock();
        let changed = conn
            .prepare_cached(
                "UPDATE leases SET heartbeat_at_ms = ?4, expires_at_ms = ?5
                 WHERE run_id = ?1 AND owner = ?2 AND epoch = ?3",
            )
            .and_then(|mut s| {
                s.execute(params![
                    run_id,
                    fence.owner,
                    fence.epoch,
                    now_ms,
                    now_ms.saturating_add(ttl_ms(ttl))
                ])
            })
            .map_err(self.sqlite_error("cannot renew the lease"))?;
        Ok(changed == 1)
    }

    /// Releases the lease `fence` holds (nothing if it no longer holds it).
    pub(super) fn write_lease_release(
        &self,
        run_id: &str,
        fence: &Fence,
    ) -> Result<(), JournalError> {
        let conn = self.lock();
        release(&conn, run_id, fence).map_err(self.sqlite_error("cannot release the lease"))?;
        Ok(())
    }

    /// Who holds the lease of `run_id`, if anyone.
    pub(super) fn read_lease_holder(
        &self,
        run_id: &str,
    ) -> Result<Option<LeaseHolder>, JournalError> {
        // An older journal opened read-only (so not migrated): version 1 predates leases (no
        // one holds its runs), version 2 their epochs (every lease is of epoch 0).
        let version = self.schema_version()?;
        if version < 2 {
            return Ok(None);
        }
        let conn = self.lock();
        read_holder(&conn, run_id, version >= 3).map_err(self.sqlite_error("cannot read the lease"))
    }

    /// Inside a write transaction begun with `BEGIN IMMEDIATE` (or a read): fails, writing
    /// nothing, unless the lease of `run_id` is exactly `fence` — the same owner and the
    /// same epoch. A missing lease (released) is nobody's.
    pub(super) fn fence(
        &self,
        conn: &Connection,
        run_id: &str,
        fence: &Fence,
    ) -> Result<(), JournalError> {
        match read_holder(conn, run_id, true).map_err(self.sqlite_error("cannot read the lease"))? {
            Some(holder) if holder.is(fence) => Ok(()),
            holder => Err(JournalError::LeaseLost {
                journal: self.describe(),
                run_id: run_id.to_owned(),
                epoch: fence.epoch,
                holder: holder.map(Box::new),
            }),
        }
    }
}

/// Writes `owner`'s lease of epoch `epoch`, and the run's last epoch with it.
pub(super) fn write_lease(
    conn: &Connection,
    run_id: &str,
    owner: &LeaseOwner,
    now_ms: i64,
    epoch: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO leases (run_id, owner, host, host_key, pid, pid_start,
             acquired_at_ms, heartbeat_at_ms, expires_at_ms, epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9)",
    )?
    .execute(params![
        run_id,
        owner.owner,
        owner.host,
        owner.host_key,
        owner.pid,
        owner.pid_start.map(|s| s as i64),
        now_ms,
        now_ms.saturating_add(owner.ttl_ms()),
        epoch
    ])?;
    conn.prepare_cached("UPDATE runs SET lease_epoch = ?2 WHERE run_id = ?1")?
        .execute(params![run_id, epoch])?;
    Ok(())
}

/// Deletes the lease if `fence` holds it.
pub(super) fn release(conn: &Connection, run_id: &str, fence: &Fence) -> rusqlite::Result<usize> {
    conn.prepare_cached("DELETE FROM leases WHERE run_id = ?1 AND owner = ?2 AND epoch = ?3")?
        .execute(params![run_id, fence.owner, fence.epoch])
}

/// The lease of `run_id`; `with_epoch` false for a version-2 file, whose leases have none.
pub(super) fn read_holder(
    conn: &Connection,
    run_id: &str,
    with_epoch: bool,
) -> rusqlite::Result<Option<LeaseHolder>> {
    let epoch = if with_epoch { "epoch" } else { "0" };
    conn.prepare_cached(&format!(
        "SELECT owner, host, host_key, pid, pid_start, acquired_at_ms, heartbeat_at_ms,
                expires_at_ms, {epoch}
         FROM leases WHERE run_id = ?1"
    ))?
    .query_row([run_id], |r| {
        Ok(LeaseHolder {
            owner: r.get(0)?,
            host: r.get(1)?,
            host_key: r.get(2)?,
            pid: r.get(3)?,
            pid_start: r.get::<_, Option<i64>>(4)?.map(|s| s as u64),
            acquired_at_ms: r.get(5)?,
            heartbeat_at_ms: r.get(6)?,
            expires_at_ms: r.get(7)?,
            epoch: r.get(8)?,
        })
    })
    .optional()
}

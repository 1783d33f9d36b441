//! The `leases` rows and `runs.lease_epoch`: the rules of [`crate::journal::lease`] in SQL,
//! each fenced transaction serialised with every takeover by the run's row lock.

use std::time::Duration;

use postgres::{GenericClient, Row, Transaction};

use super::PgJournal;
use crate::journal::lease::{Fence, LeaseAnswer, LeaseGrant, LeaseHolder, LeaseOwner, ttl_ms};
use crate::journal::{JournalError, JournalStore as _};

const HOLDER_COLUMNS: &str = "owner, host, host_key, pid, pid_start, acquired_at_ms, \
     heartbeat_at_ms, expires_at_ms, epoch";

impl PgJournal {
    /// [`JournalStore::take_lease`](crate::journal::JournalStore::take_lease): locks the
    /// run's row, reads the lease and the run's epoch and writes the new owner, at once.
    pub(super) fn write_lease_take(
        &self,
        run_id: &str,
        owner: &LeaseOwner,
        now_ms: i64,
    ) -> Result<LeaseAnswer, JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start the lease transaction"))?;
            let last_epoch = self.lock_run(&mut tx, run_id)?;
            let next = Fence {
                owner: owner.owner.clone(),
                epoch: last_epoch + 1,
            };
            let holder = read_holder(&mut tx, run_id)
                .map_err(self.pg_error("cannot read the lease"))?
                .transpose()
                .map_err(|m| self.corrupt(m))?;
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
                write_lease(&mut tx, run_id, owner, now_ms, grant.fence.epoch)
                    .map_err(self.pg_error("cannot write the lease"))?;
            }
            tx.commit()
                .map_err(self.pg_error("cannot commit the lease"))?;
            Ok(answer)
        })
    }

    /// Renews the lease `fence` holds: conditional on the owner and the epoch.
    pub(super) fn write_lease_renewal(
        &self,
        run_id: &str,
        fence: &Fence,
        ttl: Duration,
        now_ms: i64,
    ) -> Result<bool, JournalError> {
        self.with_client(|client| {
            let changed = client
                .execute(
                    "UPDATE leases SET heartbeat_at_ms = $4, expires_at_ms = $5
                     WHERE run_id = $1 AND owner = $2 AND epoch = $3",
                    &[
                        &run_id,
                        &fence.owner,
                        &fence.epoch,
                        &now_ms,
                        &now_ms.saturating_add(ttl_ms(ttl)),
                    ],
                )
                .map_err(self.pg_error("cannot renew the lease"))?;
            Ok(changed == 1)
        })
    }

    /// Releases the lease `fence` holds (nothing if it no longer holds it).
    pub(super) fn write_lease_release(
        &self,
        run_id: &str,
        fence: &Fence,
    ) -> Result<(), JournalError> {
        self.with_client(|client| {
            release(client, run_id, fence).map_err(self.pg_error("cannot release the lease"))?;
            Ok(())
        })
    }

    /// Who holds the lease of `run_id`, if anyone.
    pub(super) fn read_lease_holder(
        &self,
        run_id: &str,
    ) -> Result<Option<LeaseHolder>, JournalError> {
        self.with_client(|client| {
            read_holder(client, run_id)
                .map_err(self.pg_error("cannot read the lease"))?
                .transpose()
                .map_err(|m| self.corrupt(m))
        })
    }

    /// Locks the row of `run_id` for the rest of the transaction (every takeover locks it
    /// first too) and returns the last epoch granted.
    pub(super) fn lock_run(
        &self,
        tx: &mut Transaction<'_>,
        run_id: &str,
    ) -> Result<i64, JournalError> {
        tx.query_opt(
            "SELECT lease_epoch FROM runs WHERE run_id = $1 FOR UPDATE",
            &[&run_id],
        )
        .map_err(self.pg_error("cannot lock the run"))?
        .map(|row| row.get(0))
        .ok_or_else(|| self.unknown_run(run_id))
    }

    /// Inside a transaction: locks the run's row, then fails, writing nothing, unless the
    /// lease of `run_id` is exactly `fence` — the same owner and the same epoch. A missing
    /// lease (released) is nobody's.
    pub(super) fn fence(
        &self,
        tx: &mut Transaction<'_>,
        run_id: &str,
        fence: &Fence,
    ) -> Result<(), JournalError> {
        let holder = match self.lock_run(tx, run_id) {
            Ok(_) => read_holder(tx, run_id)
                .map_err(self.pg_error("cannot read the lease"))?
                .transpose()
                .map_err(|m| self.corrupt(m))?,
            // A run nobody recorded has no lease this fence could hold.
            Err(JournalError::UnknownRun { .. }) => None,
            Err(e) => return Err(e),
        };
        match holder {
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
    client: &mut impl GenericClient,
    run_id: &str,
    owner: &LeaseOwner,
    now_ms: i64,
    epoch: i64,
) -> Result<(), postgres::Error> {
    client.execute(
        "INSERT INTO leases (run_id, owner, host, host_key, pid, pid_start,
             acquired_at_ms, heartbeat_at_ms, expires_at_ms, epoch)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9)
         ON CONFLICT (run_id) DO UPDATE SET owner = $2, host = $3, host_key = $4, pid = $5,
             pid_start = $6, acquired_at_ms = $7, heartbeat_at_ms = $7, expires_at_ms = $8,
             epoch = $9",
        &[
            &run_id,
            &owner.owner,
            &owner.host,
            &owner.host_key,
            &i64::from(owner.pid),
            &owner.pid_start.map(|s| s as i64),
            &now_ms,
            &now_ms.saturating_add(owner.ttl_ms()),
            &epoch,
        ],
    )?;
    client.execute(
        "UPDATE runs SET lease_epoch = $2 WHERE run_id = $1",
        &[&run_id, &epoch],
    )?;
    Ok(())
}

/// Deletes the lease if `fence` holds it.
pub(super) fn release(
    client: &mut impl GenericClient,
    run_id: &str,
    fence: &Fence,
) -> Result<u64, postgres::Error> {
    client.execute(
        "DELETE FROM leases WHERE run_id = $1 AND owner = $2 AND epoch = $3",
        &[&run_id, &fence.owner, &fence.epoch],
    )
}

/// The lease of `run_id`; the inner error says what of a row does not read back.
pub(super) fn read_holder(
    client: &mut impl GenericClient,
    run_id: &str,
) -> Result<Option<Result<LeaseHolder, String>>, postgres::Error> {
    Ok(client
        .query_opt(
            &format!("SELECT {HOLDER_COLUMNS} FROM leases WHERE run_id = $1"),
            &[&run_id],
        )?
        .map(|row| holder_of(&row)))
}

fn holder_of(row: &Row) -> Result<LeaseHolder, String> {
    let pid: i64 = row.get(3);
    Ok(LeaseHolder {
        owner: row.get(0),
        host: row.get(1),
        host_key: row.get(2),
        pid: u32::try_from(pid).map_err(|_| format!("a lease has the process id {pid}"))?,
        pid_start: row.get::<_, Option<i64>>(4).map(|s| s as u64),
        acquired_at_ms: row.get(5),
        heartbeat_at_ms: row.get(6),
        expires_at_ms: row.get(7),
        epoch: row.get(8),
    })
}

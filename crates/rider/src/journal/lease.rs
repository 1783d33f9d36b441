//! Run leases: which process is executing a run, so that no two execute it at once.
//!
//! A run being executed has one row in `leases`: the owner (a random id per session), the
//! host it runs on (for people: the host name; for the liveness rule: a host key), its pid
//! and the pid's start time, when it took the lease, its last heartbeat and when the lease
//! expires. The same rules serve one laptop and many workers on many machines sharing one
//! journal file, because every decision is taken inside one SQLite write transaction and
//! depends only on what the row says and what this host can observe.
//!
//! The rules, and why each is sound:
//!
//! - **Taking is one transaction.** [`Journal::take_lease`] reads the row and writes the new
//!   owner under `BEGIN IMMEDIATE`, which takes SQLite's write lock before reading. Two
//!   takers are serialised: the second reads the first's row, not the state before it, so
//!   of two resumes started at once exactly one proceeds (check-then-set across two
//!   transactions would let both see "free"). A new run inserts its lease in the
//!   transaction that records the run, so a run is never visible without its owner.
//! - **A live lease is refused, naming its owner.** Live means: not expired, and — when the
//!   owner is on this host — its process still exists with the same start time.
//! - **A gone owner's lease is taken over.** Gone means either of:
//!   - *expired*: its last heartbeat is older than its time to live. Owners renew every
//!     third of the time to live ([`LeaseOwner::heartbeat_interval`]), so an owner that let
//!     it expire has missed two renewals: it is dead, hung or cut off. This is the only rule
//!     for an owner on another host, whose processes this host cannot see; it assumes the
//!     hosts' clocks differ by much less than the time to live (30 s by default).
//!   - *dead on this host*: same host key and no process with that pid and start time. The
//!     start time (Linux `/proc/PID/stat`) tells a reused pid from the owner. The host key
//!     is the host name, the boot id and the pid namespace, so two containers with one host
//!     name, or a host after a reboot, never judge each other's pids; on a system without
//!     `/proc` the process cannot be checked and only expiry applies.
//! - **Every effect is fenced.** An owner whose lease was taken over (it stopped
//!   heartbeating, then woke up) must not act: starting an effectful step and ending the run
//!   check, in the same write transaction, that this owner still holds the lease, and
//!   stop with [`JournalError::LeaseLost`] otherwise. So after a takeover commits, the old
//!   owner starts no effect and writes no outcome over the new owner's.
//! - **Renewal is conditional** on the owner (`UPDATE … WHERE owner = ?`): a heartbeat can
//!   never resurrect a lease someone else took.
//! - **Release** deletes the row only if this owner holds it, with the run's outcome, in one
//!   transaction.
//!
//! What a lease does not do: an owner killed between an effect and its commit leaves an
//! effect in doubt; the next owner repeats it under the same idempotency key (see the
//! journal). The lease only guarantees that the repeat and the original never overlap.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::{Journal, JournalError};

/// The default time to live of a lease.
pub const DEFAULT_LEASE_TTL: Duration = Duration::from_secs(30);

/// Who takes a lease: one session of one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseOwner {
    /// Random per session: two Riders in one process are two owners.
    pub owner: String,
    /// The host name, for people.
    pub host: String,
    /// What the liveness rule compares: host name, boot id, pid namespace.
    pub host_key: String,
    /// The process id.
    pub pid: u32,
    /// The process start time (clock ticks since boot), where the system tells it.
    pub pid_start: Option<u64>,
    /// How long the lease lasts without a heartbeat.
    pub ttl: Duration,
}

/// A lease as the journal holds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LeaseHolder {
    /// The owner id.
    pub owner: String,
    /// Its host name.
    pub host: String,
    /// Its host key.
    pub host_key: String,
    /// Its pid.
    pub pid: u32,
    /// Its pid's start time.
    pub pid_start: Option<u64>,
    /// When it took the lease (Unix ms).
    pub acquired_at_ms: i64,
    /// Its last heartbeat (Unix ms).
    pub heartbeat_at_ms: i64,
    /// When the lease expires without another heartbeat (Unix ms).
    pub expires_at_ms: i64,
}

impl std::fmt::Display for LeaseHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "owner {} (pid {} on host {})",
            self.owner, self.pid, self.host
        )
    }
}

/// Why a previous owner's lease was taken over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Takeover {
    /// Its process is gone from this host.
    DeadProcess,
    /// Its heartbeat expired.
    Expired,
}

/// A lease taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseGrant {
    /// The owner it was taken from, and why, if any.
    pub taken_over: Option<(LeaseHolder, Takeover)>,
}

/// The answer to a take: granted, or held by a live owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaseAnswer {
    /// This owner holds the lease now.
    Granted(LeaseGrant),
    /// A live owner holds it.
    Held(LeaseHolder),
}

impl LeaseOwner {
    /// This process, with a new random owner id and the given time to live.
    pub fn this_process(ttl: Duration) -> LeaseOwner {
        let pid = std::process::id();
        let host = host_name();
        let owner = random_owner_id();
        let host_key = match host_key(&host) {
            Some(key) => key,
            // Unknown identity: never "this host" to anyone, so only expiry applies.
            None => format!("unknown/{owner}"),
        };
        LeaseOwner {
            owner,
            host,
            host_key,
            pid,
            pid_start: process_start(pid),
            ttl,
        }
    }

    /// How often to renew: a third of the time to live, so one late heartbeat does not
    /// lose the lease.
    pub fn heartbeat_interval(&self) -> Duration {
        (self.ttl / 3).max(Duration::from_millis(10))
    }

    fn ttl_ms(&self) -> i64 {
        i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX)
    }
}

impl Journal {
    /// Takes the lease of `run_id` for `owner` at `now_ms`, in one write transaction: free,
    /// already this owner's, or its owner gone ⇒ granted; otherwise held.
    pub fn take_lease(
        &self,
        run_id: &str,
        owner: &LeaseOwner,
        now_ms: i64,
    ) -> Result<LeaseAnswer, JournalError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.sqlite_error("cannot start the lease transaction"))?;
        let known: Option<i64> = tx
            .query_row("SELECT 1 FROM runs WHERE run_id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(self.sqlite_error("cannot read the run"))?;
        if known.is_none() {
            return Err(self.unknown_run(run_id));
        }
        let answer =
            match read_holder(&tx, run_id).map_err(self.sqlite_error("cannot read the lease"))? {
                Some(holder) if holder.owner != owner.owner => {
                    match gone(&holder, &owner.host_key, now_ms) {
                        None => LeaseAnswer::Held(holder),
                        Some(why) => LeaseAnswer::Granted(LeaseGrant {
                            taken_over: Some((holder, why)),
                        }),
                    }
                }
                _ => LeaseAnswer::Granted(LeaseGrant { taken_over: None }),
            };
        if matches!(answer, LeaseAnswer::Granted(_)) {
            write_lease(&tx, run_id, owner, now_ms)
                .map_err(self.sqlite_error("cannot write the lease"))?;
        }
        tx.commit()
            .map_err(self.sqlite_error("cannot commit the lease"))?;
        Ok(answer)
    }

    /// Renews `owner`'s lease of `run_id`: `false` when it no longer holds it.
    pub fn renew_lease(
        &self,
        run_id: &str,
        owner: &LeaseOwner,
        now_ms: i64,
    ) -> Result<bool, JournalError> {
        let conn = self.lock();
        let changed = conn
            .prepare_cached(
                "UPDATE leases SET heartbeat_at_ms = ?3, expires_at_ms = ?4
                 WHERE run_id = ?1 AND owner = ?2",
            )
            .and_then(|mut s| {
                s.execute(params![
                    run_id,
                    owner.owner,
                    now_ms,
                    now_ms.saturating_add(owner.ttl_ms())
                ])
            })
            .map_err(self.sqlite_error("cannot renew the lease"))?;
        Ok(changed == 1)
    }

    /// Releases `owner`'s lease of `run_id` (nothing if another owner holds it).
    pub fn release_lease(&self, run_id: &str, owner: &str) -> Result<(), JournalError> {
        let conn = self.lock();
        conn.execute(
            "DELETE FROM leases WHERE run_id = ?1 AND owner = ?2",
            params![run_id, owner],
        )
        .map_err(self.sqlite_error("cannot release the lease"))?;
        Ok(())
    }

    /// Who holds the lease of `run_id`, if anyone.
    pub fn lease_holder(&self, run_id: &str) -> Result<Option<LeaseHolder>, JournalError> {
        // A version-1 journal (opened read-only, so not migrated) predates leases: no one
        // holds its runs.
        if self.schema_version()? < 2 {
            return Ok(None);
        }
        let conn = self.lock();
        read_holder(&conn, run_id).map_err(self.sqlite_error("cannot read the lease"))
    }

    /// Inside a write transaction: fails unless `owner` holds the lease of `run_id`.
    pub(crate) fn fence(
        &self,
        tx: &Transaction<'_>,
        run_id: &str,
        owner: &str,
    ) -> Result<(), JournalError> {
        match read_holder(tx, run_id).map_err(self.sqlite_error("cannot read the lease"))? {
            Some(holder) if holder.owner != owner => Err(JournalError::LeaseLost {
                path: self.path.clone(),
                run_id: run_id.to_owned(),
                holder: Box::new(holder),
            }),
            // Held by this owner, or (a released lease) by no one: this owner is the last
            // one that held it, so no one else has acted since.
            _ => Ok(()),
        }
    }
}

pub(crate) fn write_lease(
    tx: &Transaction<'_>,
    run_id: &str,
    owner: &LeaseOwner,
    now_ms: i64,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT OR REPLACE INTO leases (run_id, owner, host, host_key, pid, pid_start,
             acquired_at_ms, heartbeat_at_ms, expires_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)",
    )?
    .execute(params![
        run_id,
        owner.owner,
        owner.host,
        owner.host_key,
        owner.pid,
        owner.pid_start.map(|s| s as i64),
        now_ms,
        now_ms.saturating_add(owner.ttl_ms())
    ])?;
    Ok(())
}

fn read_holder(tx: &Connection, run_id: &str) -> rusqlite::Result<Option<LeaseHolder>> {
    tx.prepare_cached(
        "SELECT owner, host, host_key, pid, pid_start, acquired_at_ms, heartbeat_at_ms,
                expires_at_ms
         FROM leases WHERE run_id = ?1",
    )?
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
        })
    })
    .optional()
}

/// Why `holder` is gone, seen from a process on `host_key` at `now_ms`; `None` if it is live.
fn gone(holder: &LeaseHolder, host_key: &str, now_ms: i64) -> Option<Takeover> {
    if now_ms >= holder.expires_at_ms {
        return Some(Takeover::Expired);
    }
    if holder.host_key == host_key && !process_alive(holder.pid, holder.pid_start) {
        return Some(Takeover::DeadProcess);
    }
    None
}

/// Whether process `pid`, started at `start`, still runs on this host. Without `/proc` it
/// cannot be told, and is assumed alive (expiry still applies).
fn process_alive(pid: u32, start: Option<u64>) -> bool {
    if !Path::new("/proc/self/stat").exists() {
        return true;
    }
    let Some(stat) = read_stat(pid) else {
        return false;
    };
    if stat.zombie {
        return false;
    }
    match (start, stat.start) {
        (Some(recorded), Some(now)) => recorded == now,
        _ => true,
    }
}

struct Stat {
    zombie: bool,
    start: Option<u64>,
}

fn read_stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state …`: comm may hold spaces and parentheses, so split after the last `)`.
    let rest = text.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        zombie: fields.first() == Some(&"Z") || fields.first() == Some(&"X"),
        // Field 22 of the line is the start time; `fields` starts at field 3.
        start: fields.get(19).and_then(|s| s.parse().ok()),
    })
}

fn process_start(pid: u32) -> Option<u64> {
    read_stat(pid)?.start
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Host name, boot id and pid namespace: equal exactly when two processes can see each
/// other's pids. `None` where the system does not tell them.
fn host_key(host: &str) -> Option<String> {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let pid_ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
    Some(format!(
        "{host}/{}/{}",
        boot.trim(),
        pid_ns.to_string_lossy()
    ))
}

/// 128 random bits in hex, from the OS's seeded hasher and the time: unique per session.
fn random_owner_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut id = String::new();
    for round in 0..2u8 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u8(round);
        hasher.write_u32(std::process::id());
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        id.push_str(&format!("{:016x}", hasher.finish()));
    }
    id
}

/// Renews a lease every [`LeaseOwner::heartbeat_interval`] on a thread of its own (so a
/// busy or blocked async runtime cannot starve it), until dropped.
pub(crate) struct Heartbeat {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    pub(crate) fn start(
        journal: std::sync::Arc<Journal>,
        run_id: String,
        owner: LeaseOwner,
    ) -> Heartbeat {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let interval = owner.heartbeat_interval();
        let spawned = std::thread::Builder::new()
            .name("bf-lease-heartbeat".to_owned())
            .spawn(move || {
                // A message or a dropped sender both mean: the session is over.
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(interval)
                {
                    match journal.renew_lease(&run_id, &owner, crate::rider::now_ms()) {
                        Ok(true) => {}
                        Ok(false) => {
                            // Released by this session as it ended (silent), or taken over:
                            // then the fence stops this session before its next effect.
                            if let Ok(Some(holder)) = journal.lease_holder(&run_id) {
                                tracing::warn!(
                                    "run {run_id}: the lease was taken over by {holder}"
                                );
                            }
                            break;
                        }
                        Err(e) => tracing::warn!("run {run_id}: cannot renew the lease: {e}"),
                    }
                }
            });
        let thread = spawned
            .map_err(|e| tracing::warn!("cannot start the lease heartbeat: {e}"))
            .ok();
        Heartbeat {
            stop: Some(stop),
            thread,
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // It wakes at once: joined, its handle on the journal is gone when the run returns
        // (the last connection's close checkpoints the WAL).
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

//! Run leases: which process is executing a run, so that no two execute it at once, and a
//! deposed one never acts again.
//!
//! A run being executed has one lease: the owner (a random id per session), the host it runs
//! on (for people: the host name; for the liveness rule: a host key), its pid and the pid's
//! start time, when it took the lease, its last heartbeat, when the lease expires, and its
//! **epoch**: a number kept with the run that every grant to a new owner increases (a run's
//! first session holds epoch 1). An owner acts under a [`Fence`] — its owner id and its
//! epoch. The same rules serve one laptop and many workers on many machines sharing one
//! journal, because every decision is taken inside one write transaction of the journal
//! ([`JournalStore`](super::JournalStore)) and depends only on what the journal holds and
//! what this host can observe.
//!
//! The rules, and why each is sound:
//!
//! - **Taking is one transaction.** [`JournalStore::take_lease`](super::JournalStore::take_lease)
//!   reads the lease and writes the new owner in one write transaction that holds the write
//!   lock before reading (SQLite: `BEGIN IMMEDIATE`). Two takers are serialised: the second
//!   reads the first's lease, not the state before it, so of two resumes started at once
//!   exactly one proceeds (check-then-set across two transactions would let both see
//!   "free"). A new run inserts its lease in the transaction that records the run, so a run
//!   is never visible without its owner.
//! - **A live lease is refused, naming its owner.** Live means: not expired, and — when the
//!   owner is on this host — its process still exists with the same start time.
//! - **A gone owner's lease is taken over, with a new epoch.** Gone ([`LeaseHolder::gone`])
//!   means either of:
//!   - *expired*: its last heartbeat is older than its time to live. Owners renew every
//!     third of the time to live ([`LeaseOwner::heartbeat_interval`]), so an owner that let
//!     it expire has missed two renewals: it is dead, hung, stopped (SIGSTOP) or cut off.
//!     This is the only rule for an owner on another host, whose processes this host cannot
//!     see; it assumes the hosts' clocks differ by much less than the time to live (30 s by
//!     default).
//!   - *dead on this host*: same host key and no process with that pid and start time. The
//!     start time (Linux `/proc/PID/stat`) tells a reused pid from the owner. The host key
//!     is the host name, the boot id and the pid namespace, so two containers with one host
//!     name, or a host after a reboot, never judge each other's pids; on a system without
//!     `/proc` the process cannot be checked and only expiry applies.
//!
//!   The grant increases the run's epoch in the same transaction. Epochs only grow, and the
//!   lease of an epoch is granted once, so a fence names at most one session ever.
//! - **Every write and every effect is fenced.** A session acts only while the journal says
//!   it holds the lease: each of its writes — opening a session, recording the intent of an
//!   effect with the pending step rows, recording an attempt's outcome, ending the run —
//!   first checks, inside the same write transaction, that the lease exists, is this
//!   owner's and has this epoch, and writes nothing otherwise
//!   ([`JournalError::LeaseLost`](super::JournalError::LeaseLost): the session was
//!   deposed, and stops). Right before a tool's effect starts, the fence is checked once
//!   more ([`JournalStore::check_fence`](super::JournalStore::check_fence)), after the
//!   intent's commit and the crash hook. So once a takeover commits, the old owner starts
//!   no effect it had not already started, and writes no row: no attempt row, no outcome,
//!   no run status over the new owner's.
//! - **A deposed session's tools stop when its heartbeat notices.** The fence stops a
//!   session at its next write; a browser step in progress may have none for a while. So a
//!   renewal that finds the lease no longer this fence's cancels the session's tools
//!   ([`Heartbeat`]), and a run whose steps failed is reported as deposed when the fence is
//!   lost (not as the cancellation the stop caused). This shortens what a deposed owner
//!   still does in its own browser; soundness rests on the fence, not on this.
//! - **A released lease is nobody's.** Ending a run deletes its lease; a missing lease
//!   fences every session out, including the one that released it. (Before the epoch, a
//!   missing lease counted as "still mine": an owner stopped during a step, taken over by
//!   a resume that finished and released, then continued, posted again and wrote its
//!   outcome over the new owner's.)
//! - **Recorded effects are consulted before an effect.** Recording the intent of an effect
//!   first looks for the step's recorded outcome, in the same transaction: a step whose
//!   effect is recorded is never attempted again, whoever asks.
//! - **Renewal is conditional** on the owner and the epoch: a heartbeat can never resurrect
//!   a lease someone else took, nor one that was released.
//! - **Release** deletes the lease only if this fence holds it, with the run's outcome, in
//!   one transaction.
//!
//! What a lease does not do: it fences the journal, not the world. An owner stopped while
//! its effect is in flight (the request sent, the answer not yet read), or between the last
//! fence check and the first byte of its effect, may complete that one effect after a
//! takeover; the new owner repeats it under the same idempotency key (see the journal), and
//! the old owner, when it wakes, records nothing and stops. Likewise an owner killed between
//! an effect and its commit leaves the effect in doubt, repeated under the same key. Only a
//! receiver that honours the idempotency key makes the effect itself exactly-once.

use std::path::Path;
use std::time::Duration;

use super::JournalStore;

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
    /// The lease's epoch: how many times the run's lease was granted to a new owner.
    pub epoch: i64,
}

impl LeaseHolder {
    /// Why this holder is gone, seen from a process on `host_key` at `now_ms`; `None` if it
    /// is live. The one liveness rule every backend applies when a lease is taken.
    pub fn gone(&self, host_key: &str, now_ms: i64) -> Option<Takeover> {
        if now_ms >= self.expires_at_ms {
            return Some(Takeover::Expired);
        }
        if self.host_key == host_key && !process_alive(self.pid, self.pid_start) {
            return Some(Takeover::DeadProcess);
        }
        None
    }

    /// Whether this is the lease `fence` names.
    pub fn is(&self, fence: &Fence) -> bool {
        self.owner == fence.owner && self.epoch == fence.epoch
    }
}

/// What a session acts under: its owner id and the epoch of the lease it was granted. Every
/// write of the session, and every effect it starts, is made only while the journal's lease
/// of the run is exactly this.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fence {
    /// The owner id ([`LeaseOwner::owner`]).
    pub owner: String,
    /// The lease's epoch.
    pub epoch: i64,
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
    /// What the new owner acts under.
    pub fence: Fence,
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

    /// [`LeaseOwner::ttl`] in milliseconds.
    pub fn ttl_ms(&self) -> i64 {
        ttl_ms(self.ttl)
    }
}

/// `ttl` in milliseconds, saturating.
pub(crate) fn ttl_ms(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
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
/// busy or blocked async runtime cannot starve it), until dropped. Once a renewal finds the
/// lease no longer this session's, it cancels `lost`: the session's tools are stopped at
/// their next await, not only at the session's next write.
pub(crate) struct Heartbeat {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    pub(crate) fn start(
        journal: std::sync::Arc<dyn JournalStore>,
        run_id: String,
        owner: &LeaseOwner,
        fence: Fence,
        lost: crate::signal::CancelHandle,
    ) -> Heartbeat {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let interval = owner.heartbeat_interval();
        let ttl = owner.ttl;
        let spawned = std::thread::Builder::new()
            .name("bf-lease-heartbeat".to_owned())
            .spawn(move || {
                // A message or a dropped sender both mean: the session is over.
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(interval)
                {
                    match journal.renew_lease(&run_id, &fence, ttl, crate::rider::now_ms()) {
                        Ok(true) => {}
                        Ok(false) => {
                            // Released by this session as it ended (its steps are done:
                            // cancelling stops nothing), or taken over: then the tools at
                            // work stop now, and the fence refuses this session's next
                            // write or effect in any case.
                            lost.cancel();
                            match journal.lease_holder(&run_id) {
                                Ok(Some(holder)) if !holder.is(&fence) => tracing::warn!(
                                    "run {run_id}: deposed, the lease was taken over by {holder}"
                                ),
                                _ => {}
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

//! The PostgreSQL backend of the journal: the same tables as the SQLite file, in a schema
//! of their own (`browserflow`) of a database many processes and hosts share.
//!
//! Client: rust-postgres's blocking `postgres::Client`, one connection per journal, its
//! operations serialised by a mutex as the SQLite backend's are. The client drives a
//! runtime of its own, which must not start on a thread of the caller's runtime (the Rider
//! calls the store from its async steps): such a call runs on a scoped thread of its own
//! ([`PgJournal::with_client`]), so the caller's runtime is only blocked as by SQLite.
//!
//! Identity and migrations: `browserflow.journal_meta` holds the application
//! ([`PG_APPLICATION`]) and the schema version. [`PG_MIGRATIONS`] are applied in order in one
//! transaction under a transaction-scoped advisory lock, so two processes opening a new
//! database at once migrate it once. A read-only open ([`PgJournal::open_read_only`])
//! creates nothing and runs every statement in read-only transactions.
//!
//! Concurrency, exactly as strict as SQLite's `BEGIN IMMEDIATE`: every fenced operation
//! and every lease take starts by locking the run's row (`SELECT … FOR UPDATE`), then reads
//! the lease and writes in the same transaction; a takeover locks the same row first, so no
//! takeover commits between a fence check and the write it guards. A renewal and a release
//! are single statements conditional on owner and epoch, which PostgreSQL re-checks on the
//! latest row version after a concurrent takeover.

mod lease;
mod queue;
mod report;
mod schedules;
mod write;

use std::str::FromStr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use serde_json::Value;

use super::lease::{Fence, LeaseAnswer, LeaseHolder, LeaseOwner};
use super::queue::{CancelAnswer, Claim, RunEntry};
use super::store::{
    Attempt, AttemptOutcome, EffectStart, JournalStore, PendingStep, QueuedStart, RunEnd,
    RunRecord, RunStart,
};
use super::{JournalError, RunReport, RunSummary};
use crate::redact::Redactor;

/// What `browserflow.journal_meta.application` says of a browserflow journal.
pub const PG_APPLICATION: &str = "browserflow-journal";

/// The schema the journal's tables live in.
const SCHEMA_NAME: &str = "browserflow";

/// Key of the advisory lock taken while migrating (`bfjl`, as SQLite's application id).
const MIGRATION_LOCK: i64 = 0x6266_6a6c;

/// The migrations, in order: version `i + 1` is `PG_MIGRATIONS[i]`. Version 1 holds what
/// SQLite's version 5 holds (runs, steps, attempts, effects, plan rows, leases with their
/// epochs, step warnings, schedules and their firings); version 2 adds the run queue
/// (`run_queue`, `runs.cancel_requested_at_ms`), as SQLite's version 6.
pub const PG_MIGRATIONS: [&str; 2] = [
    "
CREATE TABLE browserflow.runs (
    run_id TEXT PRIMARY KEY,
    flow TEXT NOT NULL,
    flow_digest TEXT NOT NULL,
    status TEXT NOT NULL,
    inputs TEXT NOT NULL,
    env TEXT NOT NULL,
    clock_ms BIGINT NOT NULL,
    started_at_ms BIGINT NOT NULL,
    finished_at_ms BIGINT,
    output TEXT,
    error_code TEXT,
    error TEXT,
    sessions BIGINT NOT NULL DEFAULT 1,
    lease_epoch BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_start ON browserflow.runs(started_at_ms);
CREATE TABLE browserflow.steps (
    run_id TEXT NOT NULL REFERENCES browserflow.runs(run_id),
    step_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    tool_ref TEXT NOT NULL,
    contract_digest TEXT NOT NULL,
    input_digest TEXT,
    effectful BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    input TEXT,
    output TEXT,
    error TEXT,
    attempts BIGINT NOT NULL DEFAULT 0,
    started_at_ms BIGINT,
    duration_us BIGINT,
    warnings TEXT,
    PRIMARY KEY (run_id, step_id)
);
CREATE TABLE browserflow.attempts (
    run_id TEXT NOT NULL,
    step_id TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    session BIGINT NOT NULL,
    started_at_ms BIGINT NOT NULL,
    duration_us BIGINT,
    outcome TEXT NOT NULL,
    error TEXT,
    PRIMARY KEY (run_id, step_id, attempt)
);
CREATE TABLE browserflow.effects (
    run_id TEXT NOT NULL,
    step_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    tool_ref TEXT NOT NULL,
    contract_digest TEXT NOT NULL,
    input_digest TEXT NOT NULL,
    output TEXT NOT NULL,
    recorded_at_ms BIGINT NOT NULL,
    PRIMARY KEY (run_id, step_id)
);
CREATE TABLE browserflow.plan_steps (
    run_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    step_id TEXT NOT NULL,
    tool_ref TEXT NOT NULL,
    contract_digest TEXT NOT NULL,
    bindings TEXT NOT NULL,
    when_digest TEXT,
    when_text TEXT,
    PRIMARY KEY (run_id, position)
);
CREATE TABLE browserflow.leases (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    host_key TEXT NOT NULL,
    pid BIGINT NOT NULL,
    pid_start BIGINT,
    acquired_at_ms BIGINT NOT NULL,
    heartbeat_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    epoch BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE browserflow.schedules (
    name TEXT PRIMARY KEY,
    flow TEXT NOT NULL,
    tools TEXT NOT NULL,
    cron TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    inputs TEXT NOT NULL,
    overlap TEXT NOT NULL,
    catch_up TEXT NOT NULL,
    notify TEXT,
    paused BOOLEAN NOT NULL DEFAULT FALSE,
    active_since_ms BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE TABLE browserflow.schedule_firings (
    schedule TEXT NOT NULL,
    slot_ms BIGINT NOT NULL,
    run_id TEXT NOT NULL,
    state TEXT NOT NULL,
    worker TEXT NOT NULL,
    claimed_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    detail TEXT,
    manual BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (schedule, slot_ms)
);
",
    "
ALTER TABLE browserflow.runs ADD COLUMN cancel_requested_at_ms BIGINT;
CREATE INDEX runs_by_status ON browserflow.runs(status);
CREATE TABLE browserflow.run_queue (
    run_id TEXT PRIMARY KEY,
    flow_file TEXT NOT NULL,
    tools TEXT NOT NULL,
    enqueued_at_ms BIGINT NOT NULL,
    worker TEXT,
    claimed_at_ms BIGINT
);
",
];

/// The schema version this program writes: the number of [`PG_MIGRATIONS`].
pub const PG_SCHEMA_VERSION: i64 = PG_MIGRATIONS.len() as i64;

/// A `postgres://…` URL (or `host=… dbname=…` words), parsed; shown without its password.
#[derive(Clone)]
pub struct PgUrl {
    text: String,
    // Boxed: a location is passed around by value, and the configuration is large.
    config: Box<Config>,
}

impl PgUrl {
    /// Parses `text`, a `postgres://` or `postgresql://` URL.
    pub fn parse(text: &str) -> Result<PgUrl, JournalError> {
        let config = Config::from_str(text).map_err(|e| JournalError::BadDatabaseUrl {
            // The parser's message never repeats the URL; the URL may hold a password.
            message: e.to_string(),
        })?;
        Ok(PgUrl {
            text: text.to_owned(),
            config: Box::new(config),
        })
    }

    /// The URL as given, password included: for connecting, and for handing to a child
    /// process; never for a message.
    pub fn as_secret_text(&self) -> &str {
        &self.text
    }

    /// The database it names without its password: `postgres://user@host:port/db`.
    pub fn describe(&self) -> String {
        use postgres::config::Host;
        let hosts: Vec<String> = self
            .config
            .get_hosts()
            .iter()
            .enumerate()
            .map(|(i, host)| {
                let name = match host {
                    Host::Tcp(name) => name.clone(),
                    Host::Unix(path) => path.display().to_string(),
                };
                match self
                    .config
                    .get_ports()
                    .get(i)
                    .or(self.config.get_ports().first())
                {
                    Some(port) => format!("{name}:{port}"),
                    None => name,
                }
            })
            .collect();
        let user = self
            .config
            .get_user()
            .map(|u| format!("{u}@"))
            .unwrap_or_default();
        let db = self.config.get_dbname().unwrap_or_default();
        format!("postgres://{user}{}/{db}", hosts.join(","))
    }
}

impl std::fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl PartialEq for PgUrl {
    fn eq(&self, other: &PgUrl) -> bool {
        self.text == other.text
    }
}

impl Eq for PgUrl {}

/// A journal in a PostgreSQL database. Share it (`Arc<dyn JournalStore>`) between Riders and
/// readers; its operations are serialised on one connection.
pub struct PgJournal {
    url: PgUrl,
    read_only: bool,
    client: Mutex<Option<Client>>,
    redactor: Redactor,
}

impl std::fmt::Debug for PgJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgJournal")
            .field("database", &self.url.describe())
            .finish()
    }
}

/// Runs `f` where the blocking client may start its runtime: on a scoped thread when the
/// caller is on a Tokio runtime's thread, in place otherwise.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|scope| match scope.spawn(f).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

impl PgJournal {
    /// Connects to the database `url` names, creating or migrating the journal's tables if
    /// needed.
    pub fn open(url: &PgUrl) -> Result<PgJournal, JournalError> {
        let journal = PgJournal::connect(url, false)?;
        journal.with_client(|client| journal.migrate(client))?;
        Ok(journal)
    }

    /// Connects for reading only: never creates or migrates anything, every transaction
    /// read-only; refuses a database that holds no browserflow journal.
    pub fn open_read_only(url: &PgUrl) -> Result<PgJournal, JournalError> {
        let journal = PgJournal::connect(url, true)?;
        journal.with_client(|client| match journal.stored_version(client)? {
            None => Err(JournalError::NoJournalIn {
                journal: journal.describe(),
            }),
            Some(version) if version > PG_SCHEMA_VERSION => Err(journal.newer_schema(version)),
            Some(_) => Ok(()),
        })?;
        Ok(journal)
    }

    fn connect(url: &PgUrl, read_only: bool) -> Result<PgJournal, JournalError> {
        let journal = PgJournal {
            url: url.clone(),
            read_only,
            client: Mutex::new(None),
            redactor: Redactor::new(),
        };
        let client = off_runtime(|| journal.new_client())?;
        *journal.lock() = Some(client);
        Ok(journal)
    }

    fn new_client(&self) -> Result<Client, JournalError> {
        let mut config = (*self.url.config).clone();
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        if config.get_application_name().is_none() {
            config.application_name("browserflow");
        }
        let mut options = format!("-c search_path={SCHEMA_NAME}");
        if self.read_only {
            options.push_str(" -c default_transaction_read_only=on");
        }
        config.options(&options);
        config
            .connect(NoTls)
            .map_err(self.pg_error("cannot connect"))
    }

    fn lock(&self) -> MutexGuard<'_, Option<Client>> {
        // A panic while holding the lock leaves the database consistent (an open
        // transaction is rolled back when its connection next runs a statement or closes).
        self.client
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` with the connection (a new one if the last was closed: the server restarted,
    /// the network went away), off the caller's runtime.
    pub(crate) fn with_client<T: Send>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, JournalError> + Send,
    ) -> Result<T, JournalError> {
        let mut guard = self.lock();
        let slot: &mut Option<Client> = &mut guard;
        off_runtime(|| {
            if slot.as_ref().is_none_or(Client::is_closed) {
                *slot = Some(self.new_client()?);
            }
            match slot.as_mut() {
                Some(client) => f(client),
                None => Err(self.corrupt("the connection is gone".to_owned())),
            }
        })
    }

    /// The version `journal_meta` records, `None` when the database holds no journal.
    fn stored_version(&self, client: &mut Client) -> Result<Option<i64>, JournalError> {
        let exists: bool = client
            .query_one(
                "SELECT to_regclass('browserflow.journal_meta') IS NOT NULL",
                &[],
            )
            .map_err(self.pg_error("cannot read what the database holds"))?
            .get(0);
        if !exists {
            return Ok(None);
        }
        let row = client
            .query_opt(
                "SELECT application, schema_version FROM browserflow.journal_meta",
                &[],
            )
            .map_err(self.pg_error("cannot read the journal's version"))?;
        match row {
            Some(row) if row.get::<_, String>(0) == PG_APPLICATION => Ok(Some(row.get(1))),
            Some(row) => Err(JournalError::NotAJournalDatabase {
                journal: self.describe(),
                found: format!("the application `{}`", row.get::<_, String>(0)),
            }),
            None => Ok(Some(0)),
        }
    }

    /// Creates the tables, or applies the migrations past the stored version, in one
    /// transaction under an advisory lock: of two processes at once, the second finds it
    /// done.
    fn migrate(&self, client: &mut Client) -> Result<(), JournalError> {
        if let Some(version) = self.stored_version(client)? {
            if version > PG_SCHEMA_VERSION {
                return Err(self.newer_schema(version));
            }
            if version == PG_SCHEMA_VERSION {
                return Ok(());
            }
        }
        let err = || self.pg_error("cannot create or migrate the tables");
        let mut tx = client.transaction().map_err(err())?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .map_err(err())?;
        let foreign: Option<String> = tx
            .query_opt(
                "SELECT string_agg(table_name, ', ' ORDER BY table_name)
                 FROM information_schema.tables
                 WHERE table_schema = 'browserflow' AND table_name <> 'journal_meta'
                 HAVING to_regclass('browserflow.journal_meta') IS NULL",
                &[],
            )
            .map_err(err())?
            .and_then(|row| row.get(0));
        if let Some(tables) = foreign {
            return Err(JournalError::NotAJournalDatabase {
                journal: self.describe(),
                found: format!("a schema `browserflow` with the tables {tables}"),
            });
        }
        tx.batch_execute(
            "CREATE SCHEMA IF NOT EXISTS browserflow;
             CREATE TABLE IF NOT EXISTS browserflow.journal_meta (
                 application TEXT NOT NULL,
                 schema_version BIGINT NOT NULL
             );",
        )
        .map_err(err())?;
        let version: i64 = match tx
            .query_opt(
                "SELECT schema_version FROM browserflow.journal_meta FOR UPDATE",
                &[],
            )
            .map_err(err())?
        {
            Some(row) => row.get(0),
            None => {
                tx.execute(
                    "INSERT INTO browserflow.journal_meta (application, schema_version)
                     VALUES ($1, 0)",
                    &[&PG_APPLICATION],
                )
                .map_err(err())?;
                0
            }
        };
        for migration in PG_MIGRATIONS
            .iter()
            .skip(usize::try_from(version).unwrap_or(0))
        {
            tx.batch_execute(migration).map_err(err())?;
        }
        tx.execute(
            "UPDATE browserflow.journal_meta SET schema_version = $1",
            &[&PG_SCHEMA_VERSION],
        )
        .map_err(err())?;
        tx.commit().map_err(err())
    }

    pub(crate) fn pg_error(
        &self,
        context: &'static str,
    ) -> impl Fn(postgres::Error) -> JournalError + '_ {
        move |source| JournalError::Postgres {
            journal: self.describe(),
            context,
            source,
        }
    }

    /// Redacted JSON text of `value`, for a column.
    pub(crate) fn json_text(&self, value: &Value) -> String {
        let text = self.redactor.redact_json(value).to_string();
        self.redactor.redact_string(&text)
    }

    /// Redacted text, for a column.
    pub(crate) fn text(&self, text: &str) -> String {
        self.redactor.redact_string(text)
    }

    pub(crate) fn unknown_run(&self, run_id: &str) -> JournalError {
        JournalError::UnknownRun {
            journal: self.describe(),
            run_id: run_id.to_owned(),
        }
    }

    pub(crate) fn corrupt(&self, message: String) -> JournalError {
        JournalError::Corrupt {
            journal: self.describe(),
            message,
        }
    }

    fn newer_schema(&self, version: i64) -> JournalError {
        self.corrupt(format!(
            "schema version {version} is newer than this program understands ({PG_SCHEMA_VERSION}); upgrade browserflow"
        ))
    }

    pub(crate) fn parse(&self, text: &str, what: &str) -> Result<Value, JournalError> {
        serde_json::from_str(text).map_err(|e| self.corrupt(format!("{what} is not JSON: {e}")))
    }
}

/// Whether `error` is a unique-key violation (a row of this key exists).
pub(crate) fn is_unique_violation(error: &postgres::Error) -> bool {
    error.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

impl Drop for PgJournal {
    fn drop(&mut self) {
        // The client owns a runtime, which may not be dropped on a thread of another.
        if let Some(client) = self.lock().take() {
            off_runtime(move || drop(client));
        }
    }
}

impl JournalStore for PgJournal {
    fn describe(&self) -> String {
        self.url.describe()
    }

    fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    fn schema_version(&self) -> Result<i64, JournalError> {
        self.with_client(|client| Ok(self.stored_version(client)?.unwrap_or(0)))
    }

    fn begin_run(&self, run: &RunStart<'_>) -> Result<Fence, JournalError> {
        self.write_run_start(run)
    }

    fn read_run(&self, run_id: &str) -> Result<RunRecord, JournalError> {
        self.read_run_record(run_id)
    }

    fn open_session(&self, run_id: &str, fence: &Fence) -> Result<i64, JournalError> {
        self.write_session(run_id, fence)
    }

    fn effect_started(
        &self,
        attempt: &Attempt<'_>,
        now_ms: i64,
        pending: &mut Vec<PendingStep>,
    ) -> Result<EffectStart, JournalError> {
        self.write_effect_start(attempt, now_ms, pending)
    }

    fn check_fence(&self, run_id: &str, fence: &Fence) -> Result<(), JournalError> {
        self.with_client(|client| {
            let mut tx = client
                .transaction()
                .map_err(self.pg_error("cannot start a transaction"))?;
            self.fence(&mut tx, run_id, fence)
        })
    }

    fn effect_finished(
        &self,
        attempt: &Attempt<'_>,
        outcome: AttemptOutcome<'_>,
        duration_us: i64,
        now_ms: i64,
    ) -> Result<Option<Value>, JournalError> {
        self.write_effect_outcome(attempt, outcome, duration_us, now_ms)
    }

    fn finish_run(
        &self,
        run_id: &str,
        fence: &Fence,
        end: &RunEnd<'_>,
        pending: &mut Vec<PendingStep>,
    ) -> Result<(), JournalError> {
        self.write_run_end(run_id, fence, end, pending)
    }

    fn take_lease(
        &self,
        run_id: &str,
        owner: &LeaseOwner,
        now_ms: i64,
    ) -> Result<LeaseAnswer, JournalError> {
        self.write_lease_take(run_id, owner, now_ms)
    }

    fn renew_lease(
        &self,
        run_id: &str,
        fence: &Fence,
        ttl: Duration,
        now_ms: i64,
    ) -> Result<bool, JournalError> {
        self.write_lease_renewal(run_id, fence, ttl, now_ms)
    }

    fn release_lease(&self, run_id: &str, fence: &Fence) -> Result<(), JournalError> {
        self.write_lease_release(run_id, fence)
    }

    fn lease_holder(&self, run_id: &str) -> Result<Option<LeaseHolder>, JournalError> {
        self.read_lease_holder(run_id)
    }

    fn show(&self, run_id: &str) -> Result<RunReport, JournalError> {
        self.read_report(run_id)
    }

    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>, JournalError> {
        self.read_runs(limit)
    }

    fn enqueue_run(&self, run: &QueuedStart<'_>) -> Result<(), JournalError> {
        self.write_enqueue(run)
    }

    fn claim_queued(
        &self,
        owner: &LeaseOwner,
        worker: &str,
        now_ms: i64,
    ) -> Result<Option<Claim>, JournalError> {
        self.write_claim(owner, worker, now_ms)
    }

    fn requeue(&self, run_id: &str, fence: &Fence) -> Result<bool, JournalError> {
        self.write_requeue(run_id, fence)
    }

    fn request_cancel(&self, run_id: &str, now_ms: i64) -> Result<CancelAnswer, JournalError> {
        self.write_cancel(run_id, now_ms)
    }

    fn cancel_requested(&self, run_id: &str) -> Result<bool, JournalError> {
        self.read_cancel_requested(run_id)
    }

    fn run_entries(&self, limit: usize) -> Result<Vec<RunEntry>, JournalError> {
        self.read_run_entries(limit, None)
    }

    fn run_entry(&self, run_id: &str) -> Result<RunEntry, JournalError> {
        self.read_run_entries(1, Some(run_id))?
            .pop()
            .ok_or_else(|| self.unknown_run(run_id))
    }
}

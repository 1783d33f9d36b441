//! The SQLite backend's own promises. Read paths never write: a foreign SQLite file is
//! refused without a byte changed, a missing file is not created; journals of versions 1
//! and 2 still open, migrate and resume; one of version 5 migrates to the queue.

use std::collections::BTreeMap;
use std::path::Path;

use browserflow_rider::journal::SCHEMA_VERSION;
use browserflow_rider::{JournalError, JournalStore, LeaseOwner, SqliteJournal};
use serde_json::json;
use sha2::Digest as _;

use crate::server::Server;
use crate::tools::{compile_flow, quick_rider, registry};

fn checksum(path: &Path) -> Vec<u8> {
    sha2::Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

fn foreign_db(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT);
         INSERT INTO contacts (name) VALUES ('Ada'), ('Grace');",
    )
    .unwrap();
}

#[test]
fn a_foreign_database_is_refused_without_a_byte_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("foreign.db");
    foreign_db(&path);
    let before = checksum(&path);
    let listing = |dir: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let files = listing(dir.path());

    let err = SqliteJournal::open_read_only(&path).unwrap_err();
    assert!(matches!(err, JournalError::NotAJournal { .. }), "{err}");
    assert!(err.to_string().contains("contacts"), "{err}");
    // Writable opening refuses it too, before switching it to WAL or creating a table.
    let err = SqliteJournal::open(&path).unwrap_err();
    assert!(matches!(err, JournalError::NotAJournal { .. }), "{err}");

    assert_eq!(checksum(&path), before, "not a byte changed");
    assert_eq!(listing(dir.path()), files, "no -wal or -shm left beside it");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete", "still in its own journal mode");
}

#[test]
fn a_file_that_is_not_sqlite_and_a_missing_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "hello, this is not a database at all, just text\n".repeat(100),
    )
    .unwrap();
    let before = checksum(&text);
    let err = SqliteJournal::open_read_only(&text).unwrap_err();
    assert!(matches!(err, JournalError::NotAJournal { .. }), "{err}");
    assert!(matches!(
        SqliteJournal::open(&text).unwrap_err(),
        JournalError::NotAJournal { .. }
    ));
    assert_eq!(checksum(&text), before);

    let missing = dir.path().join("nothing-here.sqlite");
    let err = SqliteJournal::open_read_only(&missing).unwrap_err();
    assert!(matches!(err, JournalError::Missing { .. }), "{err}");
    assert!(!missing.exists(), "a read never creates the file");
}

#[tokio::test]
async fn a_journal_read_read_only_is_not_changed() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let plan = crate::journal_suite::lease::one_post_plan(&server);
    let run_id = {
        let rider = quick_rider(registry(), &path);
        rider.run(&plan, BTreeMap::new()).await.unwrap().run_id
    };
    let before = checksum(&path);
    let journal = SqliteJournal::open_read_only(&path).unwrap();
    assert_eq!(journal.show(&run_id).unwrap().status, "succeeded");
    assert_eq!(journal.runs(10).unwrap().len(), 1);
    assert_eq!(journal.schema_version().unwrap(), SCHEMA_VERSION);
    drop(journal);
    assert_eq!(checksum(&path), before);
}

#[tokio::test]
async fn a_version_1_journal_opens_migrated_and_its_runs_resume() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let flow = json!({
        "name": "two", "version": "1.0.0",
        "steps": [
            {"id": "a", "uses": "test/post@1.0.0", "with": {
                "url": {"value": format!("{}/effect", server.url)}, "body": {"value": 1}}},
            {"id": "b", "uses": "test/post@1.0.0", "with": {
                "url": {"value": format!("{}/status/404", server.url)}, "body": {"value": 2}}}
        ],
        "output": {"from": "steps.b.output"}
    });
    let plan = compile_flow(&registry(), flow);
    let run_id = {
        let rider = quick_rider(registry(), &path);
        rider
            .run(&plan, BTreeMap::new())
            .await
            .unwrap_err()
            .run_id
            .unwrap()
    };
    // Make it a version-1 file, as an older browserflow left it.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE plan_steps; DROP TABLE leases; ALTER TABLE runs DROP COLUMN lease_epoch;
             ALTER TABLE steps DROP COLUMN warnings;
             PRAGMA user_version = 1; PRAGMA application_id = 0;",
        )
        .unwrap();
    }
    let read = SqliteJournal::open_read_only(&path).unwrap();
    assert_eq!(read.schema_version().unwrap(), 1, "a read does not migrate");
    assert_eq!(read.show(&run_id).unwrap().status, "failed");
    assert_eq!(
        read.lease_holder(&run_id).unwrap(),
        None,
        "a journal from before leases: no one holds the run (and `journal show` works)"
    );
    drop(read);

    let rider = quick_rider(registry(), &path);
    assert_eq!(
        rider.journal().schema_version().unwrap(),
        SCHEMA_VERSION,
        "migrated"
    );
    let calls = server.counts().values().sum::<usize>();
    let failure = rider.resume(&run_id, &plan).await.unwrap_err();
    assert_eq!(failure.code(), "tool_failed", "{}", failure.message);
    assert_eq!(
        server.counts().values().sum::<usize>(),
        calls + 1,
        "`a` replayed from the record, `b` attempted again"
    );
}

#[tokio::test]
async fn a_version_2_journal_gets_lease_epochs_and_a_run_it_held_resumes_fenced() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let plan = crate::journal_suite::lease::one_post_plan(&server);
    let run_id = {
        let rider = quick_rider(registry(), &path);
        rider.run(&plan, BTreeMap::new()).await.unwrap().run_id
    };
    // Make it a version-2 file, as the browserflow before lease epochs left it, with a
    // lease still held by a session that died.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "ALTER TABLE runs DROP COLUMN lease_epoch; ALTER TABLE leases DROP COLUMN epoch;
             ALTER TABLE steps DROP COLUMN warnings;
             PRAGMA user_version = 2;",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO leases (run_id, owner, host, host_key, pid, pid_start, acquired_at_ms,
                 heartbeat_at_ms, expires_at_ms)
             VALUES (?1, 'old-session', 'h', 'elsewhere', 1, NULL, 0, 0, 0)",
            [&run_id],
        )
        .unwrap();
    }
    let read = SqliteJournal::open_read_only(&path).unwrap();
    assert_eq!(read.schema_version().unwrap(), 2, "a read does not migrate");
    let holder = read.lease_holder(&run_id).unwrap().unwrap();
    assert_eq!((holder.owner.as_str(), holder.epoch), ("old-session", 0));
    // From before step warnings (version 4): none, in `journal show` and `journal list`.
    assert!(
        read.show(&run_id)
            .unwrap()
            .steps
            .iter()
            .all(|s| s.warnings.is_empty())
    );
    assert_eq!(read.runs(5).unwrap()[0].warnings, 0);
    drop(read);

    let journal = SqliteJournal::open(&path).unwrap();
    assert_eq!(
        journal.schema_version().unwrap(),
        SCHEMA_VERSION,
        "migrated"
    );
    assert_eq!(journal.lease_holder(&run_id).unwrap().unwrap().epoch, 0);
    assert_eq!(
        journal.runs(5).unwrap()[0].warnings,
        0,
        "the warnings column added"
    );
    // Opening it again (another process would) finds it migrated.
    drop(SqliteJournal::open(&path).unwrap());
    let owner = LeaseOwner::this_process(std::time::Duration::from_secs(30));
    let now = 1;
    match journal.take_lease(&run_id, &owner, now).unwrap() {
        browserflow_rider::LeaseAnswer::Granted(grant) => {
            assert_eq!(grant.fence.epoch, 1, "the first epoch after the migration");
            assert_eq!(grant.taken_over.unwrap().0.owner, "old-session");
            journal.release_lease(&run_id, &grant.fence).unwrap();
        }
        other => panic!("{other:?}"),
    }
    drop(journal);
    let rider = quick_rider(registry(), &path);
    let outcome = rider.resume(&run_id, &plan).await.unwrap();
    assert_eq!(outcome.steps_replayed, 1);
    assert_eq!(rider.journal().show(&run_id).unwrap().sessions, 2);
}

#[tokio::test]
async fn a_version_5_journal_migrates_to_the_queue_on_open_for_writing() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let plan = crate::journal_suite::lease::one_post_plan(&server);
    let run_id = {
        let rider = quick_rider(registry(), &path);
        rider.run(&plan, BTreeMap::new()).await.unwrap().run_id
    };
    // Back to version 5, as the browserflow before the queue left it.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE run_queue; DROP INDEX runs_by_status;
             ALTER TABLE runs DROP COLUMN cancel_requested_at_ms;
             PRAGMA user_version = 5;",
        )
        .unwrap();
    }
    let read = SqliteJournal::open_read_only(&path).unwrap();
    assert_eq!(read.schema_version().unwrap(), 5, "a read does not migrate");
    let entries = read.run_entries(5).unwrap();
    assert_eq!((entries.len(), entries[0].queued), (1, false));
    assert!(!read.cancel_requested(&run_id).unwrap());
    drop(read);
    let rider = quick_rider(registry(), &path);
    assert_eq!(rider.journal().schema_version().unwrap(), SCHEMA_VERSION);
    let origin = browserflow_rider::QueueOrigin {
        flow_file: "/f.json".into(),
        tools: vec![],
    };
    let queued = rider.enqueue(&plan, BTreeMap::new(), &origin).unwrap();
    assert_eq!(rider.journal().show(&queued).unwrap().status, "queued");
    assert_eq!(
        rider.journal().request_cancel(&queued, 1).unwrap(),
        browserflow_rider::CancelAnswer::Dequeued
    );
}

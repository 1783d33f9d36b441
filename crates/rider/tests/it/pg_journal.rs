//! What only the PostgreSQL journal has: a database URL that is never shown with its
//! password, migrations that many processes starting at once apply once, a read that creates
//! nothing, and a `browserflow` schema that is someone else's left alone. (Everything the
//! journal does is `journal_suite::postgres`.)

use browserflow_rider::{
    JournalError, JournalLocation, JournalStore, PG_SCHEMA_VERSION, PgJournal, PgUrl,
};

use crate::pg_cluster::cluster;

/// Runs `f` on a thread of its own (the blocking client must not start its runtime on a
/// test's runtime thread; these tests have none, but the helpers are shared).
fn sql(url: &str, statements: &str) -> Vec<String> {
    let (url, statements) = (url.to_owned(), statements.to_owned());
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client
            .simple_query(&statements)
            .unwrap()
            .into_iter()
            .filter_map(|message| match message {
                postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
                _ => None,
            })
            .collect()
    })
    .join()
    .unwrap()
}

#[test]
fn a_database_url_is_shown_without_its_password() {
    let text = "postgres://watcher:pw-Secret-1@db.internal:5433/journal";
    let location = JournalLocation::parse(text).unwrap();
    assert_eq!(
        location.to_string(),
        "postgres://watcher@db.internal:5433/journal"
    );
    assert!(!format!("{location:?}").contains("pw-Secret"));
    assert_eq!(location.to_secret_text(), text);
    let url = PgUrl::parse("postgresql://watcher:pw-Secret-1@db.internal/journal").unwrap();
    assert_eq!(
        url.describe(),
        "postgres://watcher@db.internal:5432/journal"
    );
    // A URL that does not parse: the error never repeats it.
    let bad = JournalLocation::parse("postgres://watcher:pw-Secret-1@db:port/journal")
        .unwrap_err()
        .to_string();
    assert!(bad.contains("not a PostgreSQL URL"), "{bad}");
    assert!(!bad.contains("pw-Secret"), "{bad}");
    // A path stays a file.
    assert!(matches!(
        JournalLocation::parse("postgres.sqlite").unwrap(),
        JournalLocation::Sqlite(_)
    ));
}

#[test]
fn many_processes_opening_a_new_database_at_once_migrate_it_once() {
    let Some(cluster) = cluster() else { return };
    let url = PgUrl::parse(&cluster.fresh_database()).unwrap();
    let barrier = std::sync::Barrier::new(8);
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                barrier.wait();
                let journal = PgJournal::open(&url).unwrap();
                assert_eq!(journal.schema_version().unwrap(), PG_SCHEMA_VERSION);
            });
        }
    });
    let meta = sql(
        url.as_secret_text(),
        "SELECT count(*)::text FROM browserflow.journal_meta",
    );
    assert_eq!(meta, ["1"], "one identity row");
}

#[test]
fn a_read_creates_nothing_and_a_read_only_journal_writes_nothing() {
    let Some(cluster) = cluster() else { return };
    let text = cluster.fresh_database();
    let location = JournalLocation::parse(&text).unwrap();
    let refused = location.open_read_only().unwrap_err();
    assert!(
        matches!(refused, JournalError::NoJournalIn { .. }),
        "{refused}"
    );
    assert!(refused.to_string().contains("no journal in postgres://"));
    let schemas = "SELECT count(*)::text FROM information_schema.schemata \
                   WHERE schema_name = 'browserflow'";
    assert_eq!(sql(&text, schemas), ["0"], "the read created nothing");

    location.open().unwrap();
    let read = location.open_read_only().unwrap();
    assert_eq!(read.runs(10).unwrap().len(), 0);
    let owner = browserflow_rider::LeaseOwner::this_process(std::time::Duration::from_secs(5));
    let written = read.begin_run(&browserflow_rider::RunStart {
        run_id: "r1",
        flow: "f@1.0.0",
        flow_digest: "sha256:0",
        inputs: &serde_json::json!({}),
        env: &serde_json::json!({}),
        clock_ms: 0,
        started_at_ms: 0,
        plan: &[],
        owner: &owner,
    });
    let message = written.unwrap_err().to_string();
    assert!(message.contains("read-only transaction"), "{message}");
    assert_eq!(
        sql(&text, "SELECT count(*)::text FROM browserflow.runs"),
        ["0"]
    );
}

#[test]
fn a_browserflow_schema_of_someone_else_is_refused_and_left_alone() {
    let Some(cluster) = cluster() else { return };
    let text = cluster.fresh_database();
    sql(
        &text,
        "CREATE SCHEMA browserflow; CREATE TABLE browserflow.runs (x INT); \
         INSERT INTO browserflow.runs VALUES (7)",
    );
    let refused = JournalLocation::parse(&text).unwrap().open().unwrap_err();
    assert!(
        matches!(refused, JournalError::NotAJournalDatabase { .. }),
        "{refused}"
    );
    assert!(refused.to_string().contains("the tables runs"), "{refused}");
    assert_eq!(
        sql(&text, "SELECT x::text FROM browserflow.runs"),
        ["7"],
        "left as it was"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_database_migrates_to_the_queue_on_open_for_writing() {
    let Some(cluster) = cluster() else { return };
    let server = crate::server::Server::start();
    let text = cluster.fresh_database();
    let location = JournalLocation::parse(&text).unwrap();
    let plan = crate::journal_suite::lease::one_post_plan(&server);
    let run_id = {
        let rider = crate::tools::quick_rider_at(crate::tools::registry(), &location);
        rider
            .run(&plan, std::collections::BTreeMap::new())
            .await
            .unwrap()
            .run_id
    };
    // Back to version 1, as the browserflow before the queue left it.
    sql(
        &text,
        "DROP TABLE browserflow.run_queue; DROP INDEX browserflow.runs_by_status;
         ALTER TABLE browserflow.runs DROP COLUMN cancel_requested_at_ms;
         UPDATE browserflow.journal_meta SET schema_version = 1;",
    );
    let read = location.open_read_only().unwrap();
    assert_eq!(read.schema_version().unwrap(), 1, "a read does not migrate");
    let entries = read.run_entries(5).unwrap();
    assert_eq!(entries.len(), 1);
    assert!(!entries[0].queued);
    assert!(!read.cancel_requested(&run_id).unwrap());
    drop(read);
    let rider = crate::tools::quick_rider_at(crate::tools::registry(), &location);
    assert_eq!(rider.journal().schema_version().unwrap(), PG_SCHEMA_VERSION);
    let origin = browserflow_rider::QueueOrigin {
        flow_file: "/f.json".into(),
        tools: vec![],
    };
    let queued = rider
        .enqueue(&plan, std::collections::BTreeMap::new(), &origin)
        .unwrap();
    assert_eq!(rider.journal().show(&queued).unwrap().status, "queued");
}

//! `bflow` on a PostgreSQL journal (`--journal postgres://…`, `BROWSERFLOW_JOURNAL`): the
//! canonical flow run in real Chromium, SIGKILLed after its webhook post was recorded and
//! resumed by another process, and a database that cannot be reached refused before anything
//! runs. The server is the tests' own (`pg_cluster`, shared with the rider's tests).

use crate::daily_price_watch::{Setup, output_of};
use crate::pg_cluster::cluster;
use crate::shop::Shop;
use crate::{stderr, stdout};

/// Every row of every journal table, as text: what the database holds.
fn database_text(url: &str) -> String {
    let url = url.to_owned();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut text = String::new();
        for table in [
            "runs",
            "steps",
            "attempts",
            "effects",
            "plan_steps",
            "leases",
        ] {
            for row in client
                .query(&format!("SELECT t::text FROM browserflow.{table} t"), &[])
                .unwrap()
            {
                text.push_str(row.get::<_, &str>(0));
                text.push('\n');
            }
        }
        text
    })
    .join()
    .unwrap()
}

/// The steps of `run_id` whose effect the database records, one row each.
fn recorded_effects(url: &str, run_id: &str) -> Vec<String> {
    let (url, run_id) = (url.to_owned(), run_id.to_owned());
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client
            .query(
                "SELECT step_id FROM browserflow.effects WHERE run_id = $1 ORDER BY step_id",
                &[&run_id],
            )
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    })
    .join()
    .unwrap()
}

#[test]
fn a_run_on_postgres_killed_after_its_post_resumes_from_another_process_without_posting_again() {
    let Some(cluster) = cluster() else { return };
    let _shop = Shop::start();
    let url = cluster.fresh_database();
    let setup = Setup::on(url.clone());

    let (run_id, log) = setup.run_and_kill_at("after-commit", "100");
    assert_eq!(setup.webhook.received().len(), 1, "posted before the kill");
    // The location from the environment this time, as a worker would be given it.
    let resumed = setup
        .command(&["flow", "resume", &run_id])
        .env("BROWSERFLOW_JOURNAL", &url)
        .output()
        .unwrap();
    let result = output_of(&resumed);
    assert_eq!(result["run_id"], run_id, "{}", stderr(&resumed));
    assert_eq!(result["output"]["dropped"], true);
    assert_eq!(
        setup.webhook.received().len(),
        1,
        "the resume did not post again"
    );
    assert!(
        stderr(&resumed).contains("resuming"),
        "{}",
        stderr(&resumed)
    );

    // The journal, read back by `bflow journal show`: one recorded effect, the run done.
    let show = setup
        .command(&["journal", "show", &run_id, "--journal", &url])
        .output()
        .unwrap();
    assert!(show.status.success(), "{}", stderr(&show));
    let shown = stdout(&show);
    assert!(shown.contains("succeeded"), "{shown}");
    let database = database_text(&url);
    assert_eq!(
        recorded_effects(&url, &run_id),
        vec!["notify".to_owned(), "search".to_owned()],
        "the browser step and the post are recorded, in the database"
    );
    setup.assert_canary_absent(&[
        &log,
        &stdout(&resumed),
        &stderr(&resumed),
        &shown,
        &database,
    ]);
}

#[test]
fn an_unreachable_database_is_named_without_its_password_before_anything_runs() {
    let _shop = Shop::start();
    // A loopback port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://watcher:pw-Secret-{port}@127.0.0.1:{port}/journal");
    let setup = Setup::on(url.clone());
    for run in [
        setup.run("100"),
        setup
            .command(&["journal", "list"])
            .env("BROWSERFLOW_JOURNAL", &url)
            .output()
            .unwrap(),
    ] {
        let err = stderr(&run);
        assert!(!run.status.success(), "{err}");
        assert!(
            err.contains(&format!("postgres://watcher@127.0.0.1:{port}/journal")),
            "names the database: {err}"
        );
        assert!(err.contains("cannot connect"), "{err}");
        assert!(!err.contains("pw-Secret"), "the password leaked: {err}");
        assert!(!err.contains(" as run "), "nothing ran: {err}");
    }
    assert!(setup.webhook.received().is_empty(), "nothing was posted");
}

//! The journal's test suite, written against [`JournalStore`] alone and instantiated once per
//! backend: plan identity, leases, fencing, crash resume and the run queue. Each backend implements
//! [`Backend`] and has one line at the bottom of this file; every test runs against each
//! unchanged, as `journal_suite::sqlite::<test>` and `journal_suite::postgres::<test>`.
//!
//! A test gets a fresh, empty journal from [`Backend::fresh`]; child processes (crash and
//! fencing tests) are given its [`JournalLocation`] as text and open it themselves.

pub mod crash;
pub mod fencing;
pub mod lease;
pub mod plan_change;
pub mod queue;

use browserflow_rider::JournalLocation;

/// One attempt row as the backend stores it: step, attempt number, session, outcome, error.
pub type AttemptRow = (String, i64, i64, String, Option<String>);

/// A journal backend under test.
pub trait Backend: Sync {
    /// Whether the backend can run here (a backend that cannot says so, loudly, itself).
    fn available(&self) -> bool {
        true
    }

    /// A new, empty journal for one test, alive as long as the returned value.
    fn fresh(&self) -> Fresh;

    /// Every attempt row of a run, in (step, attempt) order: what no report shows, read the
    /// backend's own way, so the fencing tests can tell that a deposed owner wrote none.
    fn attempt_rows(&self, location: &JournalLocation, run_id: &str) -> Vec<AttemptRow>;
}

/// A fresh journal's location, and what keeps it (a temporary folder, a scratch database).
pub struct Fresh {
    pub location: JournalLocation,
    _keep: Box<dyn std::any::Any + Send>,
}

/// The SQLite backend: a file in a temporary folder.
pub struct Sqlite;

impl Backend for Sqlite {
    fn fresh(&self) -> Fresh {
        let dir = tempfile::tempdir().unwrap();
        Fresh {
            location: JournalLocation::Sqlite(dir.path().join("journal.sqlite")),
            _keep: Box::new(dir),
        }
    }

    fn attempt_rows(&self, location: &JournalLocation, run_id: &str) -> Vec<AttemptRow> {
        let JournalLocation::Sqlite(path) = location else {
            panic!("not a SQLite journal: {location}");
        };
        let conn =
            rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .unwrap();
        let mut query = conn
            .prepare(
                "SELECT step_id, attempt, session, outcome, error FROM attempts
                 WHERE run_id = ?1 ORDER BY step_id, attempt",
            )
            .unwrap();
        query
            .query_map([run_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
}

/// The PostgreSQL backend: a fresh database of the test process's own server
/// ([`crate::pg_cluster`]).
pub struct Postgres;

impl Backend for Postgres {
    fn available(&self) -> bool {
        crate::pg_cluster::cluster().is_some()
    }

    fn fresh(&self) -> Fresh {
        let cluster = crate::pg_cluster::cluster().expect("PostgreSQL is available");
        Fresh {
            location: JournalLocation::parse(&cluster.fresh_database()).unwrap(),
            _keep: Box::new(()),
        }
    }

    fn attempt_rows(&self, location: &JournalLocation, run_id: &str) -> Vec<AttemptRow> {
        let url = location.to_secret_text();
        let run_id = run_id.to_owned();
        // The blocking client starts a runtime of its own: never on a test's runtime thread.
        std::thread::spawn(move || {
            let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
            client
                .query(
                    "SELECT step_id, attempt, session, outcome, error FROM browserflow.attempts
                     WHERE run_id = $1 ORDER BY step_id, attempt",
                    &[&run_id],
                )
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                .collect()
        })
        .join()
        .unwrap()
    }
}

/// Instantiates every test of the suite for one backend, as `journal_suite::<name>::<test>`.
macro_rules! journal_suite {
    ($name:ident, $backend:expr) => {
        mod $name {
            use super::*;

            journal_suite!(@async $backend;
                lease::a_lease_is_taken_refused_while_live_and_taken_over_when_gone,
                lease::an_owner_on_another_host_is_taken_over_only_once_its_heartbeat_expired,
                lease::of_many_takers_at_once_exactly_one_wins,
                lease::resume_of_a_run_with_a_live_lease_is_refused_and_changes_nothing,
                lease::an_owner_whose_lease_was_taken_over_starts_no_further_effect,
                lease::a_takeover_bumps_the_epoch_and_fences_every_write_of_the_old_owner,
                lease::a_released_lease_is_nobodys,
                lease::a_recorded_effect_is_never_attempted_again,
                plan_change::a_step_inserted_first_is_refused_before_it_posts,
                plan_change::a_step_inserted_between_is_refused,
                plan_change::a_removed_step_is_refused,
                plan_change::a_renamed_step_is_refused,
                plan_change::a_rewired_step_is_refused,
                plan_change::a_when_turned_false_is_refused,
                plan_change::a_when_turned_true_is_refused_without_running_the_step,
                plan_change::a_when_removed_is_refused,
                plan_change::a_changed_pin_is_refused,
                plan_change::a_step_appended_after_the_last_recorded_one_may_run,
                queue::of_many_claimers_at_once_each_queued_run_goes_to_exactly_one,
                queue::a_claimed_run_runs_once_and_a_gone_workers_run_is_taken_over,
                queue::a_queued_run_whose_flow_changed_is_refused_before_any_effect,
                queue::a_cancelled_queued_run_never_starts_and_a_running_one_stops,
                queue::a_run_put_back_by_a_stopping_worker_is_claimed_again,
            );
            journal_suite!(@sync $backend;
                crash::killed_before_the_effect_resumes_with_one_call,
                crash::killed_after_the_effect_before_the_commit_resumes_with_a_second_call_under_the_same_key,
                crash::killed_after_the_commit_resumes_without_calling_again,
                crash::killed_after_the_second_effect_replays_both_recorded_outcomes,
                fencing::stopped_during_a_step_and_continued_while_the_new_owner_holds_the_lease,
                fencing::stopped_during_an_in_flight_effect_and_continued_after_the_new_owner_finished,
                fencing::stopped_between_steps_and_continued_after_the_new_owner_finished,
                fencing::of_three_owners_the_two_deposed_ones_never_act_again,
            );
        }
    };
    (@async $backend:expr; $($module:ident :: $test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                if $backend.available() {
                    $module::$test(&$backend).await
                }
            }
        )*
    };
    (@sync $backend:expr; $($module:ident :: $test:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                if $backend.available() {
                    $module::$test(&$backend)
                }
            }
        )*
    };
}

journal_suite!(sqlite, Sqlite);
journal_suite!(postgres, Postgres);

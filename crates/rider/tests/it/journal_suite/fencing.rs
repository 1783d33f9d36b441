//! Fencing with real processes: an owner is stopped with SIGSTOP (during a step, during an
//! in-flight effect, between steps), its lease expires and another process resumes the run
//! and takes the lease over; then the first is continued with SIGCONT. The deposed owner
//! must never post again, never write a row (attempts included), and stop saying it was
//! deposed — whether the new owner still holds the lease or has finished and released it.
//! With three owners, both deposed ones stay silent.
//!
//! The crash flow: `slug` (pure), `first` and `second` (posts to the test server, each under
//! its idempotency key), `shape` (pure).

use std::time::Duration;

use browserflow_rider::{JournalLocation, RunReport, idempotency_key};
use serde_json::{Value, json};

use super::crash::{Runner, spec};
use super::{AttemptRow, Backend};
use crate::server::Server;

/// The lease of every process here; a stopped owner is taken over after it.
const TTL_MS: u64 = 1_000;

/// Long enough for a stopped owner's lease to have expired.
fn past_the_lease() {
    std::thread::sleep(Duration::from_millis(TTL_MS * 3 / 2 + 200));
}

fn spec_with(
    journal: &JournalLocation,
    server: &Server,
    mode: &str,
    run_id: &str,
    variant: &str,
    pause_at: Option<&str>,
) -> Value {
    let mut spec = spec(journal, server, mode, run_id, variant);
    spec["ttl_ms"] = json!(TTL_MS);
    spec["slow_ms"] = json!(1_500);
    if let Some(point) = pause_at {
        spec["pause_at"] = json!(point);
    }
    spec
}

/// What the journal holds of a run, read twice to show that a deposed owner changed none of
/// it: its report and its attempt rows.
fn snapshot(
    backend: &dyn Backend,
    journal: &JournalLocation,
    run_id: &str,
) -> (RunReport, Vec<AttemptRow>) {
    let report = journal.open_read_only().unwrap().show(run_id).unwrap();
    (report, backend.attempt_rows(journal, run_id))
}

/// The requests the server saw per step of the crash flow.
fn posts(server: &Server, run_id: &str) -> [usize; 2] {
    let counts = server.counts();
    ["first", "second"].map(|step| {
        counts
            .get(&idempotency_key(run_id, step))
            .copied()
            .unwrap_or(0)
    })
}

/// The deposed owner's last word: a failure saying so, with the journal's code.
fn says_deposed(runner: &Runner) -> Value {
    let failure: Value = serde_json::from_str(&runner.wait_for("FAILURE")).unwrap();
    assert_eq!(failure["code"], json!("journal"), "{failure}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("deposed"), "{message}");
    assert!(
        message.contains("stopped before its next write or effect"),
        "{message}"
    );
    failure
}

/// Resumes the run in a new process that runs to its end; returns its outcome.
fn resume_to_the_end(
    journal: &JournalLocation,
    server: &Server,
    run_id: &str,
    variant: &str,
) -> Value {
    let runner = Runner::start(
        spec_with(journal, server, "resume", run_id, variant, None),
        None,
    );
    let outcome: Value = serde_json::from_str(&runner.wait_for("OUTCOME")).unwrap();
    runner.finish();
    assert_eq!(outcome["run_id"], json!(run_id));
    outcome
}

/// Starts the run in a process that pauses at `pause_at`, then stops it there with SIGSTOP
/// and waits past its lease. Returns it and the run id.
fn start_and_stop_at(
    journal: &JournalLocation,
    server: &Server,
    pause_at: &str,
) -> (Runner, String) {
    let runner = Runner::start(
        spec_with(journal, server, "run", "", "v1", Some(pause_at)),
        None,
    );
    let run_id = runner.wait_for("RUN_ID");
    runner.wait_for("PAUSED");
    runner.signal("STOP");
    past_the_lease();
    (runner, run_id)
}

pub fn stopped_during_a_step_and_continued_while_the_new_owner_holds_the_lease(
    backend: &dyn Backend,
) {
    let server = Server::start();
    let fresh = backend.fresh();
    let journal = &fresh.location;
    // A is stopped inside `first`: its intent is committed, its post not yet sent.
    let (mut old, run_id) = start_and_stop_at(journal, &server, "before-effect:first");
    assert_eq!(posts(&server, &run_id), [0, 0]);

    // B takes the lease over and posts `first`, then waits inside `second`, holding it.
    let mut new = Runner::start(
        spec_with(
            journal,
            &server,
            "resume",
            &run_id,
            "v1",
            Some("before-effect:second"),
        ),
        None,
    );
    new.wait_for("PAUSED");
    assert_eq!(posts(&server, &run_id), [1, 0]);
    let holder = journal
        .open_read_only()
        .unwrap()
        .lease_holder(&run_id)
        .unwrap()
        .unwrap();
    assert_eq!(holder.pid, new.pid());
    assert_eq!(holder.epoch, 2);
    let before = snapshot(backend, journal, &run_id);

    // A wakes: its next act is the post of `first`. Fenced: no post, no row, it says why.
    old.signal("CONT");
    old.go_on();
    let failure = says_deposed(&old);
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains(&format!("pid {}", new.pid())), "{message}");
    old.finish();
    assert_eq!(
        posts(&server, &run_id),
        [1, 0],
        "the deposed owner posted nothing"
    );
    assert_eq!(
        snapshot(backend, journal, &run_id),
        before,
        "and wrote nothing"
    );

    // B was never disturbed.
    new.go_on();
    let outcome: Value = serde_json::from_str(&new.wait_for("OUTCOME")).unwrap();
    new.finish();
    assert_eq!(outcome["output"]["a"]["count"], json!(1));
    assert_eq!(posts(&server, &run_id), [1, 1]);
    let (report, attempts) = snapshot(backend, journal, &run_id);
    assert_eq!(report.status, "succeeded");
    assert_eq!(report.sessions, 2);
    // A's attempt of `first` stays as A left it (started, never finished); B's are its own.
    assert_eq!(
        attempts
            .iter()
            .map(|(step, n, session, outcome, _)| (step.as_str(), *n, *session, outcome.as_str()))
            .collect::<Vec<_>>(),
        [
            ("first", 1, 1, "started"),
            ("first", 2, 2, "ok"),
            ("second", 1, 2, "ok")
        ]
    );
}

pub fn stopped_during_an_in_flight_effect_and_continued_after_the_new_owner_finished(
    backend: &dyn Backend,
) {
    let server = Server::start();
    let fresh = backend.fresh();
    let journal = &fresh.location;
    // A posts `first` to a slow endpoint and is stopped while the request is in flight.
    let mut old = Runner::start(
        spec_with(journal, &server, "run", "", "slow_first", None),
        None,
    );
    let run_id = old.wait_for("RUN_ID");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while posts(&server, &run_id)[0] == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "A never posted `first`"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    old.signal("STOP");
    past_the_lease();

    // B takes over, repeats `first` under the same key (its outcome was in doubt), posts
    // `second`, finishes and releases the lease.
    let outcome = resume_to_the_end(journal, &server, &run_id, "slow_first");
    assert_eq!(
        outcome["output"]["a"]["count"],
        json!(2),
        "the same key, twice"
    );
    assert_eq!(posts(&server, &run_id), [2, 1]);
    let before = snapshot(backend, journal, &run_id);
    assert_eq!(before.0.status, "succeeded");
    assert_eq!(
        journal
            .open_read_only()
            .unwrap()
            .lease_holder(&run_id)
            .unwrap(),
        None,
        "released"
    );

    // A wakes to its answer. It records nothing (not its attempt's outcome, not its
    // effect), never posts `second`, and says it was deposed.
    old.signal("CONT");
    old.go_on();
    let failure = says_deposed(&old);
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .contains("taken over and then released"),
        "{failure}"
    );
    old.finish();
    assert_eq!(
        posts(&server, &run_id),
        [2, 1],
        "no post after the new owner finished"
    );
    assert_eq!(
        snapshot(backend, journal, &run_id),
        before,
        "no row written"
    );
}

pub fn stopped_between_steps_and_continued_after_the_new_owner_finished(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let journal = &fresh.location;
    // A recorded `first` and is stopped before it starts `second`.
    let (mut old, run_id) = start_and_stop_at(journal, &server, "after-commit:first");
    assert_eq!(posts(&server, &run_id), [1, 0]);

    let outcome = resume_to_the_end(journal, &server, &run_id, "v1");
    assert_eq!(
        outcome["steps_replayed"],
        json!(1),
        "`first` from the record"
    );
    assert_eq!(posts(&server, &run_id), [1, 1]);
    let before = snapshot(backend, journal, &run_id);

    // A wakes: recording its intent for `second` is fenced (the lease is nobody's now).
    old.signal("CONT");
    old.go_on();
    says_deposed(&old);
    old.finish();
    assert_eq!(
        posts(&server, &run_id),
        [1, 1],
        "`second` posted once, by the new owner"
    );
    assert_eq!(
        snapshot(backend, journal, &run_id),
        before,
        "no row written"
    );
    assert_eq!(
        before.0.status, "succeeded",
        "the new owner's outcome stands"
    );
}

pub fn of_three_owners_the_two_deposed_ones_never_act_again(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let journal = &fresh.location;
    // A stops inside `first`, before its post.
    let (mut a, run_id) = start_and_stop_at(journal, &server, "before-effect:first");
    // B takes over, posts `first`, stops inside `second`, before its post.
    let mut b = Runner::start(
        spec_with(
            journal,
            &server,
            "resume",
            &run_id,
            "v1",
            Some("before-effect:second"),
        ),
        None,
    );
    b.wait_for("PAUSED");
    b.signal("STOP");
    past_the_lease();
    assert_eq!(posts(&server, &run_id), [1, 0]);
    // C takes over from B, replays `first`, posts `second`, finishes.
    let outcome = resume_to_the_end(journal, &server, &run_id, "v1");
    assert_eq!(outcome["steps_replayed"], json!(1));
    assert_eq!(posts(&server, &run_id), [1, 1]);
    let before = snapshot(backend, journal, &run_id);
    assert_eq!(before.0.sessions, 3);

    // Both wake, B first: each is deposed, posts nothing and writes nothing.
    for runner in [&mut b, &mut a] {
        runner.signal("CONT");
        runner.go_on();
        says_deposed(runner);
    }
    a.finish();
    b.finish();
    assert_eq!(
        posts(&server, &run_id),
        [1, 1],
        "one post per key, three owners"
    );
    assert_eq!(
        snapshot(backend, journal, &run_id),
        before,
        "no row written"
    );
    let attempts = before.1;
    assert_eq!(
        attempts
            .iter()
            .map(|(step, n, session, outcome, _)| (step.as_str(), *n, *session, outcome.as_str()))
            .collect::<Vec<_>>(),
        [
            ("first", 1, 1, "started"),
            ("first", 2, 2, "ok"),
            ("second", 1, 2, "started"),
            ("second", 2, 3, "ok"),
        ]
    );
}

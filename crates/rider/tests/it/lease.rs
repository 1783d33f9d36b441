//! Run leases on a real SQLite file: taken, refused while live, taken over from a dead pid
//! or an expired heartbeat, and of many takers at once exactly one wins.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use browserflow_rider::{Journal, LeaseAnswer, LeaseOwner, Takeover};
use serde_json::json;

use crate::server::Server;
use crate::tools::{compile_flow, quick_rider, registry};

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A flow of one effectful step posting to `server`.
pub fn one_post_plan(server: &Server) -> browserflow_flow::Plan {
    compile_flow(
        &registry(),
        json!({
            "name": "one-post", "version": "1.0.0",
            "steps": [{"id": "p", "uses": "test/post@1.0.0", "with": {
                "url": {"value": format!("{}/effect", server.url)}, "body": {"value": 1}}}],
            "output": {"from": "steps.p.output"}
        }),
    )
}

/// A journal holding one finished run (its lease released); returns the run id.
async fn one_run(path: &Path, server: &Server) -> String {
    let rider = quick_rider(registry(), path);
    let plan = one_post_plan(server);
    let outcome = rider.run(&plan, BTreeMap::new()).await.unwrap();
    assert_eq!(
        rider.journal().lease_holder(&outcome.run_id).unwrap(),
        None,
        "a finished run's lease is released"
    );
    outcome.run_id
}

/// A process that has exited (and been reaped): its pid is dead.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[tokio::test]
async fn a_lease_is_taken_refused_while_live_and_taken_over_when_gone() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let run_id = one_run(&path, &server).await;
    let journal = Journal::open(&path).unwrap();
    let ttl = Duration::from_secs(30);

    let first = LeaseOwner::this_process(ttl);
    let granted = journal.take_lease(&run_id, &first, now_ms()).unwrap();
    assert_eq!(
        granted,
        LeaseAnswer::Granted(browserflow_rider::LeaseGrant { taken_over: None })
    );
    assert_eq!(
        journal.lease_holder(&run_id).unwrap().unwrap().owner,
        first.owner
    );
    // The same owner takes it again (a retry of its own take).
    assert!(matches!(
        journal.take_lease(&run_id, &first, now_ms()).unwrap(),
        LeaseAnswer::Granted(_)
    ));

    // Another owner while the first is live (this very process): refused, naming it.
    let second = LeaseOwner::this_process(ttl);
    assert_ne!(second.owner, first.owner, "owner ids are random");
    match journal.take_lease(&run_id, &second, now_ms()).unwrap() {
        LeaseAnswer::Held(holder) => {
            assert_eq!(holder.owner, first.owner);
            assert_eq!(holder.pid, std::process::id());
            assert!(holder.to_string().contains(&first.owner), "{holder}");
        }
        other => panic!("{other:?}"),
    }

    // An owner whose pid is dead on this host: taken over at once, long before expiry.
    let dead = LeaseOwner {
        pid: dead_pid(),
        ..LeaseOwner::this_process(ttl)
    };
    journal.release_lease(&run_id, &first.owner).unwrap();
    assert!(matches!(
        journal.take_lease(&run_id, &dead, now_ms()).unwrap(),
        LeaseAnswer::Granted(_)
    ));
    match journal.take_lease(&run_id, &second, now_ms()).unwrap() {
        LeaseAnswer::Granted(grant) => {
            let (previous, why) = grant.taken_over.unwrap();
            assert_eq!(previous.owner, dead.owner);
            assert_eq!(why, Takeover::DeadProcess);
        }
        other => panic!("{other:?}"),
    }

    // A live pid with another start time is a reused pid: its owner is gone too.
    let reused = LeaseOwner {
        pid_start: second.pid_start.map(|s| s + 1),
        ..LeaseOwner::this_process(ttl)
    };
    journal.release_lease(&run_id, &second.owner).unwrap();
    journal.take_lease(&run_id, &reused, now_ms()).unwrap();
    match journal.take_lease(&run_id, &second, now_ms()).unwrap() {
        LeaseAnswer::Granted(grant) => {
            assert_eq!(grant.taken_over.unwrap().1, Takeover::DeadProcess)
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_owner_on_another_host_is_taken_over_only_once_its_heartbeat_expired() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let run_id = one_run(&path, &server).await;
    let journal = Journal::open(&path).unwrap();
    // Its pid is dead here, but it runs elsewhere: only its heartbeat tells.
    let remote = LeaseOwner {
        host: "worker-7".to_owned(),
        host_key: "worker-7/another-boot/pid:[1]".to_owned(),
        pid: dead_pid(),
        ttl: Duration::from_millis(300),
        ..LeaseOwner::this_process(Duration::from_millis(300))
    };
    let now = now_ms();
    journal.take_lease(&run_id, &remote, now).unwrap();
    let local = LeaseOwner::this_process(Duration::from_secs(30));
    match journal.take_lease(&run_id, &local, now + 100).unwrap() {
        LeaseAnswer::Held(holder) => assert_eq!(holder.host, "worker-7"),
        other => panic!("{other:?}"),
    }
    // It heartbeats: still live past its first expiry.
    assert!(journal.renew_lease(&run_id, &remote, now + 250).unwrap());
    assert!(matches!(
        journal.take_lease(&run_id, &local, now + 400).unwrap(),
        LeaseAnswer::Held(_)
    ));
    // It stops: expired, taken over.
    match journal.take_lease(&run_id, &local, now + 600).unwrap() {
        LeaseAnswer::Granted(grant) => {
            let (previous, why) = grant.taken_over.unwrap();
            assert_eq!(previous.owner, remote.owner);
            assert_eq!(why, Takeover::Expired);
        }
        other => panic!("{other:?}"),
    }
    // The old owner's heartbeat cannot bring it back.
    assert!(!journal.renew_lease(&run_id, &remote, now + 700).unwrap());
    assert_eq!(
        journal.lease_holder(&run_id).unwrap().unwrap().owner,
        local.owner
    );
}

#[tokio::test]
async fn of_many_takers_at_once_exactly_one_wins() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let run_id = one_run(&path, &server).await;
    for round in 0..5 {
        let takers = 8;
        let barrier = Arc::new(Barrier::new(takers));
        let handles: Vec<_> = (0..takers)
            .map(|_| {
                let (barrier, path, run_id) = (barrier.clone(), path.clone(), run_id.clone());
                std::thread::spawn(move || {
                    // Each taker has its own connection, as separate processes would.
                    let journal = Journal::open(&path).unwrap();
                    let owner = LeaseOwner::this_process(Duration::from_secs(30));
                    barrier.wait();
                    let answer = journal.take_lease(&run_id, &owner, now_ms()).unwrap();
                    (owner.owner, answer)
                })
            })
            .collect();
        let answers: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners: Vec<&String> = answers
            .iter()
            .filter(|(_, a)| matches!(a, LeaseAnswer::Granted(_)))
            .map(|(owner, _)| owner)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {answers:?}");
        let journal = Journal::open(&path).unwrap();
        assert_eq!(
            &journal.lease_holder(&run_id).unwrap().unwrap().owner,
            winners[0]
        );
        journal.release_lease(&run_id, winners[0]).unwrap();
    }
}

#[tokio::test]
async fn resume_of_a_run_with_a_live_lease_is_refused_and_changes_nothing() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let run_id = one_run(&path, &server).await;
    let rider = quick_rider(registry(), &path);
    let holder = LeaseOwner::this_process(Duration::from_secs(30));
    rider
        .journal()
        .take_lease(&run_id, &holder, now_ms())
        .unwrap();
    let before = rider.journal().show(&run_id).unwrap();
    let requests = server.requests().len();
    let plan = one_post_plan(&server);
    let failure = rider.resume(&run_id, &plan).await.unwrap_err();
    assert_eq!(failure.code(), "lease_held", "{}", failure.message);
    assert!(
        failure.message.contains(&holder.owner),
        "{}",
        failure.message
    );
    assert!(
        failure
            .message
            .contains(&format!("pid {}", std::process::id())),
        "{}",
        failure.message
    );
    assert_eq!(server.requests().len(), requests);
    assert_eq!(rider.journal().show(&run_id).unwrap(), before, "untouched");

    // Released, the resume proceeds and releases it in turn.
    rider
        .journal()
        .release_lease(&run_id, &holder.owner)
        .unwrap();
    rider.resume(&run_id, &plan).await.unwrap();
    assert_eq!(rider.journal().lease_holder(&run_id).unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_whose_lease_was_taken_over_starts_no_further_effect() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let rider = quick_rider(registry(), &path);
    let plan = compile_flow(
        &registry(),
        json!({
            "name": "slow-then-post", "version": "1.0.0",
            "steps": [
                {"id": "slow", "uses": "test/post@1.0.0", "with": {
                    "url": {"value": format!("{}/slow/800", server.url)}, "body": {"value": 1}}},
                {"id": "after", "uses": "test/post@1.0.0", "with": {
                    "url": {"value": format!("{}/effect", server.url)},
                    "body": {"from": "steps.slow.output.response"}}}
            ],
            "output": {"from": "steps.after.output"}
        }),
    );
    // While `slow` runs, another worker takes the lease over (as after an expiry).
    let intruder = {
        let path = path.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.busy_timeout(Duration::from_secs(10)).unwrap();
            conn.execute(
                "UPDATE leases SET owner = 'worker-b', host = 'elsewhere'",
                [],
            )
            .unwrap()
        })
    };
    let failure = rider.run(&plan, BTreeMap::new()).await.unwrap_err();
    assert_eq!(intruder.join().unwrap(), 1, "the run held a lease");
    assert!(
        matches!(
            failure.error,
            browserflow_rider::RunError::Journal(browserflow_rider::JournalError::LeaseLost { .. })
        ),
        "{:?}",
        failure.error
    );
    assert!(failure.message.contains("worker-b"), "{}", failure.message);
    assert!(
        !server.requests().iter().any(|r| r.target == "/effect"),
        "`after` never started"
    );
    let report = rider
        .journal()
        .show(failure.run_id.as_deref().unwrap())
        .unwrap();
    assert_eq!(
        report.status, "running",
        "the new owner's run is not overwritten"
    );
}

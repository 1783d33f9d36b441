//! Run leases through the journal's interface: taken, refused while live, taken over from a
//! dead pid or an expired heartbeat with a new epoch, of many takers at once exactly one
//! wins, and a deposed or released fence writes nothing.

use std::collections::BTreeMap;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use browserflow_rider::{
    Attempt, AttemptOutcome, EffectStart, Fence, JournalError, JournalLocation, LeaseAnswer,
    LeaseGrant, LeaseOwner, RunEnd, RunError, StepStart, Takeover,
};
use serde_json::json;

use super::Backend;
use crate::server::Server;
use crate::tools::{compile_flow, quick_rider_at, registry};

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
async fn one_run(location: &JournalLocation, server: &Server) -> String {
    let rider = quick_rider_at(registry(), location);
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

fn granted(answer: LeaseAnswer) -> LeaseGrant {
    match answer {
        LeaseAnswer::Granted(grant) => grant,
        LeaseAnswer::Held(holder) => panic!("held by {holder}"),
    }
}

/// The error of a fenced operation by a deposed session: `LeaseLost`, naming the holder.
fn deposed<T: std::fmt::Debug>(result: Result<T, JournalError>) -> Option<String> {
    match result {
        Err(JournalError::LeaseLost { holder, .. }) => holder.map(|h| h.owner),
        other => panic!("expected LeaseLost, got {other:?}"),
    }
}

pub async fn a_lease_is_taken_refused_while_live_and_taken_over_when_gone(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let run_id = one_run(&fresh.location, &server).await;
    let journal = fresh.location.open().unwrap();
    let ttl = Duration::from_secs(30);

    let first = LeaseOwner::this_process(ttl);
    let grant = granted(journal.take_lease(&run_id, &first, now_ms()).unwrap());
    assert_eq!(grant.taken_over, None);
    assert_eq!(grant.fence.owner, first.owner);
    assert_eq!(grant.fence.epoch, 2, "the run's first session held epoch 1");
    let holder = journal.lease_holder(&run_id).unwrap().unwrap();
    assert_eq!(holder.owner, first.owner);
    assert_eq!(holder.epoch, 2);
    // The same owner takes it again (a retry of its own take): the same epoch.
    let again = granted(journal.take_lease(&run_id, &first, now_ms()).unwrap());
    assert_eq!(again.fence, grant.fence);

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
    journal.release_lease(&run_id, &grant.fence).unwrap();
    let dead_grant = granted(journal.take_lease(&run_id, &dead, now_ms()).unwrap());
    assert_eq!(
        dead_grant.fence.epoch, 3,
        "a grant after a release is a new epoch"
    );
    let taken = granted(journal.take_lease(&run_id, &second, now_ms()).unwrap());
    let (previous, why) = taken.taken_over.unwrap();
    assert_eq!(previous.owner, dead.owner);
    assert_eq!(why, Takeover::DeadProcess);
    assert_eq!(taken.fence.epoch, 4);

    // A live pid with another start time is a reused pid: its owner is gone too.
    let reused = LeaseOwner {
        pid_start: second.pid_start.map(|s| s + 1),
        ..LeaseOwner::this_process(ttl)
    };
    journal.release_lease(&run_id, &taken.fence).unwrap();
    granted(journal.take_lease(&run_id, &reused, now_ms()).unwrap());
    let taken = granted(journal.take_lease(&run_id, &second, now_ms()).unwrap());
    assert_eq!(taken.taken_over.unwrap().1, Takeover::DeadProcess);
}

pub async fn an_owner_on_another_host_is_taken_over_only_once_its_heartbeat_expired(
    backend: &dyn Backend,
) {
    let server = Server::start();
    let fresh = backend.fresh();
    let run_id = one_run(&fresh.location, &server).await;
    let journal = fresh.location.open().unwrap();
    // Its pid is dead here, but it runs elsewhere: only its heartbeat tells.
    let remote = LeaseOwner {
        host: "worker-7".to_owned(),
        host_key: "worker-7/another-boot/pid:[1]".to_owned(),
        pid: dead_pid(),
        ttl: Duration::from_millis(300),
        ..LeaseOwner::this_process(Duration::from_millis(300))
    };
    let now = now_ms();
    let remote_fence = granted(journal.take_lease(&run_id, &remote, now).unwrap()).fence;
    let local = LeaseOwner::this_process(Duration::from_secs(30));
    match journal.take_lease(&run_id, &local, now + 100).unwrap() {
        LeaseAnswer::Held(holder) => assert_eq!(holder.host, "worker-7"),
        other => panic!("{other:?}"),
    }
    // It heartbeats: still live past its first expiry.
    assert!(
        journal
            .renew_lease(&run_id, &remote_fence, remote.ttl, now + 250)
            .unwrap()
    );
    assert!(matches!(
        journal.take_lease(&run_id, &local, now + 400).unwrap(),
        LeaseAnswer::Held(_)
    ));
    // It stops: expired, taken over.
    let taken = granted(journal.take_lease(&run_id, &local, now + 600).unwrap());
    let (previous, why) = taken.taken_over.unwrap();
    assert_eq!(previous.owner, remote.owner);
    assert_eq!(why, Takeover::Expired);
    assert_eq!(taken.fence.epoch, remote_fence.epoch + 1);
    // The old owner's heartbeat cannot bring it back.
    assert!(
        !journal
            .renew_lease(&run_id, &remote_fence, remote.ttl, now + 700)
            .unwrap()
    );
    assert_eq!(
        journal.lease_holder(&run_id).unwrap().unwrap().owner,
        local.owner
    );
}

pub async fn of_many_takers_at_once_exactly_one_wins(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let run_id = one_run(&fresh.location, &server).await;
    for round in 0..5 {
        let takers = 8;
        let barrier = Arc::new(Barrier::new(takers));
        let handles: Vec<_> = (0..takers)
            .map(|_| {
                let (barrier, location, run_id) =
                    (barrier.clone(), fresh.location.clone(), run_id.clone());
                std::thread::spawn(move || {
                    // Each taker has its own connection, as separate processes would.
                    let journal = location.open().unwrap();
                    let owner = LeaseOwner::this_process(Duration::from_secs(30));
                    barrier.wait();
                    let answer = journal.take_lease(&run_id, &owner, now_ms()).unwrap();
                    (owner.owner, answer)
                })
            })
            .collect();
        let answers: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners: Vec<&LeaseGrant> = answers
            .iter()
            .filter_map(|(_, a)| match a {
                LeaseAnswer::Granted(grant) => Some(grant),
                LeaseAnswer::Held(_) => None,
            })
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {answers:?}");
        let journal = fresh.location.open().unwrap();
        let holder = journal.lease_holder(&run_id).unwrap().unwrap();
        assert!(holder.is(&winners[0].fence), "round {round}: {holder:?}");
        journal.release_lease(&run_id, &winners[0].fence).unwrap();
    }
}

pub async fn resume_of_a_run_with_a_live_lease_is_refused_and_changes_nothing(
    backend: &dyn Backend,
) {
    let server = Server::start();
    let fresh = backend.fresh();
    let run_id = one_run(&fresh.location, &server).await;
    let rider = quick_rider_at(registry(), &fresh.location);
    let holder = LeaseOwner::this_process(Duration::from_secs(30));
    let fence = granted(
        rider
            .journal()
            .take_lease(&run_id, &holder, now_ms())
            .unwrap(),
    )
    .fence;
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
    rider.journal().release_lease(&run_id, &fence).unwrap();
    rider.resume(&run_id, &plan).await.unwrap();
    assert_eq!(rider.journal().lease_holder(&run_id).unwrap(), None);
}

pub async fn an_owner_whose_lease_was_taken_over_starts_no_further_effect(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let rider = quick_rider_at(registry(), &fresh.location);
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
    // While `slow` runs, a worker on another host takes the lease over, as it would once
    // the lease expired (its clock says so: it is past the expiry).
    let intruder = {
        let location = fresh.location.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let journal = location.open().unwrap();
            let run_id = journal.runs(1).unwrap().remove(0).run_id;
            let worker = LeaseOwner {
                owner: "worker-b".to_owned(),
                host: "elsewhere".to_owned(),
                host_key: "elsewhere/boot/pid:[1]".to_owned(),
                ..LeaseOwner::this_process(Duration::from_secs(30))
            };
            let later = now_ms() + 60_000;
            granted(journal.take_lease(&run_id, &worker, later).unwrap())
        })
    };
    let failure = rider.run(&plan, BTreeMap::new()).await.unwrap_err();
    let grant = intruder.join().unwrap();
    assert_eq!(
        grant.fence.epoch, 2,
        "taken over from the run's first owner"
    );
    assert!(
        matches!(
            failure.error,
            RunError::Journal(JournalError::LeaseLost { .. })
        ),
        "{:?}",
        failure.error
    );
    assert!(failure.message.contains("worker-b"), "{}", failure.message);
    assert!(failure.message.contains("deposed"), "{}", failure.message);
    assert!(
        !server.requests().iter().any(|r| r.target == "/effect"),
        "`after` never started"
    );
    let run_id = failure.run_id.as_deref().unwrap();
    let report = rider.journal().show(run_id).unwrap();
    assert_eq!(
        report.status, "running",
        "the new owner's run is not overwritten"
    );
    let slow = report.steps.iter().find(|s| s.step_id == "slow").unwrap();
    assert_eq!(
        slow.status, "started",
        "the deposed owner recorded no outcome of its in-flight effect"
    );
    assert!(
        backend
            .attempt_rows(&fresh.location, run_id)
            .iter()
            .all(|(_, _, _, outcome, _)| outcome == "started"),
        "nor an attempt outcome"
    );
}

pub async fn a_takeover_bumps_the_epoch_and_fences_every_write_of_the_old_owner(
    backend: &dyn Backend,
) {
    let server = Server::start();
    let fresh = backend.fresh();
    let run_id = one_run(&fresh.location, &server).await;
    let journal = fresh.location.open().unwrap();
    let ttl = Duration::from_millis(300);
    let old = LeaseOwner::this_process(ttl);
    let now = now_ms();
    let old_fence = granted(journal.take_lease(&run_id, &old, now).unwrap()).fence;
    journal.check_fence(&run_id, &old_fence).unwrap();
    let session = journal.open_session(&run_id, &old_fence).unwrap();
    // It stops heartbeating; a new owner takes over once the lease expired.
    let new = LeaseOwner::this_process(Duration::from_secs(30));
    let new_fence = granted(journal.take_lease(&run_id, &new, now + 1_000).unwrap()).fence;
    assert_eq!(new_fence.epoch, old_fence.epoch + 1);
    let before = journal.show(&run_id).unwrap();
    let rows = backend.attempt_rows(&fresh.location, &run_id);

    // The same owner id with the old epoch is not the holder either.
    let stale = Fence {
        owner: new.owner.clone(),
        epoch: old_fence.epoch,
    };
    for fence in [&old_fence, &stale] {
        assert_eq!(
            deposed(journal.check_fence(&run_id, fence)).as_deref(),
            Some(new.owner.as_str())
        );
        deposed(journal.open_session(&run_id, fence));
        let step = StepStart {
            step_id: "p",
            position: 0,
            tool_ref: "test/post@1.0.0",
            contract_digest: "sha256:0",
            input_digest: "sha256:0",
            input: &json!({}),
            idempotency_key: "k",
        };
        let attempt = Attempt {
            run_id: &run_id,
            fence,
            step: &step,
            number: 9,
            session,
        };
        let mut pending = Vec::new();
        deposed(journal.effect_started(&attempt, now_ms(), &mut pending));
        deposed(journal.effect_finished(
            &attempt,
            AttemptOutcome::Succeeded {
                output: &json!({"status": 200}),
                warnings: &[],
            },
            1,
            now_ms(),
        ));
        let old_output = json!("old");
        let end = RunEnd {
            status: "succeeded",
            output: Some(&old_output),
            error: None,
            finished_at_ms: now_ms(),
        };
        deposed(journal.finish_run(&run_id, fence, &end, &mut pending));
        assert!(!journal.renew_lease(&run_id, fence, ttl, now_ms()).unwrap());
        journal.release_lease(&run_id, fence).unwrap();
    }
    assert_eq!(
        journal.show(&run_id).unwrap(),
        before,
        "nothing was written"
    );
    assert_eq!(backend.attempt_rows(&fresh.location, &run_id), rows);
    let holder = journal.lease_holder(&run_id).unwrap().unwrap();
    assert!(
        holder.is(&new_fence),
        "a stale release leaves the new lease"
    );
}

pub async fn a_released_lease_is_nobodys(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let run_id = one_run(&fresh.location, &server).await;
    let journal = fresh.location.open().unwrap();
    let owner = LeaseOwner::this_process(Duration::from_secs(30));
    let fence = granted(journal.take_lease(&run_id, &owner, now_ms()).unwrap()).fence;
    journal.release_lease(&run_id, &fence).unwrap();
    assert_eq!(journal.lease_holder(&run_id).unwrap(), None);
    // Not "still mine": the owner that released it is fenced out like any other.
    assert_eq!(deposed(journal.check_fence(&run_id, &fence)), None);
    assert_eq!(deposed(journal.open_session(&run_id, &fence)), None);
    assert!(
        !journal
            .renew_lease(&run_id, &fence, owner.ttl, now_ms())
            .unwrap(),
        "a heartbeat does not bring a released lease back"
    );
    let failure = deposed_message(journal.check_fence(&run_id, &fence));
    assert!(
        failure.contains("taken over and then released"),
        "{failure}"
    );
    // Taken again, by anyone, it is a new epoch.
    let again = granted(journal.take_lease(&run_id, &owner, now_ms()).unwrap()).fence;
    assert_eq!(again.epoch, fence.epoch + 1);
}

fn deposed_message(result: Result<(), JournalError>) -> String {
    result.unwrap_err().to_string()
}

pub async fn a_recorded_effect_is_never_attempted_again(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let run_id = one_run(&fresh.location, &server).await;
    let journal = fresh.location.open().unwrap();
    let recorded = journal.show(&run_id).unwrap();
    let owner = LeaseOwner::this_process(Duration::from_secs(30));
    let fence = granted(journal.take_lease(&run_id, &owner, now_ms()).unwrap()).fence;
    let session = journal.open_session(&run_id, &fence).unwrap();
    let step = StepStart {
        step_id: "p",
        position: 0,
        tool_ref: "test/post@1.0.0",
        contract_digest: &recorded.steps[0].contract_digest,
        input_digest: recorded.steps[0].input_digest.as_deref().unwrap(),
        input: &json!({}),
        idempotency_key: "k",
    };
    let attempt = Attempt {
        run_id: &run_id,
        fence: &fence,
        step: &step,
        number: 2,
        session,
    };
    let rows = backend.attempt_rows(&fresh.location, &run_id);
    match journal
        .effect_started(&attempt, now_ms(), &mut Vec::new())
        .unwrap()
    {
        EffectStart::Recorded(output) => {
            assert_eq!(Some(output), recorded.steps[0].output)
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        backend.attempt_rows(&fresh.location, &run_id),
        rows,
        "no attempt row for a recorded effect"
    );
    assert_eq!(journal.show(&run_id).unwrap().steps, recorded.steps);
}

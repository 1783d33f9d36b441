//! The run queue through the journal's interface: a queued run is claimed by exactly one of
//! many claimers at once, with its lease; a worker that is gone has its run taken over with
//! a new epoch and its old fence refused; a flow changed since the run was queued is a
//! divergence before any effect; a queued run cancelled never starts, a running one stops
//! at its next step; a run put back by a stopping worker is claimed again.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use browserflow_rider::{
    CancelAnswer, CancelHandle, JournalError, LeaseOwner, QueueOrigin, RunError,
};
use serde_json::json;

use super::Backend;
use super::lease::one_post_plan;
use crate::server::Server;
use crate::tools::{compile_flow, quick_rider_at, registry};

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn origin() -> QueueOrigin {
    QueueOrigin {
        flow_file: "/flows/one-post.json".to_owned(),
        tools: vec!["/flows/tools".to_owned()],
    }
}

pub async fn of_many_claimers_at_once_each_queued_run_goes_to_exactly_one(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let rider = quick_rider_at(registry(), &fresh.location);
    let plan = one_post_plan(&server);
    let mut queued = HashSet::new();
    for _ in 0..6 {
        queued.insert(rider.enqueue(&plan, BTreeMap::new(), &origin()).unwrap());
    }
    // Eight claimers, each on its own connection, start at once and claim until empty.
    let claimers = 8;
    let barrier = Arc::new(Barrier::new(claimers));
    let handles: Vec<_> = (0..claimers)
        .map(|i| {
            let location = fresh.location.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let journal = location.open().unwrap();
                let owner = LeaseOwner::this_process(Duration::from_secs(30));
                barrier.wait();
                let mut mine = Vec::new();
                while let Some(claim) = journal
                    .claim_queued(&owner, &format!("worker-{i}"), now_ms())
                    .unwrap()
                {
                    assert!(!claim.taken_over, "a queued run is not a takeover");
                    assert_eq!(claim.origin, origin());
                    let holder = journal.lease_holder(&claim.run_id).unwrap().unwrap();
                    assert!(holder.is(&claim.fence), "the claim holds the run's lease");
                    mine.push(claim.run_id);
                }
                mine
            })
        })
        .collect();
    let mut claimed: Vec<String> = Vec::new();
    for handle in handles {
        claimed.extend(handle.join().unwrap());
    }
    let unique: HashSet<String> = claimed.iter().cloned().collect();
    assert_eq!(claimed.len(), 6, "each run claimed once: {claimed:?}");
    assert_eq!(unique, queued);
    let journal = fresh.location.open().unwrap();
    for entry in journal.run_entries(10).unwrap() {
        assert_eq!(entry.status, "running");
        assert!(entry.queued);
        assert!(entry.worker.unwrap().starts_with("worker-"));
    }
}

pub async fn a_claimed_run_runs_once_and_a_gone_workers_run_is_taken_over(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let rider = quick_rider_at(registry(), &fresh.location);
    let plan = one_post_plan(&server);
    let run_id = rider.enqueue(&plan, BTreeMap::new(), &origin()).unwrap();
    let journal = rider.journal().clone();
    assert_eq!(journal.show(&run_id).unwrap().status, "queued");
    // Worker A claims it with a short lease and then does nothing (hung, or cut off).
    let a = LeaseOwner::this_process(Duration::from_millis(300));
    let claim_a = journal
        .claim_queued(&a, "worker-a", now_ms())
        .unwrap()
        .unwrap();
    assert_eq!(claim_a.fence.epoch, 1);
    let b = LeaseOwner::this_process(Duration::from_secs(30));
    assert_eq!(
        journal.claim_queued(&b, "worker-b", now_ms()).unwrap(),
        None,
        "a run whose worker's lease is live is nobody else's"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    let claim_b = journal
        .claim_queued(&b, "worker-b", now_ms())
        .unwrap()
        .unwrap();
    assert_eq!(claim_b.run_id, run_id);
    assert!(claim_b.taken_over);
    assert_eq!(claim_b.fence.epoch, 2, "a takeover is a new epoch");
    assert!(matches!(
        journal.check_fence(&run_id, &claim_a.fence),
        Err(JournalError::LeaseLost { .. })
    ));
    let outcome = rider
        .run_claimed(&claim_b, &b, &plan, &CancelHandle::new())
        .await
        .unwrap();
    assert_eq!(outcome.steps_run, 1);
    assert_eq!(server.requests().len(), 1);
    let report = journal.show(&run_id).unwrap();
    assert_eq!(report.status, "succeeded");
    assert_eq!(journal.lease_holder(&run_id).unwrap(), None);
    // Ended: nothing to claim, and A, deposed, cannot put it back.
    assert_eq!(
        journal.claim_queued(&b, "worker-b", now_ms()).unwrap(),
        None
    );
    assert!(!journal.requeue(&run_id, &claim_a.fence).unwrap());
    let entry = journal.run_entry(&run_id).unwrap();
    assert_eq!(entry.worker.as_deref(), Some("worker-b"));
    assert_eq!((entry.status.as_str(), entry.queued), ("succeeded", true));
    assert!(matches!(
        journal.run_entry("no-such-run"),
        Err(JournalError::UnknownRun { .. })
    ));
}

pub async fn a_queued_run_whose_flow_changed_is_refused_before_any_effect(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let rider = quick_rider_at(registry(), &fresh.location);
    let plan = one_post_plan(&server);
    let run_id = rider.enqueue(&plan, BTreeMap::new(), &origin()).unwrap();
    let changed = compile_flow(
        &registry(),
        json!({
            "name": "one-post", "version": "1.0.0",
            "steps": [{"id": "p", "uses": "test/post@1.0.0", "with": {
                "url": {"value": format!("{}/effect", server.url)}, "body": {"value": 2}}}],
            "output": {"from": "steps.p.output"}
        }),
    );
    let owner = LeaseOwner::this_process(Duration::from_secs(30));
    let claim = rider
        .journal()
        .claim_queued(&owner, "worker", now_ms())
        .unwrap()
        .unwrap();
    let failure = rider
        .run_claimed(&claim, &owner, &changed, &CancelHandle::new())
        .await
        .unwrap_err();
    assert!(
        matches!(failure.error, RunError::ChangedSinceQueued { .. }),
        "{failure:?}"
    );
    assert_eq!(failure.code(), "divergence");
    assert!(
        failure.message.contains("since the run was queued"),
        "{}",
        failure.message
    );
    assert!(server.requests().is_empty(), "nothing was posted");
    let report = rider.journal().show(&run_id).unwrap();
    assert_eq!(report.status, "failed");
    assert_eq!(report.error.unwrap().code, "divergence");
}

pub async fn a_cancelled_queued_run_never_starts_and_a_running_one_stops(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let rider = quick_rider_at(registry(), &fresh.location);
    let journal = rider.journal().clone();
    let plan = one_post_plan(&server);
    let first = rider.enqueue(&plan, BTreeMap::new(), &origin()).unwrap();
    let second = rider.enqueue(&plan, BTreeMap::new(), &origin()).unwrap();
    assert_eq!(
        journal.request_cancel(&first, now_ms()).unwrap(),
        CancelAnswer::Dequeued
    );
    assert_eq!(journal.show(&first).unwrap().status, "cancelled");
    let owner = LeaseOwner::this_process(Duration::from_secs(30));
    let claim = journal
        .claim_queued(&owner, "w", now_ms())
        .unwrap()
        .unwrap();
    assert_eq!(claim.run_id, second, "the cancelled run is never claimed");
    assert_eq!(journal.claim_queued(&owner, "w", now_ms()).unwrap(), None);
    // Running (claimed): the cancel is a request, read at the first step boundary.
    assert_eq!(
        journal.request_cancel(&second, now_ms()).unwrap(),
        CancelAnswer::Requested
    );
    assert!(journal.cancel_requested(&second).unwrap());
    let failure = rider
        .run_claimed(&claim, &owner, &plan, &CancelHandle::new())
        .await
        .unwrap_err();
    assert!(
        matches!(failure.error, RunError::Cancelled { .. }),
        "{failure:?}"
    );
    assert!(
        server.requests().is_empty(),
        "a cancelled run posts nothing"
    );
    assert_eq!(journal.show(&second).unwrap().status, "cancelled");
    // A cancelled run is not put back in the queue by its worker.
    assert!(!journal.requeue(&second, &claim.fence).unwrap());
    // Bad input: a finished run, an unknown one, each named.
    match journal.request_cancel(&second, now_ms()) {
        Err(e @ JournalError::RunFinished { .. }) => {
            assert!(e.to_string().contains(&second), "{e}");
            assert!(e.to_string().contains("cancelled"), "{e}");
        }
        other => panic!("expected RunFinished, got {other:?}"),
    }
    match journal.request_cancel("no-such-run", now_ms()) {
        Err(e @ JournalError::UnknownRun { .. }) => assert!(e.to_string().contains("no-such-run")),
        other => panic!("expected UnknownRun, got {other:?}"),
    }
}

pub async fn a_run_put_back_by_a_stopping_worker_is_claimed_again(backend: &dyn Backend) {
    let server = Server::start();
    let fresh = backend.fresh();
    let rider = quick_rider_at(registry(), &fresh.location);
    let journal = rider.journal().clone();
    let plan = one_post_plan(&server);
    let run_id = rider.enqueue(&plan, BTreeMap::new(), &origin()).unwrap();
    let a = LeaseOwner::this_process(Duration::from_secs(30));
    let claim_a = journal.claim_queued(&a, "a", now_ms()).unwrap().unwrap();
    assert!(journal.requeue(&run_id, &claim_a.fence).unwrap());
    assert_eq!(journal.show(&run_id).unwrap().status, "queued");
    assert_eq!(journal.lease_holder(&run_id).unwrap(), None);
    let b = LeaseOwner::this_process(Duration::from_secs(30));
    let claim_b = journal.claim_queued(&b, "b", now_ms()).unwrap().unwrap();
    assert_eq!(claim_b.run_id, run_id);
    assert!(!claim_b.taken_over);
    assert_eq!(claim_b.fence.epoch, 2);
    rider
        .run_claimed(&claim_b, &b, &plan, &CancelHandle::new())
        .await
        .unwrap();
    assert_eq!(server.requests().len(), 1);
}

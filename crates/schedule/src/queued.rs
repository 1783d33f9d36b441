//! Queued runs in a worker: each claim ([`JournalStore::claim_queued`]) gives the worker the
//! run's lease; the run is executed under it ([`Rider::run_claimed`](browserflow_rider::Rider::run_claimed)),
//! and what it became is said. A run stopped by the worker's own stop is put back in the
//! queue ([`JournalStore::requeue`]) for another worker; one stopped by `bflow runs cancel`
//! ends cancelled.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use browserflow_catalog::{Invocation, JournalAt, RunsFolder};
use browserflow_rider::{
    CancelHandle, Claim, JournalError, JournalStore, LeaseOwner, RunEnd, RunError,
};

use crate::flow_run::compile_plan;
use crate::worker::Shared;

/// What became of a queued run this worker claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueuedEnd {
    /// It succeeded.
    Succeeded,
    /// It failed: why.
    Failed(String),
    /// It was cancelled (`bflow runs cancel`).
    Cancelled,
    /// The worker stopped before it ended: it is back in the queue for another worker.
    Released,
    /// Another worker holds it now (this one was deposed), or it could not be put back.
    Left,
}

/// Executes a claimed run to its end, or until the worker stops it.
pub(crate) async fn run_queued(
    shared: &Shared,
    claim: &Claim,
    owner: &LeaseOwner,
    cancel: &CancelHandle,
) -> QueuedEnd {
    let journal = &shared.journal;
    let run_id = claim.run_id.as_str();
    // Fails the run under the claim's fence (nothing of it ran), naming why.
    let refuse = |code: &str, message: String| {
        let end = RunEnd {
            status: "failed",
            output: None,
            error: Some((code, &message)),
            finished_at_ms: jiff::Timestamp::now().as_millisecond(),
        };
        if let Err(e) = journal.finish_run(run_id, &claim.fence, &end, &mut Vec::new()) {
            tracing::warn!("queued run {run_id}: {e}");
        }
        QueuedEnd::Failed(message)
    };
    let tools: Vec<PathBuf> = claim.origin.tools.iter().map(PathBuf::from).collect();
    let flow = Path::new(&claim.origin.flow_file);
    let (catalog, plan) = match compile_plan(flow, &tools) {
        Ok(compiled) => compiled,
        Err(e) => return refuse("flow_does_not_compile", e.to_string()),
    };
    let mut setup = (shared.make_setup)();
    setup.journal = JournalAt::At(shared.options.journal.clone());
    setup.runs_folder = RunsFolder::OfJournal;
    let rider = match catalog.rider(&setup) {
        Ok(rider) => rider,
        Err(e) => return refuse("setup", e.to_string()),
    };
    let inputs = match rider.recorded_inputs(run_id) {
        Ok(inputs) => inputs,
        Err(e) => return refuse("invalid_flow_input", e.to_string()),
    };
    if let Err(e) = setup.check_secrets(&plan, &inputs) {
        return refuse("secret", e.to_string());
    }
    // How the run can be resumed by hand (`bflow flow resume`), beside it.
    let invocation = Invocation::new(flow, &tools);
    if let Err(e) = invocation.save(&shared.options.journal.runs_folder(), run_id) {
        tracing::warn!("run {run_id}: {e}");
    }
    match rider.run_claimed(claim, owner, &plan, cancel).await {
        Ok(_) => QueuedEnd::Succeeded,
        Err(failure) => match &failure.error {
            RunError::Cancelled { .. } => {
                if journal.cancel_requested(run_id).unwrap_or(true)
                    || !shared.stopping.load(Ordering::SeqCst)
                {
                    return QueuedEnd::Cancelled;
                }
                match journal.requeue(run_id, &claim.fence) {
                    Ok(true) => QueuedEnd::Released,
                    Ok(false) => QueuedEnd::Left,
                    Err(e) => {
                        tracing::warn!("queued run {run_id}: cannot put it back: {e}");
                        QueuedEnd::Left
                    }
                }
            }
            RunError::Journal(JournalError::LeaseLost { .. }) => QueuedEnd::Left,
            _ => QueuedEnd::Failed(failure.message.clone()),
        },
    }
}

/// Asks each run this worker executes whether a cancel was recorded for it, and stops those
/// at once (their step boundary would, later). A journal that cannot say is asked again at
/// the next tick.
pub(crate) fn forward_cancels(journal: &dyn JournalStore, in_flight: &[(String, CancelHandle)]) {
    for (run_id, cancel) in in_flight {
        if !cancel.is_cancelled() && journal.cancel_requested(run_id).unwrap_or(false) {
            cancel.cancel();
        }
    }
}

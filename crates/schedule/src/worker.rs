//! The worker: fires the journal's due schedules, each slot once, however many workers share
//! the journal and however often they restart.
//!
//! Each tick, for every active schedule, the slots due ([`crate::due`]) are claimed one by
//! one ([`ScheduleBook::claim_firing`]: the firing's key is (schedule, slot), so of two
//! workers one wins) and the claimer starts the slot's run under the id
//! [`slot_run_id`](crate::slot_run_id). A firing still `running` that no live worker
//! executes — its worker was killed, or stopped before it could begin the run — is taken
//! over: its run resumed through the journal's lease (never a second run of the slot, never
//! a recorded effect repeated), or begun if it never was.
//!
//! Queued runs (`bflow flow run --enqueue`) are claimed beside the firings, up to the
//! worker's concurrency, each with its lease in one transaction ([`crate::queued`]); a run
//! whose worker is gone is claimed again once its lease lapses. A cancel recorded for a run
//! this worker executes is forwarded to the run's signal at each tick.
//!
//! Stopping ([`Worker::run`]'s `stop`): the worker claims nothing more, lets its runs finish
//! within the drain deadline, then cancels the rest, which stay resumable (another worker,
//! or this one restarted, takes them over); a queued run cancelled so is put back in the
//! queue at once.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use browserflow_catalog::{Invocation, JournalAt, RunSetup, RunsFolder};
use browserflow_rider::{
    CancelHandle, FiringRecord, FiringState, JournalError, JournalLocation, JournalStore,
    LeaseOwner, RunError, ScheduleBook, ScheduleRecord,
};
use jiff::{SignedDuration, Timestamp};
use secrecy::ExposeSecret;
use tokio::task::JoinSet;

use crate::flow_run::compile_schedule;
use crate::health::WorkerHealth;
use crate::queued::{QueuedEnd, forward_cancels, run_queued};
use crate::timing::{CatchUp, Overlap, Timing, due, manual_run_id, slot_run_id};

/// How a worker works.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The journal holding the schedules and their runs.
    pub journal: JournalLocation,
    /// How often it looks for due slots.
    pub poll: Duration,
    /// How late a slot may be seen and still count as on time (older ones were missed).
    pub grace: Duration,
    /// How many runs it executes at once.
    pub concurrency: usize,
    /// On stop, how long its runs may take to finish before they are cancelled.
    pub drain: Duration,
    /// How long after its claim a firing whose run never began is taken over (its worker
    /// died between the two): the Rider's lease time-to-live.
    pub takeover_after: Duration,
}

/// Makes the setup of each run (the browser, secrets, the Rider's options); the worker sets
/// its journal and runs folder.
pub type SetupFactory = Arc<dyn Fn() -> RunSetup + Send + Sync>;

/// What a worker did, for the person watching it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerEvent {
    /// A slot was claimed and its run started.
    Fired {
        /// The schedule.
        schedule: String,
        /// The slot.
        slot: Timestamp,
        /// Its run.
        run_id: String,
    },
    /// A slot was not run: the schedule's previous run was still running.
    Skipped {
        /// The schedule.
        schedule: String,
        /// The slot.
        slot: Timestamp,
        /// The run still running.
        running: String,
    },
    /// Slots were missed while no worker ran (and not caught up, or only the latest).
    Missed {
        /// The schedule.
        schedule: String,
        /// How many.
        count: usize,
    },
    /// A firing whose worker is gone was taken over.
    TookOver {
        /// The schedule.
        schedule: String,
        /// Its run.
        run_id: String,
    },
    /// A firing's run ended.
    Finished {
        /// The schedule.
        schedule: String,
        /// Its run.
        run_id: String,
        /// Succeeded, failed, or still running (cancelled at stop, or executed elsewhere).
        state: FiringState,
        /// Why it failed, if it did.
        detail: Option<String>,
    },
    /// A queued run was claimed (`taken_over`: its previous worker is gone).
    Claimed {
        /// The run.
        run_id: String,
        /// Whether another worker had started it.
        taken_over: bool,
    },
    /// A queued run this worker claimed ended here, or was given back.
    QueuedEnded {
        /// The run.
        run_id: String,
        /// What became of it.
        end: QueuedEnd,
    },
    /// A schedule that cannot fire (its expression or time zone, changed under it).
    Broken {
        /// The schedule.
        schedule: String,
        /// Why.
        reason: String,
    },
}

/// Called with each [`WorkerEvent`].
pub type WorkerEvents = Arc<dyn Fn(&WorkerEvent) + Send + Sync>;

/// Why a worker stopped.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The journal could not be opened or read.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// run-now could not claim its firing.
    #[error("schedule `{schedule}`: its firing could not be claimed (removed meanwhile?)")]
    NotClaimed {
        /// The schedule.
        schedule: String,
    },
}

/// How a run was started by the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// A new slot: begin its run.
    Begin,
    /// A firing taken over: resume its run (or begin it, if it never was).
    TakeOver,
}

pub(crate) struct Shared {
    pub(crate) options: WorkerOptions,
    book: Arc<dyn ScheduleBook>,
    pub(crate) journal: Arc<dyn JournalStore>,
    pub(crate) make_setup: SetupFactory,
    events: WorkerEvents,
    /// Runs executing in this worker, with their cancel handles.
    in_flight: Mutex<HashMap<String, CancelHandle>>,
    /// Set when the worker stops: a queued run it then cancels goes back to the queue.
    pub(crate) stopping: AtomicBool,
}

/// A worker (see the module's documentation).
pub struct Worker {
    shared: Arc<Shared>,
    health: Arc<WorkerHealth>,
    id: String,
    host_key: String,
    tasks: JoinSet<()>,
    /// Schedules already said to be broken (said once, not each tick).
    broken: HashMap<String, String>,
}

impl Worker {
    /// A worker on `options.journal`.
    pub fn new(
        options: WorkerOptions,
        make_setup: SetupFactory,
        events: WorkerEvents,
    ) -> Result<Worker, WorkerError> {
        let book = options.journal.open_schedules()?;
        let journal = options.journal.open()?;
        let owner = LeaseOwner::this_process(options.takeover_after);
        // The loop turns at least every ten polls (its longest back-off); a minute more is
        // room for a slow journal before the worker counts as hung.
        let live_within = options.poll * 10 + Duration::from_secs(60);
        Ok(Worker {
            health: Arc::new(WorkerHealth::new(owner.owner.clone(), live_within)),
            shared: Arc::new(Shared {
                options,
                book,
                journal,
                make_setup,
                events,
                in_flight: Mutex::new(HashMap::new()),
                stopping: AtomicBool::new(false),
            }),
            id: owner.owner.clone(),
            host_key: owner.host_key.clone(),
            tasks: JoinSet::new(),
            broken: HashMap::new(),
        })
    }

    /// This worker's id, as its firings and leases name it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its health, updated at every tick (`health.rs`; [`crate::serve_health`] answers it).
    pub fn health(&self) -> Arc<WorkerHealth> {
        self.health.clone()
    }

    fn in_flight_count(&self) -> usize {
        self.shared
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// Ticks every `poll` until `stop` completes; then drains (see the module's
    /// documentation). A journal that cannot be read for a tick is retried at the next
    /// (backing off up to ten polls), losing nothing recorded.
    pub async fn run(mut self, stop: impl Future<Output = ()>) -> Result<(), WorkerError> {
        tokio::pin!(stop);
        let mut failures: u32 = 0;
        loop {
            let outcome = self.tick(Timestamp::now());
            let said = match &outcome {
                Ok(()) => {
                    failures = 0;
                    Ok(())
                }
                Err(e) => {
                    failures = failures.saturating_add(1);
                    tracing::warn!("worker tick failed (attempt {failures}): {e}");
                    Err(e.to_string())
                }
            };
            self.health
                .ticked(Instant::now(), said, self.in_flight_count());
            let pause = self.shared.options.poll * failures.clamp(1, 10);
            tokio::select! {
                () = &mut stop => break,
                () = tokio::time::sleep(pause) => {}
                Some(_) = self.tasks.join_next(), if !self.tasks.is_empty() => {
                    self.health.turned(Instant::now(), self.in_flight_count());
                }
            }
        }
        self.health.draining();
        self.drain().await;
        Ok(())
    }

    /// Lets the runs finish within the drain deadline, then cancels the rest and waits for
    /// them to stop (they stay resumable).
    async fn drain(&mut self) {
        let deadline = tokio::time::sleep(self.shared.options.drain);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                joined = self.tasks.join_next() => if joined.is_none() { return },
                () = &mut deadline => break,
            }
        }
        self.shared.stopping.store(true, Ordering::SeqCst);
        for cancel in self
            .shared
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
        {
            cancel.cancel();
        }
        while self.tasks.join_next().await.is_some() {}
    }

    fn free_slots(&self) -> usize {
        let busy = self.in_flight_count();
        self.shared.options.concurrency.saturating_sub(busy)
    }

    fn emit(&self, event: WorkerEvent) {
        (self.shared.events)(&event);
    }

    /// One look at the journal: cancels asked for runs here, firings to take over, due
    /// slots to fire, then queued runs to claim.
    pub fn tick(&mut self, now: Timestamp) -> Result<(), WorkerError> {
        let in_flight: Vec<(String, CancelHandle)> = self
            .shared
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(id, cancel)| (id.clone(), cancel.clone()))
            .collect();
        forward_cancels(self.shared.journal.as_ref(), &in_flight);
        let running = self.shared.book.running_firings()?;
        self.take_over(&running, now)?;
        for schedule in self.shared.book.schedules()? {
            if schedule.paused {
                continue;
            }
            self.fire_due(&schedule, &running, now)?;
        }
        self.claim_queued()
    }

    /// Claims queued runs while this worker has room, each with its lease, and runs them.
    fn claim_queued(&mut self) -> Result<(), WorkerError> {
        while self.free_slots() > 0 {
            let owner = LeaseOwner::this_process(self.shared.options.takeover_after);
            let claimed = self.shared.journal.claim_queued(
                &owner,
                &self.id,
                Timestamp::now().as_millisecond(),
            )?;
            let Some(claim) = claimed else {
                return Ok(());
            };
            self.emit(WorkerEvent::Claimed {
                run_id: claim.run_id.clone(),
                taken_over: claim.taken_over,
            });
            let cancel = CancelHandle::new();
            self.shared
                .in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(claim.run_id.clone(), cancel.clone());
            let shared = self.shared.clone();
            self.tasks.spawn(async move {
                let end = run_queued(&shared, &claim, &owner, &cancel).await;
                (shared.events)(&WorkerEvent::QueuedEnded {
                    run_id: claim.run_id.clone(),
                    end,
                });
                shared
                    .in_flight
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&claim.run_id);
            });
        }
        Ok(())
    }

    /// Firings `running` that no live worker executes: resume their runs here.
    fn take_over(&mut self, running: &[FiringRecord], now: Timestamp) -> Result<(), WorkerError> {
        let now_ms = now.as_millisecond();
        for firing in running {
            if self.free_slots() == 0 {
                return Ok(());
            }
            if self.is_in_flight(&firing.run_id) || self.executed_elsewhere(firing, now_ms)? {
                continue;
            }
            match self.shared.journal.show(&firing.run_id) {
                Ok(report) if report.status != "running" && !cancelled(&report) => {
                    // The run ended but its worker died before saying so in the firing.
                    let (state, detail) = if report.status == "succeeded" {
                        (FiringState::Succeeded, None)
                    } else {
                        (FiringState::Failed, report.error.map(|e| e.message))
                    };
                    self.shared.book.set_firing_state(
                        &firing.schedule,
                        firing.slot_ms,
                        state,
                        detail.as_deref(),
                        now_ms,
                    )?;
                    continue;
                }
                Ok(_) => {}
                Err(JournalError::UnknownRun { .. }) => {
                    // Claimed, never begun: its worker may still be about to begin it.
                    let waited = now_ms - firing.claimed_at_ms;
                    if waited < self.shared.options.takeover_after.as_millis() as i64 {
                        continue;
                    }
                }
                Err(e) => return Err(e.into()),
            }
            let Ok(schedule) = self.shared.book.schedule(&firing.schedule) else {
                continue;
            };
            self.emit(WorkerEvent::TookOver {
                schedule: firing.schedule.clone(),
                run_id: firing.run_id.clone(),
            });
            self.spawn(
                schedule,
                firing.slot_ms,
                firing.run_id.clone(),
                Start::TakeOver,
            );
        }
        Ok(())
    }

    /// Whether another live process holds the run's lease.
    fn executed_elsewhere(&self, firing: &FiringRecord, now_ms: i64) -> Result<bool, WorkerError> {
        Ok(match self.shared.journal.lease_holder(&firing.run_id)? {
            Some(holder) => holder.gone(&self.host_key, now_ms).is_none(),
            None => false,
        })
    }

    fn is_in_flight(&self, run_id: &str) -> bool {
        self.shared
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(run_id)
    }

    fn fire_due(
        &mut self,
        schedule: &ScheduleRecord,
        running: &[FiringRecord],
        now: Timestamp,
    ) -> Result<(), WorkerError> {
        let timing = match self.timing(schedule) {
            Some(timing) => timing,
            None => return Ok(()),
        };
        let catch_up: CatchUp = schedule.catch_up.parse().unwrap_or_default();
        let overlap: Overlap = schedule.overlap.parse().unwrap_or_default();
        let last = self.shared.book.last_slot(&schedule.name)?;
        let since_ms = last.unwrap_or(i64::MIN).max(schedule.active_since_ms);
        let since = Timestamp::from_millisecond(since_ms).unwrap_or(Timestamp::MIN);
        let grace =
            SignedDuration::try_from(self.shared.options.grace).unwrap_or(SignedDuration::MAX);
        let due = due(&timing, since, now, grace, catch_up, 64);
        if due.missed > 0 && (!due.fire.is_empty() || catch_up == CatchUp::None) {
            self.emit(WorkerEvent::Missed {
                schedule: schedule.name.clone(),
                count: due.missed,
            });
        }
        let mut previous = running
            .iter()
            .find(|f| f.schedule == schedule.name)
            .map(|f| f.run_id.clone());
        for slot in due.fire {
            let run_id = slot_run_id(&schedule.name, slot);
            let mut firing = FiringRecord {
                schedule: schedule.name.clone(),
                slot_ms: slot.as_millisecond(),
                run_id: run_id.clone(),
                state: FiringState::Running,
                worker: self.id.clone(),
                claimed_at_ms: Timestamp::now().as_millisecond(),
                updated_at_ms: Timestamp::now().as_millisecond(),
                detail: None,
                manual: false,
            };
            if let Some(still) = &previous {
                match overlap {
                    // Waits: due again at the next tick, until the previous run ended.
                    Overlap::Queue => return Ok(()),
                    Overlap::Skip => {
                        firing.state = FiringState::Skipped;
                        firing.detail = Some(format!("the previous run {still} was still running"));
                        if self.shared.book.claim_firing(&firing)? {
                            self.emit(WorkerEvent::Skipped {
                                schedule: schedule.name.clone(),
                                slot,
                                running: still.clone(),
                            });
                        }
                        continue;
                    }
                }
            }
            if self.free_slots() == 0 {
                return Ok(());
            }
            if !self.shared.book.claim_firing(&firing)? {
                continue;
            }
            self.emit(WorkerEvent::Fired {
                schedule: schedule.name.clone(),
                slot,
                run_id: run_id.clone(),
            });
            self.spawn(
                schedule.clone(),
                firing.slot_ms,
                run_id.clone(),
                Start::Begin,
            );
            previous = Some(run_id);
        }
        Ok(())
    }

    fn timing(&mut self, schedule: &ScheduleRecord) -> Option<Timing> {
        match Timing::parse(&schedule.cron, &schedule.time_zone) {
            Ok(timing) => {
                self.broken.remove(&schedule.name);
                Some(timing)
            }
            Err(e) => {
                let reason = e.to_string();
                if self.broken.get(&schedule.name) != Some(&reason) {
                    self.broken.insert(schedule.name.clone(), reason.clone());
                    self.emit(WorkerEvent::Broken {
                        schedule: schedule.name.clone(),
                        reason,
                    });
                }
                None
            }
        }
    }

    fn spawn(&mut self, schedule: ScheduleRecord, slot_ms: i64, run_id: String, start: Start) {
        let cancel = CancelHandle::new();
        self.shared
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(run_id.clone(), cancel.clone());
        let shared = self.shared.clone();
        self.tasks.spawn(async move {
            run_firing(&shared, &schedule, slot_ms, &run_id, start, &cancel).await;
        });
    }

    /// `bflow schedule run-now`: claims a firing of `name` for now (a manual one, which
    /// moves no slot) and runs it here, to its end. A worker that finds it orphaned (this
    /// process killed) takes it over like any other.
    pub async fn run_now(&mut self, name: &str) -> Result<RunNow, WorkerError> {
        let schedule = self.shared.book.schedule(name)?;
        let now = Timestamp::now();
        let run_id = manual_run_id(name, now);
        let firing = FiringRecord {
            schedule: name.to_owned(),
            slot_ms: now.as_millisecond(),
            run_id: run_id.clone(),
            state: FiringState::Running,
            worker: self.id.clone(),
            claimed_at_ms: now.as_millisecond(),
            updated_at_ms: now.as_millisecond(),
            detail: None,
            manual: true,
        };
        if !self.shared.book.claim_firing(&firing)? {
            // Only a second run-now in the same millisecond, or a schedule removed
            // meanwhile, gets here.
            return Err(WorkerError::NotClaimed {
                schedule: name.to_owned(),
            });
        }
        let cancel = CancelHandle::new();
        self.shared
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(run_id.clone(), cancel.clone());
        let (state, detail) = run_firing(
            &self.shared,
            &schedule,
            firing.slot_ms,
            &run_id,
            Start::Begin,
            &cancel,
        )
        .await;
        Ok(RunNow {
            run_id,
            state,
            detail,
        })
    }
}

/// What `run-now` did.
#[derive(Debug, Clone)]
pub struct RunNow {
    /// The run it started.
    pub run_id: String,
    /// Succeeded or failed (running: it was taken from this process).
    pub state: FiringState,
    /// Why it failed.
    pub detail: Option<String>,
}

/// Executes a firing's run, records its end in the firing, tells the webhook of a failure
/// and the watcher of the end.
async fn run_firing(
    shared: &Shared,
    schedule: &ScheduleRecord,
    slot_ms: i64,
    run_id: &str,
    start: Start,
    cancel: &CancelHandle,
) -> (FiringState, Option<String>) {
    let (state, detail) = execute(shared, schedule, run_id, start, cancel).await;
    let now_ms = Timestamp::now().as_millisecond();
    if state != FiringState::Running
        && let Err(e) =
            shared
                .book
                .set_firing_state(&schedule.name, slot_ms, state, detail.as_deref(), now_ms)
    {
        tracing::warn!("firing of `{}` ({run_id}): {e}", schedule.name);
    }
    if state == FiringState::Failed {
        notify(shared, schedule, run_id, detail.as_deref()).await;
    }
    (shared.events)(&WorkerEvent::Finished {
        schedule: schedule.name.clone(),
        run_id: run_id.to_owned(),
        state,
        detail: detail.clone(),
    });
    shared
        .in_flight
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(run_id);
    (state, detail)
}

/// Whether the run ended cancelled (a worker stopped it at its drain deadline): it is to be
/// resumed, not reported failed.
fn cancelled(report: &browserflow_rider::RunReport) -> bool {
    report.error.as_ref().is_some_and(|e| e.code == "cancelled")
}

/// Runs (or resumes) a firing's run; its new state (`Running` when it was cancelled or is
/// executed by another process) and why it failed.
async fn execute(
    shared: &Shared,
    schedule: &ScheduleRecord,
    run_id: &str,
    start: Start,
    cancel: &CancelHandle,
) -> (FiringState, Option<String>) {
    let failed = |message: String| (FiringState::Failed, Some(message));
    let compiled = match compile_schedule(schedule) {
        Ok(compiled) => compiled,
        Err(e) => return failed(e.to_string()),
    };
    let mut setup = (shared.make_setup)();
    setup.journal = JournalAt::At(shared.options.journal.clone());
    setup.runs_folder = RunsFolder::OfJournal;
    if let Err(e) = setup.check_secrets(&compiled.plan, &compiled.inputs) {
        return failed(e.to_string());
    }
    let rider = match compiled.catalog.rider(&setup) {
        Ok(rider) => rider,
        Err(e) => return failed(e.to_string()),
    };
    // How the run was started, beside it, so that `bflow flow resume` resumes it too.
    let tools: Vec<PathBuf> = schedule.tools.iter().map(PathBuf::from).collect();
    let invocation = Invocation::new(std::path::Path::new(&schedule.flow), &tools);
    if let Err(e) = invocation.save(&shared.options.journal.runs_folder(), run_id) {
        tracing::warn!("run {run_id}: {e}");
    }
    // A run already begun (its worker died between the claim's run and the firing's end,
    // or a takeover of a never-begun firing) is resumed, never begun twice.
    let result = match start {
        Start::TakeOver
            if !matches!(
                rider.journal().read_run(run_id),
                Err(JournalError::UnknownRun { .. })
            ) =>
        {
            rider.resume_with(run_id, &compiled.plan, cancel).await
        }
        _ => match rider
            .run_as(run_id, &compiled.plan, compiled.inputs.clone(), cancel)
            .await
        {
            Err(failure)
                if matches!(
                    failure.error,
                    RunError::Journal(JournalError::RunExists { .. })
                ) =>
            {
                rider.resume_with(run_id, &compiled.plan, cancel).await
            }
            other => other,
        },
    };
    match result {
        Ok(_) => (FiringState::Succeeded, None),
        Err(failure) => match &failure.error {
            RunError::Cancelled { .. }
            | RunError::LeaseHeld { .. }
            | RunError::Journal(JournalError::LeaseLost { .. }) => (FiringState::Running, None),
            _ => failed(failure.message.clone()),
        },
    }
}

/// Tells the schedule's webhook (its URL a secret) that a firing failed. A webhook that
/// cannot be told is logged, never fails the worker.
async fn notify(shared: &Shared, schedule: &ScheduleRecord, run_id: &str, detail: Option<&str>) {
    let Some(secret) = &schedule.notify else {
        return;
    };
    let setup = (shared.make_setup)();
    let url = match setup.secrets().map(|s| s.lookup(secret)) {
        Ok(Ok(Some(url))) => url,
        Ok(Ok(None)) => {
            tracing::warn!(
                "schedule `{}`: the notify secret `{secret}` is not set",
                schedule.name
            );
            return;
        }
        Ok(Err(e)) => {
            tracing::warn!("schedule `{}`: notify secret: {e}", schedule.name);
            return;
        }
        Err(e) => {
            tracing::warn!("schedule `{}`: notify secret: {e}", schedule.name);
            return;
        }
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let body = serde_json::json!({
        "schedule": schedule.name,
        "run_id": run_id,
        "status": "failed",
        "error": detail,
    });
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build();
    let sent = match client {
        Ok(client) => client
            .post(url.expose_secret())
            .json(&body)
            .send()
            .await
            .and_then(|r| r.error_for_status()),
        Err(e) => Err(e),
    };
    if let Err(e) = sent {
        // reqwest's error names the URL: without it, as the URL is a secret.
        tracing::warn!(
            "schedule `{}`: the notify webhook could not be told of run {run_id}: {}",
            schedule.name,
            e.without_url()
        );
    }
}

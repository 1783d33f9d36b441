//! A worker's health, for whatever supervises it: Kubernetes probes, a load balancer, a person
//! with `curl`. [`WorkerHealth`] is updated by [`Worker::run`](crate::Worker::run) at every
//! tick; [`serve_health`] answers it over HTTP:
//!
//! - `GET /livez`: 200 while the worker's loop turns (it ticked, or tried to, within
//!   [`WorkerHealth::live_within`]); 503 when it stopped turning — a hung worker is restarted.
//! - `GET /readyz`: 200 when its last tick read the journal and it is not stopping; 503 naming
//!   why otherwise (the journal unreachable, draining) — it takes no new work then.
//! - `GET /status`: the whole [`HealthReport`] as JSON.
//!
//! A journal that cannot be read makes the worker not *ready*, never not *live*: restarting
//! it would not bring the database back, and its runs in flight would be cancelled for
//! nothing.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;

/// What a worker is doing, as its probes see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerPhase {
    /// Started, no tick yet.
    Starting,
    /// Ticking.
    Running,
    /// Stopping: claims nothing more, lets its runs finish.
    Draining,
}

#[derive(Debug)]
struct HealthState {
    phase: WorkerPhase,
    last_turn: Instant,
    last_good_tick: Option<Instant>,
    consecutive_failures: u32,
    last_error: Option<String>,
    in_flight: usize,
}

/// A worker's health, shared between its loop and the probes.
#[derive(Debug)]
pub struct WorkerHealth {
    worker: String,
    live_within: Duration,
    state: Mutex<HealthState>,
}

/// The health of a worker at one moment (`GET /status`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthReport {
    /// The worker's id, as its firings and leases name it.
    pub worker: String,
    /// What it is doing.
    pub phase: WorkerPhase,
    /// Its loop turned recently.
    pub live: bool,
    /// It takes work: its last tick read the journal, and it is not stopping.
    pub ready: bool,
    /// Why it is not ready (or not live), in words.
    pub reason: Option<String>,
    /// Ticks failed in a row.
    pub consecutive_failures: u32,
    /// The last tick's error, if the last tick failed.
    pub last_error: Option<String>,
    /// Seconds since its last successful tick.
    pub seconds_since_good_tick: Option<f64>,
    /// Runs it executes now.
    pub in_flight: usize,
}

impl WorkerHealth {
    /// The health of worker `worker`, whose loop turns at least every `live_within` when well.
    pub fn new(worker: impl Into<String>, live_within: Duration) -> WorkerHealth {
        WorkerHealth {
            worker: worker.into(),
            live_within,
            state: Mutex::new(HealthState {
                phase: WorkerPhase::Starting,
                last_turn: Instant::now(),
                last_good_tick: None,
                consecutive_failures: 0,
                last_error: None,
                in_flight: 0,
            }),
        }
    }

    /// How recently the loop must have turned for the worker to be live.
    pub fn live_within(&self) -> Duration {
        self.live_within
    }

    fn state(&self) -> std::sync::MutexGuard<'_, HealthState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A tick ended at `at`: `Ok`, or failing with `error`.
    pub fn ticked(&self, at: Instant, outcome: Result<(), String>, in_flight: usize) {
        let mut state = self.state();
        state.last_turn = at;
        state.in_flight = in_flight;
        if state.phase == WorkerPhase::Starting {
            state.phase = WorkerPhase::Running;
        }
        match outcome {
            Ok(()) => {
                state.last_good_tick = Some(at);
                state.consecutive_failures = 0;
                state.last_error = None;
            }
            Err(error) => {
                state.consecutive_failures = state.consecutive_failures.saturating_add(1);
                state.last_error = Some(error);
            }
        }
    }

    /// The loop turned at `at` without ticking (a run ended, or it is draining).
    pub fn turned(&self, at: Instant, in_flight: usize) {
        let mut state = self.state();
        state.last_turn = at;
        state.in_flight = in_flight;
    }

    /// The worker stops: claims nothing more.
    pub fn draining(&self) {
        self.state().phase = WorkerPhase::Draining;
    }

    /// The health at `now`.
    pub fn report(&self, now: Instant) -> HealthReport {
        let state = self.state();
        let since_turn = now.saturating_duration_since(state.last_turn);
        // Draining ends by its own deadline, however long a run takes to finish.
        let live = state.phase == WorkerPhase::Draining || since_turn <= self.live_within;
        let (ready, reason) = if !live {
            (
                false,
                Some(format!(
                    "the worker's loop has not turned for {:.0} s",
                    since_turn.as_secs_f64()
                )),
            )
        } else {
            match (state.phase, &state.last_error) {
                (WorkerPhase::Draining, _) => (
                    false,
                    Some("stopping: claiming nothing more, letting its runs finish".into()),
                ),
                (WorkerPhase::Starting, _) => (false, Some("starting: no tick yet".into())),
                (WorkerPhase::Running, Some(error)) => (
                    false,
                    Some(format!(
                        "the journal could not be read ({} tick(s) in a row): {error}",
                        state.consecutive_failures
                    )),
                ),
                (WorkerPhase::Running, None) => (true, None),
            }
        };
        HealthReport {
            worker: self.worker.clone(),
            phase: state.phase,
            live,
            ready,
            reason,
            consecutive_failures: state.consecutive_failures,
            last_error: state.last_error.clone(),
            seconds_since_good_tick: state
                .last_good_tick
                .map(|t| now.saturating_duration_since(t).as_secs_f64()),
            in_flight: state.in_flight,
        }
    }
}

/// Answers `/livez`, `/readyz` and `/status` for `health` on `listener` until `stop`
/// completes (see the module's documentation).
pub async fn serve_health(
    listener: tokio::net::TcpListener,
    health: Arc<WorkerHealth>,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Router::new()
        .route("/livez", get(livez))
        .route("/readyz", get(readyz))
        .route("/status", get(status))
        .with_state(health);
    axum::serve(listener, app)
        .with_graceful_shutdown(stop)
        .await
}

fn probe(ok: bool, reason: Option<String>) -> Response {
    if ok {
        (StatusCode::OK, "ok\n").into_response()
    } else {
        let reason = reason.unwrap_or_else(|| "not ready".into());
        (StatusCode::SERVICE_UNAVAILABLE, format!("{reason}\n")).into_response()
    }
}

async fn livez(State(health): State<Arc<WorkerHealth>>) -> Response {
    let report = health.report(Instant::now());
    probe(report.live, report.reason)
}

async fn readyz(State(health): State<Arc<WorkerHealth>>) -> Response {
    let report = health.report(Instant::now());
    probe(report.ready, report.reason)
}

async fn status(State(health): State<Arc<WorkerHealth>>) -> Response {
    let report = health.report(Instant::now());
    let body = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_after_a_good_tick_not_ready_on_failures_or_draining_live_while_turning() {
        let health = WorkerHealth::new("host:1", Duration::from_secs(10));
        let start = Instant::now();
        let report = health.report(start);
        assert!(report.live && !report.ready, "{report:?}");
        assert_eq!(report.phase, WorkerPhase::Starting);

        health.ticked(start, Ok(()), 0);
        let report = health.report(start + Duration::from_secs(1));
        assert!(report.live && report.ready, "{report:?}");
        assert_eq!(report.seconds_since_good_tick, Some(1.0));

        // The journal goes away: not ready, naming it; still live (a restart would not help).
        let later = start + Duration::from_secs(2);
        health.ticked(later, Err("connection refused".into()), 1);
        health.ticked(later, Err("connection refused".into()), 1);
        let report = health.report(later);
        assert!(report.live && !report.ready);
        assert_eq!(report.consecutive_failures, 2);
        let reason = report.reason.unwrap();
        assert!(
            reason.contains("connection refused") && reason.contains('2'),
            "{reason}"
        );

        // It comes back.
        health.ticked(later, Ok(()), 1);
        assert!(health.report(later).ready);

        // A loop that stopped turning is not live.
        let hung = later + Duration::from_secs(11);
        let report = health.report(hung);
        assert!(!report.live && !report.ready, "{report:?}");

        // Draining: live however long its runs take, not ready.
        health.turned(hung, 1);
        health.draining();
        let report = health.report(hung + Duration::from_secs(600));
        assert!(report.live && !report.ready);
        assert_eq!(report.phase, WorkerPhase::Draining);
        assert!(report.reason.unwrap().contains("stopping"));
    }
}

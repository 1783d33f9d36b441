//! In-process measurements on one warm browser, driven as the Rider drives it (a
//! [`SharedBrowser`], which keeps a spare context open for the next call): sequential replays
//! (each in a fresh context) and 1, 4, 16 … replays at once, each in its own context.

use std::time::{Duration, Instant};

use browserflow_cdp::BrowserConfig;
use browserflow_replay::{Replayer, SharedBrowser};
use browserflow_steps::Step;
use serde_json::{Map, Value};

use crate::proc_tree::{Peak, PeakSampler, Scope};

/// Why the warm benchmark failed.
#[derive(Debug, thiserror::Error)]
pub enum WarmError {
    /// The browser could not be launched or driven.
    #[error("browser: {0}")]
    Browser(#[from] browserflow_cdp::BrowserError),
    /// A replay failed.
    #[error("replay: {0}")]
    Replay(#[from] browserflow_replay::ReplayError),
    /// A replay extracted something else than expected.
    #[error("replay extracted {got}, expected {expected}")]
    WrongOutput {
        /// The outputs.
        got: Value,
        /// The expected `price`.
        expected: Value,
    },
    /// A sampler thread could not be started.
    #[error("sampler: {0}")]
    Sampler(#[from] std::io::Error),
}

/// The journey as the warm benchmark runs it.
#[derive(Debug, Clone)]
pub struct Journey {
    /// Steps, already pointed at the served shop.
    pub steps: Vec<Step>,
    /// Inputs (`query`).
    pub inputs: Map<String, Value>,
    /// The `price` output every replay must produce.
    pub expected_price: Value,
}

/// Sequential replays on a warm browser.
#[derive(Debug, Clone, Default)]
pub struct WarmRuns {
    /// Whole replay (take a context, usually the spare one, and run the steps), in ms.
    pub replay_ms: Vec<f64>,
    /// Per step `(kind, label)`, the step durations of every run, in ms.
    pub steps_ms: Vec<(String, Vec<f64>)>,
}

/// One concurrency level.
#[derive(Debug, Clone, Default)]
pub struct ConcurrencyLevel {
    /// Replays at once.
    pub concurrency: usize,
    /// Replays per second, one value per round.
    pub throughput: Vec<f64>,
    /// Latency of every single replay of every round, in ms.
    pub latency_ms: Vec<f64>,
    /// Peak RSS of this (the benchmark's) process during the level.
    pub ours: Peak,
    /// Peak summed RSS of Chromium's process tree during the level.
    pub chromium: Peak,
}

/// Everything measured on the warm browser.
#[derive(Debug, Clone, Default)]
pub struct WarmReport {
    /// Sequential replays.
    pub sequential: WarmRuns,
    /// Concurrency levels, in the order asked.
    pub levels: Vec<ConcurrencyLevel>,
}

async fn replay_once(
    browser: &SharedBrowser,
    journey: &Journey,
) -> Result<(f64, Vec<f64>), WarmError> {
    let started = Instant::now();
    let context = browser.new_context().await?;
    let report = Replayer::default()
        .run(&context, &journey.steps, &journey.inputs)
        .await;
    // As a browser tool does with its own browser: the context is disposed in the background.
    drop(context);
    let report = report?;
    if report.outputs.get("price") != Some(&journey.expected_price) {
        return Err(WarmError::WrongOutput {
            got: Value::Object(report.outputs),
            expected: journey.expected_price.clone(),
        });
    }
    let steps = report.steps.iter().map(|s| s.duration_ms).collect();
    Ok((started.elapsed().as_secs_f64() * 1000.0, steps))
}

/// Launches one browser, warms it with one replay, then runs `runs` sequential replays and,
/// for each of `levels`, `rounds` rounds of that many concurrent replays.
pub async fn run_warm(
    journey: &Journey,
    runs: usize,
    levels: &[usize],
    rounds: usize,
    interval: Duration,
) -> Result<WarmReport, WarmError> {
    let browser = SharedBrowser::new(BrowserConfig::default());
    let result = measure(&browser, journey, runs, levels, rounds, interval).await;
    browser.close().await;
    result
}

async fn measure(
    browser: &SharedBrowser,
    journey: &Journey,
    runs: usize,
    levels: &[usize],
    rounds: usize,
    interval: Duration,
) -> Result<WarmReport, WarmError> {
    replay_once(browser, journey).await?;
    let mut report = WarmReport::default();
    report.sequential.steps_ms = journey
        .steps
        .iter()
        .map(|step| {
            let label = step.label().map(|l| format!(" ({l})")).unwrap_or_default();
            (format!("{}{label}", step.kind()), Vec::new())
        })
        .collect();
    for _ in 0..runs {
        let (total, steps) = replay_once(browser, journey).await?;
        report.sequential.replay_ms.push(total);
        for (slot, took) in report.sequential.steps_ms.iter_mut().zip(steps) {
            slot.1.push(took);
        }
    }
    let chromium = browser.browser().await?.pid().unwrap_or_default();
    for &concurrency in levels {
        let ours = PeakSampler::start(Scope::Process(std::process::id()), interval)?;
        let theirs = PeakSampler::start(Scope::Tree(chromium), interval)?;
        let mut level = ConcurrencyLevel {
            concurrency,
            ..ConcurrencyLevel::default()
        };
        for _ in 0..rounds {
            let started = Instant::now();
            let replays = (0..concurrency).map(|_| replay_once(browser, journey));
            let outcomes = futures::future::join_all(replays).await;
            let elapsed = started.elapsed().as_secs_f64();
            for outcome in outcomes {
                level.latency_ms.push(outcome?.0);
            }
            level.throughput.push(concurrency as f64 / elapsed);
        }
        level.ours = ours.stop();
        level.chromium = theirs.stop();
        report.levels.push(level);
    }
    Ok(report)
}

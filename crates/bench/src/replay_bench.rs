//! The replay benchmark: the shipped `search-price@1.2.0` journey against the embedded shop,
//! measured cold (launch Chromium, replay, close), warm (one browser, a fresh context per
//! replay) and per step, next to the raw CDP round trip that bounds any step from below.
//!
//! Behind `cargo bench -p browserflow-bench --bench replay`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use browserflow_bench::replay_bench::{BenchOptions, replay_bench};
//! let summary = replay_bench(&BenchOptions::default()).await?;
//! println!("{}", summary.table());
//! # Ok(())
//! # }
//! ```

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value, json};

use browserflow_catalog::run_tool::search_price;
use browserflow_cdp::{Browser, BrowserConfig, BrowserError};
use browserflow_replay::{ReplayError, ReplayOptions, ReplayReport, Replayer};
use browserflow_shop::FixtureServer;
use browserflow_steps::ToolFile;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Cold replays (each launches and closes its own Chromium).
    pub cold_runs: usize,
    /// Warm replays on one browser (after one unmeasured warm-up replay).
    pub warm_runs: usize,
    /// Raw CDP round trips measured for the floor.
    pub floor_samples: usize,
    /// The search query.
    pub query: String,
    /// How Chromium is launched.
    pub browser: BrowserConfig,
    /// Replay settings (screenshots on or off, budgets).
    pub replay: ReplayOptions,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            cold_runs: 5,
            warm_runs: 20,
            floor_samples: 200,
            query: "keyboard".into(),
            browser: BrowserConfig::default(),
            replay: ReplayOptions::default(),
        }
    }
}

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The embedded shop could not be served.
    #[error("cannot serve the fixture shop: {0}")]
    Serve(std::io::Error),
    /// The shipped tool did not load.
    #[error("cannot load search-price: {0}")]
    Tool(String),
    /// Chromium could not be launched or driven.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// A replay failed: the figures would be meaningless.
    #[error("a replay failed: {0}")]
    Replay(#[from] ReplayError),
}

/// Distribution of a set of timings, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Number of samples.
    pub runs: usize,
    /// Fastest.
    pub min_ms: f64,
    /// Median.
    pub median_ms: f64,
    /// Mean.
    pub mean_ms: f64,
    /// 90th percentile (nearest rank).
    pub p90_ms: f64,
    /// Slowest.
    pub max_ms: f64,
}

impl Stats {
    /// Statistics of `samples` (milliseconds); all zero when empty.
    pub fn of(samples: &[f64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n) - 1;
        Self {
            runs: n,
            min_ms: sorted[0],
            median_ms: median,
            mean_ms: sorted.iter().sum::<f64>() / n as f64,
            p90_ms: sorted[rank],
            max_ms: sorted[n - 1],
        }
    }
}

/// One step of the journey across the warm replays.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepStats {
    /// 0-based position.
    pub index: usize,
    /// Step type.
    pub kind: String,
    /// Step label.
    pub label: Option<String>,
    /// Whether the step loads a new document (its time is mostly the page's own loading).
    pub navigates: bool,
    /// Its timings.
    pub time: Stats,
}

/// The benchmark's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchSummary {
    /// Chromium version.
    pub browser: String,
    /// Whether screenshots were taken after every step.
    pub screenshots: bool,
    /// Launch Chromium, open a context, replay, close: wall time.
    pub cold: Stats,
    /// Of the cold runs: launching Chromium alone.
    pub launch: Stats,
    /// Open a context, replay, close the context, on a running browser.
    pub warm: Stats,
    /// Of the warm runs: opening the browser context (and its page).
    pub context_open: Stats,
    /// Of the warm runs: the replay alone (the report's duration).
    pub replay: Stats,
    /// Of the warm runs: disposing the browser context.
    pub context_close: Stats,
    /// Per step, over the warm runs.
    pub steps: Vec<StepStats>,
    /// One raw `Runtime.evaluate` round trip: the floor any step that touches the page pays.
    pub cdp_round_trip: Stats,
    /// Median time per non-navigating step above the raw round trip: the replayer's own
    /// per-step overhead (selector resolution, actionability, bookkeeping).
    pub step_overhead_ms: f64,
}

impl BenchSummary {
    /// A plain-text table of the figures.
    pub fn table(&self) -> String {
        let mut out = format!(
            "search-price replay benchmark ({}, screenshots {})\n",
            self.browser,
            if self.screenshots { "on" } else { "off" }
        );
        out.push_str(&format!(
            "{:<34} {:>5} {:>9} {:>9} {:>9} {:>9}\n",
            "", "runs", "min ms", "median", "p90", "max"
        ));
        let row = |name: &str, s: &Stats| {
            format!(
                "{:<34} {:>5} {:>9.1} {:>9.1} {:>9.1} {:>9.1}\n",
                name, s.runs, s.min_ms, s.median_ms, s.p90_ms, s.max_ms
            )
        };
        out.push_str(&row("cold (launch + replay + close)", &self.cold));
        out.push_str(&row("  of which launch", &self.launch));
        out.push_str(&row("warm (context + replay + close)", &self.warm));
        out.push_str(&row("  of which context open", &self.context_open));
        out.push_str(&row("  of which replay", &self.replay));
        out.push_str(&row("  of which context close", &self.context_close));
        for step in &self.steps {
            let name = format!(
                "  step {} {}{}",
                step.index + 1,
                step.kind,
                if step.navigates { " (loads)" } else { "" }
            );
            out.push_str(&row(&name, &step.time));
        }
        out.push_str(&row("raw CDP round trip", &self.cdp_round_trip));
        out.push_str(&format!(
            "per-step overhead above the raw round trip (median, non-loading steps): {:.2} ms\n",
            self.step_overhead_ms
        ));
        out
    }
}

/// Runs the benchmark: serves the shop on 127.0.0.1, replays `search-price` cold and warm.
pub async fn replay_bench(options: &BenchOptions) -> Result<BenchSummary, BenchError> {
    let shop = FixtureServer::shop().map_err(BenchError::Serve)?;
    let tool = search_price()
        .map_err(|e| BenchError::Tool(e.to_string()))?
        .rebase_to(&shop.origin());
    let inputs: Map<String, Value> = json!({ "query": options.query })
        .as_object()
        .cloned()
        .unwrap_or_default();
    let replayer = Replayer::new(options.replay.clone());

    let mut cold = Vec::new();
    let mut launch = Vec::new();
    for _ in 0..options.cold_runs {
        let started = Instant::now();
        let browser = Browser::launch(&options.browser).await?;
        launch.push(millis(started.elapsed()));
        let outcome = replay_once(&browser, &replayer, &tool, &inputs)
            .await
            .map(|run| run.report);
        browser.close().await?;
        outcome?;
        cold.push(millis(started.elapsed()));
    }

    let browser = Browser::launch(&options.browser).await?;
    let result = warm_runs(&browser, &replayer, &tool, &inputs, options).await;
    let version = browser.version().await.unwrap_or_default();
    browser.close().await?;
    let (warm, runs, floor) = result?;
    let reports: Vec<ReplayReport> = runs.iter().map(|r| r.report.clone()).collect();

    let steps: Vec<StepStats> = tool
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            let samples: Vec<f64> = reports
                .iter()
                .filter_map(|r| r.steps.get(index).map(|s| s.duration_ms))
                .collect();
            StepStats {
                index,
                kind: step.kind().to_string(),
                label: step.label().map(str::to_string),
                navigates: reports
                    .first()
                    .and_then(|r| r.steps.get(index))
                    .is_some_and(|s| s.navigated_to.is_some()),
                time: Stats::of(&samples),
            }
        })
        .collect();
    let cdp_round_trip = Stats::of(&floor);
    let in_page: Vec<f64> = steps
        .iter()
        .filter(|s| !s.navigates)
        .map(|s| s.time.median_ms)
        .collect();
    let step_overhead_ms = (Stats::of(&in_page).median_ms - cdp_round_trip.median_ms).max(0.0);
    Ok(BenchSummary {
        browser: version,
        screenshots: options.replay.screenshots,
        cold: Stats::of(&cold),
        launch: Stats::of(&launch),
        warm: Stats::of(&warm),
        context_open: Stats::of(&runs.iter().map(|r| r.open_ms).collect::<Vec<_>>()),
        context_close: Stats::of(&runs.iter().map(|r| r.close_ms).collect::<Vec<_>>()),
        replay: Stats::of(&reports.iter().map(|r| r.duration_ms).collect::<Vec<_>>()),
        steps,
        cdp_round_trip,
        step_overhead_ms,
    })
}

type WarmFigures = (Vec<f64>, Vec<TimedReplay>, Vec<f64>);

/// One replay in a fresh context, with the context's own costs.
struct TimedReplay {
    report: ReplayReport,
    open_ms: f64,
    close_ms: f64,
}

async fn warm_runs(
    browser: &Browser,
    replayer: &Replayer,
    tool: &ToolFile,
    inputs: &Map<String, Value>,
    options: &BenchOptions,
) -> Result<WarmFigures, BenchError> {
    // Warm-up: the first replay pays for the shop's first responses and Chromium's caches.
    replay_once(browser, replayer, tool, inputs).await?;
    let mut warm = Vec::new();
    let mut runs = Vec::new();
    for _ in 0..options.warm_runs {
        let started = Instant::now();
        let run = replay_once(browser, replayer, tool, inputs).await?;
        warm.push(millis(started.elapsed()));
        runs.push(run);
    }
    let context = browser.new_context().await?;
    let mut floor = Vec::new();
    for _ in 0..options.floor_samples {
        let started = Instant::now();
        context.page().evaluate_in_main_frame("1").await?;
        floor.push(millis(started.elapsed()));
    }
    context.close().await?;
    Ok((warm, runs, floor))
}

async fn replay_once(
    browser: &Browser,
    replayer: &Replayer,
    tool: &ToolFile,
    inputs: &Map<String, Value>,
) -> Result<TimedReplay, BenchError> {
    let started = Instant::now();
    let context = browser.new_context().await?;
    let open_ms = millis(started.elapsed());
    let report = replayer.run(&context, &tool.steps, inputs).await;
    let closing = Instant::now();
    context.close().await?;
    Ok(TimedReplay {
        report: report?,
        open_ms,
        close_ms: millis(closing.elapsed()),
    })
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_samples() {
        let s = Stats::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(
            (s.runs, s.min_ms, s.median_ms, s.mean_ms, s.p90_ms, s.max_ms),
            (4, 1.0, 2.5, 2.5, 4.0, 4.0)
        );
        assert_eq!(Stats::of(&[7.0]).median_ms, 7.0);
        assert_eq!(Stats::of(&[]), Stats::default());
    }
}

//! Benchmarks of browserflow's replay against the tools users would pick instead, on the same
//! machine, the same Chromium (`/usr/bin/chromium`) and the same pages (the embedded fixture
//! shop served on 127.0.0.1), in the same run (issue #10).
//!
//! * [`cold`]: whole processes, interleaved over N rounds: `bflow run` of `search-price@1.2.0`,
//!   `@puppeteer/replay` replaying the journey's DevTools Recorder JSON, the journey exported by
//!   `bflow export playwright` run with `playwright-core`, and the [`floor`] — a raw-CDP
//!   program that only loads the three pages with the waits they need. Wall time from spawn to
//!   exit and the peak summed RSS of the process tree (Chromium included) per run.
//! * [`warm`]: in process, on one warm browser: sequential replays (new context each, with
//!   per-step times) and 1, 4, 16 replays at once: throughput, latency, and peak memory of this
//!   process and of Chromium.
//! * [`stats`] (median, quartiles), [`proc_tree`] (process-tree memory from `/proc`),
//!   [`report`] (Markdown tables), [`machine`] (what it ran on).
//!
//! Run it all with `scripts/bench` (installs the npm peers with `npm ci`, builds release, runs
//! `browserflow-bench`). From Rust:
//!
//! ```no_run
//! use std::time::Duration;
//! use browserflow_bench::proc_tree::{PeakSampler, Scope};
//! use browserflow_bench::stats::Summary;
//!
//! let mut child = std::process::Command::new("sleep").arg("0.2").spawn()?;
//! let sampler = PeakSampler::start(Scope::Tree(child.id()), Duration::from_millis(5))?;
//! child.wait()?;
//! let peak = sampler.stop();
//! println!("peak {} bytes over {} samples", peak.rss_bytes, peak.samples);
//!
//! let summary = Summary::of(&[812.0, 790.0, 845.0]).ok_or("no runs")?;
//! assert_eq!(summary.median, 812.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod batch;
pub mod cgroup;
pub mod cold;
pub mod floor;
pub mod machine;
pub mod proc_tree;
pub mod replay_bench;
pub mod report;
pub mod stats;
pub mod systems;
pub mod warm;

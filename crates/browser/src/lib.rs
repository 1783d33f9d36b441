//! Chromium over the Chrome DevTools Protocol: launch or connect, isolated browser contexts,
//! and deterministic replay of recorded browser steps.
//!
//! * [`launch`]: find system Chromium (`BROWSERFLOW_CHROME`, an explicit path, the usual install
//!   paths) or connect to a running browser's CDP endpoint; one [`BrowserContext`] (own cookies
//!   and storage) per replay, many replays at once on one [`Browser`].
//! * [`steps`]: the step vocabulary and ranked selectors, as pretty, stable JSON.
//! * [`replay`]: the [`Replayer`]: every candidate watched for the whole wait budget, the
//!   highest-ranked match wins, Playwright-style actionability (unique, visible, stable for two
//!   animation frames, enabled/editable, receives the pointer event), real CDP input events,
//!   navigations waited for as outcomes, popups, dialogs, downloads (saved under their name,
//!   described by path, size and SHA-256) and uploads (file inputs or intercepted file
//!   choosers) as typed steps, a per-step report.
//! * [`bench`]: the replay benchmark (cold, warm, per step) behind `cargo bench --bench replay`.
//! * [`coerce`]: extracted text to typed values (`"$1,299.00"` → `1299.0`, currency `USD`).
//! * [`tool_file`]: a recorded tool on disk: contract, steps, metadata.
//! * [`fixture_server`]: the embedded fixture shop, served on 127.0.0.1.
//! * [`tool`]: browser tools in the Rider: [`SharedBrowser`] (the `browser` capability, lazy
//!   launch or CDP connect, relaunch after a crash) and [`BrowserTool`] (a [`tool_file::ToolFile`]
//!   as a rider `Tool`); per-call run folders ([`run_dir`]) when `BROWSERFLOW_RUN_DIR` is set.
//! * [`run`]: `bflow run` ([`run::resolve_tool`], [`run::run_tool`]) and `bflow demo`
//!   ([`run::demo`], [`fixture_server::serve_shop`]).
//! * [`devtools`]: Chrome DevTools Recorder import; [`playwright`]: Playwright script export.
//!
//! # Example
//!
//! ```no_run
//! use browserflow_browser::steps::Step;
//! use browserflow_browser::{Browser, BrowserConfig, Replayer};
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let shop = browserflow_browser::fixture_server::FixtureServer::shop()?;
//! let browser = Browser::launch(&BrowserConfig::default()).await?;
//! let steps: Vec<Step> = serde_json::from_value(json!([
//!     { "type": "navigate", "url": shop.url("/index.html") },
//!     { "type": "fill", "value": "{{query}}", "selector": { "candidates": [
//!         { "kind": "test_id", "value": "search-input" },
//!         { "kind": "role", "value": "searchbox", "name": "Search products" }
//!     ] } },
//!     { "type": "key_press", "key": "Enter", "navigation": { "url": "*/search.html?q=*" } },
//!     { "type": "click", "selector": { "candidates": [
//!         { "kind": "css", "value": "#results li:first-child a" }
//!     ] } },
//!     { "type": "extract", "field": "price", "kind": "number", "currency_field": "currency",
//!       "selector": { "candidates": [{ "kind": "test_id", "value": "product-price" }] } }
//! ]))?;
//! let inputs = json!({ "query": "keyboard" }).as_object().cloned().unwrap_or_default();
//!
//! let context = browser.new_context().await?;
//! let report = Replayer::default().run(&context, &steps, &inputs).await?;
//! assert_eq!(report.outputs["price"], 89.99);
//! assert_eq!(report.outputs["currency"], "USD");
//! for step in &report.steps {
//!     println!("{} {:?} {:.1} ms {:?}", step.kind, step.status, step.duration_ms, step.selector);
//! }
//! context.close().await?;
//! browser.close().await?;
//! # Ok(())
//! # }
//! ```

pub mod bench;
pub mod cdp;
pub mod coerce;
pub mod devtools;
mod download_dir;
mod error;
pub mod fixture_server;
pub mod interpolate;
mod keys;
pub mod launch;
pub mod page;
pub mod playwright;
pub mod record;
pub mod replay;
pub mod run;
pub mod run_dir;
pub mod screenshot;
pub mod steps;
pub mod tool;
pub mod tool_file;

pub use error::BrowserError;
pub use launch::{Browser, BrowserConfig, BrowserContext, find_chromium};
pub use page::Page;
pub use replay::{
    ReplayError, ReplayOptions, ReplayReport, Replayer, StepObserver, StepProgress, StepReport,
    StepStatus, WinningSelector,
};
pub use tool::{BrowserTool, RUN_DIR_ENV, SharedBrowser};

//! A fixture shop server and a launched browser per test.

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::{ReplayError, ReplayOptions, ReplayReport, Replayer};
use browserflow_shop::FixtureServer;
use browserflow_steps::Step;
use serde_json::{Map, Value, json};
use std::time::Duration;

pub struct Harness {
    pub server: FixtureServer,
    pub browser: Browser,
}

impl Harness {
    pub async fn start() -> Self {
        let server = FixtureServer::shop().expect("fixture server starts");
        let browser = Browser::launch(&BrowserConfig::default())
            .await
            .expect("Chromium launches");
        Self { server, browser }
    }

    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// Replays JSON steps in a fresh context, with `{{shop}}` bound to the shop's origin.
    pub async fn replay(&self, steps: Value, inputs: Value) -> Result<ReplayReport, ReplayError> {
        self.replay_with(steps, inputs, ReplayOptions::default())
            .await
    }

    pub async fn replay_with(
        &self,
        steps: Value,
        inputs: Value,
        options: ReplayOptions,
    ) -> Result<ReplayReport, ReplayError> {
        let steps: Vec<Step> = serde_json::from_value(steps).expect("steps parse");
        let mut inputs: Map<String, Value> = inputs.as_object().cloned().unwrap_or_default();
        inputs.insert("shop".into(), json!(self.url("")));
        let context = self.browser.new_context().await.expect("context");
        let result = Replayer::new(options).run(&context, &steps, &inputs).await;
        context.close().await.expect("context closes");
        result
    }

    pub async fn close(self) {
        self.browser.close().await.expect("browser closes");
    }
}

/// Options with a short candidate budget, for tests that expect failures.
pub fn quick(ms: u64) -> ReplayOptions {
    ReplayOptions {
        candidate_timeout: Duration::from_millis(ms),
        ..ReplayOptions::default()
    }
}

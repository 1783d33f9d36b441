//! A fixture shop server and a launched browser per test.

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_shop::FixtureServer;

pub struct Harness {
    pub server: FixtureServer,
    pub browser: Browser,
}

impl Harness {
    pub async fn start() -> Self {
        log_warnings();
        let server = FixtureServer::shop().expect("fixture server starts");
        let browser = Browser::launch(&BrowserConfig::default())
            .await
            .expect("Chromium launches");
        Self { server, browser }
    }

    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    pub async fn close(self) {
        self.browser.close().await.expect("browser closes");
    }
}

/// The recorder's warnings (an action it could not record, and why) into the test's output,
/// shown when a test fails.
pub(crate) fn log_warnings() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_env_filter(tracing_subscriber::EnvFilter::new(
            "browserflow_record=warn",
        ))
        .try_init();
}

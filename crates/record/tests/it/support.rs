//! A fixture shop server and a launched browser per test.

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_shop::FixtureServer;

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

    pub async fn close(self) {
        self.browser.close().await.expect("browser closes");
    }
}

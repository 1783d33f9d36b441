//! What the page shows: its viewport size, bringing it to front, and screenshots of it.

use base64::Engine as _;
use serde_json::{Value, json};

use super::Page;
use crate::error::BrowserError;
use crate::session::CdpError;

impl Page {
    /// Overrides the viewport size.
    pub async fn set_viewport(
        &self,
        width: u32,
        height: u32,
        device_scale_factor: f64,
        mobile: bool,
    ) -> Result<(), CdpError> {
        self.session
            .call(
                "Emulation.setDeviceMetricsOverride",
                json!({ "width": width, "height": height,
                        "deviceScaleFactor": device_scale_factor, "mobile": mobile }),
            )
            .await
            .map(|_| ())
    }

    /// Brings the page to front (the replayer does so when it switches pages).
    pub async fn bring_to_front(&self) -> Result<(), CdpError> {
        self.session
            .call("Page.bringToFront", json!({}))
            .await
            .map(|_| ())
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>, BrowserError> {
        let data = self.screenshot_base64().await?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| BrowserError::Page(format!("screenshot data is not base64: {e}")))
    }

    /// A PNG screenshot of the viewport, base64-encoded as Chromium sends it.
    pub async fn screenshot_base64(&self) -> Result<String, BrowserError> {
        let mut answer = self
            .session
            .call(
                "Page.captureScreenshot",
                // Chromium's fast PNG settings: bigger files, a fraction of the encoding
                // time, which is on every step's critical path.
                json!({ "format": "png", "fromSurface": true, "optimizeForSpeed": true }),
            )
            .await
            .map_err(BrowserError::cdp("taking a screenshot"))?;
        match answer.get_mut("data").map(Value::take) {
            Some(Value::String(data)) => Ok(data),
            _ => Err(BrowserError::Page(
                "the screenshot answer has no data".into(),
            )),
        }
    }
}

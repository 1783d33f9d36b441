//! What the page shows: its viewport size, bringing it to front, and screenshots of it —
//! plain, or with every element that shows one of some texts masked in every frame
//! ([`Page::screenshot_base64_masking`]).

use base64::Engine as _;
use serde_json::{Value, json};

use super::Page;
use crate::error::BrowserError;
use crate::injected::MASK_JS;
use crate::session::CdpError;

/// Why [`Page::screenshot_base64_masking`] gave no screenshot: it could not make sure that no
/// masked text shows. Frame URLs are as the page has them (a caller redacts them).
#[derive(Debug, thiserror::Error)]
pub enum MaskedScreenshotError {
    /// A frame's document could not be searched or masked (it is navigating, or the
    /// evaluation failed), so what it shows is unknown.
    #[error("frame {url:?} could not be masked: {reason}")]
    FrameUnreachable {
        /// The frame's URL.
        url: String,
        /// What failed.
        reason: String,
    },
    /// What shows a text moved, appeared or went away between masking and capturing.
    #[error("frame {url:?} changed while it was captured")]
    Changed {
        /// The frame's URL.
        url: String,
    },
    /// The capture itself failed.
    #[error(transparent)]
    Capture(#[from] BrowserError),
}

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

    /// A PNG screenshot of the viewport (base64) in which no element of any frame shows one
    /// of `texts`: each frame's elements whose value, text or attributes hold one (in any
    /// case, attribute values also URL-decoded) are covered by solid boxes drawn in the
    /// replayer's isolated world for the capture, then uncovered. When a frame cannot be
    /// reached, or what shows a text changed between masking and capture, there is no
    /// screenshot: the error says why. With `opaque` (once a secret was typed into the
    /// page), every element whose pixels cannot be read for a text is covered as well:
    /// canvases, videos, plugins and images made in the page (`data:`, `blob:`).
    pub async fn screenshot_base64_masking(
        &self,
        texts: &[String],
        opaque: bool,
    ) -> Result<String, MaskedScreenshotError> {
        let texts = serde_json::to_string(texts).unwrap_or_else(|_| "[]".into());
        let mask = format!("({MASK_JS})({texts}, \"mask\", {opaque})");
        let unmask = format!("({MASK_JS})({texts}, \"unmask\", {opaque})");
        let frames = self.frames();
        let masked = futures::future::join_all(frames.iter().map(|(id, state)| async {
            let world = self.isolated_world(id).await;
            let found = match &world {
                Ok(world) => self.evaluate(world, &mask, false).await,
                Err(e) => Err(e.clone()),
            };
            (state.url.clone(), world, found)
        }))
        .await;
        let unreachable = masked.iter().find_map(|(url, _, found)| match found {
            Err(e) => Some(MaskedScreenshotError::FrameUnreachable {
                url: url.clone(),
                reason: e.to_string(),
            }),
            Ok(_) => None,
        });
        let shot = match unreachable {
            Some(error) => Err(error),
            None => self
                .screenshot_base64()
                .await
                .map_err(MaskedScreenshotError::from),
        };
        // Uncover every frame that was covered, whatever happened, and check that each still
        // shows the texts exactly where it was covered.
        let unmask = &unmask;
        let checks =
            futures::future::join_all(masked.iter().map(|(url, world, found)| async move {
                match (world, found) {
                    (Ok(world), Ok(before)) => {
                        let after = self.evaluate(world, unmask, false).await;
                        match after {
                            Ok(after) if after == *before => None,
                            _ => Some(url.clone()),
                        }
                    }
                    _ => None,
                }
            }))
            .await;
        let shot = shot?;
        match checks.into_iter().flatten().next() {
            Some(url) => Err(MaskedScreenshotError::Changed { url }),
            None => Ok(shot),
        }
    }
}

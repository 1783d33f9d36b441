//! The screenshot after a step. A replay without secrets takes it as it is; a replay with
//! secrets has every element showing one masked in every frame for the capture
//! (`Page::screenshot_base64_masking`), or takes none, and the step's report says why. Once
//! a step typed a secret into the page, every canvas, video, plugin and image made in the
//! page is masked as well: a script may have drawn the secret there, where no text shows it.

use std::time::Duration;

use crate::run::Run;

/// How many times a masked capture is tried before the step goes without a screenshot.
const MASKED_ATTEMPTS: u32 = 3;

/// The pause between two tries.
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// What became of a step's screenshot.
pub(crate) enum StepCapture {
    /// Base64 PNG as Chromium sent it.
    Taken(String),
    /// Not taken because no mask could be guaranteed; why (redacted).
    Withheld(String),
    /// The capture failed (the page went away): nothing to show, nothing to explain.
    Failed,
}

impl StepCapture {
    /// The capture, when there is one.
    pub(crate) fn base64(&self) -> Option<String> {
        match self {
            StepCapture::Taken(data) => Some(data.clone()),
            _ => None,
        }
    }

    /// Why there is no screenshot, when it was withheld.
    pub(crate) fn withheld(&self) -> Option<String> {
        match self {
            StepCapture::Withheld(reason) => Some(reason.clone()),
            _ => None,
        }
    }
}

impl Run<'_> {
    /// The screenshot of the page as the step left it.
    pub(crate) async fn capture_after_step(&self) -> StepCapture {
        let page = self.page();
        let secrets = &self.options.secrets;
        if secrets.is_empty() {
            return match page.screenshot_base64().await {
                Ok(data) => StepCapture::Taken(data),
                Err(_) => StepCapture::Failed,
            };
        }
        let texts = secrets.mask_texts();
        let mut attempt = 1;
        loop {
            match page
                .screenshot_base64_masking(&texts, self.secret_typed)
                .await
            {
                Ok(data) => return StepCapture::Taken(data),
                // A frame that was still loading (an iframe a script just pointed somewhere)
                // changes under the capture; it settles within moments, so try again.
                Err(_) if attempt < MASKED_ATTEMPTS => {
                    attempt += 1;
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(error) => {
                    let reason = secrets.redact(&format!(
                        "no screenshot: the secrets on the page could not be masked \
                         ({MASKED_ATTEMPTS} attempts; the last: {error})"
                    ));
                    tracing::debug!(%reason, "screenshot withheld");
                    return StepCapture::Withheld(reason);
                }
            }
        }
    }
}

//! Navigating and waiting for navigations: marks of a frame's navigation counters, whether a
//! navigation began since a mark, and when it settled (parsed, loaded, same-document or
//! abandoned).

use std::time::Duration;

use serde_json::json;

use super::{FrameState, Page, PageState};
use crate::error::{BrowserError, NavigationFailure};

/// A point-in-time copy of one frame's navigation counters.
#[derive(Debug, Clone, Default)]
pub struct NavMark {
    requested: u64,
    started: u64,
    stopped: u64,
    committed: u64,
    same_document: u64,
}

impl Page {
    /// Navigates the main frame and waits until the new document is parsed
    /// (`DOMContentLoaded`); reads wait for its `load` on their own ([`Self::wait_loaded`]).
    pub async fn navigate(&self, url: &str, timeout: Duration) -> Result<(), BrowserError> {
        let mark = self.nav_mark(self.target_id());
        // Chromium answers `Page.navigate` only once the server responds: bound it too, or a
        // server that never answers would hang the step past its timeout.
        let answer = tokio::time::timeout(
            timeout,
            self.session.call("Page.navigate", json!({ "url": url })),
        )
        .await
        .map_err(|_| BrowserError::Navigation {
            url: url.to_string(),
            failure: NavigationFailure::NoResponse {
                timeout_ms: timeout.as_millis(),
            },
        })?
        .map_err(|e| BrowserError::Navigation {
            url: url.to_string(),
            failure: NavigationFailure::Refused(e),
        })?;
        if let Some(error) = answer["errorText"].as_str().filter(|e| !e.is_empty()) {
            return Err(BrowserError::Navigation {
                url: url.to_string(),
                failure: NavigationFailure::Network(error.to_string()),
            });
        }
        let loader = answer["loaderId"].as_str().map(str::to_string);
        let main = self.target_id().to_string();
        let done = self
            .wait_for(timeout, |page| {
                let Some(frame) = page.frames.get(&main) else {
                    return false;
                };
                match &loader {
                    Some(loader) => frame.loader_id == *loader && frame.parsed(),
                    // Same-document navigation: nothing more to load.
                    None => frame.same_document > mark.same_document || !frame.loading,
                }
            })
            .await;
        match (done, self.gone()) {
            (true, _) => Ok(()),
            (false, Some(gone)) => Err(BrowserError::Navigation {
                url: url.to_string(),
                failure: NavigationFailure::CutShort(gone),
            }),
            (false, None) => Err(BrowserError::Navigation {
                url: url.to_string(),
                failure: NavigationFailure::NotLoaded {
                    timeout_ms: timeout.as_millis(),
                },
            }),
        }
    }

    pub fn nav_mark(&self, frame_id: &str) -> NavMark {
        self.frame_state(frame_id)
            .map(|f| NavMark {
                requested: f.requested,
                started: f.started,
                stopped: f.stopped,
                committed: f.committed,
                same_document: f.same_document,
            })
            .unwrap_or_default()
    }

    /// True when `frame_id` has started (or requested) a navigation since `mark`.
    pub fn navigation_began(&self, frame_id: &str, mark: &NavMark) -> bool {
        self.frame_state(frame_id).is_some_and(|f| {
            f.requested > mark.requested
                || f.started > mark.started
                || f.committed > mark.committed
                || f.same_document > mark.same_document
        })
    }

    /// Waits until a navigation of `frame_id` that began after `mark` has settled: the new
    /// document is parsed (`DOMContentLoaded`: its elements are there to be found, and every
    /// step waits for its element anyway), the navigation stayed within the document, or it
    /// was abandoned (a download, a 204). Returns false on timeout.
    pub async fn wait_navigation_settled(
        &self,
        frame_id: &str,
        mark: &NavMark,
        timeout: Duration,
    ) -> bool {
        let frame_id = frame_id.to_string();
        let mark = mark.clone();
        self.wait_for(timeout, move |page| {
            let Some(f) = page.frames.get(&frame_id) else {
                // The frame is gone (an iframe removed by the navigation of its parent).
                return true;
            };
            if f.committed > mark.committed && f.parsed() {
                return true;
            }
            if f.loading {
                return false;
            }
            // A fragment or history.pushState navigation: nothing loads.
            let same_document_only =
                f.same_document > mark.same_document && f.started == mark.started;
            let abandoned = f.stopped > mark.stopped && f.committed == mark.committed;
            same_document_only || abandoned
        })
        .await
    }

    /// Waits (up to `timeout`) until `frame_id`'s document has fired `load`, so that what
    /// the page's `load` handlers write is there to be read. Returns false on timeout.
    pub async fn wait_loaded(&self, frame_id: &str, timeout: Duration) -> bool {
        self.wait_for(timeout, |page| {
            page.frames.get(frame_id).is_none_or(FrameState::loaded)
        })
        .await
    }

    async fn wait_for(&self, timeout: Duration, mut done: impl FnMut(&PageState) -> bool) -> bool {
        let mut changes = self.changes();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            {
                let state = self.shared.state();
                if done(&state) {
                    return true;
                }
                if state.closed || state.crashed {
                    return false;
                }
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => return false,
            }
        }
    }
}

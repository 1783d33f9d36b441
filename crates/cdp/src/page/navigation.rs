//! Navigating and waiting for navigations: marks of where a frame's navigations stand,
//! whether a navigation began since a mark, and when it settled (parsed, loaded,
//! same-document or abandoned).
//!
//! A navigation is known by its identity — the loader of the document it commits (CDP
//! `loaderId`, from `Page.frameStartedNavigating`, `Page.lifecycleEvent` and
//! `Page.frameNavigated`) — never by counting loading events: the previous document's late
//! `frameStoppedLoading` (its slow stylesheet, script or image arriving after the next click)
//! must not read as the new navigation being abandoned. The interpreter keeps the identities
//! (`interpreter.rs`); this file compares them with a mark.

use std::time::Duration;

use serde_json::json;

use super::{FrameState, Page, PageState};
use crate::error::{BrowserError, NavigationFailure};

/// Where one frame's navigations stood at a point in time: the document it showed, the last
/// navigation started and the last abandoned (by loader), and how many navigations the page
/// had asked for or made within its document.
#[derive(Debug, Clone, Default)]
pub struct NavMark {
    loader_id: String,
    last_started: Option<String>,
    last_abandoned: Option<String>,
    requested: u64,
    same_document: u64,
}

impl NavMark {
    /// Where `frame`'s navigations stand now.
    pub(super) fn of(frame: &FrameState) -> Self {
        Self {
            loader_id: frame.loader_id.clone(),
            last_started: frame.last_started.clone(),
            last_abandoned: frame.last_abandoned.clone(),
            requested: frame.requested,
            same_document: frame.same_document,
        }
    }
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
        // A page whose own script goes somewhere refused while it loads never finishes
        // loading the document asked for: that refusal ends the wait at once, not the budget.
        let refused_before = self.refused_navigations().len();
        let refused_since = || {
            self.refused_navigations()
                .get(refused_before..)?
                .first()
                .cloned()
        };
        let done = self
            .wait_for(timeout, |page| {
                if refused_since().is_some() {
                    return true;
                }
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
        if let Some(refusal) = refused_since() {
            return Err(BrowserError::Navigation {
                url: url.to_string(),
                failure: NavigationFailure::Blocked(Box::new(refusal)),
            });
        }
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

    /// Where frame `frame_id`'s navigations stand now, to tell later whether one began
    /// ([`Page::navigation_began`]).
    pub fn nav_mark(&self, frame_id: &str) -> NavMark {
        self.frame_state(frame_id)
            .map(|f| NavMark::of(&f))
            .unwrap_or_default()
    }

    /// True when `frame_id` has started (or requested) a navigation since `mark`.
    pub fn navigation_began(&self, frame_id: &str, mark: &NavMark) -> bool {
        self.frame_state(frame_id)
            .is_some_and(|f| navigation_began(&f, mark))
    }

    /// Waits until a navigation of `frame_id` that began after `mark` has settled
    /// ([`navigation_settled`]). Returns false on timeout.
    pub async fn wait_navigation_settled(
        &self,
        frame_id: &str,
        mark: &NavMark,
        timeout: Duration,
    ) -> bool {
        let frame_id = frame_id.to_string();
        let mark = mark.clone();
        self.wait_for(timeout, move |page| {
            // A frame that is gone (an iframe removed by the navigation of its parent) has
            // nothing more to wait for.
            page.frames
                .get(&frame_id)
                .is_none_or(|f| navigation_settled(f, &mark))
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

/// True when `frame` has started (or been asked for) a navigation since `mark`: a request, a
/// navigation under a new loader, a new document, or a same-document navigation.
pub(super) fn navigation_began(frame: &FrameState, mark: &NavMark) -> bool {
    frame.requested > mark.requested
        || frame.last_started != mark.last_started
        || frame.loader_id != mark.loader_id
        || frame.same_document > mark.same_document
}

/// True when a navigation of `frame` that began after `mark` has settled, judged by document
/// identity alone:
/// - a document other than the mark's committed and is parsed (`DOMContentLoaded`, which
///   follows its `frameNavigated`: its URL is known, its elements are there to be found, and
///   every step waits for its element anyway);
/// - the navigation stayed within the document (a fragment, `history.pushState`): no
///   cross-document navigation started since the mark and nothing loads;
/// - the navigation under way was abandoned (a download, a 204): the frame stopped loading
///   while it was under way, and no later one started.
pub(super) fn navigation_settled(frame: &FrameState, mark: &NavMark) -> bool {
    if frame.loader_id != mark.loader_id {
        // A frame moving to another process stops loading in its old one: only the new
        // document's own `DOMContentLoaded` settles it.
        return frame.parsed();
    }
    if frame.loading {
        return false;
    }
    let same_document_only =
        frame.same_document > mark.same_document && frame.last_started == mark.last_started;
    let abandoned =
        frame.last_abandoned != mark.last_abandoned && frame.last_abandoned == frame.last_started;
    same_document_only || abandoned
}

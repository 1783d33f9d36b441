//! One isolated browser context (its own cookies, storage and cache) and its pages.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use crate::error::BrowserError;
use crate::page::{BrowserEvent, BrowserWatcher, Page};
use crate::session::{CdpError, CdpSession};

/// An isolated browser context (CDP `Target.createBrowserContext`) and its first page. Disposed
/// by [`BrowserContext::close`] or, failing that, when dropped.
pub struct BrowserContext {
    pub(super) browser_session: CdpSession,
    /// `None` for the browser's default context.
    pub(super) context_id: Option<String>,
    /// The target of the first page (the one a default context closes when it ends).
    pub(super) first_target: String,
    pub(super) page: Option<Page>,
    pub(super) popups: Arc<BrowserWatcher>,
    /// Not yet closed (or disposed on drop).
    pub(super) open: bool,
}

impl std::fmt::Debug for BrowserContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserContext")
            .field("context_id", &self.context_id)
            .finish()
    }
}

impl BrowserContext {
    /// The context's first page (where a replay starts).
    pub fn page(&self) -> &Page {
        // Always set by `Browser::new_context`; the Option only exists to build the struct in
        // two steps.
        self.page
            .as_ref()
            .unwrap_or_else(|| unreachable!("a BrowserContext always has its page"))
    }

    /// The CDP browser context id (`None` for the browser's default context).
    pub fn id(&self) -> Option<&str> {
        self.context_id.as_deref()
    }

    /// The browser session's typed events from now on (popups opening, targets going away,
    /// downloads), in the browser's order; not only this context's.
    pub fn subscribe_browser(&self) -> mpsc::UnboundedReceiver<BrowserEvent> {
        self.popups.subscribe()
    }

    /// Attaches to another page of this context (a popup), by target id.
    pub async fn attach_page(&self, target_id: &str) -> Result<Page, BrowserError> {
        Page::attach(
            self.browser_session.connection(),
            target_id,
            self.popups.clone(),
        )
        .await
    }

    /// Disposes the context: its pages close and its cookies and storage are gone. (The
    /// default context cannot be disposed: its first page is closed, and the context is never
    /// handed out again.)
    pub async fn close(mut self) -> Result<(), BrowserError> {
        self.open = false;
        self.end()
            .await
            .map_err(BrowserError::cdp("disposing a browser context"))
    }

    fn end(&self) -> impl Future<Output = Result<(), CdpError>> + Send + 'static {
        let call = match &self.context_id {
            Some(id) => self.browser_session.start(
                "Target.disposeBrowserContext",
                json!({ "browserContextId": id }),
            ),
            None => self.browser_session.start(
                "Target.closeTarget",
                json!({ "targetId": self.first_target }),
            ),
        };
        async move { call.await.map(|_| ()) }
    }
}

impl Drop for BrowserContext {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        // The call is sent now; nobody needs its answer.
        drop(self.end());
    }
}

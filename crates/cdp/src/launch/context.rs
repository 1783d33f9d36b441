//! One isolated browser context (its own cookies, storage and cache) and its pages.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use crate::address_guard::{AddressGuard, AddressProxy};
use crate::error::BrowserError;
use crate::page::{BrowserEvent, BrowserWatcher, Page};
use crate::session::{CdpError, CdpSession};

/// An isolated browser context (CDP `Target.createBrowserContext`) and its first page. Disposed
/// by [`BrowserContext::close`] or, failing that, when dropped.
pub struct BrowserContext {
    pub(super) browser_session: CdpSession,
    pub(super) context_id: String,
    pub(super) page: Option<Page>,
    pub(super) popups: Arc<BrowserWatcher>,
    /// Not yet closed (or disposed on drop).
    pub(super) open: bool,
    /// The proxy its connections to host names go through (a launched browser's contexts).
    pub(super) addresses: Option<AddressProxy>,
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

    /// The CDP browser context id.
    pub fn id(&self) -> &str {
        &self.context_id
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
            self.address_guard(),
        )
        .await
    }

    pub(super) fn address_guard(&self) -> Option<Arc<AddressGuard>> {
        self.addresses.as_ref().map(|proxy| proxy.guard.clone())
    }

    /// Disposes the context: its pages close and its cookies, storage and cache are gone.
    pub async fn close(mut self) -> Result<(), BrowserError> {
        self.open = false;
        self.end()
            .await
            .map_err(BrowserError::cdp("disposing a browser context"))
    }

    fn end(&self) -> impl Future<Output = Result<(), CdpError>> + Send + 'static {
        let call = self.browser_session.start(
            "Target.disposeBrowserContext",
            json!({ "browserContextId": self.context_id }),
        );
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

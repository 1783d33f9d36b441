//! The browser session's events, read once for every page of a browser: pages opened by other
//! pages (popups, kept per opener for [`Page::popups_opened`]), targets going away, and
//! downloads, published as typed [`BrowserEvent`]s. Like a page's watcher it runs as the
//! socket routes each event, so its events keep their order with the pages' events.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use chromiumoxide::cdp::browser_protocol::{browser, target};
use tokio::sync::{mpsc, watch};

use super::Page;
use super::events::{BrowserEvent, DownloadState, Subscribers};
use super::interpreter::decode;
use crate::session::{CdpConnection, CdpEvent, EventHandler};

/// Follows the browser session; one per connection, shared by its contexts and pages.
#[derive(Debug)]
pub struct BrowserWatcher {
    /// Target ids of popups, by the target id of the page that opened them, oldest first.
    opened: Mutex<HashMap<String, Vec<String>>>,
    pub(super) changed: watch::Sender<u64>,
    subscribers: Subscribers<BrowserEvent>,
}

struct Handler(Weak<BrowserWatcher>);

impl BrowserWatcher {
    /// Starts watching the browser session of `conn` (targets created and destroyed, popups
    /// by opener, downloads).
    pub fn start(conn: &CdpConnection) -> Arc<Self> {
        let watcher = Arc::new(Self {
            opened: Mutex::default(),
            changed: watch::channel(0).0,
            subscribers: Subscribers::default(),
        });
        conn.session(None)
            .on_events(Arc::new(Handler(Arc::downgrade(&watcher))));
        watcher
    }

    /// Browser events from now on, in the browser's order.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<BrowserEvent> {
        self.subscribers.subscribe()
    }

    pub(super) fn opened_by(&self, opener: &str) -> Vec<String> {
        self.opened
            .lock()
            .map(|o| o.get(opener).cloned().unwrap_or_default())
            .unwrap_or_default()
    }
}

impl EventHandler for Handler {
    fn on_event(&self, event: &CdpEvent) -> bool {
        let Some(watcher) = self.0.upgrade() else {
            return false;
        };
        if let Some(event) = interpret_browser_event(event) {
            if let BrowserEvent::PageCreated {
                target_id,
                opener_id: Some(opener),
                ..
            } = &event
            {
                if let Ok(mut opened) = watcher.opened.lock() {
                    opened
                        .entry(opener.clone())
                        .or_default()
                        .push(target_id.clone());
                }
                watcher.changed.send_modify(|v| *v += 1);
            }
            watcher.subscribers.publish(event);
        }
        true
    }
}

/// What a browser-session event means, when it is one the engine follows.
pub(super) fn interpret_browser_event(event: &CdpEvent) -> Option<BrowserEvent> {
    match event.method.as_str() {
        target::EventTargetCreated::IDENTIFIER => {
            let info = decode::<target::EventTargetCreated>(event)?.target_info;
            (info.r#type == "page").then(|| BrowserEvent::PageCreated {
                target_id: info.target_id.into(),
                opener_id: info.opener_id.map(String::from),
                url: info.url,
            })
        }
        target::EventTargetDestroyed::IDENTIFIER => {
            let e = decode::<target::EventTargetDestroyed>(event)?;
            Some(BrowserEvent::TargetDestroyed {
                target_id: e.target_id.into(),
            })
        }
        target::EventDetachedFromTarget::IDENTIFIER => {
            let e = decode::<target::EventDetachedFromTarget>(event)?;
            Some(BrowserEvent::SessionDetached {
                session_id: e.session_id.into(),
            })
        }
        browser::EventDownloadWillBegin::IDENTIFIER => {
            let e = decode::<browser::EventDownloadWillBegin>(event)?;
            Some(BrowserEvent::DownloadWillBegin {
                frame_id: e.frame_id.into(),
                guid: e.guid,
                url: e.url,
                suggested_filename: e.suggested_filename,
            })
        }
        browser::EventDownloadProgress::IDENTIFIER => {
            let e = decode::<browser::EventDownloadProgress>(event)?;
            Some(BrowserEvent::DownloadProgress {
                guid: e.guid,
                state: match e.state {
                    browser::DownloadProgressState::Completed => DownloadState::Completed,
                    browser::DownloadProgressState::Canceled => DownloadState::Canceled,
                    browser::DownloadProgressState::InProgress => DownloadState::InProgress,
                },
            })
        }
        _ => None,
    }
}

impl Page {
    /// Target ids of pages this page has opened (popups), oldest first.
    pub fn popups_opened(&self) -> Vec<String> {
        self.popups.opened_by(self.target_id())
    }

    /// A receiver that changes whenever a popup opens or closes.
    pub fn popup_changes(&self) -> watch::Receiver<u64> {
        self.popups.changed.subscribe()
    }
}

//! The navigation guard: once [`Page::guard_navigations`] is on, every document request of
//! the page (the main frame and its in-process frames: navigations the page starts, form
//! submissions, each hop of a redirect) is paused by the browser before it is sent
//! (`Fetch.enable` for `Document` requests), and a redirect's target before it is followed;
//! [`check_navigation`] decides, and a refused one is failed (`BlockedByClient`) before
//! anything of its target is loaded, and kept for the caller to name. `file:` URLs pass
//! through `Fetch` too, so a page already on a local file cannot reach its neighbours.
//! What Chromium refuses by itself (a web page linking to `file:` or `chrome:`, a redirect
//! off the web: `net::ERR_UNSAFE_REDIRECT`) never reaches the guard.

use std::sync::{Arc, Mutex, MutexGuard};

use browserflow_steps::{
    NavigationRefusal, Origins, check_navigation, check_resolved, needs_resolution,
};
use serde::Deserialize;
use serde_json::json;

use super::{Page, Shared};
use crate::error::BrowserError;
use crate::session::CdpSession;

/// What the guard of one page allows, and what it refused so far.
#[derive(Debug, Default)]
pub(super) struct Guard {
    /// `None` until the page is guarded.
    origins: Mutex<Option<Origins>>,
    refused: Mutex<Vec<NavigationRefusal>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// `Fetch.requestPaused` as the guard needs it (only the fields it reads, so that a protocol
/// change elsewhere in the event cannot leave a request paused for ever).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RequestPaused {
    pub(super) request_id: String,
    request: PausedRequestUrl,
    pub(super) frame_id: String,
    #[serde(default)]
    response_status_code: Option<i64>,
    #[serde(default)]
    response_headers: Vec<Header>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct PausedRequestUrl {
    url: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Header {
    name: String,
    value: String,
}

/// A paused document request to decide on.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PausedDocument {
    pub(super) request_id: String,
    /// Where the request goes: its URL, or at the response stage the target of a redirect
    /// (`None`: a response that is no redirect, nothing to decide).
    pub(super) destination: Option<String>,
    /// A main-frame request (only those are held to the tool's origins).
    pub(super) top_level: bool,
}

impl RequestPaused {
    /// The document request to decide on; `top_level` when it is the main frame's.
    pub(super) fn into_document(self, top_level: bool) -> PausedDocument {
        let destination = match self.response_status_code {
            None => Some(self.request.url),
            Some(300..=399) => self
                .response_headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("location"))
                .map(|location| resolve(&self.request.url, &location.value)),
            Some(_) => None,
        };
        PausedDocument {
            request_id: self.request_id,
            destination,
            top_level,
        }
    }
}

/// `location` resolved against the URL that answered with it.
fn resolve(base: &str, location: &str) -> String {
    url::Url::parse(base)
        .and_then(|base| base.join(location))
        .map(String::from)
        .unwrap_or_else(|_| location.to_string())
}

/// How long resolving a host name may hold a navigation; a name that does not resolve in
/// time is let through (Chromium then fails it, or finds what the system resolver did not).
const RESOLVE_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Lets a paused document request go on, or fails it when the guard refuses where it goes.
/// Answered at once from the socket task (the navigation waits on it), except for a host
/// name whose addresses decide ([`needs_resolution`]): it is resolved in a task of its own,
/// and the request goes on or fails once [`check_resolved`] has decided. (The browser
/// resolves the name again: a name that changes its answer between the two lookups is not
/// caught here.)
pub(super) fn answer(session: &CdpSession, shared: &Arc<Shared>, document: PausedDocument) {
    let origins = lock(&shared.guard.origins).clone();
    let (Some(destination), Some(origins)) = (document.destination.clone(), origins) else {
        decide(session, shared, document.request_id, None);
        return;
    };
    if let Err(refusal) = check_navigation(&destination, document.top_level, &origins) {
        decide(session, shared, document.request_id, Some(refusal));
        return;
    }
    let Some((host, port)) = needs_resolution(&destination, &origins) else {
        decide(session, shared, document.request_id, None);
        return;
    };
    let (session, shared) = (session.clone(), shared.clone());
    tokio::spawn(async move {
        let resolved = tokio::time::timeout(
            RESOLVE_LIMIT,
            tokio::net::lookup_host((host.as_str(), port)),
        )
        .await;
        let addresses: Vec<std::net::IpAddr> = match resolved {
            Ok(Ok(found)) => found.map(|a| a.ip()).collect(),
            _ => Vec::new(),
        };
        let refusal = check_resolved(&destination, document.top_level, &origins, &addresses).err();
        decide(&session, &shared, document.request_id, refusal);
    });
}

/// Continues the paused request `id`, or fails it and keeps the refusal.
fn decide(
    session: &CdpSession,
    shared: &Arc<Shared>,
    id: String,
    refusal: Option<NavigationRefusal>,
) {
    match refusal {
        None => drop(session.start("Fetch.continueRequest", json!({ "requestId": id }))),
        Some(refusal) => {
            tracing::warn!(%refusal, "navigation refused");
            lock(&shared.guard.refused).push(refusal);
            drop(session.start(
                "Fetch.failRequest",
                json!({ "requestId": id, "errorReason": "BlockedByClient" }),
            ));
        }
    }
}

impl Page {
    /// From now on, refuses every navigation of this page that [`check_navigation`] refuses
    /// for `origins` (before its request is sent, or before a redirect to it is followed);
    /// [`Page::refused_navigations`] names them.
    pub async fn guard_navigations(&self, origins: Origins) -> Result<(), BrowserError> {
        *lock(&self.shared.guard.origins) = Some(origins);
        let document = |stage: &str| json!({ "urlPattern": "*", "resourceType": "Document", "requestStage": stage });
        self.session
            .call(
                "Fetch.enable",
                json!({ "patterns": [document("Request"), document("Response")] }),
            )
            .await
            .map_err(BrowserError::cdp("guarding the page's navigations"))?;
        Ok(())
    }

    /// Every navigation the guard refused on this page, oldest first.
    pub fn refused_navigations(&self) -> Vec<NavigationRefusal> {
        lock(&self.shared.guard.refused).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paused(value: serde_json::Value) -> RequestPaused {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("decodes: {e}"))
    }

    #[test]
    fn a_request_goes_where_its_url_says_and_a_redirect_where_its_location_says() {
        let request = paused(json!({
            "requestId": "interception-1", "frameId": "F",
            "request": { "url": "http://127.0.0.1:1/a", "method": "GET", "headers": {} },
            "resourceType": "Document"
        }));
        assert_eq!(
            request.into_document(true).destination.as_deref(),
            Some("http://127.0.0.1:1/a")
        );
        let redirect = paused(json!({
            "requestId": "interception-2", "frameId": "F",
            "request": { "url": "http://127.0.0.1:1/a" },
            "resourceType": "Document", "responseStatusCode": 302,
            "responseHeaders": [{ "name": "Location", "value": "file:///etc/hostname" }]
        }));
        assert_eq!(
            redirect.into_document(true).destination.as_deref(),
            Some("file:///etc/hostname")
        );
        let relative = paused(json!({
            "requestId": "interception-3", "frameId": "F",
            "request": { "url": "http://127.0.0.1:1/a/b" },
            "responseStatusCode": 301,
            "responseHeaders": [{ "name": "location", "value": "../c?x=1" }]
        }));
        assert_eq!(
            relative.into_document(false).destination.as_deref(),
            Some("http://127.0.0.1:1/c?x=1")
        );
        let ok = paused(json!({
            "requestId": "interception-4", "frameId": "F",
            "request": { "url": "http://127.0.0.1:1/a" }, "responseStatusCode": 200
        }));
        assert_eq!(ok.into_document(true).destination, None);
    }
}

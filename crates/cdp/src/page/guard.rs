//! The navigation guard: once [`Page::guard_navigations`] is on, every document request of
//! the page (the main frame and every frame, out-of-process ones through their own sessions:
//! navigations the page starts, form submissions, each hop of a redirect) is paused by the
//! browser before it is sent (`Fetch.enable` for `Document` requests), and a redirect's
//! target before it is followed; [`check_navigation`] decides, and a refused one is failed
//! (`BlockedByClient`) before anything of its target is loaded, and kept for the caller to
//! name. `file:` URLs pass through `Fetch` too, so a page already on a local file cannot
//! reach its neighbours. What Chromium refuses by itself (a web page linking to `file:` or
//! `chrome:`, a redirect off the web: `net::ERR_UNSAFE_REDIRECT`) never reaches the guard.
//!
//! Requests that are no navigation (`fetch`, images, scripts) are paused only when their URL
//! is written with a link-local or cloud-metadata address ([`LINK_LOCAL_PATTERNS`], matched
//! on the URL as Chromium canonicalised it, so `http://2852039166/` arrives as
//! `http://169.254.169.254/`) and refused as a child frame's navigation would be; they never
//! fail a step (the page sees a failed request), the refusal is logged and kept apart
//! ([`Page::refused_requests`]). A host *name* resolving to such an address is decided here
//! for navigations (a typed refusal naming the URL), and for every connection of the page's
//! context — requests of any kind — by the context's address guard (`address_guard.rs`),
//! whose one resolution of the name is both what is decided and what is connected to.

use std::sync::{Arc, Mutex, MutexGuard};

use browserflow_steps::{
    NavigationRefusal, Origins, check_navigation, check_resolved, needs_resolution,
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Page, Shared};
use crate::error::BrowserError;
use crate::session::CdpSession;

/// What the guard of one page allows, and what it refused so far.
#[derive(Debug, Default)]
pub(super) struct Guard {
    /// `None` until the page is guarded.
    origins: Mutex<Option<Origins>>,
    refused: Mutex<Vec<NavigationRefusal>>,
    /// Refused requests that were no navigation.
    refused_requests: Mutex<Vec<NavigationRefusal>>,
}

/// The URLs (as Chromium canonicalises them) of link-local and cloud-metadata addresses,
/// as `Fetch` patterns: `169.254.0.0/16`, its IPv4-mapped IPv6 form (`[::ffff:a9fe:…]`),
/// `fe80::/10`, `fd00:ec2::254`, `100.100.100.200` and `metadata.google.internal`. What a
/// pattern matches is then decided by [`check_navigation`] (a pattern may match more, such
/// as a query string holding one of them).
const LINK_LOCAL_PATTERNS: &[&str] = &[
    "*://169.254.*",
    "*://[::ffff:a9fe:*",
    "*://[fe8*",
    "*://[fe9*",
    "*://[fea*",
    "*://[feb*",
    "*://[fd00:ec2::254]*",
    "*://100.100.100.200*",
    "*://metadata.google.internal*",
];

/// The `Fetch.enable` patterns of a guarded session: every document request and response,
/// and requests of any kind to [`LINK_LOCAL_PATTERNS`].
fn fetch_patterns() -> Value {
    let document = |stage: &str| json!({ "urlPattern": "*", "resourceType": "Document", "requestStage": stage });
    let mut patterns = vec![document("Request"), document("Response")];
    patterns.extend(
        LINK_LOCAL_PATTERNS
            .iter()
            .map(|p| json!({ "urlPattern": p, "requestStage": "Request" })),
    );
    json!({ "patterns": patterns })
}

/// Guards `session` (an out-of-process frame's) as its page is guarded, when it is.
pub(super) async fn guard_child(session: &CdpSession, shared: &Shared) {
    if lock(&shared.guard.origins).is_some()
        && let Err(error) = session.call("Fetch.enable", fetch_patterns()).await
    {
        // The frame went away meanwhile (nothing of it to guard), or the browser refused.
        tracing::debug!(%error, "guarding an out-of-process frame");
    }
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
    /// `Document` for a navigation; anything else is a request of a page.
    #[serde(default)]
    resource_type: String,
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
    /// A navigation (a document request); otherwise a request of a page.
    pub(super) navigation: bool,
}

impl RequestPaused {
    /// The request to decide on; `top_level` when it is the main frame's (a request that is no
    /// navigation is decided as a child frame's would be).
    pub(super) fn into_document(self, top_level: bool) -> PausedDocument {
        let navigation = self.resource_type == "Document";
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
            top_level: top_level && navigation,
            navigation,
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

/// Lets a paused document request go on, or fails it when the guard refuses where it goes.
/// Answered at once from the socket task (the navigation waits on it), except for a host
/// name whose addresses decide ([`needs_resolution`]): it is resolved in a task of its own,
/// and the request goes on or fails once [`check_resolved`] has decided. In a context with
/// an address guard the name is resolved by it, once for the context, and the browser
/// connects through it to that same answer (`address_guard.rs`); elsewhere (a browser
/// connected to) the browser resolves the name again, and a name that changes its answer
/// between the two lookups is not caught here.
pub(super) fn answer(session: &CdpSession, shared: &Arc<Shared>, document: PausedDocument) {
    let origins = lock(&shared.guard.origins).clone();
    let (Some(destination), Some(origins)) = (document.destination.clone(), origins) else {
        decide(session, shared, &document, None);
        return;
    };
    if let Err(refusal) = check_navigation(&destination, document.top_level, &origins) {
        decide(session, shared, &document, Some(refusal));
        return;
    }
    let resolve = needs_resolution(&destination, &origins).filter(|_| document.navigation);
    let Some((host, port)) = resolve else {
        decide(session, shared, &document, None);
        return;
    };
    let (session, shared) = (session.clone(), shared.clone());
    tokio::spawn(async move {
        let addresses: Vec<std::net::IpAddr> = match &shared.addresses {
            Some(addresses) => addresses.resolve(&host, port).await,
            None => {
                let resolved = tokio::time::timeout(
                    crate::address_guard::RESOLVE_LIMIT,
                    tokio::net::lookup_host((host.as_str(), port)),
                )
                .await;
                match resolved {
                    Ok(Ok(found)) => found.map(|a| a.ip()).collect(),
                    _ => Vec::new(),
                }
            }
        };
        let refusal = check_resolved(&destination, document.top_level, &origins, &addresses).err();
        decide(&session, &shared, &document, refusal);
    });
}

/// Continues the paused request `id`, or fails it and keeps the refusal.
fn decide(
    session: &CdpSession,
    shared: &Arc<Shared>,
    document: &PausedDocument,
    refusal: Option<NavigationRefusal>,
) {
    let id = &document.request_id;
    match refusal {
        None => drop(session.start("Fetch.continueRequest", json!({ "requestId": id }))),
        Some(refusal) => {
            if document.navigation {
                tracing::warn!(%refusal, "navigation refused");
                lock(&shared.guard.refused).push(refusal);
                // A navigation waiting on this page ends on the refusal (`Page::navigate`).
                shared.bump();
            } else {
                tracing::warn!(%refusal, "a request of the page refused");
                lock(&shared.guard.refused_requests).push(refusal);
            }
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
        if let Some(addresses) = &self.shared.addresses {
            addresses.set_origins(origins.clone());
        }
        *lock(&self.shared.guard.origins) = Some(origins);
        self.session
            .call("Fetch.enable", fetch_patterns())
            .await
            .map_err(BrowserError::cdp("guarding the page's navigations"))?;
        // Out-of-process frames already there (those attached later are guarded as they
        // attach: `guard_child`).
        let children: Vec<String> = {
            let state = self.shared.state();
            let mut ids: Vec<String> = state
                .frames
                .values()
                .filter_map(|f| f.session.clone())
                .collect();
            ids.sort();
            ids.dedup();
            ids
        };
        for child in children {
            guard_child(&self.shared.conn.session(Some(child)), &self.shared).await;
        }
        Ok(())
    }

    /// Every navigation the guard refused on this page, oldest first.
    pub fn refused_navigations(&self) -> Vec<NavigationRefusal> {
        lock(&self.shared.guard.refused).clone()
    }

    /// Every request that was no navigation (a `fetch`, an image…) the guard refused on this
    /// page, oldest first, then the connections the context's address guard refused (a
    /// host name resolving to an address the tool may not reach): the page saw them fail;
    /// the step goes on.
    pub fn refused_requests(&self) -> Vec<NavigationRefusal> {
        let mut refused = lock(&self.shared.guard.refused_requests).clone();
        if let Some(addresses) = &self.shared.addresses {
            refused.extend(addresses.refused());
        }
        refused
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

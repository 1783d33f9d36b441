//! The live step list's thumbnails: each step's page as the step left it.
//!
//! A step is reported the moment the person acts — a fill at its first key, a click before
//! its navigation commits, the start page before it has loaded — so a capture at that moment
//! shows the page before the step's effect, or a blank document; and on a busy machine the
//! report may come after the next action has already changed the page. So a step's
//! thumbnail is the first of:
//!
//! - the capture taken when the recorder script announced the next action in the step's
//!   document (a press, a named key or a shortcut: `acting`, numbered, sent before the page
//!   handles the event), which shows the page as the step left it however late the step's own
//!   report arrives; a step the script did not report (a navigation, the viewport) takes the
//!   first capture announced after it;
//! - a capture once the page is quiet: no change to the step for [`QUIET`], no navigation
//!   under way, the document loaded and painted (at most [`SETTLE_LIMIT`]) — the last step, a
//!   step whose result is the next document;
//! - a capture at once when a later step was appended on its page and no announced capture
//!   fits (one still being taken is waited for) — or, when the page has already gone on to
//!   another document, the last capture of the document the step was on.
//!
//! A capture never shows the pick outline (none is taken while an element is picked: the
//! recorder's `capture_gate`), nor a password: the values of the page's password fields are
//! covered with the engine's `mask.js` boxes, evaluated in the recorder's own worlds with the
//! values the recorder script reads there (`secretValues`), so they never leave the page. A
//! frame that cannot be masked, or that changed under the capture, gives no capture. An
//! announced capture skips the masks (which would wait for the renderer busy with the event)
//! only when the announcing document held no password value and none was recorded; it is
//! dropped when a password value is there once it is taken. A capture during which the page
//! went on to another document is dropped too: it may show either.

use std::collections::VecDeque;
use std::sync::Weak;

use tokio::time::Instant;

use super::*;
use crate::capture::AfterAction;
use crate::protocol::ActingMessage;
use browserflow_cdp::injected::MASK_JS;

/// How long a step stays unchanged before its page is captured.
const QUIET: Duration = Duration::from_millis(100);
/// How long a capture waits for the page to finish navigating and loading; then it is taken
/// as the page is.
const SETTLE_LIMIT: Duration = Duration::from_secs(5);
/// How often pending captures are looked at.
const TICK: Duration = Duration::from_millis(50);
/// Captures that failed this many times (a page that never becomes reachable) are given up.
const MAX_ATTEMPTS: u32 = 40;
/// How long the capture waits for the document to paint.
const PAINT_WAIT: Duration = Duration::from_millis(500);
/// How long one call of a capture may take: a page in the middle of a navigation may
/// answer a screenshot or an evaluation late, or never.
const CALL_LIMIT: Duration = Duration::from_secs(5);
/// How long the screenshot of an announced capture may take: Chromium answers it with the
/// next frame, and a page that started navigating paints none until the next document does
/// (which the capture would then show, and is discarded).
const ANNOUNCED_LIMIT: Duration = Duration::from_secs(1);
/// How many announced captures are kept for steps reported late.
const KEPT_ANNOUNCED: usize = 16;
/// The thumbnail's width in pixels.
const WIDTH: u32 = 240;

/// The recorder's side of the thumbnails: where steps are sent, and the captures taken when
/// actions were announced.
pub(super) struct Thumbnails {
    requests: mpsc::UnboundedSender<ThumbnailRequest>,
    announced: Mutex<Announced>,
}

#[derive(Default)]
struct Announced {
    captures: VecDeque<AnnouncedCapture>,
    /// The last captures of each document (by its loader), whatever took them: what a step
    /// left when its page went on before its own capture.
    by_document: VecDeque<(String, String, Vec<u8>)>,
    /// Captures being taken.
    in_flight: usize,
}

/// A capture taken when an action was announced.
struct AnnouncedCapture {
    page: String,
    action: AfterAction,
    at: Instant,
    png: Vec<u8>,
}

/// What the thumbnail task is told.
pub(super) enum ThumbnailRequest {
    /// A step was appended: earlier steps on its page are over.
    Appended(StepOnPage),
    /// A step changed or was inserted.
    Changed(StepOnPage),
    /// An announced capture is done.
    Announced,
    /// Take every pending thumbnail now, then answer.
    Flush(oneshot::Sender<()>),
}

/// A step, by serial, and what its capture needs to know.
pub(super) struct StepOnPage {
    serial: u64,
    page: String,
    /// A `navigate` step (or the viewport set before the first one): its page must show a
    /// document that is not the blank first one.
    opens_document: bool,
    /// The announced action before which the page shows the step's result.
    after: Option<AfterAction>,
}

impl StepOnPage {
    pub(super) fn of(serial: u64, step: &RecordedStep, after: Option<AfterAction>) -> StepOnPage {
        StepOnPage {
            serial,
            after,
            page: step.page.clone(),
            opens_document: matches!(
                step.step,
                browserflow_steps::Step::Navigate(_) | browserflow_steps::Step::SetViewport(_)
            ),
        }
    }
}

impl Thumbnails {
    /// Starts the thumbnail task for `shared` (which holds the returned value).
    pub(super) fn start() -> (Thumbnails, impl FnOnce(Weak<Shared>) -> JoinHandle<()>) {
        let (requests, incoming) = mpsc::unbounded_channel();
        let thumbnails = Thumbnails {
            requests,
            announced: Mutex::default(),
        };
        (thumbnails, move |shared| {
            tokio::spawn(run_thumbnails(shared, incoming))
        })
    }

    pub(super) fn request(&self, request: ThumbnailRequest) -> bool {
        self.requests.send(request).is_ok()
    }
}

/// The recorder script of `page` announced its numbered action `{doc, seq}`: the page is
/// captured now, as the steps before it left it — at once, beside any other capture.
pub(crate) fn capture_announced(shared: &Arc<Shared>, page: &str, acting: &ActingMessage) {
    let Some(thumbnails) = &shared.thumbnails else {
        return;
    };
    let (doc, seq) = (acting.doc.as_str(), acting.seq);
    let Some(handle) = shared.page(page) else {
        return;
    };
    // The capture must be quick (the page is about to change): without a mask when no
    // password value is on the page and none was typed in the recording. Masking asks each
    // frame's busy renderer first.
    let unmasked = !acting.secrets
        && !lock(&shared.builder)
            .inputs
            .iter()
            .any(|input| input.secret);
    let at = Instant::now();
    lock(&thumbnails.announced).in_flight += 1;
    let (shared, page) = (shared.clone(), page.to_string());
    let action = AfterAction {
        doc: doc.to_string(),
        first: seq,
    };
    tokio::spawn(async move {
        let png = match unmasked {
            true => capture_plain(&shared, &page, &handle, ANNOUNCED_LIMIT).await,
            false => capture(&shared, &page, &handle, ANNOUNCED_LIMIT).await,
        }
        .ok();
        if let Some(png) = &png {
            remember(&shared, &page, &handle, png);
        }
        let Some(thumbnails) = &shared.thumbnails else {
            return;
        };
        let mut announced = lock(&thumbnails.announced);
        announced.in_flight -= 1;
        if let Some(png) = png {
            announced.captures.push_back(AnnouncedCapture {
                page,
                action,
                at,
                png,
            });
            if announced.captures.len() > KEPT_ANNOUNCED {
                announced.captures.pop_front();
            }
        }
        drop(announced);
        thumbnails.request(ThumbnailRequest::Announced);
    });
}

struct Pending {
    step: StepOnPage,
    /// When the step was first asked for.
    since: Instant,
    /// The document its page showed then.
    document: Option<String>,
    due: Instant,
    settle_by: Instant,
    /// A later step on the same page exists, or the recording stops: capture now.
    urgent: bool,
    attempts: u32,
}

/// Why a capture was not taken now.
enum NotNow {
    /// The page is not ready for it yet (picking, navigating, a frame unreachable): try again.
    Retry(String),
    /// The page is gone: the step keeps no thumbnail.
    Gone,
}

/// The thumbnail task: runs until the recorder drops its sender (or is dropped itself).
async fn run_thumbnails(
    shared: Weak<Shared>,
    mut requests: mpsc::UnboundedReceiver<ThumbnailRequest>,
) {
    let mut pending: VecDeque<Pending> = VecDeque::new();
    let mut flushes: Vec<oneshot::Sender<()>> = Vec::new();
    loop {
        let first = if pending.is_empty() {
            match requests.recv().await {
                Some(request) => Some(request),
                None => return,
            }
        } else {
            match tokio::time::timeout(TICK, requests.recv()).await {
                Ok(Some(request)) => Some(request),
                Ok(None) => return,
                Err(_) => None,
            }
        };
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let mut next = first;
        while let Some(request) = next {
            note(&shared, &mut pending, &mut flushes, request);
            next = requests.try_recv().ok();
        }
        capture_ready(&shared, &mut pending).await;
        if pending.is_empty() {
            for done in flushes.drain(..) {
                let _ = done.send(());
            }
        }
    }
}

fn note(
    shared: &Shared,
    pending: &mut VecDeque<Pending>,
    flushes: &mut Vec<oneshot::Sender<()>>,
    request: ThumbnailRequest,
) {
    let now = Instant::now();
    let (step, appended) = match request {
        ThumbnailRequest::Appended(step) => (step, true),
        ThumbnailRequest::Changed(step) => (step, false),
        ThumbnailRequest::Announced => return,
        ThumbnailRequest::Flush(done) => {
            for p in pending.iter_mut() {
                p.urgent = true;
            }
            flushes.push(done);
            return;
        }
    };
    if appended {
        // The steps before it on its page are over. Not the viewport and the first
        // navigation: the step after them does not change the page.
        for p in pending.iter_mut() {
            if p.step.page == step.page && !p.step.opens_document {
                p.urgent = true;
            }
        }
    }
    match pending.iter_mut().find(|p| p.step.serial == step.serial) {
        // Changed again: the page is not quiet yet.
        Some(p) => {
            p.due = now + QUIET;
            p.step.opens_document |= step.opens_document;
            p.step.after = step.after;
        }
        None => pending.push_back(Pending {
            // A new document shows its result once loaded: no need to wait for quiet.
            due: if step.opens_document {
                now
            } else {
                now + QUIET
            },
            document: shared.page(&step.page).as_ref().and_then(document_of),
            step,
            since: now,
            settle_by: now + QUIET + SETTLE_LIMIT,
            urgent: false,
            attempts: 0,
        }),
    }
}

/// The announced capture that shows the step's result: the first after it in its document,
/// or, for a step the script did not report, the first announced after the step was.
fn announced_for(announced: &Announced, p: &Pending) -> Option<Vec<u8>> {
    let on_page = announced.captures.iter().filter(|c| c.page == p.step.page);
    let found = match &p.step.after {
        Some(after) => on_page
            .filter(|c| c.action.doc == after.doc && c.action.first >= after.first)
            .min_by_key(|c| c.action.first),
        None => on_page.filter(|c| c.at > p.since).min_by_key(|c| c.at),
    };
    found.map(|c| c.png.clone())
}

/// Captures, in step order, every pending thumbnail whose page is ready (or that an
/// announced capture shows).
async fn capture_ready(shared: &Arc<Shared>, pending: &mut VecDeque<Pending>) {
    let Some(thumbnails) = &shared.thumbnails else {
        pending.clear();
        return;
    };
    let mut left = VecDeque::new();
    while let Some(mut p) = pending.pop_front() {
        let (found, in_flight) = {
            let announced = lock(&thumbnails.announced);
            (announced_for(&announced, &p), announced.in_flight > 0)
        };
        if let Some(png) = found {
            let event = lock(&shared.builder).set_thumbnail(p.step.serial, png);
            // Not through `emit`: a thumbnail is not a change that needs another one.
            shared.broadcast(event.into_iter().collect());
            continue;
        }
        let Some(page) = shared.page(&p.step.page).filter(|page| !page.is_closed()) else {
            continue;
        };
        let now = Instant::now();
        // An urgent capture does not wait for the page to settle (the next step is already
        // changing it), only for a capture announced before and for its first document.
        let ready = if p.urgent {
            !in_flight && !still_blank(&page, &p.step)
        } else {
            now >= p.due && settled(&page, &p.step)
        };
        if !ready && (now < p.settle_by || (!p.urgent && now < p.due)) {
            left.push_back(p);
            continue;
        }
        // The page went on to another document before the step's capture: what the step
        // left is the last capture of the document it was on.
        if p.urgent
            && p.document.is_some()
            && document_of(&page) != p.document
            && let Some(png) = last_of_document(
                shared,
                &p.step.page,
                p.document.as_deref().unwrap_or_default(),
            )
        {
            let event = lock(&shared.builder).set_thumbnail(p.step.serial, png);
            shared.broadcast(event.into_iter().collect());
            continue;
        }
        // A document that came since the step was reported may not have painted yet.
        if !p.urgent && (p.step.opens_document || document_of(&page) != p.document) {
            wait_painted(shared, &p.step.page).await;
        }
        match capture(shared, &p.step.page, &page, CALL_LIMIT).await {
            Ok(png) => {
                remember(shared, &p.step.page, &page, &png);
                let event = lock(&shared.builder).set_thumbnail(p.step.serial, png);
                shared.broadcast(event.into_iter().collect());
            }
            Err(NotNow::Gone) => {}
            Err(NotNow::Retry(reason)) => {
                p.attempts += 1;
                if p.attempts >= MAX_ATTEMPTS {
                    tracing::debug!(%reason, "a step's thumbnail was given up");
                } else {
                    tracing::trace!(%reason, "a step's thumbnail waits");
                    left.push_back(p);
                }
            }
        }
    }
    *pending = left;
}

/// The page shows the step's result: its main frame is not navigating and has loaded (and,
/// for a `navigate` step, shows a document that is not the blank first one).
fn settled(page: &Page, step: &StepOnPage) -> bool {
    let Some(main) = page.frame_state(page.target_id()) else {
        return false;
    };
    main.navigating.is_none() && main.loaded() && !still_blank(page, step)
}

/// The step opens the page's first document, and the page still shows the blank one.
fn still_blank(page: &Page, step: &StepOnPage) -> bool {
    let url = page
        .frame_state(page.target_id())
        .map(|main| main.url)
        .unwrap_or_default();
    step.opens_document && (url.is_empty() || url == "about:blank")
}

/// Waits (a little) until the top document of `page` has painted two animation frames, so
/// that it shows what it loaded. A page in the background paints no frames: the wait is
/// bounded and its outcome does not matter.
async fn wait_painted(shared: &Shared, name: &str) {
    let top = lock(&shared.worlds)
        .iter()
        .rev()
        .find(|w| w.page == name && w.top)
        .cloned();
    let (Some(top), Some(page)) = (top, shared.page(name)) else {
        return;
    };
    let _ = tokio::time::timeout(
        PAINT_WAIT,
        evaluate_in(
            page.session().connection(),
            &top,
            "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
        ),
    )
    .await;
}

/// The loader of the document `page` shows.
fn document_of(page: &Page) -> Option<String> {
    page.frame_state(page.target_id())
        .map(|main| main.loader_id)
}

/// One capture of `page` without masks (a page with no password value when the action was
/// announced), scaled to a thumbnail; none when a password value is there once it is taken
/// (one typed meanwhile).
async fn capture_plain(
    shared: &Shared,
    name: &str,
    page: &Page,
    limit: Duration,
) -> Result<Vec<u8>, NotNow> {
    let Ok(_gate) = shared.capture_gate.try_read() else {
        return Err(NotNow::Retry("an element is being picked".into()));
    };
    let document = document_of(page);
    let png = match tokio::time::timeout(limit, page.screenshot_png()).await {
        Ok(Ok(png)) => png,
        Ok(Err(e)) => return Err(NotNow::Retry(format!("the capture failed: {e}"))),
        Err(_) => return Err(NotNow::Retry("the capture took too long".into())),
    };
    let worlds: Vec<World> = lock(&shared.worlds)
        .iter()
        .filter(|w| w.page == name)
        .cloned()
        .collect();
    let conn = page.session().connection();
    let counts = futures::future::join_all(worlds.iter().map(|world| {
        bounded(evaluate_in(
            conn,
            world,
            "window.__bflowRecorder ? window.__bflowRecorder.secretValues().length : 0",
        ))
    }))
    .await;
    // A document gone meanwhile took its fields with it.
    if counts
        .iter()
        .any(|n| n.as_ref().is_ok_and(|n| n.as_u64() != Some(0)))
    {
        return Err(NotNow::Retry(
            "a password was typed during the capture".into(),
        ));
    }
    finish(page, &document, &png)
}

/// A capture of `page` that began on `document`, scaled to a thumbnail: none when the page
/// went on to another document meanwhile (the capture may show either).
fn finish(page: &Page, document: &Option<String>, png: &[u8]) -> Result<Vec<u8>, NotNow> {
    if page.is_closed() {
        return Err(NotNow::Gone);
    }
    if document_of(page) != *document {
        return Err(NotNow::Retry(
            "the page went on to another document during the capture".into(),
        ));
    }
    browserflow_cdp::thumbnail::thumbnail_png(png, WIDTH)
        .map_err(|e| NotNow::Retry(format!("the capture is not a PNG: {e}")))
}

/// Keeps `png` as the last capture of the document `page` shows (taken on that document
/// alone: see [`finish`]).
fn remember(shared: &Shared, name: &str, page: &Page, png: &[u8]) {
    let (Some(thumbnails), Some(document)) = (&shared.thumbnails, document_of(page)) else {
        return;
    };
    let mut announced = lock(&thumbnails.announced);
    announced
        .by_document
        .retain(|(p, d, _)| !(p == name && *d == document));
    announced
        .by_document
        .push_back((name.to_string(), document, png.to_vec()));
    if announced.by_document.len() > KEPT_ANNOUNCED {
        announced.by_document.pop_front();
    }
}

/// The last capture of `document` on `page`, if one was kept.
fn last_of_document(shared: &Shared, name: &str, document: &str) -> Option<Vec<u8>> {
    let thumbnails = shared.thumbnails.as_ref()?;
    lock(&thumbnails.announced)
        .by_document
        .iter()
        .rev()
        .find(|(p, d, _)| p == name && d == document)
        .map(|(_, _, png)| png.clone())
}

/// One masked capture of `page` (its screenshot taking at most `limit`), scaled to a
/// thumbnail.
async fn capture(
    shared: &Shared,
    name: &str,
    page: &Page,
    limit: Duration,
) -> Result<Vec<u8>, NotNow> {
    // While an element is picked, its outline shows: no capture until the pick is over.
    let Ok(_gate) = shared.capture_gate.try_read() else {
        return Err(NotNow::Retry("an element is being picked".into()));
    };
    let document = document_of(page);
    let worlds: Vec<World> = lock(&shared.worlds)
        .iter()
        .filter(|w| w.page == name)
        .cloned()
        .collect();
    let conn = page.session().connection();
    if !worlds.iter().any(|w| w.top) {
        return Err(NotNow::Retry("the page's recorder is not ready".into()));
    }
    let masking = |action: &str| {
        format!(
            "(() => {{ const r = window.__bflowRecorder; \
             if (!r) return {{ error: 'no recorder in this document' }}; \
             return ({MASK_JS})(r.secretValues(), {action:?}); }})()"
        )
    };
    let (mask, unmask) = (masking("mask"), masking("unmask"));
    let masked = futures::future::join_all(
        worlds
            .iter()
            .map(|world| bounded(evaluate_in(conn, world, &mask))),
    )
    .await;
    let unreachable = masked.iter().find_map(|m| m.as_ref().err().cloned());
    let shot = match unreachable {
        Some(reason) => Err(NotNow::Retry(format!(
            "a frame could not be masked: {reason}"
        ))),
        None => match tokio::time::timeout(limit, page.screenshot_png()).await {
            Ok(Ok(png)) => Ok(png),
            Ok(Err(e)) => Err(NotNow::Retry(format!("the capture failed: {e}"))),
            Err(_) => Err(NotNow::Retry("the capture took too long".into())),
        },
    };
    // Uncover every frame that was covered, whatever happened; each must still show its
    // values exactly where they were covered, or the capture cannot be trusted.
    let unmask = &unmask;
    let unchanged = futures::future::join_all(worlds.iter().zip(&masked).map(
        |(world, before)| async move {
            match before {
                Ok(before) => {
                    match bounded(evaluate_in(conn, world, unmask)).await {
                        Ok(after) => after == *before,
                        // Nothing was covered and the document is gone: nothing could show.
                        Err(_) => *before == Value::String(String::new()),
                    }
                }
                Err(_) => true,
            }
        },
    ))
    .await;
    let png = shot?;
    if unchanged.iter().any(|same| !same) {
        return Err(NotNow::Retry(
            "a frame changed while it was captured".into(),
        ));
    }
    finish(page, &document, &png)
}

/// `evaluation`, or an error when it takes longer than [`CALL_LIMIT`].
async fn bounded(
    evaluation: impl std::future::Future<Output = Result<Value, String>>,
) -> Result<Value, String> {
    tokio::time::timeout(CALL_LIMIT, evaluation)
        .await
        .unwrap_or_else(|_| Err("the evaluation took too long".into()))
}

//! Navigation: the `navigate` step, and following what an action caused (the new document
//! of a navigation, an expected navigation's URL and title, a child frame's navigation, a
//! popup that becomes the current page). A navigation is an outcome, not an error.

use std::future::Future;

use tokio::time::Instant;

use browserflow_cdp::page::{EvalError, NavMark, Page};
use browserflow_cdp::session::CdpError;
use browserflow_cdp::{BrowserError, NavigationFailure};
use browserflow_steps::{
    ExpectedNavigation, NavigateStep, NavigationRefusal, Origins, check_navigation as may_navigate,
    glob_match,
};

use crate::failure::{Failure, FailureKind};
use crate::js;
use crate::resolve::{resolver_install, wait_change};
use crate::run::{Outcome, Run};

/// What an action is expected to cause, for [`Run::act_and_follow`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Follow<'a> {
    /// The navigation it was recorded as causing.
    pub(crate) navigation: Option<&'a ExpectedNavigation>,
    /// The name of the popup it opens (which becomes the current page).
    pub(crate) opens_popup: Option<&'a str>,
}

impl Follow<'_> {
    /// Nothing expected (a navigation that happens anyway is still waited for).
    pub(crate) const NOTHING: Follow<'static> = Follow {
        navigation: None,
        opens_popup: None,
    };
}

impl Run<'_> {
    /// Guards `page` (once): from now on its navigations go only where the tool may go.
    pub(crate) async fn guard(&mut self, page: &Page) -> Result<(), Failure> {
        if self.guarded.iter().any(|t| t == page.target_id()) {
            return Ok(());
        }
        page.guard_navigations(self.origins.clone())
            .await
            .map_err(|e| Failure::browser(&e, e.to_string()))?;
        self.guarded.push(page.target_id().to_string());
        Ok(())
    }

    pub(crate) async fn navigate(
        &mut self,
        page: &Page,
        s: &NavigateStep,
    ) -> Result<Outcome, Failure> {
        let timeout = s
            .timeout_ms
            .map(std::time::Duration::from_millis)
            .unwrap_or(self.options.navigation_timeout);
        // Refused here, a URL is never handed to the browser at all.
        may_navigate(&s.url, true, &self.origins).map_err(|r| Failure::blocked(&r))?;
        let refused_before = page.refused_navigations().len();
        let navigated = page.navigate(&s.url, timeout).await;
        // A redirect the guard refused fails the navigation; that is the reason to give.
        refused_since(page, refused_before)?;
        navigated.map_err(|e| Failure::new(navigate_failure_kind(page, &e), e.to_string()))?;
        if let Some(expected) = &s.navigation {
            check_navigation(page, expected, self.options.navigation_timeout).await?;
        }
        Ok(Outcome {
            navigated_to: Some(page.url()),
            ..Outcome::default()
        })
    }

    /// [`Self::follow`] of an action, except that a navigation the tool may not make fails
    /// the step naming it: one it was recorded as making (refused before acting: Chromium
    /// silently drops a web page's navigation to `file:` or `chrome:`), or one the page's
    /// guard refused while the action ran (a link, a form, a redirect, a script).
    pub(crate) async fn act_and_follow<F, Fut>(
        &mut self,
        page: &Page,
        frame: Option<&str>,
        follow: Follow<'_>,
        action: F,
    ) -> Result<Option<String>, Failure>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(), CdpError>>,
    {
        if let Some(url) = follow.navigation.and_then(|n| n.url.as_deref())
            && let Err(refusal @ NavigationRefusal::Scheme { .. }) =
                may_navigate(url, frame.is_none(), &Origins::Any)
        {
            return Err(Failure::blocked(&refusal));
        }
        let refused_before = page.refused_navigations().len();
        let followed = self.follow(page, frame, follow, action).await;
        refused_since(page, refused_before)?;
        followed
    }

    /// Runs an action that may navigate or open a popup, and follows what it caused: waits for
    /// the new document (a navigation is an outcome, not an error), checks an expected
    /// navigation, and switches to an expected popup. `frame` is the child frame the action's
    /// element is in, if any: the expected navigation is then that frame's, waited for and
    /// checked once the action is done.
    async fn follow<F, Fut>(
        &mut self,
        page: &Page,
        frame: Option<&str>,
        follow: Follow<'_>,
        action: F,
    ) -> Result<Option<String>, Failure>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(), CdpError>>,
    {
        let (expected, frame_expected) = match frame {
            Some(frame) => (None, follow.navigation.map(|e| (frame.to_string(), e))),
            None => (follow.navigation, None),
        };
        let frame_mark = frame_expected
            .as_ref()
            .map(|(frame, _)| page.nav_mark(frame));
        let main = page.target_id().to_string();
        let mark = page.nav_mark(&main);
        let popups_before = page.popups_opened().len();
        let mut began = false;
        match action().await {
            Ok(()) => {}
            // Chromium answers an input event whose handler replaced the document this way.
            Err(e) if e.is_navigation() => began = true,
            Err(e) => return Err(Failure::cdp(&e, format!("the action failed: {e}"))),
        }
        // A step recorded as navigating waits for its navigation's events below; any other
        // step takes one round trip through the page to see whether it navigated anyway.
        if !began && expected.is_none() {
            began = settle(page).await || page.navigation_began(&main, &mark);
        }
        let mut navigated_to = None;
        if !began && expected.is_some() {
            // The step was recorded as navigating: give a late (script-driven) navigation the
            // candidate budget to start.
            let deadline = Instant::now() + self.options.candidate_timeout;
            let mut changes = page.changes();
            while !page.navigation_began(&main, &mark) {
                if !wait_change(&mut changes, deadline).await {
                    return Err(Failure::new(
                        FailureKind::Assertion,
                        format!(
                            "expected a navigation{}, but the page stayed at {:?}",
                            expected.map(describe_expected).unwrap_or_default(),
                            page.url()
                        ),
                    ));
                }
            }
            began = true;
        }
        if began {
            if !page
                .wait_navigation_settled(&main, &mark, self.options.navigation_timeout)
                .await
            {
                // A page that closed itself in answer to the action (a payment or sign-in
                // window's last button: `window.close()`) went nowhere: the step is done, and
                // the step after it — the recorded `close_page` — finds it closed (any other
                // fails there, naming the closed page).
                if page.closed_alone() && expected.is_none() && follow.opens_popup.is_none() {
                    return Ok(None);
                }
                if let Some(gone) = page.gone() {
                    return Err(Failure::new(
                        gone_kind(page),
                        format!("the navigation started by this step was cut short: {gone}"),
                    ));
                }
                return Err(Failure::new(
                    FailureKind::LoadFailed,
                    format!(
                        "the navigation started by this step did not finish within {} ms (page at {:?})",
                        self.options.navigation_timeout.as_millis(),
                        page.url()
                    ),
                ));
            }
            navigated_to = Some(page.url());
            if let Some(expected) = expected {
                check_navigation(page, expected, self.options.navigation_timeout).await?;
            }
        }
        if let (Some((frame, expected)), Some(frame_mark)) = (&frame_expected, &frame_mark) {
            navigated_to = Some(
                self.follow_frame_navigation(page, frame, frame_mark, expected)
                    .await?,
            );
        }
        if let Some(name) = follow.opens_popup {
            let popup = self.follow_popup(page, popups_before).await?;
            self.guarded.push(popup.target_id().to_string());
            navigated_to = Some(popup.url());
            self.pages.retain(|(n, _)| n != name);
            self.pages.push((name.to_string(), popup));
            self.current = self.pages.len() - 1;
        }
        Ok(navigated_to)
    }

    /// Waits for the navigation of a child frame an action was recorded as causing (it may
    /// move the frame to another process), then checks where the frame went.
    async fn follow_frame_navigation(
        &self,
        page: &Page,
        frame: &str,
        mark: &NavMark,
        expected: &ExpectedNavigation,
    ) -> Result<String, Failure> {
        let deadline = Instant::now() + self.options.candidate_timeout;
        let mut changes = page.changes();
        while !page.navigation_began(frame, mark) {
            if !wait_change(&mut changes, deadline).await {
                return Err(Failure::new(
                    FailureKind::Assertion,
                    format!(
                        "expected the frame to navigate{}, but it stayed at {:?}",
                        describe_expected(expected),
                        page.frame_state(frame).map(|f| f.url).unwrap_or_default()
                    ),
                ));
            }
        }
        if !page
            .wait_navigation_settled(frame, mark, self.options.navigation_timeout)
            .await
        {
            return Err(Failure::new(
                FailureKind::LoadFailed,
                format!(
                    "the frame navigation started by this step did not finish within {} ms",
                    self.options.navigation_timeout.as_millis()
                ),
            ));
        }
        let url = page.frame_state(frame).map(|f| f.url).unwrap_or_default();
        if let Some(pattern) = &expected.url
            && !glob_match(pattern, &url)
        {
            return Err(Failure::new(
                FailureKind::Assertion,
                format!("expected the frame to navigate to url {pattern:?}, but it is at {url:?}"),
            ));
        }
        Ok(url)
    }

    async fn follow_popup(&self, opener: &Page, before: usize) -> Result<Page, Failure> {
        let deadline = Instant::now() + self.options.navigation_timeout;
        let mut changes = opener.popup_changes();
        let target = loop {
            if let Some(target) = opener.popups_opened().get(before) {
                break target.clone();
            }
            if !wait_change(&mut changes, deadline).await {
                return Err(Failure::new(
                    FailureKind::Assertion,
                    "the step was expected to open a popup, but none opened",
                ));
            }
        };
        let popup = self
            .context
            .attach_page(&target)
            .await
            .map_err(|e| Failure::browser(&e, format!("could not attach to the popup: {e}")))?;
        popup.prewarm_worlds(&resolver_install());
        // Its later navigations are guarded; its first one the opener's guard does not see
        // (the popup is a target of its own), so where it went is checked once it is there.
        popup
            .guard_navigations(self.origins.clone())
            .await
            .map_err(|e| Failure::browser(&e, e.to_string()))?;
        wait_popup_loaded(&popup, deadline).await?;
        if let Err(refusal) = may_navigate(&popup.url(), true, &self.origins) {
            let _ = popup.close().await;
            return Err(Failure::blocked(&refusal));
        }
        let _ = popup.bring_to_front().await;
        Ok(popup)
    }
}

/// The first navigation the page's guard refused since `before` (a count of refusals), as
/// the step's failure.
fn refused_since(page: &Page, before: usize) -> Result<(), Failure> {
    match page
        .refused_navigations()
        .get(before..)
        .and_then(<[_]>::first)
    {
        Some(refusal) => Err(Failure::blocked(refusal)),
        None => Ok(()),
    }
}

/// What a failed `navigate` means: a slow or silent server may answer next time; a URL the
/// browser refuses, or one the network fails outright, will fail again the same way.
fn navigate_failure_kind(page: &Page, error: &BrowserError) -> FailureKind {
    if error.is_connection_closed() || page.session().connection().is_closed() {
        return FailureKind::BrowserDisconnected;
    }
    if page.is_closed() {
        return FailureKind::Gone;
    }
    match error {
        BrowserError::Navigation { failure, .. } => match failure {
            NavigationFailure::NoResponse { .. } | NavigationFailure::NotLoaded { .. } => {
                FailureKind::LoadFailed
            }
            NavigationFailure::CutShort(_) => FailureKind::Gone,
            NavigationFailure::Blocked(refusal) => Failure::blocked(refusal).kind,
            NavigationFailure::Refused(_) | NavigationFailure::Network(_) => {
                FailureKind::NavigationRefused
            }
        },
        _ => FailureKind::Browser,
    }
}

/// Why a page went away: with the connection (the browser is gone), or on its own.
fn gone_kind(page: &Page) -> FailureKind {
    if page.session().connection().is_closed() {
        FailureKind::BrowserDisconnected
    } else {
        FailureKind::Gone
    }
}

fn describe_expected(expected: &ExpectedNavigation) -> String {
    let mut parts = Vec::new();
    if let Some(url) = &expected.url {
        parts.push(format!(" to url {url:?}"));
    }
    if let Some(title) = &expected.title {
        parts.push(format!(" with title {title:?}"));
    }
    parts.concat()
}

/// Checks where a navigation went; a title that does not match yet gets until the document's
/// `load` (at most `load_wait`).
async fn check_navigation(
    page: &Page,
    expected: &ExpectedNavigation,
    load_wait: std::time::Duration,
) -> Result<(), Failure> {
    let url = page.url();
    if let Some(pattern) = &expected.url
        && !glob_match(pattern, &url)
    {
        return Err(Failure::new(
            FailureKind::Assertion,
            format!("expected navigation to url {pattern:?}, but the page is at {url:?}"),
        ));
    }
    if let Some(pattern) = &expected.title {
        let read_title = || async {
            page.title()
                .await
                .map_err(|e| Failure::browser(&e, e.to_string()))
        };
        let mut title = match page.parsed_title() {
            Some(title) => title,
            None => read_title().await?,
        };
        // The title is read once the document is parsed; a page that sets it from a `load`
        // handler gets until its load to do so.
        if !glob_match(pattern, &title) && page.wait_loaded(page.target_id(), load_wait).await {
            title = read_title().await?;
        }
        if !glob_match(pattern, &title) {
            return Err(Failure::new(
                FailureKind::Assertion,
                format!(
                    "expected navigation to a page titled {pattern:?}, but the title is {title:?} (at {url:?})"
                ),
            ));
        }
    }
    Ok(())
}

/// One round trip through the page's renderer after an action, so that navigation events the
/// action caused have reached us. Returns true when the document is already gone.
async fn settle(page: &Page) -> bool {
    // A zero-delay timer runs after tasks the action queued (a form submission is queued, not
    // run inside the key or click handler).
    let ctx = page.main_world();
    matches!(
        page.evaluate(&ctx, js::SETTLE, true).await,
        Err(EvalError::Navigated)
    )
}

/// Waits until a freshly attached popup has loaded a real document.
async fn wait_popup_loaded(page: &Page, deadline: Instant) -> Result<(), Failure> {
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let ctx = page.main_world();
        match tokio::time::timeout(remaining, page.evaluate(&ctx, js::POPUP_LOADED, true)).await {
            Ok(Ok(_)) => return Ok(()),
            Ok(Err(EvalError::Navigated)) => continue,
            Ok(Err(e)) => {
                return Err(Failure::eval(
                    FailureKind::LoadFailed,
                    &e,
                    format!("the popup did not load: {e}"),
                ));
            }
            Err(_) => {
                return Err(Failure::new(
                    FailureKind::LoadFailed,
                    format!("the popup did not finish loading (at {:?})", page.url()),
                ));
            }
        }
    }
}

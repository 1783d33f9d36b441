//! Navigations as the interpreter settles them: lifecycles by loader, commits, placeholders
//! and late events of the previous document.

use super::*;

#[test]
fn a_main_frame_commit_resets_its_lifecycle_and_prewarms_its_world() {
    let mut state = PageState::default();
    feed(
        &mut state,
        "Page.lifecycleEvent",
        json!({ "frameId": MAIN, "loaderId": "L0", "name": "load", "timestamp": 1.0 }),
    );
    assert!(state.frames[MAIN].loaded());
    let out = feed(
        &mut state,
        "Page.frameNavigated",
        navigated(MAIN, None, "http://127.0.0.1/a.html", "L1"),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::FrameNavigated {
            frame_id: MAIN.into(),
            parent_id: None,
            url: "http://127.0.0.1/a.html".into(),
            name: String::new(),
            loader_id: "L1".into(),
            from_back_forward_cache: false,
        })
    );
    assert_eq!(
        out.effect,
        Some(Effect::PrewarmWorld {
            frame_id: MAIN.into(),
            loader_id: "L1".into()
        })
    );
    let frame = &state.frames[MAIN];
    assert_eq!(frame.loader_id, "L1");
    assert!(frame.lifecycle.is_empty() && !frame.parsed());

    let out = feed(
        &mut state,
        "Page.lifecycleEvent",
        json!({ "frameId": MAIN, "loaderId": "L1", "name": "DOMContentLoaded", "timestamp": 2.0 }),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::DomContentLoaded {
            frame_id: MAIN.into(),
            loader_id: "L1".into()
        })
    );
    assert!(state.frames[MAIN].parsed());
}

#[test]
fn loading_state_and_requests_in_this_tab_only() {
    let mut state = PageState::default();
    feed(
        &mut state,
        "Page.frameStartedLoading",
        json!({ "frameId": MAIN }),
    );
    assert!(state.frames[MAIN].loading);
    let out = feed(
        &mut state,
        "Page.frameRequestedNavigation",
        json!({ "frameId": MAIN, "reason": "anchorClick", "url": "http://x/b", "disposition": "newTab" }),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::NavigationRequested {
            frame_id: MAIN.into(),
            url: "http://x/b".into(),
            in_current_tab: false
        })
    );
    assert_eq!(state.frames[MAIN].requested, 0);
    feed(
        &mut state,
        "Page.frameRequestedNavigation",
        json!({ "frameId": MAIN, "reason": "scriptInitiated", "url": "http://x/c", "disposition": "currentTab" }),
    );
    feed(
        &mut state,
        "Page.frameStoppedLoading",
        json!({ "frameId": MAIN }),
    );
    feed(
        &mut state,
        "Page.navigatedWithinDocument",
        json!({ "frameId": MAIN, "url": "http://x/c#top", "navigationType": "fragment" }),
    );
    let frame = &state.frames[MAIN];
    assert_eq!((frame.requested, frame.same_document), (1, 1));
    // Loading without a navigation under way abandons nothing.
    assert_eq!(frame.last_abandoned, None);
    assert!(!frame.loading);
    assert_eq!(frame.url, "http://x/c#top");
}

fn lifecycle_event(loader: &str, name: &str) -> Value {
    json!({ "frameId": MAIN, "loaderId": loader, "name": name, "timestamp": 1.0 })
}

fn started_navigating(loader: &str, url: &str) -> Value {
    json!({ "frameId": MAIN, "loaderId": loader, "url": url,
            "navigationType": "differentDocument" })
}

/// The main frame shows `loader`'s document, parsed but still loading its subresources.
fn parsed_but_loading(state: &mut PageState, loader: &str, url: &str) {
    feed(
        state,
        "Page.frameStartedNavigating",
        started_navigating(loader, url),
    );
    feed(
        state,
        "Page.frameStartedLoading",
        json!({ "frameId": MAIN }),
    );
    feed(
        state,
        "Page.lifecycleEvent",
        lifecycle_event(loader, "init"),
    );
    feed(
        state,
        "Page.frameNavigated",
        navigated(MAIN, None, url, loader),
    );
    feed(
        state,
        "Page.lifecycleEvent",
        lifecycle_event(loader, "DOMContentLoaded"),
    );
}

fn settled(state: &PageState, mark: &NavMark) -> bool {
    navigation_settled(&state.frames[MAIN], mark)
}

/// The failure this replaces: a click right after `DOMContentLoaded`, the old document's
/// late stylesheet arriving before the click's (script-delayed) navigation begins. Its
/// `frameStoppedLoading` and `load` must not read as the new navigation being abandoned.
#[test]
fn the_previous_documents_late_stop_does_not_settle_the_next_navigation() {
    let mut state = PageState::default();
    parsed_but_loading(&mut state, "A", "http://x/admin.html");
    let mark = NavMark::of(&state.frames[MAIN]);
    // The old document finishes loading after the click…
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("A", "load"),
    );
    feed(
        &mut state,
        "Page.frameStoppedLoading",
        json!({ "frameId": MAIN }),
    );
    assert!(!navigation_began(&state.frames[MAIN], &mark));
    // …then the click's navigation is asked for and starts.
    feed(
        &mut state,
        "Page.frameRequestedNavigation",
        json!({ "frameId": MAIN, "reason": "scriptInitiated", "url": "http://x/product.html",
                "disposition": "currentTab" }),
    );
    assert!(navigation_began(&state.frames[MAIN], &mark));
    assert!(!settled(&state, &mark), "only asked for: not settled");
    let out = feed(
        &mut state,
        "Page.frameStartedNavigating",
        started_navigating("B", "http://x/product.html"),
    );
    assert_eq!(
        out.event,
        Some(PageEventKind::NavigationStarted {
            frame_id: MAIN.into(),
            loader_id: "B".into(),
            url: "http://x/product.html".into(),
            same_document: false,
        })
    );
    feed(
        &mut state,
        "Page.frameStartedLoading",
        json!({ "frameId": MAIN }),
    );
    // A late lifecycle event of the old document changes nothing either.
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("A", "networkIdle"),
    );
    assert!(!settled(&state, &mark));
    assert_eq!(state.frames[MAIN].navigating.as_deref(), Some("B"));
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("B", "init"),
    );
    feed(
        &mut state,
        "Page.frameNavigated",
        navigated(MAIN, None, "http://x/product.html", "B"),
    );
    assert!(!settled(&state, &mark), "committed, not parsed yet");
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("B", "DOMContentLoaded"),
    );
    assert!(settled(&state, &mark));
    // Even the old document's events arriving after the commit leave the new one current.
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("A", "networkIdle"),
    );
    let frame = &state.frames[MAIN];
    assert_eq!(
        (frame.loader_id.as_str(), frame.url.as_str(), frame.parsed()),
        ("B", "http://x/product.html", true)
    );
}

/// A frame moving to another process: the new process's session tells of its placeholder
/// document's lifecycle (`commit`, `DOMContentLoaded`, under a loader that never commits)
/// before the navigation's own document commits. That is not the new document being parsed.
/// Captured from Chromium (the DevTools conformance case "local frame to OOPIF").
#[test]
fn a_placeholder_documents_lifecycle_does_not_settle_a_navigation_to_another_process() {
    let mut state = PageState::default();
    parsed_but_loading(&mut state, "A", "http://localhost/local-iframe1.html");
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("A", "load"),
    );
    feed(
        &mut state,
        "Page.frameStoppedLoading",
        json!({ "frameId": MAIN }),
    );
    let mark = NavMark::of(&state.frames[MAIN]);
    feed(
        &mut state,
        "Page.frameStartedNavigating",
        started_navigating("B", "http://oopif/iframe2.html"),
    );
    feed(
        &mut state,
        "Page.frameStartedLoading",
        json!({ "frameId": MAIN }),
    );
    // (The test's one frame stands for the iframe.) Its new process's session attaches.
    attach_target(
        &mut state,
        "CHILD",
        MAIN,
        "iframe",
        "http://oopif/iframe2.html",
    );
    let child = child_source("CHILD", MAIN);
    for name in ["commit", "DOMContentLoaded", "networkIdle"] {
        interpret(
            &mut state,
            &child,
            &cdp("Page.lifecycleEvent", lifecycle_event("PLACEHOLDER", name)),
        );
    }
    // The old process lets go of the frame.
    feed(
        &mut state,
        "Page.frameStoppedLoading",
        json!({ "frameId": MAIN }),
    );
    assert!(!settled(&state, &mark));
    assert_eq!(state.frames[MAIN].loader_id, "A");
    for event in [
        cdp("Page.lifecycleEvent", lifecycle_event("B", "init")),
        cdp(
            "Page.frameNavigated",
            navigated(MAIN, None, "http://oopif/iframe2.html", "B"),
        ),
        cdp(
            "Page.lifecycleEvent",
            lifecycle_event("B", "DOMContentLoaded"),
        ),
    ] {
        interpret(&mut state, &child, &event);
    }
    assert!(settled(&state, &mark));
    let frame = &state.frames[MAIN];
    assert_eq!(frame.url, "http://oopif/iframe2.html");
    assert_eq!(frame.lifecycle, ["init", "DOMContentLoaded"]);
}

/// The first loader heard of a frame nobody told us of is its document.
#[test]
fn a_frame_first_heard_of_by_its_lifecycle_shows_that_document() {
    let mut state = PageState::default();
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("A", "DOMContentLoaded"),
    );
    let frame = &state.frames[MAIN];
    assert_eq!((frame.loader_id.as_str(), frame.parsed()), ("A", true));
}

/// The same race with a plain link: the old document still loading when the new navigation
/// starts (its stop never comes), then the new one commits.
#[test]
fn a_navigation_started_while_the_old_document_loads_settles_on_its_commit() {
    let mut state = PageState::default();
    parsed_but_loading(&mut state, "A", "http://x/admin.html");
    let mark = NavMark::of(&state.frames[MAIN]);
    feed(
        &mut state,
        "Page.frameStartedNavigating",
        started_navigating("B", "http://x/product.html"),
    );
    feed(
        &mut state,
        "Page.frameStartedLoading",
        json!({ "frameId": MAIN }),
    );
    assert!(navigation_began(&state.frames[MAIN], &mark));
    assert!(!settled(&state, &mark));
    parsed_but_loading(&mut state, "B", "http://x/product.html");
    assert!(settled(&state, &mark));
}

/// A navigation that ends without a document (a 204, a download) settles as abandoned once
/// the frame stops loading while it is under way — and only then.
#[test]
fn a_navigation_that_commits_nothing_is_abandoned_when_loading_stops() {
    let mut state = PageState::default();
    parsed_but_loading(&mut state, "A", "http://x/admin.html");
    feed(
        &mut state,
        "Page.lifecycleEvent",
        lifecycle_event("A", "load"),
    );
    feed(
        &mut state,
        "Page.frameStoppedLoading",
        json!({ "frameId": MAIN }),
    );
    let mark = NavMark::of(&state.frames[MAIN]);
    feed(
        &mut state,
        "Page.frameStartedNavigating",
        started_navigating("N", "http://x/no-content"),
    );
    feed(
        &mut state,
        "Page.frameStartedLoading",
        json!({ "frameId": MAIN }),
    );
    assert!(!settled(&state, &mark));
    feed(
        &mut state,
        "Page.frameStoppedLoading",
        json!({ "frameId": MAIN }),
    );
    let frame = &state.frames[MAIN];
    assert_eq!(
        (frame.last_abandoned.as_deref(), frame.navigating.as_deref()),
        (Some("N"), None)
    );
    assert!(settled(&state, &mark));
    // The document stays the old one.
    assert_eq!(frame.loader_id, "A");

    // A fragment navigation: no cross-document navigation starts, nothing loads.
    let mark = NavMark::of(&state.frames[MAIN]);
    feed(
        &mut state,
        "Page.frameStartedNavigating",
        json!({ "frameId": MAIN, "loaderId": "A", "url": "http://x/admin.html#top",
                "navigationType": "sameDocument" }),
    );
    assert!(!settled(&state, &mark));
    feed(
        &mut state,
        "Page.navigatedWithinDocument",
        json!({ "frameId": MAIN, "url": "http://x/admin.html#top", "navigationType": "fragment" }),
    );
    assert!(navigation_began(&state.frames[MAIN], &mark));
    assert!(settled(&state, &mark));
}

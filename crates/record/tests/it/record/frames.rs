//! Iframes (out-of-process too), shadow DOM, and how candidates are ranked.

use browserflow_cdp::Page;
use browserflow_cdp::session::CdpSession;
use browserflow_record::{OutputMark, Recorder};
use browserflow_steps::{OutputKind, Selector, SelectorCandidate, SelectorKind};
use serde_json::{Value, json};

use crate::record::driver::*;
use crate::support::Harness;

/// The session of the out-of-process iframe whose URL contains `url_part`, for test input.
pub(crate) async fn oopif_session(page: &Page, url_part: &str) -> CdpSession {
    let conn = page.session().connection().clone();
    let browser = conn.session(None);
    let mut events = conn.subscribe(None);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let targets = browser.call("Target.getTargets", json!({})).await.unwrap();
        let found =
            targets["targetInfos"].as_array().unwrap().iter().find(|t| {
                t["type"] == "iframe" && t["url"].as_str().unwrap_or("").contains(url_part)
            });
        if let Some(t) = found {
            let attached = browser
                .call(
                    "Target.attachToTarget",
                    json!({ "targetId": t["targetId"], "flatten": true }),
                )
                .await
                .unwrap();
            return conn.session(Some(attached["sessionId"].as_str().unwrap().to_string()));
        }
        tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the iframe target appears");
    }
}

#[tokio::test]
pub(crate) async fn iframes_and_shadow_dom_elements_are_recorded_with_working_candidates() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/frames.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    assert!(recorder.wait_frame_ready("main", "/promo.html", WAIT).await);
    assert!(
        recorder
            .wait_frame_ready("main", "/partner.html", WAIT)
            .await
    );

    // Same-origin frame: main-frame coordinates through contentDocument.
    let claim = d
        .centre("(() => { const f = document.getElementById('promo-frame'); const r = f.getBoundingClientRect(); const b = f.contentDocument.getElementById('claim').getBoundingClientRect(); return { getBoundingClientRect: () => ({ left: r.left + f.clientLeft + b.left, top: r.top + f.clientTop + b.top, width: b.width, height: b.height }), scrollIntoView() {} }; })()")
        .await;
    d.click_at(claim, 1).await;

    // Cross-site frame (its own process): ask it where its elements are.
    let partner = oopif_session(recorder.page(), "/partner.html").await;
    let frame_box = d
        .page
        .evaluate_in_main_frame("(() => { const f = document.getElementById('partner-frame'); const r = f.getBoundingClientRect(); return [r.left + f.clientLeft, r.top + f.clientTop]; })()")
        .await
        .unwrap();
    let inner = |id: &str| {
        format!(
            "(() => {{ const r = document.getElementById('{id}').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        )
    };
    let at = |v: &Value| {
        (
            frame_box[0].as_f64().unwrap() + v[0].as_f64().unwrap(),
            frame_box[1].as_f64().unwrap() + v[1].as_f64().unwrap(),
        )
    };
    let email = partner
        .call(
            "Runtime.evaluate",
            json!({ "expression": inner("partner-email"), "returnByValue": true }),
        )
        .await
        .unwrap();
    d.click_at(at(&email["result"]["value"]), 1).await;
    d.insert_text("a@b.example").await;
    let join = partner
        .call(
            "Runtime.evaluate",
            json!({ "expression": inner("join"), "returnByValue": true }),
        )
        .await
        .unwrap();
    d.click_at(at(&join["result"]["value"]), 1).await;
    // Every step, not just two clicks: under load the email field's click is seen before the
    // typing that turns it into a fill, and two clicks would be counted too early.
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .map(|s| s.step.kind().name())
                .eq(["navigate", "click", "fill", "click"]))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "click", "fill", "click"],
        "{:#?}",
        draft.steps
    );
    let frame_of = |i: usize| {
        draft.steps[i]
            .step
            .selector()
            .unwrap()
            .frame
            .clone()
            .unwrap()
    };
    assert_eq!(frame_of(1).name.as_deref(), Some("promo"));
    assert_eq!(frame_of(2).name.as_deref(), Some("partner"));
    assert_eq!(
        draft.steps[1].step.selector().unwrap().candidates[0],
        SelectorCandidate::test_id("claim-coupon")
    );
    for (field, test_id, frame) in [
        ("coupon", "coupon-code", frame_of(1)),
        ("joined", "partner-status", frame_of(3)),
    ] {
        let selector = Selector::new([SelectorCandidate::test_id(test_id)]).in_frame(frame);
        draft
            .mark_output(OutputMark::with_selector(
                field,
                selector,
                OutputKind::String,
            ))
            .unwrap();
    }
    let file = draft.into_tool_file("frames", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["coupon"], "SPRING-10");
    assert_eq!(outputs["joined"], "Joined as a@b.example");

    // Shadow DOM: a button in an open shadow root, and one in a shadow root inside it.
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/widgets.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('rating').shadowRoot.querySelector('[data-testid=rate-5]')")
        .await;
    d.click("document.getElementById('rating').shadowRoot.getElementById('nested').shadowRoot.querySelector('button')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind().name() == "click")
                .count()
                == 2)
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    // Semantic candidates pierce the shadow roots (no host chain); CSS keeps the chain.
    let first = draft.steps[1].step.selector().unwrap().candidates.clone();
    assert_eq!(first[0], SelectorCandidate::test_id("rate-5"));
    let nested = draft.steps[2].step.selector().unwrap().candidates.clone();
    assert_eq!(
        nested[0],
        SelectorCandidate::role("button", "Nested star"),
        "{nested:?}"
    );
    let css = nested.iter().find(|c| c.kind == SelectorKind::Css).unwrap();
    assert_eq!(css.shadow, vec!["#rating", "#nested"], "{nested:?}");
    // Replay the first click only, then the nested one, reading the status each time.
    draft
        .mark_output(OutputMark {
            position: Some(2),
            ..OutputMark::css("after_rate", "#rating-status", OutputKind::String)
        })
        .unwrap();
    draft
        .mark_output(OutputMark::css(
            "after_nested",
            "#rating-status",
            OutputKind::String,
        ))
        .unwrap();
    let file = draft.into_tool_file("widgets", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["after_rate"], "Rated 5");
    assert_eq!(outputs["after_nested"], "Nested star clicked");
    h.close().await;
}

#[tokio::test]
pub(crate) async fn generated_ids_rank_below_role_and_text_and_non_unique_selectors_never_lead() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-ids.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('ember123')").await;
    d.click("document.querySelector('[data-testid=add]')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .filter(|s| s.step.kind().name() == "click")
                .count()
                == 2)
            .await
    );
    // Pick mode: the next click picks its element instead of acting, once the recorder says
    // every frame is in pick mode.
    let mut events = recorder.subscribe();
    let (picked, ()) = tokio::join!(recorder.pick_element(), async {
        pick_armed(&mut events).await;
        d.click("document.getElementById('basket-status')").await;
    });
    let status = picked.expect("the status was picked");
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        draft
            .steps
            .iter()
            .filter(|s| s.step.kind().name() == "click")
            .count(),
        2,
        "the picking click is not a step"
    );
    let save = draft.steps[1].step.selector().unwrap().candidates.clone();
    let position = |kind: SelectorKind, value: &str| {
        save.iter()
            .position(|c| c.kind == kind && c.value == value)
            .unwrap_or_else(|| panic!("no {kind:?} {value} in {save:?}"))
    };
    let generated = position(SelectorKind::Id, "ember123");
    assert!(
        position(SelectorKind::Role, "button") < generated,
        "{save:?}"
    );
    assert!(
        position(SelectorKind::Text, "Save draft") < generated,
        "{save:?}"
    );
    assert!(
        save.iter().all(|c| !c.value.contains("css-1q2w3e")),
        "hashed classes are not used: {save:?}"
    );

    let add = draft.steps[2].step.selector().unwrap().candidates.clone();
    assert_eq!(add[0], SelectorCandidate::role("button", "Add"), "{add:?}");
    for c in &add {
        assert!(
            !((c.kind == SelectorKind::TestId && c.value == "add")
                || (c.kind == SelectorKind::Text && c.value == "Add")),
            "a selector matching two elements is kept: {c:?}"
        );
    }
    assert_eq!(status.text, "Added apples");
    assert_eq!(
        status.selector.candidates[0],
        SelectorCandidate::test_id("basket-status")
    );
    assert!(
        status
            .selector
            .candidates
            .iter()
            .all(|c| !c.value.contains("apples")),
        "an output's selector does not depend on the value read: {:?}",
        status.selector
    );
    draft
        .mark_output(OutputMark::picked("status", &status, OutputKind::String))
        .unwrap();
    let file = draft.into_tool_file("basket", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["status"], "Added apples");
    h.close().await;
}

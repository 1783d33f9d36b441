//! The live step stream (thumbnails) and dialogs left to the person.

use std::time::Duration;

use browserflow_record::{OutputMark, RecordOptions, Recorder};
use browserflow_steps::{OutputKind, Step};
use serde_json::json;

use crate::record::driver::*;
use crate::support::Harness;

#[tokio::test]
async fn thumbnails_arrive_in_the_live_step_stream() {
    use browserflow_record::RecordEvent;
    let h = Harness::start().await;
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            thumbnails: true,
            viewport: Some((800, 600)),
            ..options(h.url("/rec-ids.html"))
        },
    )
    .await
    .unwrap();
    let mut events = recorder.subscribe();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.getElementById('ember123')").await;
    let (index, png) = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(RecordEvent::StepUpdated { index, step }) = events.recv().await
                && step.step.kind().name() == "click"
                && let Some(png) = step.thumbnail_png
            {
                return (index, png);
            }
        }
    })
    .await
    .expect("a thumbnail arrives");
    assert_eq!(recorder.steps()[index].step.kind().name(), "click");
    let image = image::load_from_memory_with_format(&png, image::ImageFormat::Png).expect("a PNG");
    // 800×600 scaled to 240 wide.
    assert_eq!((image.width(), image.height()), (240, 180));
    // Without the option, no thumbnail is taken.
    let draft = recorder.stop().await.unwrap();
    assert!(draft.steps[index].thumbnail_png.is_some());
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-ids.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('ember123')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "click"))
            .await
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let draft = recorder.stop().await.unwrap();
    assert!(draft.steps.iter().all(|s| s.thumbnail_png.is_none()));
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_left_to_the_person_is_recorded_with_their_answer() {
    use browserflow_record::DialogAnswers;

    let h = Harness::start().await;
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            dialogs: Some(DialogAnswers::Person),
            ..options(h.url("/index.html"))
        },
    )
    .await
    .unwrap();
    let d = Driver::new(recorder.page());
    let mut page_events = d.session.subscribe();
    // The click blocks while the prompt is open, as it would for a person's mouse.
    let at = d.centre("document.getElementById('ask-name')").await;
    let session = d.session.clone();
    let clicking = tokio::spawn(async move {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            let _ = session
                .call(
                    "Input.dispatchMouseEvent",
                    json!({ "type": kind, "x": at.0, "y": at.1, "button": "left", "clickCount": 1 }),
                )
                .await;
        }
    });
    // Nobody but the person answers: the prompt stays open until the test (the person) does.
    let opened = tokio::time::timeout(WAIT, async {
        while let Some(event) = page_events.recv().await {
            if event.method == "Page.javascriptDialogOpening" {
                return true;
            }
        }
        false
    })
    .await
    .expect("the prompt opens");
    assert!(opened);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !clicking.is_finished(),
        "the prompt was answered by someone else"
    );
    d.session
        .call(
            "Page.handleJavaScriptDialog",
            json!({ "accept": true, "promptText": "Ada" }),
        )
        .await
        .expect("the person answers");
    clicking.await.unwrap();
    d.wait_js("document.getElementById('service-status').textContent === 'Hello, Ada'")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "click"))
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "handle_dialog", "click"]);
    let Step::HandleDialog(answer) = &draft.steps[1].step else {
        unreachable!()
    };
    assert!(answer.accept);
    assert_eq!(answer.prompt_text.as_deref(), Some("Ada"));

    draft
        .mark_output(OutputMark::css(
            "greeting",
            "#service-status",
            OutputKind::String,
        ))
        .unwrap();
    let file = draft.into_tool_file("say-hello", "1.0.0", None).unwrap();
    let output = replay(&h, &file, json!({})).await;
    assert_eq!(output["greeting"], "Hello, Ada");
    h.close().await;
}

/// Presses `key` (Tab, Escape) on the page as a keyboard does.
async fn press_key(d: &Driver, key: &str, code: i64) {
    for kind in ["rawKeyDown", "keyUp"] {
        let _ = d
            .session
            .call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code }),
            )
            .await;
    }
}

#[tokio::test]
async fn escape_leaves_pick_mode_and_keys_pressed_while_picking_are_not_recorded() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-ids.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('ember123')").await;
    assert!(recorder.wait_until(WAIT, |s| s.len() >= 2).await);
    let before = recorder.steps().len();

    // Picking: Tab does nothing, Escape ends it with nothing picked. Each pick acts once the
    // recorder says every frame is in pick mode (before, a click would be a step).
    let mut events = recorder.subscribe();
    let (picked, ()) = tokio::join!(recorder.pick_element(), async {
        pick_armed(&mut events).await;
        d.move_to(d.centre("document.getElementById('basket-status')").await)
            .await;
        press_key(&d, "Tab", 9).await;
        press_key(&d, "Escape", 27).await;
    });
    assert!(
        matches!(picked, Err(browserflow_record::RecordError::PickCancelled)),
        "{picked:?}"
    );
    let outlined = recorder
        .page()
        .evaluate_in_main_frame(
            "[...document.querySelectorAll('*')].filter((el) => el.style.outline.includes('solid')).length",
        )
        .await
        .unwrap();
    assert_eq!(outlined, json!(0), "the pick outline is gone");

    // The app's cancel ends a pick too; a later pick still picks.
    let (cancelled, ()) = tokio::join!(recorder.pick_element(), async {
        pick_armed(&mut events).await;
        recorder.cancel_pick();
    });
    assert!(matches!(
        cancelled,
        Err(browserflow_record::RecordError::PickCancelled)
    ));
    let (picked, ()) = tokio::join!(recorder.pick_element(), async {
        pick_armed(&mut events).await;
        d.click("document.getElementById('basket-status')").await;
    });
    picked.expect("picked after the cancelled ones");

    tokio::time::sleep(Duration::from_millis(300)).await;
    let draft = recorder.stop().await.unwrap();
    assert_eq!(
        draft.steps.len(),
        before,
        "no key or click of pick mode is a step: {:#?}",
        draft.steps
    );
}

/// An output given by selector (`Recorder::element`) through each of `describeCss`'s answers in
/// Chromium: an element inserted late is waited for and found; a selector matching two elements
/// fails once the wait is over, saying how many; an invalid selector fails at once.
#[tokio::test]
async fn an_output_by_selector_waits_for_one_element_and_never_for_an_invalid_selector() {
    use browserflow_record::RecordError;
    use browserflow_shop::FixtureServer;
    let page = "<!doctype html><title>late</title><p class=twin>a</p><p class=twin>b</p>\
        <script>setTimeout(() => { const p = document.createElement('output'); \
        p.id = 'late'; p.textContent = '42'; document.body.append(p); }, 400);</script>";
    let server = FixtureServer::serve_files(
        [("late.html".to_string(), page.as_bytes().to_vec())]
            .into_iter()
            .collect(),
    )
    .expect("fixture server starts");
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/late.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;

    let late = recorder
        .element("main", "#late")
        .await
        .expect("the late element");
    assert_eq!(late.text, "42", "{late:?}");

    let started = std::time::Instant::now();
    let invalid = recorder
        .element("main", "p[")
        .await
        .expect_err("invalid CSS");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "an invalid selector is not waited for ({:?})",
        started.elapsed()
    );
    assert!(
        matches!(invalid, RecordError::NoElement { .. }),
        "{invalid}"
    );

    let twins = recorder
        .element("main", ".twin")
        .await
        .expect_err("two elements");
    let RecordError::NoElement { message, .. } = &twins else {
        panic!("{twins}");
    };
    assert!(message.contains("matches 2 elements"), "{message}");
    recorder.stop().await.unwrap();
}

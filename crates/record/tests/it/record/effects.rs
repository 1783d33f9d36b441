//! Steps that come from what an action caused: hovers, scrolls, downloads, file choosers.

use std::time::Duration;

use browserflow_record::{OutputMark, RecordOptions, Recorder};
use browserflow_replay::Replayer;
use browserflow_steps::{OutputKind, SelectorCandidate, Step};
use serde_json::{Map, json};

use crate::record::driver::*;
use crate::support::Harness;

#[tokio::test]
async fn a_hover_that_reveals_the_clicked_item_is_recorded_and_plain_movement_is_not() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-menu.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    // Plain movement over the page and the intro reveals nothing the recording uses.
    d.move_to((5.0, 5.0)).await;
    let intro = d
        .centre_here("document.querySelector('[data-testid=intro]')")
        .await;
    d.move_to(intro).await;
    // Over the menu: its items appear; click one.
    let title = d.centre_here("document.querySelector('.menu-title')").await;
    d.move_to(title).await;
    d.wait_js(
        "document.querySelector('[data-testid=menu-orders]').getBoundingClientRect().height > 0",
    )
    .await;
    let orders = d
        .centre_here("document.querySelector('[data-testid=menu-orders]')")
        .await;
    d.move_to(orders).await;
    d.click_at(orders, 1).await;
    d.wait_js(
        "document.querySelector('[data-testid=menu-status]').textContent === 'Orders opened'",
    )
    .await;
    // Away from the menu, then a visible button: movement only, no hover.
    d.move_to(intro).await;
    d.click("document.querySelector('[data-testid=refresh]')")
        .await;
    wait_for_steps(&recorder, "click", 2).await;
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "hover", "click", "click"],
        "{:#?}",
        draft.steps
    );
    assert_eq!(count_kind(&draft, "hover"), 1);
    let hover = draft.steps[1].step.selector().unwrap().candidates.clone();
    assert_eq!(
        hover[0],
        SelectorCandidate::test_id("account-menu"),
        "{hover:?}"
    );
    draft
        .mark_output(OutputMark::css(
            "status",
            "[data-testid=menu-status]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("menu", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["status"], "Orders opened (refreshed)");
    h.close().await;
}

#[tokio::test]
async fn a_scroll_that_loads_the_next_target_is_kept_and_one_that_changes_nothing_is_dropped() {
    let h = Harness::start().await;
    // Scrolling a little, then clicking an item that was there from the start: no scroll step.
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-feed.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.wheel(300.0).await;
    d.wait_js("window.scrollY >= 250").await;
    d.settle_scroll().await;
    let item = d
        .centre_here("document.querySelector('[data-testid=item-6]')")
        .await;
    d.click_at(item, 1).await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "click"))
            .await
    );
    let draft = recorder.stop().await.unwrap();
    assert_eq!(kinds(&draft), ["navigate", "click"], "{:#?}", draft.steps);

    // Scrolling to the bottom loads more items; clicking one needs the scroll.
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/rec-feed.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    for _ in 0..3 {
        d.wheel(800.0).await;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    d.wait_js("document.querySelector('[data-testid=item-30]')")
        .await;
    d.settle_scroll().await;
    // More scrolling into the new items: the same container, one step.
    d.wheel(300.0).await;
    d.settle_scroll().await;
    // The first new item entirely in view.
    let first_new = "Array.from(document.querySelectorAll('.item')).slice(20).find((b) => { const r = b.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })";
    let label = d
        .page
        .evaluate_in_main_frame(&format!("({first_new}).textContent"))
        .await
        .expect("a new item is in view");
    let label = label.as_str().unwrap().to_string();
    let item = d.centre_here(first_new).await;
    d.click_at(item, 1).await;
    d.wait_js(&format!(
        "document.getElementById('status').textContent === 'Picked {label}'"
    ))
    .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.step.kind().name() == "click"))
            .await
    );
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "scroll", "wait_for_element", "click"],
        "{:#?}",
        draft.steps
    );
    assert_eq!(count_kind(&draft, "scroll"), 1, "the scrolls are coalesced");
    let Step::Scroll(scroll) = &draft.steps[1].step else {
        unreachable!()
    };
    assert!(scroll.selector.is_none(), "the window scrolled");
    assert!(scroll.y > 1000.0, "the final position: {scroll:?}");
    draft
        .mark_output(OutputMark::css("picked", "#status", OutputKind::String))
        .unwrap();
    let file = draft.into_tool_file("feed", "1.0.0", None).unwrap();
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["picked"], format!("Picked {label}"));
    h.close().await;
}

#[tokio::test]
async fn a_click_that_downloads_becomes_a_download_step_and_replays_to_the_same_file() {
    use sha2::{Digest, Sha256};
    let h = Harness::start().await;
    let downloads = tempfile::tempdir().unwrap();
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            download_dir: Some(downloads.path().to_path_buf()),
            ..options(h.url("/files.html"))
        },
    )
    .await
    .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.querySelector('[data-testid=download-receipt]')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(|s| s.download.is_some()))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "download"],
        "{:#?}",
        draft.steps
    );
    let expected = hex::encode(Sha256::digest(shop_fixture("downloads/receipt-1001.csv")));
    let recorded = draft.steps[1].download.clone().unwrap();
    assert_eq!(recorded.name, "receipt-1001.csv");
    assert_eq!(recorded.sha256, expected);
    assert_eq!(
        std::fs::read(&recorded.path).unwrap().len() as u64,
        recorded.size
    );
    let Step::Download(step) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(step.filename.as_deref(), Some("receipt-1001.csv"));
    assert_eq!(
        step.selector.candidates[0],
        SelectorCandidate::test_id("download-receipt")
    );

    let dir = tempfile::tempdir().unwrap();
    let file = save_and_load(
        &draft.into_tool_file("receipt", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let context = h.browser.new_context().await.unwrap();
    let report = Replayer::new(browserflow_replay::ReplayOptions {
        download_dir: Some(dir.path().join("replayed")),
        ..Default::default()
    })
    .run(&context, &file.steps, &Map::new())
    .await
    .unwrap_or_else(|e| panic!("replay failed: {e}"));
    context.close().await.unwrap();
    let replayed = report.steps[1].download.as_ref().expect("a download");
    assert_eq!(replayed.sha256, recorded.sha256);
    h.close().await;
}

#[tokio::test]
async fn a_file_chooser_is_answered_through_the_recorder_and_the_upload_replays() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let attachment = dir.path().join("invoice notes.txt");
    std::fs::write(&attachment, "seventeen bytes!!").unwrap();
    let recorder = Recorder::start_on(&h.browser, &options(h.url("/files.html")))
        .await
        .unwrap();
    let mut events = recorder.subscribe();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.querySelector('[data-testid=upload-input]')")
        .await;
    let request = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(browserflow_record::RecordEvent::FileChooser(request)) = events.recv().await {
                return request;
            }
        }
    })
    .await
    .expect("the chooser is reported");
    assert!(!request.multiple);
    assert_eq!(request.page, "main");
    // One file for a single-file chooser; two are refused and the chooser stays open.
    let err = recorder
        .answer_file_chooser(&[attachment.clone(), attachment.clone()])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("takes one file, not 2"), "{err}");
    let index = recorder
        .answer_file_chooser(std::slice::from_ref(&attachment))
        .await
        .expect("answered");
    assert_eq!(index, Some(1));
    assert!(matches!(
        recorder
            .answer_file_chooser(std::slice::from_ref(&attachment))
            .await,
        Err(browserflow_record::RecordError::NoFileChooser)
    ));
    d.wait_js("document.querySelector('[data-testid=upload-input]').files.length === 1")
        .await;
    d.click("document.querySelector('[data-testid=upload-note]')")
        .await;
    d.insert_text("for accounting").await;
    d.click("document.querySelector('[data-testid=upload-submit]')")
        .await;
    d.wait_js("document.querySelector('[data-testid=upload-name]')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.navigation.is_some())
            ))
            .await,
        "{:#?}",
        recorder.steps()
    );
    let on_page = recorder
        .page()
        .evaluate_in_main_frame("document.querySelector('[data-testid=upload-size]').textContent")
        .await
        .unwrap();
    assert_eq!(on_page, "17");
    let mut draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["navigate", "upload", "fill", "click"],
        "{:#?}",
        draft.steps
    );
    let Step::Upload(upload) = &draft.steps[1].step else {
        unreachable!()
    };
    assert_eq!(
        upload.files,
        [std::path::absolute(&attachment)
            .unwrap()
            .to_string_lossy()
            .into_owned()]
    );
    for (field, test_id, kind) in [
        ("name", "upload-name", OutputKind::String),
        ("size", "upload-size", OutputKind::Integer),
    ] {
        draft
            .mark_output(OutputMark::css(
                field,
                format!("[data-testid={test_id}]"),
                kind,
            ))
            .unwrap();
    }
    let file = save_and_load(
        &draft.into_tool_file("attach", "1.0.0", None).unwrap(),
        dir.path(),
    );
    let outputs = replay(&h, &file, json!({})).await;
    assert_eq!(outputs["name"], "invoice notes.txt");
    assert_eq!(outputs["size"], 17);
    h.close().await;
}

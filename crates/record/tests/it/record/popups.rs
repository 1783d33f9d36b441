//! Closing a popup is recorded (#33 item 12): a window the page closes itself (a wallet that
//! pays and closes) and one the person closes (which cancels the payment) each become a
//! `close_page` step; the replay finds the first closed and closes the second, so the page
//! that opened it learns of it as it did for the person, and the steps after it act on the
//! main page. Fixtures: `tests/fixtures/popups`.

use browserflow_record::{OutputMark, Recorder};
use browserflow_shop::{FixtureServer, read_dir_files};
use browserflow_steps::{OutputKind, Step, StepKind, ToolFile};
use serde_json::json;

use crate::record::driver::*;
use crate::support::Harness;

fn fixtures() -> FixtureServer {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/popups");
    FixtureServer::serve_files(read_dir_files(&dir).expect("popup fixtures read"))
        .expect("fixture server starts")
}

/// Records on `pay.html`: "Pay with Wallet" opens the wallet's window; then either the wallet's
/// "Pay" (which closes it) or the person closes it; then "Continue". The output is the summary.
async fn record(h: &Harness, server: &FixtureServer, person_closes: bool) -> ToolFile {
    let recorder = Recorder::start_on(&h.browser, &options(server.url("/pay.html")))
        .await
        .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    d.click("document.getElementById('pay')").await;
    assert!(
        recorder
            .wait_frame_ready("popup", "/wallet.html", WAIT)
            .await
    );
    let wallet = recorder.page_named("popup").expect("the wallet's window");
    if person_closes {
        // As the window's close button does: the browser closes the target.
        wallet.close().await.expect("the wallet's window closes");
    } else {
        let w = Driver::new(&wallet);
        w.wait_js("document.readyState === 'complete'").await;
        w.click("document.getElementById('confirm')").await;
    }
    assert!(
        recorder
            .wait_until(WAIT, |s| s
                .iter()
                .any(|s| s.step.kind() == StepKind::ClosePage))
            .await,
        "{:#?}",
        recorder.steps()
    );
    d.wait_js("!document.getElementById('continue').disabled")
        .await;
    d.click("document.getElementById('continue')").await;
    d.wait_js("document.getElementById('summary').textContent !== ''")
        .await;
    wait_for_steps(&recorder, "click", if person_closes { 2 } else { 3 }).await;
    let mut draft = recorder.stop().await.unwrap();
    let expected: &[&str] = if person_closes {
        &["navigate", "click", "close_page", "click"]
    } else {
        &["navigate", "click", "click", "close_page", "click"]
    };
    assert_eq!(kinds(&draft), expected, "{:#?}", draft.steps);
    let close = draft
        .steps
        .iter()
        .find_map(|s| match &s.step {
            Step::ClosePage(c) => Some((c.page.clone(), s.page.clone())),
            _ => None,
        })
        .unwrap();
    // The popup closes; the steps go on on the main page.
    assert_eq!(close, ("popup".to_string(), "main".to_string()));
    draft
        .mark_output(OutputMark::css(
            "summary",
            "[data-testid=summary]",
            OutputKind::String,
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    save_and_load(
        &draft.into_tool_file("pay", "1.0.0", None).unwrap(),
        dir.path(),
    )
}

#[tokio::test]
async fn a_popup_that_closes_itself_is_found_closed_and_the_journey_goes_on_on_the_main_page() {
    let h = Harness::start().await;
    let server = fixtures();
    let file = record(&h, &server, false).await;
    for _ in 0..2 {
        let outputs = replay(&h, &file, json!({})).await;
        assert_eq!(outputs["summary"], "Paid 12.50");
    }
    h.close().await;
}

/// Without the recorded close the replay leaves the wallet open: the page never learns of a
/// cancel and "Continue" never enables.
#[tokio::test]
async fn a_popup_the_person_closed_is_closed_by_the_replay() {
    let h = Harness::start().await;
    let server = fixtures();
    let file = record(&h, &server, true).await;
    for _ in 0..2 {
        let outputs = replay(&h, &file, json!({})).await;
        assert_eq!(outputs["summary"], "Payment cancelled");
    }
    h.close().await;
}

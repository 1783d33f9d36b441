//! Thumbnails of the live step list: every step of a multi-page journey gets one as it is
//! recorded (the first navigation and the steps that navigate included), of the page the step
//! left; none shows the pick outline or a password.

use std::time::Duration;

use browserflow_record::{RecordError, RecordOptions, RecordedStep, Recorder};
use image::RgbaImage;
use serde_json::json;

use crate::record::driver::*;
use crate::support::Harness;

fn decode(png: &[u8]) -> RgbaImage {
    image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .expect("a PNG")
        .to_rgba8()
}

/// How many pixels `matches` holds for.
fn count(image: &RgbaImage, matches: impl Fn([u8; 4]) -> bool) -> usize {
    image.pixels().filter(|p| matches(p.0)).count()
}

/// The share of pixels that differ between two images of one size.
fn difference(a: &RgbaImage, b: &RgbaImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let differing = a
        .pixels()
        .zip(b.pixels())
        .filter(|(x, y)| x.0.iter().zip(y.0.iter()).any(|(p, q)| p.abs_diff(*q) > 24))
        .count();
    differing as f64 / f64::from(a.width() * a.height())
}

fn all_have_thumbnails(steps: &[RecordedStep]) -> bool {
    !steps.is_empty() && steps.iter().all(|s| s.thumbnail_png.is_some())
}

fn describe(steps: &[RecordedStep]) -> Vec<(String, bool)> {
    steps
        .iter()
        .map(|s| (s.description.clone(), s.thumbnail_png.is_some()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_step_of_a_multi_page_journey_gets_a_thumbnail_of_the_page_it_left() {
    let h = Harness::start().await;
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            thumbnails: true,
            viewport: Some((480, 360)),
            ..options(h.url("/index.html"))
        },
    )
    .await
    .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    // A quick person: a fifth of a second between two actions, a tenth between pressing and
    // releasing the mouse; Enter right after typing, a click right after the results show.
    human_click(&d, "document.getElementById('search-input')").await;
    pause().await;
    d.insert_text("keyboard").await;
    pause().await;
    d.press_enter().await;
    d.wait_js("location.pathname.includes('search') && document.querySelector('#results a')")
        .await;
    pause().await;
    human_click(&d, "document.querySelector('#results a')").await;
    d.wait_js("document.getElementById('product-price').textContent !== ''")
        .await;
    // The product page shows an overlay for half a second after it loads.
    d.wait_js("!document.getElementById('offers-overlay')")
        .await;
    assert!(
        recorder.wait_until(WAIT, all_have_thumbnails).await,
        "every step gets its thumbnail while recording: {:?}",
        describe(&recorder.steps())
    );
    let product_page = decode(
        &browserflow_cdp::thumbnail::thumbnail_png(
            &recorder.page().screenshot_png().await.unwrap(),
            240,
        )
        .unwrap(),
    );
    let draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        [
            "set_viewport",
            "navigate",
            "fill",
            "key_press",
            "wait_for_element",
            "click"
        ],
        "{:#?}",
        describe(&draft.steps)
    );
    let thumbs: Vec<RgbaImage> = draft
        .steps
        .iter()
        .map(|s| {
            decode(
                s.thumbnail_png
                    .as_deref()
                    .expect("the draft keeps thumbnails"),
            )
        })
        .collect();
    for (step, thumb) in draft.steps.iter().zip(&thumbs) {
        // 480×360 scaled to 240 wide.
        assert_eq!(thumb.dimensions(), (240, 180), "{}", step.description);
        let white = count(thumb, |p| p[0] > 245 && p[1] > 245 && p[2] > 245);
        assert!(
            white < thumb.pixels().len() * 97 / 100,
            "the thumbnail of {:?} shows a painted page, not a blank one",
            step.description
        );
    }
    let [viewport, start, fill, enter, results, click] = &thumbs[..] else {
        unreachable!()
    };
    // The first navigation shows the start page: the viewport step before it the same.
    assert!(difference(viewport, start) < 0.02);
    // The fill shows the typed text; the Enter the results page (the wait for the results
    // too), the click the product page.
    assert!(
        difference(start, fill) > 0.001,
        "the fill's thumbnail shows the text typed"
    );
    assert!(
        difference(fill, enter) > 0.05,
        "the Enter that navigated shows the results, not the search form"
    );
    assert!(
        difference(results, click) > 0.05,
        "the wait for the results shows them; the click that navigated the product page"
    );
    assert!(difference(fill, results) > 0.05);
    assert!(
        difference(click, &product_page) < 0.02,
        "the last click's thumbnail is the product page: {}",
        difference(click, &product_page)
    );
    h.close().await;
}

async fn pause() {
    tokio::time::sleep(Duration::from_millis(200)).await;
}

/// A click as a person's mouse makes it: moved there, pressed, released a moment later.
async fn human_click(d: &Driver, expr: &str) {
    let (x, y) = d.centre(expr).await;
    d.mouse(json!({ "type": "mouseMoved", "x": x, "y": y }))
        .await;
    pause().await;
    d.mouse(json!({ "type": "mousePressed", "x": x, "y": y, "button": "left", "clickCount": 1 }))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    d.mouse(json!({ "type": "mouseReleased", "x": x, "y": y, "button": "left", "clickCount": 1 }))
        .await;
}

/// Presses `key` on the page as a keyboard does.
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

fn red(p: [u8; 4]) -> bool {
    p[0] > 180 && p[1] < 90 && p[2] < 90 && p[0] - p[1].max(p[2]) > 120
}

/// The pick outline's colour, `#e8590c`, give or take anti-aliasing.
fn orange(p: [u8; 4]) -> bool {
    p[0] > 190 && (50..=130).contains(&p[1]) && p[2] < 60
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_thumbnail_shows_a_password_or_the_pick_outline() {
    const CANARY: &str = "canary-Pa55-7q9z";
    let h = Harness::start().await;
    // 240 px wide: the thumbnail is the capture itself, pixel for pixel.
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            thumbnails: true,
            viewport: Some((240, 180)),
            ..options(h.url("/rec-login.html"))
        },
    )
    .await
    .unwrap();
    let d = Driver::new(recorder.page());
    d.wait_js("document.readyState === 'complete'").await;
    // The password field in big red letters at the top of the page.
    recorder
        .page()
        .evaluate_in_main_frame(
            "document.getElementById('pass').style.cssText = 'position:fixed;left:0;top:0;width:236px;height:70px;font-size:34px;color:rgb(255,0,0);caret-color:transparent;outline:none;background:#fff;z-index:9;border:0'",
        )
        .await
        .unwrap();
    d.click("document.getElementById('pass')").await;
    d.type_keys(CANARY).await;
    // "Show password": the page turns the field into a text field.
    recorder
        .page()
        .evaluate_in_main_frame("document.getElementById('pass').type = 'text'")
        .await
        .unwrap();
    // Control: the page itself shows the password in red (but for the moments when a
    // thumbnail's masks cover it).
    let mut shown = 0;
    for _ in 0..50 {
        shown = count(
            &decode(&recorder.page().screenshot_png().await.unwrap()),
            red,
        );
        if shown > 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(shown > 200, "control: the page shows the password in red");
    assert!(
        recorder.wait_until(WAIT, all_have_thumbnails).await,
        "{:?}",
        describe(&recorder.steps())
    );

    // A click, then at once an element picked: the click's thumbnail waits for the pick to end.
    d.click("document.getElementById('sign-in')").await;
    let mut events = recorder.subscribe();
    let (picked, ()) = tokio::join!(recorder.pick_element(), async {
        pick_armed(&mut events).await;
        d.move_to(d.centre("document.getElementById('login-status')").await)
            .await;
        d.wait_js("document.getElementById('login-status').style.outline.includes('solid')")
            .await;
        // Longer than a thumbnail waits for a quiet page.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let steps = recorder.steps();
        let click = steps
            .iter()
            .find(|s| s.step.kind().name() == "click")
            .expect("the click");
        assert!(
            click.thumbnail_png.is_none(),
            "no thumbnail is taken while the outline shows"
        );
        press_key(&d, "Escape", 27).await;
    });
    assert!(
        matches!(picked, Err(RecordError::PickCancelled)),
        "{picked:?}"
    );
    assert!(
        recorder.wait_until(WAIT, all_have_thumbnails).await,
        "{:?}",
        describe(&recorder.steps())
    );
    let draft = recorder.stop().await.unwrap();
    assert_eq!(
        kinds(&draft),
        ["set_viewport", "navigate", "fill", "click"],
        "{:#?}",
        describe(&draft.steps)
    );
    for step in &draft.steps {
        let thumb = decode(step.thumbnail_png.as_deref().unwrap());
        assert_eq!(thumb.dimensions(), (240, 180));
        assert_eq!(
            count(&thumb, red),
            0,
            "the thumbnail of {:?} shows no password",
            step.description
        );
        assert_eq!(
            count(&thumb, orange),
            0,
            "the thumbnail of {:?} shows no pick outline",
            step.description
        );
    }
    h.close().await;
}

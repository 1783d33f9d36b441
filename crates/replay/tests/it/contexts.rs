//! Browser contexts (isolated, concurrent) and connecting to a running browser.

use browserflow_cdp::Browser;
use serde_json::json;

use crate::support::Harness;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contexts_are_isolated_and_run_concurrently() {
    let h = Harness::start().await;
    assert!(h.browser.version().await.unwrap().contains("Chrome"));
    let (a, b) = tokio::join!(h.browser.new_context(), h.browser.new_context());
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_ne!(a.id(), b.id());
    let set_cookie = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "wait_for_expression", "expression": "(document.cookie = 'session=alpha; path=/', true)" }
    ]);
    let read_cookie = json!([
        { "type": "navigate", "url": "{{shop}}/index.html" },
        { "type": "assert", "url": "{{shop}}/index.html" }
    ]);
    let inputs = json!({ "shop": h.url("") }).as_object().cloned().unwrap();
    let replayer = browserflow_replay::Replayer::default();
    let set: Vec<browserflow_steps::Step> = serde_json::from_value(set_cookie).unwrap();
    let read: Vec<browserflow_steps::Step> = serde_json::from_value(read_cookie).unwrap();
    // Both replays at once on one browser.
    let (ra, rb) = tokio::join!(
        replayer.run(&a, &set, &inputs),
        replayer.run(&b, &read, &inputs)
    );
    ra.unwrap();
    rb.unwrap();
    let cookie_of = |page: browserflow_cdp::Page| async move {
        let answer = page
            .session()
            .call(
                "Runtime.evaluate",
                json!({ "expression": "document.cookie", "returnByValue": true }),
            )
            .await
            .unwrap();
        answer["result"]["value"].as_str().unwrap().to_string()
    };
    assert_eq!(cookie_of(a.page().clone()).await, "session=alpha");
    assert_eq!(
        cookie_of(b.page().clone()).await,
        "",
        "context B must not see A's cookie"
    );
    // A third context after the fact sees nothing either.
    let c = h.browser.new_context().await.unwrap();
    replayer.run(&c, &read, &inputs).await.unwrap();
    assert_eq!(cookie_of(c.page().clone()).await, "");
    a.close().await.unwrap();
    b.close().await.unwrap();
    c.close().await.unwrap();
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connects_to_a_running_browser_endpoint() {
    let h = Harness::start().await;
    let second = Browser::connect(h.browser.ws_endpoint()).await.unwrap();
    let context = second.new_context().await.unwrap();
    let steps: Vec<browserflow_steps::Step> = serde_json::from_value(json!([
        { "type": "navigate", "url": h.url("/orders.html") },
        { "type": "assert", "title": "Your orders" }
    ]))
    .unwrap();
    browserflow_replay::Replayer::default()
        .run(&context, &steps, &Default::default())
        .await
        .unwrap();
    context.close().await.unwrap();
    // Closing a connected browser only disconnects: the launched one still works.
    second.close().await.unwrap();
    assert!(h.browser.version().await.is_ok());

    // The HTTP debugging address works too: the websocket is looked up in /json/version.
    let ws = h.browser.ws_endpoint();
    let http = format!("http://{}", ws["ws://".len()..].split('/').next().unwrap());
    let third = Browser::connect(&http).await.unwrap();
    assert_eq!(third.ws_endpoint(), ws);
    assert!(third.version().await.is_ok());
    third.close().await.unwrap();
    let wrong = Browser::connect("http://127.0.0.1:9/").await.err().unwrap();
    assert!(
        wrong
            .to_string()
            .contains("http://127.0.0.1:9: GET /json/version"),
        "{wrong}"
    );
    h.close().await;
}

//! std/http against real servers on 127.0.0.1.

use std::sync::Arc;
use std::time::Duration;

use browserflow_rider::{ErrorClass, MapSecrets, Redactor, SecretsCap, Tool, ToolCtx};
use browserflow_std::http;
use serde_json::json;

use crate::support::{Reply, Server, net, net_ctx};

#[tokio::test]
async fn get_reads_json_and_text() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/json" => Reply::json(200, json!({"price": 19.5})),
        _ => Reply::text(200, "plain words"),
    })
    .await;
    let tool = http::http_get().unwrap();
    let out = tool
        .run(
            json!({"url": server.url("/json"), "headers": {"X-Trace": "abc"}}),
            net_ctx(),
        )
        .await
        .unwrap();
    assert_eq!(out["status"], json!(200));
    assert_eq!(out["body"], json!({"price": 19.5}));
    assert_eq!(out["headers"]["content-type"], json!("application/json"));
    let out = tool
        .run(json!({"url": server.url("/text")}), net_ctx())
        .await
        .unwrap();
    assert_eq!(out["body"], json!("plain words"));
    let out = tool
        .run(
            json!({"url": server.url("/json"), "expect": "text"}),
            net_ctx(),
        )
        .await
        .unwrap();
    assert_eq!(out["body"], json!("{\"price\":19.5}"));
    let seen = server.requests();
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].header("x-trace"), Some("abc"));
    assert_eq!(
        seen[0].header("idempotency-key"),
        None,
        "GET sends no idempotency key"
    );
}

#[tokio::test]
async fn post_sends_text_and_request_sends_json() {
    let server =
        Server::start(|seen| Reply::json(201, json!({"got": String::from_utf8_lossy(&seen.body)})))
            .await;
    let post = http::http_post().unwrap();
    let out = post
        .run(
            json!({"url": server.url("/b"), "body": "hello", "headers": {}}),
            net_ctx(),
        )
        .await
        .unwrap();
    // The pinned contract: `{status, body}` with the body as text.
    assert_eq!(out, json!({"status": 201, "body": "{\"got\":\"hello\"}"}));
    post.run(
        json!({"url": server.url("/b2"), "body": "a,b", "headers": {"Content-Type": "text/csv"}}),
        net_ctx(),
    )
    .await
    .unwrap();
    let err = post
        .run(
            json!({"url": server.url("/b3"), "body": {"x": 1}, "headers": {}}),
            net_ctx(),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("slot `body`"), "{err}");
    let request = http::http_request().unwrap();
    let out = request
        .run(
            json!({"method": "POST", "url": server.url("/a"), "body": {"x": [1, 2]}}),
            net_ctx(),
        )
        .await
        .unwrap();
    assert_eq!(out["status"], json!(201));
    assert_eq!(out["body"]["got"], json!("{\"x\":[1,2]}"));
    let out = request.run(json!({"method": "PUT", "url": server.url("/c"), "body": "x", "content_type": "text/csv"}), net_ctx()).await.unwrap();
    assert_eq!(out["status"], json!(201));
    let seen = server.requests();
    assert_eq!(
        seen[0].header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(seen[0].body, b"hello");
    assert!(seen[0].header("idempotency-key").is_some());
    let types: Vec<&str> = seen[1]
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(types, vec!["text/csv"], "one Content-Type");
    assert_eq!(seen[2].header("content-type"), Some("application/json"));
    assert_eq!(
        (seen[3].method.as_str(), seen[3].header("content-type")),
        ("PUT", Some("text/csv"))
    );
    let err = request
        .run(
            json!({"method": "GET", "url": server.url("/d"), "body": "x"}),
            net_ctx(),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("no body"), "{err}");
}

#[tokio::test]
async fn status_4xx_is_terminal_and_5xx_transient() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/404" => Reply::text(404, "not here"),
        "/429" => Reply::text(429, ""),
        _ => Reply::text(503, "busy"),
    })
    .await;
    let tool = http::http_get().unwrap();
    let err = tool
        .run(json!({"url": server.url("/404")}), net_ctx())
        .await
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Terminal);
    assert!(
        err.message.contains("HTTP 404") && err.message.contains("not here"),
        "{err}"
    );
    let err = tool
        .run(json!({"url": server.url("/503")}), net_ctx())
        .await
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Transient);
    assert!(err.message.contains("HTTP 503"), "{err}");
    let err = tool
        .run(json!({"url": server.url("/429")}), net_ctx())
        .await
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Transient);
}

#[tokio::test]
async fn a_slow_server_times_out_as_transient() {
    let server = Server::start(|_| Reply {
        delay: Duration::from_secs(5),
        ..Reply::text(200, "late")
    })
    .await;
    let tool = http::http_get().unwrap();
    let started = std::time::Instant::now();
    let err = tool
        .run(
            json!({"url": server.url("/slow"), "timeout_ms": 300}),
            net_ctx(),
        )
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(err.class, ErrorClass::Transient);
    assert!(err.message.contains("timed out"), "{err}");
}

#[tokio::test]
async fn the_response_size_is_capped() {
    let server = Server::start(|_| Reply::text(200, &"x".repeat(10_000))).await;
    let tool = http::http_get().unwrap();
    let err = tool
        .run(
            json!({"url": server.url("/big"), "max_bytes": 1000}),
            net_ctx(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Terminal);
    assert!(err.message.contains("1000 bytes"), "{err}");
    let ok = tool
        .run(
            json!({"url": server.url("/big"), "max_bytes": 10_000}),
            net_ctx(),
        )
        .await
        .unwrap();
    assert_eq!(ok["body"].as_str().map(str::len), Some(10_000));
}

#[tokio::test]
async fn without_net_the_call_fails_clearly() {
    let tool = http::http_get().unwrap();
    let err = tool
        .run(
            json!({"url": "http://127.0.0.1:9/"}),
            ToolCtx::builder("r", "s").build(),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("`net`"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn secret_header_and_url_are_resolved_late_and_never_written() {
    const TOKEN: &str = "tok-7Hq2ZpX9wLm3";
    const PATH_SECRET: &str = "k3y-Zz81Qa";
    let server = Server::start(|seen| match seen.path.as_str() {
        p if p.ends_with("/fail") => Reply::text(500, "boom"),
        _ => Reply::json(200, json!({"auth": seen.header("authorization")})),
    })
    .await;
    let logs = crate::support::captured_logs();

    let redactor = Redactor::new();
    let ctx = || {
        ToolCtx::builder_with("run-s", "step-s", redactor.clone())
            .net(net())
            .secrets(SecretsCap::new(
                Arc::new(
                    MapSecrets::new()
                        .with("API_TOKEN", TOKEN)
                        .with("HOOK", &server.url(&format!("/h/{PATH_SECRET}"))),
                ),
                redactor.clone(),
                None,
            ))
            .build()
    };
    let tool = http::http_request().unwrap();
    let out = tool
        .run(
            json!({"method": "POST", "url": {"secret_template": "{secret.HOOK}"}, "authorization": {"secret_template": "Bearer {secret.API_TOKEN}"}, "body": {"a": 1}}),
            ctx(),
        )
        .await
        .unwrap();
    // The server got the real values...
    assert_eq!(out["body"]["auth"], json!(format!("Bearer {TOKEN}")));
    assert_eq!(server.requests()[0].path, format!("/h/{PATH_SECRET}"));
    // ...and a failure message names only placeholders.
    let err = tool
        .run(
            json!({"method": "GET", "url": {"secret_template": "{secret.HOOK}/fail"}, "authorization": {"secret_template": "Bearer {secret.API_TOKEN}"}}),
            ctx(),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("{secret.HOOK}"), "{err}");
    assert!(
        !err.message.contains(PATH_SECRET) && !err.message.contains(TOKEN),
        "{err}"
    );
    // A connection failure (the URL's port is closed) does not leak it either.
    let closed = MapSecrets::new().with("HOOK", &format!("http://127.0.0.1:9/x/{PATH_SECRET}"));
    let closed_ctx = ToolCtx::builder_with("run-s", "step-s", redactor.clone())
        .net(net())
        .secrets(SecretsCap::new(Arc::new(closed), redactor.clone(), None))
        .build();
    let err = tool
        .run(
            json!({"method": "GET", "url": {"secret_template": "{secret.HOOK}"}}),
            closed_ctx,
        )
        .await
        .unwrap_err();
    assert!(!err.message.contains(PATH_SECRET), "{err}");
    // Without `secrets`, a secret-bearing slot is refused before anything is sent.
    let before = server.requests().len();
    let err = tool
        .run(
            json!({"method": "GET", "url": {"secret_template": "{secret.HOOK}"}}),
            net_ctx(),
        )
        .await
        .unwrap_err();
    assert!(err.message.contains("`secrets`"), "{err}");
    assert_eq!(server.requests().len(), before);
    // A token body through `std/http.post`: resolved for the server, absent from its output.
    let post = http::http_post().unwrap();
    let out = post
        .run(json!({"url": {"secret_template": "{secret.HOOK}"}, "body": {"secret_template": "token={secret.API_TOKEN}"}, "headers": {}}), ctx())
        .await
        .unwrap();
    assert_eq!(out["status"], json!(200));
    assert_eq!(
        String::from_utf8_lossy(&server.requests().last().unwrap().body),
        format!("token={TOKEN}")
    );
    let text = logs.text();
    assert!(
        text.contains("{secret.HOOK}"),
        "the log names the placeholder: {text}"
    );
    assert!(
        !text.contains(TOKEN) && !text.contains(PATH_SECRET),
        "the log leaks: {text}"
    );
}

//! A recorded tool lists the origins its journey went to, the start of a redirect included,
//! and replays through the Rider (which holds it to them).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use browserflow_record::Recorder;
use browserflow_steps::{Origins, Step};

use crate::record::driver::*;
use crate::support::Harness;

/// A site on 127.0.0.1 whose `/page.html` links to `{next}/to-next`, and whose `/to-next`
/// redirects (302) to `{next}/page.html`.
fn site(next: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let next = next.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut writer = stream;
                loop {
                    let mut request = String::new();
                    if reader.read_line(&mut request).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut line = String::new();
                    while reader.read_line(&mut line).unwrap_or(0) > 0 && !line.trim().is_empty() {
                        line.clear();
                    }
                    let response = if request.contains(" /to-next ") {
                        format!(
                            "HTTP/1.1 302 Found\r\nLocation: {next}/page.html\r\nContent-Length: 0\r\n\r\n"
                        )
                    } else {
                        let body = format!(
                            r#"<!doctype html><title>Site</title><a id="next" href="{next}/to-next">next</a>"#
                        );
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        )
                    };
                    if writer.write_all(response.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    origin
}

#[tokio::test]
async fn a_recording_lists_the_origins_it_went_to_redirects_included() {
    let h = Harness::start().await;
    // start → (link) redirect on `hop` → `end`: `hop` is only ever the start of a redirect.
    let end = site("http://127.0.0.1:1".into());
    let hop = site(end.clone());
    let start = site(hop.clone());
    let recorder = Recorder::start_on(&h.browser, &options(format!("{start}/page.html")))
        .await
        .expect("recording starts");
    let d = Driver::new(recorder.page());
    d.click("document.getElementById('next')").await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::Click(c) if c.navigation.is_some())
            ))
            .await,
        "the click is recorded with its navigation: {:#?}",
        recorder.steps()
    );
    let draft = recorder.stop().await.unwrap();
    let file = draft.into_tool_file("hops", "1.0.0", None).unwrap();
    let mut expected = vec![start.clone(), hop.clone(), end.clone()];
    expected.sort();
    assert_eq!(file.origins, Some(Origins::only(expected)));
    let dir = tempfile::tempdir().unwrap();
    let loaded = save_and_load(&file, dir.path());
    assert_eq!(loaded.origins, file.origins);

    // Replayed with its own origins it goes through; without the redirect's start it is
    // refused (the replayer holds a tool to its file's origins).
    let context = h.browser.new_context().await.unwrap();
    let replay = |origins: Origins| {
        browserflow_replay::Replayer::new(browserflow_replay::ReplayOptions {
            origins: Some(origins),
            ..Default::default()
        })
    };
    replay(loaded.allowed_origins())
        .run(&context, &loaded.steps, &Default::default())
        .await
        .unwrap_or_else(|e| panic!("replays on its own origins: {e}"));
    let error = replay(Origins::only([start.clone(), end.clone()]))
        .run(&context, &loaded.steps, &Default::default())
        .await
        .unwrap_err();
    assert_eq!(
        error.failure_kind(),
        browserflow_replay::FailureKind::NavigationBlocked(
            browserflow_replay::Blocked::OriginNotAllowed
        ),
        "{error}"
    );
    assert!(error.to_string().contains(&hop), "{error}");
    context.close().await.unwrap();
    h.close().await;
}

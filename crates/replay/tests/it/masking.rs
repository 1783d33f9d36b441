//! Screenshots of a replay with secrets: what shows a secret is masked in every frame, the
//! out-of-process iframe included, and the page is left as it was. Read by OCR (Debian's
//! `tesseract-ocr`, installed by `scripts/install-deps`), against a control replay without
//! secrets that the OCR does read.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use browserflow_replay::{ReplayOptions, ReplayReport, ReplaySecrets};
use browserflow_rider::Redactor;
use browserflow_rider::secrecy::SecretString;
use serde_json::json;

use crate::support::Harness;

const SECRET: &str = "Zq7Wombat Secret";

/// Types the secret into the out-of-process partner frame, whose page then echoes it.
fn steps() -> serde_json::Value {
    json!([
        { "type": "navigate", "url": "{{shop}}/frames.html" },
        { "type": "fill", "value": "{{email}}", "selector": {
            "frame": { "url": "*/partner.html" },
            "candidates": [{ "kind": "placeholder", "value": "Your email" }] } },
        { "type": "click", "selector": { "frame": { "url": "*/partner.html" },
            "candidates": [{ "kind": "role", "value": "button", "name": "Join" }] } },
        { "type": "assert", "text_contains": "Joined as", "selector": {
            "frame": { "name": "partner" },
            "candidates": [{ "kind": "test_id", "value": "partner-status" }] } }
    ])
}

/// What tesseract reads in each step's screenshot, lower-cased.
fn ocr_each(report: &ReplayReport, tag: &str) -> Vec<String> {
    report
        .steps
        .iter()
        .map(|step| {
            let png = step
                .screenshot
                .as_ref()
                .expect("every step has a screenshot");
            let path: PathBuf = std::env::temp_dir().join(format!(
                "browserflow-masking-{}-{tag}-{}.png",
                std::process::id(),
                step.index
            ));
            std::fs::write(&path, png).unwrap();
            let out = Command::new("tesseract")
                .arg(&path)
                .arg("stdout")
                .stderr(Stdio::null())
                .output()
                .expect("tesseract runs (scripts/install-deps installs tesseract-ocr)");
            let _ = std::fs::remove_file(&path);
            String::from_utf8_lossy(&out.stdout).to_lowercase()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_is_masked_in_every_frame_and_the_page_is_left_as_it_was() {
    let h = Harness::start().await;
    let inputs = json!({ "email": SECRET });

    let control = h
        .replay_with(
            steps(),
            inputs.clone(),
            ReplayOptions {
                screenshots: true,
                ..ReplayOptions::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let read = ocr_each(&control, "control");
    assert!(
        read.iter().any(|t| t.contains("zq7wombat")),
        "the OCR reads the secret when nothing masks it: {read:?}"
    );

    let redactor = Redactor::new();
    let secret = SecretString::from(SECRET.to_owned());
    redactor.register(&secret);
    let masked = h
        .replay_with(
            steps(),
            inputs,
            ReplayOptions {
                screenshots: true,
                secrets: ReplaySecrets::new(redactor, vec![secret]),
                ..ReplayOptions::default()
            },
        )
        .await
        // The assert after the masked screenshots passes: the masks were taken away.
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "replay with screenshots: {:.0} ms without secrets, {:.0} ms with every capture masked \
         ({} steps)",
        control.duration_ms,
        masked.duration_ms,
        masked.steps.len()
    );
    for step in &masked.steps {
        assert_eq!(step.screenshot_withheld, None, "{step:?}");
    }
    let read = ocr_each(&masked, "masked");
    for (index, text) in read.iter().enumerate() {
        assert!(
            !text.contains("zq7wombat") && !text.contains("wombat"),
            "step {} shows the secret: {text}",
            index + 1
        );
        assert!(text.contains("partner"), "the OCR reads the page: {text}");
    }
    h.close().await;
}

/// A page that draws what is typed into its field on a `<canvas>` (a signature preview) and
/// into an image made from it: no text of the page shows the secret, its pixels do.
fn canvas_site() -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    line.clear();
                }
                let body = r#"<!doctype html><title>Signature</title>
<h1>Signature preview</h1>
<input id="name" placeholder="Your name" style="font-size: 20px">
<p><canvas id="c" width="700" height="90" style="border: 1px solid #888"></canvas></p>
<p><img id="copy" width="700" height="90" alt=""></p>
<script>
  const name = document.getElementById('name');
  name.addEventListener('input', () => {
    const c = document.getElementById('c'), g = c.getContext('2d');
    g.fillStyle = '#fff'; g.fillRect(0, 0, c.width, c.height);
    g.fillStyle = '#000'; g.font = '48px sans-serif'; g.fillText(name.value, 10, 60);
    document.getElementById('copy').src = c.toDataURL();
    // Nothing but the pixels keeps it: the field is cleared once drawn.
    name.value = '';
  });
</script>"#;
                let _ = (&stream).write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                );
            });
        }
    });
    origin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_a_secret_was_typed_canvases_and_page_made_images_are_masked() {
    let h = Harness::start().await;
    let origin = canvas_site();
    let steps = json!([
        { "type": "navigate", "url": format!("{origin}/") },
        { "type": "fill", "value": "{{name}}", "selector": {
            "candidates": [{ "kind": "css", "value": "#name" }] } }
    ]);
    let inputs = json!({ "name": SECRET });
    let control = h
        .replay_with(
            steps.clone(),
            inputs.clone(),
            ReplayOptions {
                screenshots: true,
                ..ReplayOptions::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let read = ocr_each(&control, "canvas-control");
    assert!(
        read[1].contains("wombat"),
        "the OCR reads the canvas when nothing masks it: {read:?}"
    );
    let redactor = Redactor::new();
    let secret = SecretString::from(SECRET.to_owned());
    redactor.register(&secret);
    let masked = h
        .replay_with(
            steps,
            inputs,
            ReplayOptions {
                screenshots: true,
                secrets: ReplaySecrets::new(redactor, vec![secret]),
                ..ReplayOptions::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let read = ocr_each(&masked, "canvas-masked");
    assert!(
        !read[1].contains("wombat") && !read[1].contains("zq7"),
        "the canvas and its copy are masked: {}",
        read[1]
    );
    assert!(
        read[1].contains("signature"),
        "the page is read: {}",
        read[1]
    );
    // Before the secret was typed, nothing but text is masked: the first screenshot has it all.
    assert_eq!(masked.steps[0].screenshot_withheld, None);
    h.close().await;
}

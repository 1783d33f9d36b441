//! Nothing about a run reaches the disk through Chromium: its profile is in memory, holds no
//! URL, title or form value of a replay (pages live in off-the-record contexts) while the run
//! lasts, and is gone once the browser ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::{ReplayOptions, Replayer, StepObserver};
use browserflow_shop::FixtureServer;
use browserflow_steps::Step;
use serde_json::{Map, Value, json};

/// A form that submits by GET, and a button that shows up only 4 s after a page loads: the
/// replay waits for it, which is when the profile is scanned.
const PAGE: &str = r#"<!doctype html><title>Canary page</title>
<form action="canary.html"><label>Query <input id="q" name="q"></label></form>
<script>
  setTimeout(() => {
    const b = document.createElement('button');
    b.id = 'later';
    b.textContent = 'Later';
    document.body.append(b);
  }, 4000);
</script>"#;

/// `text` percent-encoded the way `encodeURIComponent` does it, with `+` for a space when
/// `form` (as browsers encode GET form fields), in upper- or lowercase hex.
fn percent_encoded(text: &str, form: bool, upper: bool) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'!' | b'~' => {
                out.push(byte as char)
            }
            b' ' if form => out.push('+'),
            _ if upper => out.push_str(&format!("%{byte:02X}")),
            _ => out.push_str(&format!("%{byte:02x}")),
        }
    }
    out
}

/// Every form the canary is looked for in: raw, percent- and form-encoded (both hex cases),
/// and its unique token alone in UTF-8 and UTF-16 (titles and session entries are UTF-16).
fn forms(canary: &str, token: &str) -> BTreeMap<&'static str, Vec<u8>> {
    let utf16: Vec<u8> = token.encode_utf16().flat_map(u16::to_le_bytes).collect();
    BTreeMap::from([
        ("raw", canary.as_bytes().to_vec()),
        ("percent", percent_encoded(canary, false, true).into_bytes()),
        (
            "percent-lower",
            percent_encoded(canary, false, false).into_bytes(),
        ),
        ("form", percent_encoded(canary, true, true).into_bytes()),
        (
            "form-lower",
            percent_encoded(canary, true, false).into_bytes(),
        ),
        ("token", token.as_bytes().to_vec()),
        ("token-utf16", utf16),
    ])
}

/// Larger files are build artefacts of the machine's other work, never Chromium's.
const MAX_SCANNED: u64 = 16 << 20;

/// Files under `root` changed since `since` that contain one of `forms`, as `path (form)`.
/// (Older files cannot hold anything of this run; /tmp is shared and large.)
fn hits(root: &Path, since: SystemTime, forms: &BTreeMap<&str, Vec<u8>>) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            let path = entry.path();
            if meta.is_dir() {
                pending.push(path);
            } else if meta.is_file()
                && meta.len() <= MAX_SCANNED
                && meta.modified().is_ok_and(|m| m >= since)
                && let Ok(bytes) = std::fs::read(&path)
            {
                for (name, form) in forms {
                    if bytes.windows(form.len()).any(|w| w == form.as_slice()) {
                        found.push(format!("{} ({name})", path.display()));
                    }
                }
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_profile_keeps_nothing_of_a_run_and_is_gone_after_it() {
    let started = SystemTime::now() - Duration::from_secs(1);
    let token = format!(
        "k{}q{}",
        std::process::id(),
        started
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let canary = format!("Ca Na/Ry+x&y=1é{token}");
    let forms = forms(&canary, &token);
    let server = FixtureServer::serve_files(BTreeMap::from([(
        "canary.html".to_string(),
        PAGE.as_bytes().to_vec(),
    )]))
    .unwrap();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let profile: PathBuf = browser.profile_dir().unwrap().to_path_buf();
    assert!(
        profile.starts_with("/dev/shm"),
        "the profile is in memory: {}",
        profile.display()
    );
    let steps: Vec<Step> = serde_json::from_value(json!([
        { "type": "navigate", "url": format!("{}?u={}", server.url("/canary.html"), percent_encoded(&canary, false, true)) },
        { "type": "fill", "value": "{{canary}}", "selector": { "candidates": [{ "kind": "css", "value": "#q" }] } },
        { "type": "key_press", "key": "Enter", "navigation": { "url": "*canary.html?q=*" } },
        { "type": "click", "selector": { "candidates": [{ "kind": "css", "value": "#later" }] } },
    ]))
    .unwrap();
    let inputs: Map<String, Value> = json!({ "canary": canary }).as_object().cloned().unwrap();
    let (submitted_tx, submitted) = tokio::sync::oneshot::channel();
    let submitted_tx = std::sync::Mutex::new(Some(submitted_tx));
    let options = ReplayOptions {
        candidate_timeout: Duration::from_secs(10),
        on_step: Some(StepObserver::new(move |progress| {
            if progress.report.kind == "key_press"
                && let Some(tx) = submitted_tx.lock().unwrap().take()
            {
                let _ = tx.send(progress.report.navigated_to);
            }
        })),
        ..ReplayOptions::default()
    };
    let context = browser.new_context().await.unwrap();
    let replay = Replayer::new(options);
    let run = replay.run(&context, &steps, &inputs);
    let scan_mid_run = async {
        let navigated_to = submitted.await.unwrap().unwrap();
        assert!(
            navigated_to.contains(&percent_encoded(&canary, true, true)),
            "the form sent the canary form-encoded: {navigated_to}"
        );
        // Chromium writes its session a few seconds after a navigation: scan after that,
        // while the replay still waits for the late button.
        tokio::time::sleep(Duration::from_millis(2800)).await;
        let found = [
            hits(&profile, started, &forms),
            hits(Path::new("/tmp"), started, &forms),
        ];
        (found.concat(), std::fs::read_dir(&profile).is_ok())
    };
    let (report, (found_mid_run, profile_there)) = tokio::join!(run, scan_mid_run);
    let report = report.unwrap();
    assert_eq!(report.steps.len(), 4);
    assert!(profile_there, "the profile existed while the run lasted");
    assert!(
        found_mid_run.is_empty(),
        "the canary was on disk while the run lasted: {found_mid_run:#?}"
    );

    context.close().await.unwrap();
    browser.close().await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while profile.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !profile.exists(),
        "the profile is gone once the browser ends"
    );
    let found_after = hits(Path::new("/tmp"), started, &forms);
    assert!(
        found_after.is_empty(),
        "the canary was on disk after the run: {found_after:#?}"
    );
}

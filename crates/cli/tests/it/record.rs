//! `bflow record`: a real `bflow` process records in a headless Chromium the test launched
//! (`--browser-ws`), driven by trusted CDP input; Enter on its stdin ends the recording.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use browserflow_cdp::session::CdpSession;
use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_replay::Replayer;
use browserflow_shop::FixtureServer;
use browserflow_steps::ToolFile;
use serde_json::{Value, json};

use crate::{bflow, stderr};

const WAIT: Duration = Duration::from_secs(20);

/// Attaches to the page target showing `url`, once it exists and has loaded.
async fn attach_to_page(browser: &Browser, url: &str) -> CdpSession {
    let context = browser.new_context().await.unwrap();
    let conn = context.page().session().connection().clone();
    let root = conn.session(None);
    let mut events = conn.subscribe(None);
    let deadline = tokio::time::Instant::now() + WAIT;
    let target = loop {
        let targets = root.call("Target.getTargets", json!({})).await.unwrap();
        let found = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page" && t["url"] == url)
            .map(|t| t["targetId"].as_str().unwrap().to_string());
        if let Some(id) = found {
            break id;
        }
        tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the recorded page appears");
    };
    let attached = root
        .call(
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        )
        .await
        .unwrap();
    let session = conn.session(Some(attached["sessionId"].as_str().unwrap().to_string()));
    wait_js(&session, "document.readyState === 'complete'").await;
    session
}

async fn wait_js(session: &CdpSession, condition: &str) {
    let expression = format!(
        "new Promise((resolve) => {{ const tick = () => ({condition}) ? resolve(true) : requestAnimationFrame(tick); tick(); }})"
    );
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let answer = tokio::time::timeout_at(
            deadline,
            session.call(
                "Runtime.evaluate",
                json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
            ),
        )
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {condition}"));
        if matches!(&answer, Ok(v) if v["result"]["value"] == true) {
            return;
        }
        tokio::task::yield_now().await;
    }
}

async fn click(session: &CdpSession, expr: &str) {
    let value = session
        .call(
            "Runtime.evaluate",
            json!({ "expression": format!("(() => {{ const r = {expr}.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"),
                    "returnByValue": true }),
        )
        .await
        .unwrap();
    let (x, y) = (
        value["result"]["value"][0].as_f64().unwrap(),
        value["result"]["value"][1].as_f64().unwrap(),
    );
    for kind in ["mousePressed", "mouseReleased"] {
        session
            .call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )
            .await
            .unwrap();
    }
}

/// Runs `bflow record` headless in `browser` on the shop's index with `extra` arguments, and
/// drives it as a person would: types "keyboard" into the search box, presses Enter, waits for
/// the results page, then presses Enter on the terminal to end the recording.
async fn record_the_search(
    browser: &Browser,
    start: &str,
    out: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "record".to_string(),
        start.to_string(),
        "--out".into(),
        out.to_string_lossy().into_owned(),
        "--headless".into(),
        "--browser-ws".into(),
        browser.ws_endpoint().to_string(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let page = attach_to_page(browser, start).await;
    click(&page, "document.getElementById('search-input')").await;
    page.call("Input.insertText", json!({ "text": "keyboard" }))
        .await
        .unwrap();
    for kind in ["keyDown", "keyUp"] {
        let _ = page
            .call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r" }),
            )
            .await;
    }
    wait_js(
        &page,
        "location.pathname === '/search.html' && document.readyState === 'complete'",
    )
    .await;
    // Enter on stdin ends the recording.
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn bflow_record_writes_a_tool_with_the_marked_input_and_output() {
    let shop = FixtureServer::shop().unwrap();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("search-heading@2.0.0.json");
    let start = shop.url("/index.html");
    let output = record_the_search(
        &browser,
        &start,
        &out,
        &[
            "--version",
            "2.0.0",
            "--input",
            "q=#search-input",
            "--extract",
            "heading=#results-heading:string",
        ],
    )
    .await;
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "search-heading@2.0.0"
    );
    assert!(
        err.contains("Press Enter"),
        "the steps are listed live: {err}"
    );
    // Once written, the steps as the file numbers them, what was typed, and where the
    // input's default came from.
    assert!(
        err.contains("(4 steps, ") && err.contains("  2. Fill") && err.contains("  4. "),
        "the written steps are listed as numbered in the file: {err}"
    );
    assert!(
        err.contains("input q defaults to \"keyboard\", the value given while recording"),
        "the recorded default is said: {err}"
    );
    // Listed live as the file numbers them, with what was typed: the click that became a
    // fill is listed again with its text, the key press keeps its number.
    let live = err.split("wrote ").next().unwrap();
    assert!(
        live.contains("  1. Open ")
            && live.contains("  2. Fill searchbox \"Search products\" with \"keyboard\"")
            && live.contains("  3. Press Enter"),
        "{live}"
    );
    assert!(
        !err.contains('`') && !err.contains("\\\""),
        "no markdown or escapes in what people read: {err}"
    );
    assert!(
        err.contains(&format!(
            "drive the browser over CDP at {}",
            browser.ws_endpoint()
        )),
        "a headless recording says where to drive it: {err}"
    );

    let file = ToolFile::load(&out).expect("a valid tool file");
    let kinds: Vec<&str> = file.steps.iter().map(|s| s.kind().name()).collect();
    assert_eq!(
        kinds,
        ["navigate", "fill", "key_press", "extract"],
        "{kinds:?}"
    );
    let q = file.contract.input("q").expect("the q input");
    assert_eq!(q.schema.default, Some(json!("keyboard")));
    let context = browser.new_context().await.unwrap();
    let inputs = json!({ "q": "mouse" }).as_object().cloned().unwrap();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .unwrap();
    assert_eq!(
        report.outputs["heading"],
        Value::from("Results for \"mouse\"")
    );
    context.close().await.unwrap();
    browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn marks_that_do_not_resolve_keep_the_recording_as_a_draft_naming_each_and_from_draft_finishes_it()
 {
    let shop = FixtureServer::shop().unwrap();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("search-heading@1.0.0.json");
    let start = shop.url("/index.html");
    // A typo in the field, and an element no page of the journey has.
    let output = record_the_search(
        &browser,
        &start,
        &out,
        &[
            "--input",
            "q=#serch-input",
            "--extract",
            "price=.pricetag:number",
        ],
    )
    .await;
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--input q=#serch-input"),
        "the input mark is named: {err}"
    );
    assert!(
        err.contains("--extract price=.pricetag: matched nothing"),
        "the output mark is named: {err}"
    );
    assert!(
        !out.exists(),
        "no tool is written with a mark that does not resolve"
    );
    let draft_file = dir.path().join("search-heading@1.0.0.draft.json");
    assert!(err.contains(&draft_file.display().to_string()), "{err}");
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&draft_file).unwrap()).unwrap();
    let kinds: Vec<&str> = kept["draft"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"]["type"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        kinds,
        ["navigate", "fill", "key_press"],
        "nothing recorded is lost: {kept:#}"
    );
    assert_eq!(kept["unresolved"].as_array().unwrap().len(), 2, "{kept:#}");
    assert!(
        kept["pages"][0]["html"]
            .as_str()
            .unwrap_or_default()
            .contains("results-heading"),
        "the page the recording ended on is kept with it: {kept:#}"
    );

    // The input fixed but the output still wrong: checked against the page the recording
    // ended on, it matches nothing, so no tool is written and the draft stays; the command
    // printed to finish it keeps the mark that resolved.
    let still_wrong = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args([
            "record",
            "--from-draft",
            &draft_file.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
            "--input",
            "q=#search-input",
            "--extract",
            "price=.pricetag:number",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&still_wrong.stderr);
    assert_eq!(still_wrong.status.code(), Some(1), "{said}");
    assert!(!out.exists(), "no tool with an output that matches nothing");
    assert!(draft_file.exists(), "the draft is kept");
    assert!(
        said.contains(
            "--extract price=.pricetag: matched nothing on the page the recording ended on"
        ),
        "{said}"
    );
    assert!(
        !said.contains("not checked") && !said.contains("unchecked") && !said.contains("warning"),
        "no warning contradicts the error: {said}"
    );
    let fix = said
        .lines()
        .find_map(|l| l.strip_prefix("fix the marks and make the tool from it: "))
        .unwrap_or_else(|| panic!("a fix command: {said}"));
    let words = shlex::split(fix).unwrap();
    assert_eq!(
        words[..4],
        [
            "bflow",
            "record",
            "--from-draft",
            &*draft_file.to_string_lossy()
        ],
        "{fix}"
    );
    assert!(
        words
            .windows(2)
            .any(|w| w == ["--input", "q=#search-input"])
            && words
                .windows(2)
                .any(|w| w == ["--extract", "price=SELECTOR"]),
        "prefilled with the mark that resolved, a placeholder for the one that did not: {fix}"
    );

    // A folder where the tool file should go: said in words, naming it, with no OS code.
    let folder = dir.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    let into_folder = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args([
            "record",
            "--from-draft",
            &draft_file.to_string_lossy(),
            "--force",
            "--out",
        ])
        .arg(&folder)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&into_folder.stderr);
    assert!(!into_folder.status.success());
    assert!(
        said.contains(&format!(
            "cannot write {}: is a folder, not a file",
            folder.display()
        )) && !said.contains("os error"),
        "{said}"
    );

    // The marks fixed, the draft becomes the tool, without recording again.
    let finished = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args([
            "record",
            "--from-draft",
            &draft_file.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
            "--input",
            "q=#search-input",
            "--extract",
            "heading=#results-heading",
        ])
        .output()
        .unwrap();
    assert!(
        finished.status.success(),
        "{}",
        String::from_utf8_lossy(&finished.stderr)
    );
    let file = ToolFile::load(&out).expect("a valid tool file");

    // The tool file exists now: making it again is refused, and the file kept, unless
    // `--force` says to replace it (the app's rule too: `catalog::save`).
    let again = |force: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bflow"));
        command.args([
            "record",
            "--from-draft",
            &draft_file.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
            "--name",
            "replaced",
            "--input",
            "q=#search-input",
            "--extract",
            "heading=#results-heading",
        ]);
        if force {
            command.arg("--force");
        }
        command.output().unwrap()
    };
    let before = std::fs::read(&out).unwrap();
    let refused = again(false);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("exists") && said.contains("--force"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "the tool file is kept"
    );
    let replaced = again(true);
    assert!(
        replaced.status.success(),
        "{}",
        String::from_utf8_lossy(&replaced.stderr)
    );
    let replaced_file = ToolFile::load(&out).expect("a valid tool file");
    assert_eq!(replaced_file.contract.name(), "replaced");

    let context = browser.new_context().await.unwrap();
    let inputs = json!({ "q": "mouse" }).as_object().cloned().unwrap();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .unwrap();
    assert_eq!(
        report.outputs["heading"],
        Value::from("Results for \"mouse\"")
    );
    context.close().await.unwrap();
    browser.close().await.unwrap();
}

#[test]
fn bflow_record_rejects_malformed_marks_before_opening_a_browser() {
    let out = bflow(&[
        "record",
        "http://127.0.0.1:9/",
        "--out",
        "/nonexistent/x.json",
        "--input",
        "no-equals-sign",
    ]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("--input no-equals-sign: expected NAME=SELECTOR"),
        "{err}"
    );
    let out = bflow(&[
        "record",
        "http://127.0.0.1:9/",
        "--out",
        "x.json",
        "--viewport",
        "wide",
    ]);
    assert!(
        stderr(&out).contains("the viewport wide is not WIDTHxHEIGHT, for example 1280x800"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bflow_record_checks_the_url_and_the_display_before_opening_a_browser() {
    let bad_url = bflow(&[
        "record",
        "http://exa mple.com",
        "--out",
        "x.json",
        "--headless",
    ]);
    assert_eq!(bad_url.status.code(), Some(1));
    assert!(
        stderr(&bad_url).contains("is not a web address"),
        "{}",
        stderr(&bad_url)
    );
    let file_url = bflow(&[
        "record",
        "file:///etc/hostname",
        "--out",
        "x.json",
        "--headless",
    ]);
    assert!(
        stderr(&file_url).contains("http:// or https://"),
        "{}",
        stderr(&file_url)
    );

    let no_display = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(["record", "127.0.0.1:9/index.html", "--out", "x.json"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(no_display.status.code(), Some(1));
    let err = stderr(&no_display);
    assert!(
        err.contains("no display") && err.contains("--headless"),
        "{err}"
    );
    assert_eq!(
        err.lines().count(),
        1,
        "said once, no browser output: {err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bflow_record_answers_a_chooser_with_upload_and_ctrl_c_keeps_the_recording_in_the_drafts_folder()
 {
    let shop = FixtureServer::shop().unwrap();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let picture = dir.path().join("cat.png");
    std::fs::write(&picture, [7u8; 11]).unwrap();
    let out = dir.path().join("pictures.json");
    let data = dir.path().join("app-data");
    let start = shop.url("/files.html");
    // The app's own unsaved recording is there already: Ctrl-C must not replace it.
    let drafts = data.join("drafts");
    std::fs::create_dir_all(&drafts).unwrap();
    std::fs::write(drafts.join("unsaved.json"), "the app's").unwrap();
    let sigint = |child: &std::process::Child| {
        let status = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    let child = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .env("BROWSERFLOW_APP_DATA", &data)
        .args([
            "record",
            &start,
            "--out",
            &out.to_string_lossy(),
            "--headless",
            "--browser-ws",
            browser.ws_endpoint(),
            "--upload",
            &picture.to_string_lossy(),
            "--extract",
            "chosen=[data-testid=chosen-files]",
        ])
        // No Enter: stdin stays open and empty, Ctrl-C ends the recording.
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    let page = attach_to_page(&browser, &start).await;
    click(
        &page,
        "document.querySelector('[data-testid=choose-pictures]')",
    )
    .await;
    wait_js(
        &page,
        "document.querySelector('[data-testid=chosen-files]').textContent === 'cat.png (11 bytes)'",
    )
    .await;
    // The upload step is listed once the chooser was answered; then Ctrl-C.
    tokio::time::sleep(Duration::from_millis(500)).await;
    sigint(&child);
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("Upload cat.png"), "{err}");
    assert!(!out.exists(), "Ctrl-C stops, it does not finish: {err}");
    assert_eq!(
        std::fs::read_to_string(drafts.join("unsaved.json")).unwrap(),
        "the app's",
        "the app's unsaved recording is left alone"
    );
    let kept: Vec<_> = std::fs::read_dir(&drafts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("unsaved.json"))
        .collect();
    assert_eq!(kept.len(), 1, "one recording kept beside it: {kept:?}");
    let kept_file = &kept[0];
    assert!(
        err.contains(&format!(
            "stopped by Ctrl-C: no tool written; the recording (2 steps) is kept in {}",
            kept_file.display()
        )),
        "{err}"
    );
    let resume = err
        .lines()
        .find_map(|l| l.strip_prefix("make the tool from it: "))
        .unwrap_or_else(|| panic!("how to resume it: {err}"));
    let words = shlex::split(resume).unwrap();
    assert_eq!(
        words[..4],
        [
            "bflow",
            "record",
            "--from-draft",
            &*kept_file.to_string_lossy()
        ],
        "{resume}"
    );
    assert!(
        words
            .windows(2)
            .any(|w| w == ["--extract", "chosen=[data-testid=chosen-files]"]),
        "the marks given are given again: {resume}"
    );

    // The printed command makes the tool from the kept recording, its output checked in the
    // page the recording ended on.
    let finished = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(&words[1..])
        .output()
        .unwrap();
    assert!(
        finished.status.success(),
        "{}",
        String::from_utf8_lossy(&finished.stderr)
    );
    let file = ToolFile::load(&out).expect("a valid tool file");
    let kinds: Vec<&str> = file.steps.iter().map(|s| s.kind().name()).collect();
    assert_eq!(kinds, ["navigate", "upload", "extract"], "{kinds:?}");
    let context = browser.new_context().await.unwrap();
    let report = Replayer::default()
        .run(&context, &file.steps, &serde_json::Map::new())
        .await
        .unwrap();
    assert_eq!(report.outputs["chosen"], Value::from("cat.png (11 bytes)"));
    context.close().await.unwrap();
    browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_dialogs_answer_becomes_an_input_said_with_its_default() {
    let shop = FixtureServer::shop().unwrap();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("greet@1.0.0.json");
    let start = shop.url("/index.html");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args([
            "record",
            &start,
            "--out",
            &out.to_string_lossy(),
            "--headless",
            "--browser-ws",
            browser.ws_endpoint(),
            "--input",
            "who=@prompt",
            "--extract",
            "greeting=#service-status",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let page = attach_to_page(&browser, &start).await;
    // A headless recording answers the prompt at once, as the page offered it.
    click(&page, "document.getElementById('ask-name')").await;
    wait_js(
        &page,
        "document.getElementById('service-status').textContent.startsWith('Hello, ')",
    )
    .await;
    let greeted: String = page
        .call(
            "Runtime.evaluate",
            json!({ "expression": "document.getElementById('service-status').textContent", "returnByValue": true }),
        )
        .await
        .unwrap()["result"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    let answer = greeted.strip_prefix("Hello, ").unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(300)).await;
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{err}");
    // The answer is shown, not hidden, and its becoming the input's default is said.
    assert!(
        err.contains(&format!("Accept the next prompt dialog with \"{answer}\"")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "input who defaults to \"{answer}\", the value given while recording"
        )),
        "{err}"
    );
    assert!(
        err.contains("Accept the next prompt dialog with the input who"),
        "the file's step names the input: {err}"
    );

    let file = ToolFile::load(&out).expect("a valid tool file");
    let who = file
        .contract
        .inputs()
        .iter()
        .find(|i| i.name == "who")
        .expect("an input who");
    assert_eq!(who.schema.default, Some(Value::from(answer.clone())));
    // Replayed with another answer, the page greets that one.
    let context = browser.new_context().await.unwrap();
    let inputs = json!({ "who": "Ada" }).as_object().cloned().unwrap();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await
        .unwrap();
    assert_eq!(report.outputs["greeting"], Value::from("Hello, Ada"));
    context.close().await.unwrap();
    browser.close().await.unwrap();
}

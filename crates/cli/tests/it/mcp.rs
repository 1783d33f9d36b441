//! `bflow mcp serve` through a real MCP client: the Python `mcp` SDK from PyPI (pinned, in
//! the venv `scripts/install-deps` makes at [`PYTHON`]) starts `bflow mcp serve` over stdio,
//! lists its tools and calls them against the fixture shop on 127.0.0.1, in a Chromium this
//! test launches so that it can count the pages left in it. The client (`mcp_client.py`)
//! reports what it saw as JSON; the assertions are here.

use std::path::{Path, PathBuf};
use std::process::Command;

use browserflow_contract::ToolContract;
use browserflow_shop::FixtureServer;
use serde_json::{Value, json};

use crate::canary::{CANARY, Scan, extract_heading, forbidden_forms, tool};
use crate::stderr;

/// The MCP client's Python (`mcp` 2.3.0 from PyPI; scripts/install-deps installs it).
const PYTHON: &str = "/opt/browserflow/mcp-venv/bin/python";

/// Runs the MCP client with `config` and returns its report.
fn client(config: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp_client.py");
    let out = Command::new(PYTHON)
        .arg(&script)
        .arg(config.to_string())
        .output()
        .expect("the MCP client's venv is there (scripts/install-deps makes it)");
    assert!(
        out.status.success(),
        "the MCP client failed: {}",
        stderr(&out)
    );
    serde_json::from_slice(&out.stdout).expect("the client's report is JSON")
}

/// The shipped search-price, pointed at `origin`, written into `dir`.
fn search_price_in(dir: &Path, origin: &str) -> PathBuf {
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings/search-price@1.2.0.json");
    let text = std::fs::read_to_string(shipped)
        .unwrap()
        .replace("http://127.0.0.1:4780", origin);
    let path = dir.join("search-price@1.2.0.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// A headless Chromium this test owns (its DevTools endpoint counts the pages), with the
/// runtime its connection lives on.
struct TestBrowser {
    browser: Option<browserflow_cdp::Browser>,
    runtime: tokio::runtime::Runtime,
}

impl TestBrowser {
    fn launch() -> TestBrowser {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let config = browserflow_cdp::BrowserConfig::default();
        let browser = runtime
            .block_on(browserflow_cdp::Browser::launch(&config))
            .expect("chromium launches");
        TestBrowser {
            browser: Some(browser),
            runtime,
        }
    }

    fn ws(&self) -> String {
        self.browser.as_ref().unwrap().ws_endpoint().to_owned()
    }

    /// `http://127.0.0.1:PORT`, from `ws://127.0.0.1:PORT/devtools/browser/…`.
    fn devtools(&self) -> String {
        let ws = self.ws();
        let host = ws
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .unwrap()
            .to_owned();
        format!("http://{host}")
    }
}

impl Drop for TestBrowser {
    fn drop(&mut self) {
        if let Some(browser) = self.browser.take() {
            let _ = self.runtime.block_on(browser.close());
        }
    }
}

fn data_home(dir: &Path) -> String {
    dir.join("data").to_string_lossy().into_owned()
}

#[test]
fn a_python_mcp_client_lists_calls_concurrently_and_cancels_search_price_over_stdio() {
    let shop = FixtureServer::shop().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    let file = search_price_in(&tools, &shop.origin());
    let contract = ToolContract::from_json(
        &serde_json::from_str::<Value>(&std::fs::read_to_string(&file).unwrap()).unwrap()
            ["contract"],
    )
    .unwrap();
    let browser = TestBrowser::launch();
    let report = client(&json!({
        "command": env!("CARGO_BIN_EXE_bflow"),
        "args": ["mcp", "serve", "--tools", tools, "--browser-ws", browser.ws(),
                 "--max-concurrency", "4"],
        "env": { "XDG_DATA_HOME": data_home(dir.path()), "BROWSERFLOW_LOG": "warn" },
        "devtools": browser.devtools(),
        "shop_origin": shop.origin(),
        "tool": "search_price_v1_2_0",
        "query": "keyboard",
        "missing_query": "no-such-product-anywhere",
        "concurrent": 8,
        "concurrent_queries": ["keyboard", "mouse", "desk", "espresso"],
        "cancel": true,
    }));

    // tools/list: one tool, its schemas the contract's.
    let listed = report["tools"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let listed = &listed[0];
    assert_eq!(listed["name"], "search_price_v1_2_0");
    assert_eq!(listed["description"], contract.description());
    assert_eq!(listed["inputSchema"], contract.input_schema().to_json());
    assert_eq!(listed["outputSchema"], contract.output().to_json());
    assert_eq!(listed["_meta"]["browserflow/ref"], "search-price@1.2.0");
    assert_eq!(listed["_meta"]["browserflow/version"], "1.2.0");
    assert_eq!(
        listed["_meta"]["browserflow/contract_digest"],
        contract.contract_digest().to_string()
    );

    // A call: structured content, validated by the client against the output schema too.
    let call = &report["call"];
    assert_ne!(call["isError"], true, "{call}");
    assert_eq!(
        call["structuredContent"],
        json!({ "name": "Mechanical Keyboard", "price": 89.99, "currency": "USD" })
    );
    assert!(
        call["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("89.99")
    );
    // The client asked for progress: one step, finished.
    assert_eq!(
        report["progress"],
        json!([{ "progress": 1.0, "total": 1.0, "message": "step `run` succeeded" }])
    );

    // Bad input: a tool error naming the slot; an unknown slot named too.
    let bad = &report["bad_input"];
    assert_eq!(bad["isError"], true, "{bad}");
    let text = bad["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("the input `query`"), "{text}");
    let unknown = report["unknown_input"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(report["unknown_input"]["isError"], true);
    assert!(unknown.contains("colour"), "{unknown}");

    // A replay that cannot find what it recorded: a tool error naming the step.
    let failed = &report["replay_failure"];
    assert_eq!(failed["isError"], true, "{failed}");
    let text = failed["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("Open the first result") || text.contains("step 4"),
        "the failing step is named: {text}"
    );

    // 8 calls at once, 4 at a time, each answering its own query.
    let expected = [
        ("Mechanical Keyboard", 89.99, "USD"),
        ("Wireless Mouse", 24.5, "USD"),
        ("Standing Desk", 1299.0, "USD"),
        ("Espresso Machine", 1299.0, "EUR"),
    ];
    let answers = report["concurrent"].as_array().unwrap();
    assert_eq!(answers.len(), 8);
    for (i, answer) in answers.iter().enumerate() {
        let (name, price, currency) = expected[i % 4];
        assert_ne!(answer["isError"], true, "call {i}: {answer}");
        assert_eq!(
            answer["structuredContent"],
            json!({ "name": name, "price": price, "currency": currency }),
            "call {i}"
        );
    }
    eprintln!(
        "8 concurrent calls in {:.2} s; one call alone {:.2} s",
        report["concurrent_seconds"].as_f64().unwrap_or_default(),
        report["call_seconds"].as_f64().unwrap_or_default()
    );

    // A cancelled call: its replay stopped, its page gone, the server still answering. The
    // calls' pages are counted on the shop's origin (a spare context's blank page may come
    // and go beside them).
    let cancel = &report["cancel"];
    assert_eq!(
        cancel["shop_pages_before"], 0,
        "the calls before left no page: {cancel}"
    );
    assert_ne!(cancel["never_started"], true, "{cancel}");
    assert_ne!(
        cancel["finished_first"], true,
        "the call was cancelled mid-replay: {cancel}"
    );
    assert_eq!(cancel["shop_pages_during"], 1, "{cancel}");
    assert_eq!(
        cancel["shop_pages_after"], 0,
        "no page left behind: {cancel}"
    );
    assert_eq!(cancel["shop_pages_at_end"], 0, "{cancel}");
    eprintln!(
        "cancelled: the call's page gone {:.2} s after the cancel",
        cancel["seconds_to_no_page"].as_f64().unwrap_or_default()
    );
    assert_ne!(cancel["next_call"]["isError"], true, "{cancel}");
}

#[test]
fn a_flow_with_a_secret_input_is_served_without_its_secret_and_no_byte_carries_it() {
    let shop = FixtureServer::shop().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    let mut echo = tool("canary-search", true, extract_heading());
    let text = serde_json::to_string_pretty(&echo)
        .unwrap()
        .replace("http://127.0.0.1:4780", &shop.origin());
    echo = serde_json::from_str(&text).unwrap();
    let echo_path = tools.join("canary-search@1.0.0.json");
    std::fs::write(&echo_path, serde_json::to_string_pretty(&echo).unwrap()).unwrap();
    let digest = ToolContract::from_json(&echo["contract"])
        .unwrap()
        .contract_digest()
        .to_string();
    let flow = json!({
        "name": "canary-flow", "version": "1.0.0",
        "description": "A secret query through a browser tool.",
        "inputs": [{ "name": "q", "schema": { "type": "string" }, "secret": true }],
        "requires": [{ "ref": "canary-search@1.0.0", "contract_digest": digest }],
        "steps": [{ "id": "search", "uses": "canary-search@1.0.0",
                    "with": { "query": { "from": "input.q" } } }],
        "output": { "from": "steps.search.output" }
    });
    std::fs::write(
        tools.join("canary.flow.json"),
        serde_json::to_string_pretty(&flow).unwrap(),
    )
    .unwrap();
    let journal = dir.path().join("journal.sqlite");
    let wire_in = dir.path().join("wire-in.jsonl");
    let wire_out = dir.path().join("wire-out.jsonl");
    let logs = dir.path().join("server-stderr.log");
    // Every byte the client sends and receives, kept by `tee` on both sides of the server.
    let server = format!(
        "tee {} | {} mcp serve --tools {} --journal {} --secret query=Q 2>{} | tee {}",
        wire_in.display(),
        env!("CARGO_BIN_EXE_bflow"),
        tools.display(),
        journal.display(),
        logs.display(),
        wire_out.display(),
    );
    let report = client(&json!({
        "command": "sh",
        "args": ["-c", server],
        "env": {
            "XDG_DATA_HOME": data_home(dir.path()),
            "BROWSERFLOW_SECRET_Q": CANARY,
            "BROWSERFLOW_LOG": "trace",
        },
        "calls": [
            ["canary_flow_v1_0_0", {}],
            ["canary_search_v1_0_0", {}],
            ["canary_search_v1_0_0", { "query": "a value" }],
        ],
    }));

    // Neither tool has its secret slot in its input schema; `_meta` names the binding.
    let listed = report["tools"].as_array().unwrap();
    let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["canary_flow_v1_0_0", "canary_search_v1_0_0"]);
    for tool in listed {
        assert!(
            tool["inputSchema"]["properties"]
                .as_object()
                .is_none_or(serde_json::Map::is_empty),
            "no secret slot: {tool}"
        );
    }
    assert_eq!(
        listed[0]["_meta"]["browserflow/secrets"],
        json!({ "q": "secret.Q" })
    );
    assert_eq!(
        listed[1]["_meta"]["browserflow/secrets"],
        json!({ "query": "secret.Q" })
    );

    // The flow and the tool run with the server's secret; the echo comes back redacted.
    let calls = report["calls"].as_array().unwrap();
    for call in &calls[..2] {
        assert_ne!(call["isError"], true, "{call}");
        assert_eq!(
            call["structuredContent"],
            json!({ "heading": "Results for \"[REDACTED]\"" })
        );
    }
    // A call cannot give a secret slot.
    assert_eq!(calls[2]["isError"], true);
    let text = calls[2]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("the input `query` is secret"), "{text}");

    // Every byte exchanged, every log line and every file written: no form of the canary.
    let forms = forbidden_forms();
    let mut scan = Scan::default();
    let logs_text = std::fs::read_to_string(&logs).unwrap();
    assert!(logs_text.contains("TRACE"), "trace logs were on");
    scan.bytes("the client's report", report.to_string().as_bytes(), &forms);
    let files = scan.tree(dir.path(), &forms);
    assert!(files.contains(&wire_in) && files.contains(&wire_out) && files.contains(&journal));
    assert!(
        scan.leaks.is_empty(),
        "the canary leaked:\n{}",
        scan.leaks.join("\n")
    );
    eprintln!("scanned for the canary: {}", scan.covered.join(", "));
}

#[test]
fn packs_are_verified_and_names_checked_before_anything_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let recordings = root.join("recordings");
    let pack = dir.path().join("shop-tools.bfpack");
    let pack_arg = pack.to_string_lossy().into_owned();
    let export = crate::bflow(&[
        "pack",
        "export",
        "--name",
        "shop-tools",
        "--version",
        "1.0.0",
        "--tools",
        &recordings.to_string_lossy(),
        "search-price@1.2.0",
        "-o",
        &pack_arg,
    ]);
    assert!(export.status.success(), "{}", stderr(&export));
    let key = dir.path().join("k");
    assert!(
        crate::bflow(&["pack", "keygen", &key.to_string_lossy()])
            .status
            .success()
    );
    let public = format!("{}.pub", key.display());
    let serve = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bflow"))
            .args(["mcp", "serve"])
            .args(args)
            .env("XDG_DATA_HOME", data_home(dir.path()))
            // Nothing on stdin: a server that starts ends at once.
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };

    // A good pack is served (until its client, here an empty stdin, goes away).
    let good = serve(&["--pack", &pack_arg]);
    assert!(
        stderr(&good).contains("serving 1 tool "),
        "{}",
        stderr(&good)
    );

    // Unsigned under --require-signature: refused, with the reason.
    let unsigned = serve(&["--pack", &pack_arg, "--require-signature", &public]);
    assert_eq!(unsigned.status.code(), Some(1));
    let said = stderr(&unsigned);
    assert!(
        said.contains("is refused") && said.contains("sign"),
        "{said}"
    );

    // One flipped byte: refused, with the reason.
    let mut bytes = std::fs::read(&pack).unwrap();
    bytes[1100] ^= 0x01;
    std::fs::write(&pack, bytes).unwrap();
    let tampered = serve(&["--pack", &pack_arg]);
    assert_eq!(tampered.status.code(), Some(1));
    let said = stderr(&tampered);
    assert!(said.contains("is refused"), "{said}");

    // Two refs on one MCP name: refused, naming both.
    let tools = dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    let shipped = std::fs::read_to_string(recordings.join("search-price@1.2.0.json")).unwrap();
    for name in ["a-b", "a.b"] {
        let mut file: Value = serde_json::from_str(&shipped).unwrap();
        file["contract"]["name"] = json!(name);
        file["contract"]["version"] = json!("1.0.0");
        std::fs::write(
            tools.join(format!("{name}@1.0.0.json")),
            serde_json::to_string_pretty(&file).unwrap(),
        )
        .unwrap();
    }
    let clash = serve(&["--tools", &tools.to_string_lossy()]);
    assert_eq!(clash.status.code(), Some(1));
    let said = stderr(&clash);
    assert!(
        said.contains("`a_b_v1_0_0`") && said.contains("a-b@1.0.0") && said.contains("a.b@1.0.0"),
        "{said}"
    );
}

#[test]
fn over_streamable_http_the_tools_answer_and_a_bearer_token_guards_them() {
    use std::io::{BufRead as _, Read as _, Write as _};

    let shop = FixtureServer::shop().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    search_price_in(&tools, &shop.origin());
    let tools_arg = tools.to_string_lossy().into_owned();

    // Anywhere but loopback, no token: refused at start.
    let open = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(["mcp", "serve", "--tools", &tools_arg, "--http", "0.0.0.0:0"])
        .env_remove("BROWSERFLOW_MCP_TOKEN")
        .env("XDG_DATA_HOME", data_home(dir.path()))
        .output()
        .unwrap();
    assert_eq!(open.status.code(), Some(1));
    assert!(
        stderr(&open).contains("needs a bearer token"),
        "{}",
        stderr(&open)
    );

    let mut server = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args([
            "mcp",
            "serve",
            "--tools",
            &tools_arg,
            "--http",
            "127.0.0.1:0",
        ])
        .env("BROWSERFLOW_MCP_TOKEN", "a-test-token")
        .env("XDG_DATA_HOME", data_home(dir.path()))
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(lines.read_line(&mut line).unwrap() > 0, "the server ended");
        if let Some(url) = line.trim().split(" at ").nth(1) {
            break url.to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));

    // Without the token: 401.
    let authority = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let mut raw = std::net::TcpStream::connect(&authority).unwrap();
    write!(
        raw,
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 2\r\n\
         Connection: close\r\n\r\n{{}}"
    )
    .unwrap();
    let mut answer = String::new();
    raw.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");

    let report = client(&json!({
        "url": url,
        "token": "a-test-token",
        "calls": [
            ["search_price_v1_2_0", { "query": "keyboard" }],
            ["search_price_v1_2_0", { "query": 42 }],
        ],
    }));
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(report["tools"][0]["name"], "search_price_v1_2_0");
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(
        calls[0]["structuredContent"],
        json!({ "name": "Mechanical Keyboard", "price": 89.99, "currency": "USD" })
    );
    assert_eq!(calls[1]["isError"], true);
    assert!(
        calls[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("the input `query`")
    );
}

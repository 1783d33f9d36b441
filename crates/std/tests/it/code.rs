//! The code kind in the real QuickJS sandbox.

use std::time::{Duration, Instant};

use browserflow_contract::ToolContract;
use browserflow_rider::{Clock, FsCap, Tool, ToolCtx};
use browserflow_std::code::{CodeLimits, CodeTool};
use serde_json::{Value, json};

use crate::support::{Reply, Server, net};

fn contract(capabilities: Value) -> ToolContract {
    ToolContract::from_json(&json!({
        "name": "js-tool", "version": "1.0.0", "kind": "code", "description": "",
        "inputs": [{"name": "n", "schema": {"type": "number"}, "secret": false}],
        "output": {}, "capabilities": capabilities
    }))
    .unwrap()
}

fn tool(source: &str, capabilities: Value, limits: CodeLimits) -> CodeTool {
    CodeTool::new(contract(capabilities), source, limits).unwrap()
}

fn ctx() -> ToolCtx {
    ToolCtx::builder("run-js", "step-js")
        .clock(Clock::at_unix_millis(1_700_000_000_000))
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pure_code_tool_gives_identical_output_twice() {
    let source = "function run(input, ctx) { return { r: [Math.random(), Math.random()], now: Date.now(), iso: new Date().toISOString(), n: input.n * 2, clock: ctx.clock.now }; }";
    let t = tool(source, json!([]), CodeLimits::default());
    assert!(t.contract().is_pure());
    let a = t.run(json!({"n": 4}), ctx()).await.unwrap();
    let b = t.run(json!({"n": 4}), ctx()).await.unwrap();
    assert_eq!(a, b);
    assert_eq!(a["now"], json!(1_700_000_000_000_i64));
    assert_eq!(a["iso"], json!("2023-11-14T22:13:20.000Z"));
    assert_eq!(a["n"], json!(8));
    let r = a["r"].as_array().unwrap();
    assert_ne!(r[0], r[1]);
    // Another step draws other numbers.
    let other = t
        .run(
            json!({"n": 4}),
            ToolCtx::builder("run-js", "another")
                .clock(Clock::at_unix_millis(1_700_000_000_000))
                .build(),
        )
        .await
        .unwrap();
    assert_ne!(other["r"], a["r"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_infinite_loop_is_stopped_by_the_deadline() {
    let limits = CodeLimits {
        timeout_ms: 300,
        ..CodeLimits::default()
    };
    let t = tool("function run() { while (true) {} }", json!([]), limits);
    let started = Instant::now();
    let err = t.run(json!({"n": 1}), ctx()).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert!(err.message.contains("deadline of 300 ms"), "{err}");
    // A try/catch cannot swallow the interruption.
    let t = tool(
        "function run() { for (;;) { try { while (true) {} } catch (e) {} } }",
        json!([]),
        limits,
    );
    let err = t.run(json!({"n": 1}), ctx()).await.unwrap_err();
    assert!(err.message.contains("deadline"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_memory_bomb_fails_cleanly() {
    let limits = CodeLimits {
        memory_bytes: 16 * 1024 * 1024,
        timeout_ms: 10_000,
        ..CodeLimits::default()
    };
    let t = tool(
        "function run() { const a = []; while (true) { a.push('x'.repeat(1 << 16) + a.length); } }",
        json!([]),
        limits,
    );
    let err = t.run(json!({"n": 1}), ctx()).await.unwrap_err();
    assert!(err.message.contains("memory limit"), "{err}");
    // Deep recursion hits the stack limit as a clean error too.
    let t = tool(
        "function run() { function f(n) { return f(n + 1) + 1; } return f(0); }",
        json!([]),
        CodeLimits::default(),
    );
    let err = t.run(json!({"n": 1}), ctx()).await.unwrap_err();
    assert!(err.message.to_lowercase().contains("stack"), "{err}");
    // The sandbox still works afterwards.
    let ok = tool(
        "function run(i) { return i.n + 1; }",
        json!([]),
        CodeLimits::default(),
    );
    assert_eq!(ok.run(json!({"n": 1}), ctx()).await.unwrap(), json!(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_exist_only_when_declared() {
    let probe = "function run(input, ctx) { return { net: typeof ctx.net, fs: typeof ctx.fs, natives: typeof __bf_fetch + typeof __bf_random, require: typeof require, process: typeof process }; }";
    let out = tool(probe, json!([]), CodeLimits::default())
        .run(json!({"n": 1}), ctx())
        .await
        .unwrap();
    assert_eq!(
        out,
        json!({"net": "undefined", "fs": "undefined", "natives": "undefinedundefined", "require": "undefined", "process": "undefined"})
    );
    // Even a context that holds `net` gives the script none when the contract lacks it?
    // No: the Rider builds the context from the contract; here the context itself decides.
    let server = Server::start(|seen| Reply::json(200, json!({"path": seen.path}))).await;
    let fetcher = format!(
        "function run(input, ctx) {{ const r = ctx.net.fetch('{}'); return {{ status: r.status, body: JSON.parse(r.body) }}; }}",
        server.url("/hello")
    );
    let with_net = ToolCtx::builder("run-js", "step-js").net(net()).build();
    let out = tool(&fetcher, json!(["net"]), CodeLimits::default())
        .run(json!({"n": 1}), with_net)
        .await
        .unwrap();
    assert_eq!(out, json!({"status": 200, "body": {"path": "/hello"}}));
    let err = tool(&fetcher, json!([]), CodeLimits::default())
        .run(json!({"n": 1}), ctx())
        .await
        .unwrap_err();
    assert!(
        err.message.contains("TypeError") || err.message.contains("undefined"),
        "{err}"
    );

    let root = tempfile::tempdir().unwrap();
    let with_fs = ToolCtx::builder("run-js", "step-js")
        .fs(FsCap::new(root.path()).unwrap())
        .build();
    let files = "function run(input, ctx) { ctx.fs.writeText('a.txt', 'hi ' + input.n); return [ctx.fs.readText('a.txt'), ctx.fs.list()]; }";
    let out = tool(files, json!(["fs"]), CodeLimits::default())
        .run(json!({"n": 3}), with_fs.clone())
        .await
        .unwrap();
    assert_eq!(out, json!(["hi 3", ["a.txt"]]));
    let escape = "function run(input, ctx) { return ctx.fs.readText('../etc/passwd'); }";
    let err = tool(escape, json!(["fs"]), CodeLimits::default())
        .run(json!({"n": 3}), with_fs)
        .await
        .unwrap_err();
    assert!(err.message.contains("refused"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_errors_and_tool_files() {
    let err = tool(
        "function run() { throw new Error('nope'); }",
        json!([]),
        CodeLimits::default(),
    )
    .run(json!({"n": 1}), ctx())
    .await
    .unwrap_err();
    assert!(
        err.message.contains("nope") && err.message.contains("js-tool@1.0.0"),
        "{err}"
    );
    let err = tool("const x = 1;", json!([]), CodeLimits::default())
        .run(json!({"n": 1}), ctx())
        .await
        .unwrap_err();
    assert!(err.message.contains("function run"), "{err}");
    let err = tool("function run( {", json!([]), CodeLimits::default())
        .run(json!({"n": 1}), ctx())
        .await
        .unwrap_err();
    assert!(
        err.message.contains("eval_script:1:"),
        "the error names the position: {err}"
    );
    let out = tool(
        "async function run(i) { return await Promise.resolve(i.n * 3); }",
        json!([]),
        CodeLimits::default(),
    )
    .run(json!({"n": 2}), ctx())
    .await
    .unwrap();
    assert_eq!(out, json!(6));
    let file = json!({"contract": contract(json!([])).to_json(), "code": {"source": "function run(i) { return i.n; }", "timeout_ms": 1000}});
    let t = CodeTool::from_tool_file(&file).unwrap();
    assert_eq!(t.run(json!({"n": 5}), ctx()).await.unwrap(), json!(5));
    let any = browserflow_std::tool_from_file(&file).unwrap().unwrap();
    assert_eq!(any.run(json!({"n": 6}), ctx()).await.unwrap(), json!(6));
    let browser = json!({"contract": {"kind": "browser"}});
    assert!(browserflow_std::tool_from_file(&browser).unwrap().is_none());
    let Err(message) = browserflow_std::tool_from_file(&json!({})) else {
        panic!("a file without a contract kind is refused")
    };
    assert!(message.contains("contract.kind"), "{message}");
    let mut wrong = contract(json!([])).to_json();
    wrong["kind"] = json!("transform");
    let err = CodeTool::new(
        ToolContract::from_json(&wrong).unwrap(),
        "",
        CodeLimits::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("kind `code`"), "{err}");
}

//! One run of a code tool inside a fresh QuickJS runtime, on a blocking thread.

use std::time::{Duration, Instant};

use browserflow_rider::{ToolCtx, ToolError};
use rquickjs::{CatchResultExt, Context, Function, Runtime};
use serde_json::{Value, json};

/// Bounds on one run of a code tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeLimits {
    /// Wall-clock deadline of one run, in milliseconds.
    pub timeout_ms: u64,
    /// The most memory the JavaScript heap may use, in bytes.
    pub memory_bytes: usize,
    /// The most stack the interpreter may use, in bytes.
    pub stack_bytes: usize,
}

impl Default for CodeLimits {
    fn default() -> Self {
        CodeLimits {
            timeout_ms: 5_000,
            memory_bytes: 64 * 1024 * 1024,
            stack_bytes: 512 * 1024,
        }
    }
}

/// The largest response body `ctx.net.fetch` reads.
const FETCH_MAX_BYTES: usize = 10 * 1024 * 1024;

/// Runs before the script: installs the deterministic `Math.random` and `Date`, and builds
/// `ctx` with exactly the declared capabilities. The natives are removed from the global
/// object once captured, so the script reaches them only through `ctx`.
const PRELUDE: &str = r#"
(function (configText) {
  "use strict";
  const g = globalThis;
  const config = JSON.parse(configText);
  const natives = {
    random: g.__bf_random, log: g.__bf_log, fetch: g.__bf_fetch, fs: g.__bf_fs,
  };
  for (const name of ["__bf_random", "__bf_log", "__bf_fetch", "__bf_fs"]) { delete g[name]; }
  Math.random = function random() { return natives.random(); };
  const RealDate = Date;
  const now = config.clock;
  function FixedDate(...args) {
    if (!new.target) { return new RealDate(now).toString(); }
    if (args.length === 0) { return new RealDate(now); }
    return new RealDate(...args);
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = function now_() { return now; };
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  g.Date = FixedDate;
  const call = (native, request) => {
    const answer = JSON.parse(native(JSON.stringify(request)));
    if (answer.error !== undefined) { throw new Error(answer.error); }
    return answer.ok;
  };
  const ctx = {
    clock: Object.freeze({ now: now, iso: new RealDate(now).toISOString() }),
    env: Object.freeze(config.env),
    idempotencyKey: config.idempotencyKey,
    log: function log(message) { natives.log(String(message)); },
  };
  if (config.net) {
    ctx.net = Object.freeze({
      fetch: function fetch(url, options) {
        const o = options || {};
        return call(natives.fetch, { url: String(url), method: o.method || "GET", headers: o.headers || {},
          body: o.body === undefined ? null : (typeof o.body === "string" ? o.body : JSON.stringify(o.body)) });
      },
    });
  }
  if (config.fs) {
    ctx.fs = Object.freeze({
      readText: function readText(path) { return call(natives.fs, { op: "read", path: String(path) }); },
      writeText: function writeText(path, text) { return call(natives.fs, { op: "write", path: String(path), text: String(text) }); },
      list: function list(path) { return call(natives.fs, { op: "list", path: path === undefined ? "." : String(path) }); },
    });
  }
  return Object.freeze(ctx);
})
"#;

/// What went wrong inside the sandbox, before it is named for the tool.
enum Failure {
    Deadline,
    Cancelled,
    Memory,
    Script(String),
}

/// Runs `source` on `input` with the capabilities of `ctx`.
pub(crate) async fn run(
    tool: &str,
    source: &str,
    limits: CodeLimits,
    input: Value,
    ctx: ToolCtx,
) -> Result<Value, ToolError> {
    let handle = tokio::runtime::Handle::current();
    let source = source.to_owned();
    let task =
        tokio::task::spawn_blocking(move || run_blocking(&source, limits, &input, &ctx, &handle));
    let result = task.await.map_err(|e| {
        ToolError::terminal(format!(
            "code tool `{tool}`: the sandbox thread failed: {e}"
        ))
    })?;
    result.map_err(|failure| match failure {
        Failure::Deadline => ToolError::terminal(format!(
            "code tool `{tool}` was stopped: it ran past its deadline of {} ms",
            limits.timeout_ms
        )),
        Failure::Cancelled => ToolError::cancelled(),
        Failure::Memory => ToolError::terminal(format!(
            "code tool `{tool}` was stopped: it exceeded its memory limit of {} bytes",
            limits.memory_bytes
        )),
        Failure::Script(message) => ToolError::terminal(format!("code tool `{tool}`: {message}")),
    })
}

fn run_blocking(
    source: &str,
    limits: CodeLimits,
    input: &Value,
    tool_ctx: &ToolCtx,
    handle: &tokio::runtime::Handle,
) -> Result<Value, Failure> {
    let runtime =
        Runtime::new().map_err(|e| Failure::Script(format!("cannot start the sandbox: {e}")))?;
    runtime.set_memory_limit(limits.memory_bytes);
    runtime.set_max_stack_size(limits.stack_bytes);
    let deadline = Instant::now() + Duration::from_millis(limits.timeout_ms);
    let signal = tool_ctx.signal().clone();
    runtime.set_interrupt_handler(Some(Box::new(move || {
        Instant::now() >= deadline || signal.is_cancelled()
    })));
    let context = Context::full(&runtime)
        .map_err(|e| Failure::Script(format!("cannot start the sandbox: {e}")))?;
    let outcome = context.with(|ctx| -> Result<Value, String> {
        let fail = |e: rquickjs::CaughtError<'_>| e.to_string().trim_end().to_owned();
        let globals = ctx.globals();
        let random = tool_ctx.random().clone();
        let logger = tool_ctx.logger().clone();
        let install = || -> rquickjs::Result<()> {
            globals.set(
                "__bf_random",
                Function::new(ctx.clone(), move || random.next_f64())?,
            )?;
            globals.set(
                "__bf_log",
                Function::new(ctx.clone(), move |message: String| logger.info(message))?,
            )?;
            if let Some(net) = tool_ctx.net().cloned() {
                let handle = handle.clone();
                globals.set(
                    "__bf_fetch",
                    Function::new(ctx.clone(), move |request: String| {
                        answer(handle.block_on(fetch(&net, &request)))
                    })?,
                )?;
            }
            if let Some(fs) = tool_ctx.fs().cloned() {
                let handle = handle.clone();
                globals.set(
                    "__bf_fs",
                    Function::new(ctx.clone(), move |request: String| {
                        answer(handle.block_on(file_op(&fs, &request)))
                    })?,
                )?;
            }
            Ok(())
        };
        install().catch(&ctx).map_err(fail)?;
        let env: serde_json::Map<String, Value> = tool_ctx
            .env()
            .iter()
            .map(|(k, v)| (k.to_owned(), json!(v)))
            .collect();
        let config = json!({
            "clock": tool_ctx.clock().unix_millis(),
            "env": env,
            "idempotencyKey": tool_ctx.idempotency_key(),
            "net": tool_ctx.net().is_some(),
            "fs": tool_ctx.fs().is_some(),
        });
        let prelude: Function<'_> = ctx.eval(PRELUDE).catch(&ctx).map_err(fail)?;
        let js_ctx: rquickjs::Value<'_> = prelude
            .call((config.to_string(),))
            .catch(&ctx)
            .map_err(fail)?;
        ctx.eval::<(), _>(source).catch(&ctx).map_err(fail)?;
        let run: rquickjs::Value<'_> = globals.get("run").catch(&ctx).map_err(fail)?;
        let Some(run) = run.as_function() else {
            return Err("the script must define `function run(input, ctx) { … }`".to_owned());
        };
        let input_text = serde_json::to_string(input).map_err(|e| e.to_string())?;
        let js_input = ctx.json_parse(input_text).catch(&ctx).map_err(fail)?;
        let mut output: rquickjs::Value<'_> =
            run.call((js_input, js_ctx)).catch(&ctx).map_err(fail)?;
        if let Some(promise) = output.as_promise().cloned() {
            // An async `run`: drive the job queue until the promise settles.
            output = promise
                .finish::<rquickjs::Value<'_>>()
                .catch(&ctx)
                .map_err(fail)?;
        }
        let text = ctx.json_stringify(output).catch(&ctx).map_err(fail)?;
        match text {
            None => Ok(Value::Null),
            Some(text) => {
                let text = text.to_string().map_err(|e| e.to_string())?;
                serde_json::from_str(&text).map_err(|e| format!("the result is not JSON: {e}"))
            }
        }
    });
    match outcome {
        Ok(value) => Ok(value),
        Err(_) if tool_ctx.signal().is_cancelled() => Err(Failure::Cancelled),
        Err(_) if Instant::now() >= deadline => Err(Failure::Deadline),
        Err(message) if message.contains("out of memory") || message.contains("Allocation") => {
            Err(Failure::Memory)
        }
        Err(message) => Err(Failure::Script(message)),
    }
}

/// The JSON a native hands back to the prelude: `{"ok": …}` or `{"error": "…"}`.
fn answer(result: Result<Value, String>) -> String {
    match result {
        Ok(value) => json!({ "ok": value }).to_string(),
        Err(message) => json!({ "error": message }).to_string(),
    }
}

async fn fetch(net: &browserflow_rider::NetCap, request: &str) -> Result<Value, String> {
    let request: Value = serde_json::from_str(request).map_err(|e| e.to_string())?;
    let url = request["url"].as_str().unwrap_or_default();
    let method = request["method"]
        .as_str()
        .unwrap_or("GET")
        .to_ascii_uppercase();
    let method = reqwest::Method::from_bytes(method.as_bytes())
        .map_err(|_| format!("`{method}` is not an HTTP method"))?;
    let mut builder = net
        .request(method, url)
        .map_err(|e| format!("fetch: {e}"))?;
    if let Some(headers) = request["headers"].as_object() {
        for (name, value) in headers {
            builder = builder.header(
                name.as_str(),
                value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned),
            );
        }
    }
    if let Some(body) = request["body"].as_str() {
        builder = builder.body(body.to_owned());
    }
    let mut response = builder
        .send()
        .await
        .map_err(|e| format!("fetch failed: {}", e.without_url()))?;
    let status = response.status().as_u16();
    let mut headers = serde_json::Map::new();
    for (name, value) in response.headers() {
        headers.insert(
            name.as_str().to_owned(),
            json!(String::from_utf8_lossy(value.as_bytes())),
        );
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("fetch failed: {}", e.without_url()))?
    {
        if body.len() + chunk.len() > FETCH_MAX_BYTES {
            return Err(format!(
                "fetch: the response body exceeds {FETCH_MAX_BYTES} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(json!({ "status": status, "headers": headers, "body": String::from_utf8_lossy(&body) }))
}

async fn file_op(fs: &browserflow_rider::FsCap, request: &str) -> Result<Value, String> {
    let request: Value = serde_json::from_str(request).map_err(|e| e.to_string())?;
    let path = request["path"].as_str().unwrap_or(".");
    match request["op"].as_str() {
        Some("read") => fs
            .read_to_string(path)
            .await
            .map(Value::String)
            .map_err(|e| e.to_string()),
        Some("write") => fs
            .write(path, request["text"].as_str().unwrap_or_default())
            .await
            .map(|()| Value::Null)
            .map_err(|e| e.to_string()),
        Some("list") => fs
            .list(path)
            .await
            .map(|names| json!(names))
            .map_err(|e| e.to_string()),
        other => Err(format!("unknown fs operation {other:?}")),
    }
}

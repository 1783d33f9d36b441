//! A flow mapping `std/http.post` over an array of items with `for_each`, run as a real
//! `bflow` process, SIGKILLed in the middle of its items and resumed: every item's post is
//! recorded once (an item killed after its post but before the journal knew is sent again,
//! with the same idempotency key, as a step is), and the output array is complete and in
//! item order. And a browser list tool (`extract_list` of the demo shop's search results)
//! feeding a browser detail tool over `for_each`, in a real Chromium.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::resume_guard::{kill, succeeded};
use crate::{stderr, stdout};

/// A webhook on 127.0.0.1 that records each POST's path and `Idempotency-Key` (before it
/// answers, so a post counts even when its sender is killed waiting), waits the
/// milliseconds the path's last segment says, and answers its path as the body.
struct ItemHook {
    port: u16,
    posts: Arc<Mutex<Vec<(String, String)>>>,
}

impl ItemHook {
    fn start() -> ItemHook {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let posts = Arc::new(Mutex::new(Vec::new()));
        let sink = posts.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let sink = sink.clone();
                std::thread::spawn(move || answer(stream, &sink));
            }
        });
        ItemHook { port, posts }
    }

    fn posts(&self) -> Vec<(String, String)> {
        self.posts.lock().unwrap().clone()
    }

    /// Posts per idempotency key.
    fn per_key(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for (_, key) in self.posts() {
            *counts.entry(key).or_insert(0) += 1;
        }
        counts
    }
}

fn answer(stream: TcpStream, sink: &Mutex<Vec<(String, String)>>) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut length = 0usize;
    let mut key = String::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().ok()?,
                "idempotency-key" => key = value.trim().to_owned(),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    sink.lock().unwrap().push((path.clone(), key));
    let delay: u64 = path.rsplit('/').next()?.parse().ok()?;
    std::thread::sleep(Duration::from_millis(delay));
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{path}",
        path.len()
    );
    let mut stream = stream;
    stream.write_all(reply.as_bytes()).ok()
}

struct Setup {
    dir: tempfile::TempDir,
    hook: ItemHook,
    /// The items: `{id, ms}`; item k posts to `/item/k/ms`.
    items: Value,
}

impl Setup {
    fn new(count: usize, concurrency: u32) -> Setup {
        let listed = Command::new(env!("CARGO_BIN_EXE_bflow"))
            .args(["tools", "list", "--json"])
            .output()
            .unwrap();
        assert!(listed.status.success(), "{}", stderr(&listed));
        let post = stdout(&listed)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|t| t["ref"] == "std/http.post@1.0.0")
            .expect("std/http.post is built in");
        let hook = ItemHook::start();
        // Earlier items answer later, so items finish out of order under concurrency.
        let items: Vec<Value> = (0..count)
            .map(|k| {
                let url = format!(
                    "http://127.0.0.1:{}/item/{k}/{}",
                    hook.port,
                    20 * (count - k)
                );
                json!({"id": format!("{k}"), "url": url})
            })
            .collect();
        let setup = Setup {
            dir: tempfile::tempdir().unwrap(),
            hook,
            items: Value::Array(items),
        };
        let flow = json!({
            "name": "map-posts", "version": "1.0.0", "description": "",
            "inputs": [{"name": "items", "secret": false, "schema": {"type": "array", "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "url": {"type": "string", "format": "uri"}},
                "required": ["id", "url"], "additionalProperties": false}}}],
            "requires": [{"ref": "std/http.post@1.0.0", "contract_digest": post["contract_digest"]}],
            "steps": [{
                "id": "notify", "uses": "std/http.post@1.0.0",
                "for_each": "input.items", "concurrency": concurrency,
                // `url` is not bound: it is filled from the item's field of that name.
                "with": {"body": {"template": "item {item.id}"}}
            }],
            "output": {"from": "steps.notify.output"}
        });
        std::fs::write(setup.flow(), flow.to_string()).unwrap();
        setup
    }

    fn flow(&self) -> String {
        self.dir
            .path()
            .join("map.flow.json")
            .to_string_lossy()
            .into_owned()
    }

    fn journal(&self) -> String {
        self.dir
            .path()
            .join("j.sqlite")
            .to_string_lossy()
            .into_owned()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bflow"));
        command
            .current_dir(self.dir.path())
            .args(args)
            .env_remove("BROWSERFLOW_TEST_CRASH_AT")
            .env_remove("BROWSERFLOW_LOG");
        command
    }

    /// Starts the run stopped dead at `point` of `step`; returns it and its run id.
    fn run_until(&self, point: &str, step: &str) -> (Child, String) {
        let items = format!("items={}", self.items);
        let (flow, journal) = (self.flow(), self.journal());
        let mut child = self
            .command(&[
                "flow",
                "run",
                &flow,
                "--input",
                &items,
                "--journal",
                &journal,
            ])
            .env("BROWSERFLOW_TEST_CRASH_AT", format!("{point}:{step}"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (mut run_id, mut seen) = (None, String::new());
        for line in BufReader::new(child.stderr.take().unwrap())
            .lines()
            .map_while(Result::ok)
        {
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.split(" as run ").nth(1) {
                run_id = Some(rest.trim().to_owned());
            }
            if line.starts_with("CRASH_POINT") {
                break;
            }
        }
        assert!(
            seen.contains("CRASH_POINT"),
            "never reached {point}: {seen}"
        );
        (child, run_id.expect("the run id is printed first"))
    }

    fn resume(&self, run_id: &str) -> Value {
        let journal = self.journal();
        let resumed = self
            .command(&["flow", "resume", run_id, "--journal", &journal])
            .output()
            .unwrap();
        succeeded(&resumed)
    }

    /// The output is one `{status, body}` per item, in item order, each the answer to that
    /// item's own post.
    fn assert_complete_and_in_order(&self, output: &Value) {
        let entries = output.as_array().unwrap_or_else(|| panic!("{output}"));
        let items = self.items.as_array().unwrap();
        assert_eq!(entries.len(), items.len(), "{output}");
        for (k, (entry, item)) in entries.iter().zip(items).enumerate() {
            assert_eq!(entry["status"], 200, "{entry}");
            let url = item["url"].as_str().unwrap();
            let path = &url[url.find("/item/").unwrap()..];
            assert_eq!(entry["body"], json!(path), "entry {k} answers item {k}");
        }
    }

    /// Every item posted, under a key of its own, at most `most` times.
    fn assert_each_item_posted(&self, most: usize) -> HashMap<String, usize> {
        let posts = self.hook.posts();
        let mut key_of_item: HashMap<String, String> = HashMap::new();
        for (path, key) in &posts {
            let item = path.split('/').nth(2).unwrap().to_owned();
            let known = key_of_item
                .entry(item.clone())
                .or_insert_with(|| key.clone());
            assert_eq!(known, key, "item {item} posts under one key");
        }
        assert_eq!(
            key_of_item.len(),
            self.items.as_array().unwrap().len(),
            "{posts:?}"
        );
        let per_key = self.hook.per_key();
        assert_eq!(per_key.len(), key_of_item.len(), "a distinct key per item");
        assert!(
            per_key.values().all(|&n| (1..=most).contains(&n)),
            "{per_key:?}"
        );
        per_key
    }
}

#[test]
fn killed_after_an_items_post_and_resumed_each_item_is_recorded_once_and_in_order() {
    let setup = Setup::new(6, 2);
    // Killed after item 2's post was answered but before the journal knew it.
    let (child, run_id) = setup.run_until("after-effect", "notify[2]");
    kill(child);
    let before = setup.hook.posts();
    let item_2 = |path: &String| path.starts_with("/item/2/");
    assert!(
        before.iter().any(|(p, _)| item_2(p)),
        "item 2 posted: {before:?}"
    );
    assert!(before.len() < 6, "killed in the middle: {before:?}");
    let result = setup.resume(&run_id);
    assert_eq!(result["run_id"], run_id);
    setup.assert_complete_and_in_order(&result["output"]);
    // An item whose outcome was in doubt at the kill — item 2, and the one other item that
    // may have been in flight beside it (concurrency 2) — is sent again with the same key,
    // as a step's is; every other item once.
    let per_key = setup.assert_each_item_posted(2);
    let again: Vec<&String> = per_key
        .iter()
        .filter(|(_, n)| **n == 2)
        .map(|(k, _)| k)
        .collect();
    let key_of_2 = &before.iter().find(|(p, _)| item_2(p)).unwrap().1;
    assert!(
        again.contains(&key_of_2),
        "item 2 was sent again: {per_key:?}"
    );
    assert!(
        again.len() <= 2,
        "at most the 2 items in flight: {per_key:?}"
    );
    for key in &again {
        assert!(
            before.iter().any(|(_, k)| k == *key),
            "an item sent twice was in flight at the kill: {per_key:?}"
        );
    }
    let total: usize = per_key.values().sum();
    eprintln!(
        "6 items, {} posts before the kill, {total} posts in all, {} items sent twice",
        before.len(),
        again.len()
    );
    // Resuming the finished run posts nothing more.
    let resumed = setup.resume(&run_id);
    setup.assert_complete_and_in_order(&resumed["output"]);
    assert_eq!(setup.hook.posts().len(), total);
}

#[test]
fn killed_after_an_items_post_was_recorded_and_resumed_no_item_posts_twice() {
    // One item at a time: when item 1's outcome is committed nothing else is in flight, so
    // nothing is in doubt and no item may be sent twice.
    let setup = Setup::new(5, 1);
    let (child, run_id) = setup.run_until("after-commit", "notify[1]");
    kill(child);
    let before = setup.hook.posts().len();
    assert!(
        (2..5).contains(&before),
        "killed in the middle: {before} posts"
    );
    let result = setup.resume(&run_id);
    setup.assert_complete_and_in_order(&result["output"]);
    let per_key = setup.assert_each_item_posted(1);
    assert_eq!(per_key.values().sum::<usize>(), 5, "{per_key:?}");
    // The journal has a row per item under its own key and the step's collected output.
    let shown = setup
        .command(&[
            "journal",
            "show",
            &run_id,
            "--journal",
            &setup.journal(),
            "--json",
        ])
        .output()
        .unwrap();
    let report = succeeded(&shown);
    let ids: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step_id"].as_str().unwrap())
        .collect();
    for k in 0..5 {
        assert!(ids.contains(&format!("notify[{k}]").as_str()), "{ids:?}");
    }
    assert!(ids.contains(&"notify"), "{ids:?}");
}

/// Writes `tool` as `NAME@VERSION.json` in `dir`; returns its pin.
fn write_tool(dir: &std::path::Path, tool: &Value) -> Value {
    let reference = format!(
        "{}@{}",
        tool["contract"]["name"].as_str().unwrap(),
        tool["contract"]["version"].as_str().unwrap()
    );
    let path = dir.join(format!("{reference}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(tool).unwrap()).unwrap();
    let digest = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .args(["contract", "digest", &path.to_string_lossy()])
        .output()
        .unwrap();
    assert!(digest.status.success(), "{}", stderr(&digest));
    json!({"ref": reference, "contract_digest": stdout(&digest).trim()})
}

/// A browser list tool (`extract_list` of the shop's search results) feeding a browser detail
/// tool over `for_each`: each result's page is opened (the item's `url` fills the detail
/// tool's `url`) and read, two at a time, in the order of the list.
#[test]
fn a_browser_list_tool_feeds_a_detail_tool_over_for_each() {
    let _shop = crate::shop::Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let origin = format!("http://{}", crate::shop::ADDR);
    let item = json!({"type": "object",
        "properties": {"name": {"type": "string"}, "url": {"type": "string"}},
        "required": ["name", "url"], "additionalProperties": false});
    let search = write_tool(
        dir.path(),
        &json!({
            "contract": {"name": "search-list", "version": "1.0.0", "kind": "browser",
                "description": "The shop's search results.", "capabilities": ["browser"],
                "inputs": [{"name": "query", "schema": {"type": "string"}, "secret": false}],
                "output": {"type": "object", "properties": {"results": {"type": "array", "items": item}},
                    "required": ["results"], "additionalProperties": false}},
            "origins": [origin],
            "steps": [
                {"type": "navigate", "url": format!("{origin}/search.html?q={{{{query}}}}")},
                {"type": "extract_list", "field": "results", "recorded_items": 1, "timeout_ms": 5000,
                 "items": {"candidates": [{"kind": "css", "value": "[data-testid=\"results\"] > li"}]},
                 "fields": [
                    {"name": "name", "candidates": [{"kind": "css", "value": "[data-testid=\"result-link\"]"}]},
                    {"name": "url", "candidates": [{"kind": "css", "value": "a"}],
                     "from": "attribute", "attribute": "href", "kind": "url"}
                 ]}
            ]
        }),
    );
    let detail = write_tool(
        dir.path(),
        &json!({
            "contract": {"name": "product-detail", "version": "1.0.0", "kind": "browser",
                "description": "A product page's name and price.", "capabilities": ["browser"],
                "inputs": [{"name": "url", "schema": {"type": "string"}, "secret": false}],
                "output": {"type": "object",
                    "properties": {"name": {"type": "string"}, "price": {"type": "number"}, "currency": {"type": "string"}},
                    "required": ["currency", "name", "price"], "additionalProperties": false}},
            "origins": [origin],
            "steps": [
                {"type": "navigate", "url": "{{url}}"},
                {"type": "extract", "field": "name", "selector": {"candidates": [{"kind": "test_id", "value": "product-name"}]}},
                {"type": "extract", "field": "price", "kind": "number", "currency_field": "currency",
                 "selector": {"candidates": [{"kind": "test_id", "value": "product-price"}]}}
            ]
        }),
    );
    let flow = json!({
        "name": "list-details", "version": "1.0.0", "description": "",
        "inputs": [{"name": "query", "schema": {"type": "string"}, "secret": false}],
        "requires": [search, detail],
        "steps": [
            {"id": "search", "uses": "search-list@1.0.0", "with": {"query": {"from": "input.query"}}},
            {"id": "details", "uses": "product-detail@1.0.0",
             "for_each": "steps.search.output.results", "concurrency": 2}
        ],
        "output": {"from": "steps.details.output"}
    });
    let flow_path = dir.path().join("list-details.flow.json");
    std::fs::write(&flow_path, flow.to_string()).unwrap();
    let journal = dir.path().join("j.sqlite");
    let ran = Command::new(env!("CARGO_BIN_EXE_bflow"))
        .current_dir(dir.path())
        .args([
            "flow",
            "run",
            &flow_path.to_string_lossy(),
            "--input",
            "query=keyboard",
            "--journal",
            &journal.to_string_lossy(),
        ])
        .env_remove("BROWSERFLOW_TEST_CRASH_AT")
        .output()
        .unwrap();
    let result = succeeded(&ran);
    // The shop's catalog has two keyboards, listed in this order.
    assert_eq!(
        result["output"],
        json!([
            {"name": "Mechanical Keyboard", "price": 89.99, "currency": "USD"},
            {"name": "Compact Keyboard", "price": 59.0, "currency": "USD"}
        ]),
        "{}",
        stderr(&ran)
    );
}

/// `bflow check` refuses a `for_each` whose items lack a field the tool needs, or that is not
/// an array, naming the step, the field and where.
#[test]
fn check_names_the_step_and_the_field_of_a_bad_for_each() {
    let setup = Setup::new(2, 1);
    let mut flow: Value =
        serde_json::from_str(&std::fs::read_to_string(setup.flow()).unwrap()).unwrap();
    // Items of `{id}` only: nothing fills std/http.post's `url`.
    flow["inputs"][0]["schema"]["items"] = json!({"type": "object",
        "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false});
    std::fs::write(setup.flow(), flow.to_string()).unwrap();
    let out = setup.command(&["check", &setup.flow()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("[missing_input] /steps/0/for_each"), "{err}");
    assert!(err.contains("step `notify`, slot `url`"), "{err}");
    assert!(
        err.contains("the items of `input.items` have no field `url`"),
        "{err}"
    );

    // Not an array.
    flow["inputs"][0]["schema"] = json!({"type": "string"});
    std::fs::write(setup.flow(), flow.to_string()).unwrap();
    let out = setup.command(&["check", &setup.flow()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("[bad_for_each] /steps/0/for_each"), "{err}");
    assert!(
        err.contains("`input.items` is string, not an array"),
        "{err}"
    );
}

//! Only the engine names CDP methods: the recorder, the replayer and every other crate send
//! the engine's typed commands (`browserflow_cdp::commands`) or call its methods, never a raw
//! `"Domain.method"` string with `json!` parameters. Tests (a file's `mod tests`, `tests/`)
//! may speak CDP directly; the benchmark floor does by design (it measures raw CDP).

use std::path::{Path, PathBuf};

/// The protocol's domains (Chromium's `browser_protocol` and `js_protocol`).
const DOMAINS: &[&str] = &[
    "Accessibility",
    "Animation",
    "Audits",
    "Autofill",
    "BackgroundService",
    "Browser",
    "CSS",
    "CacheStorage",
    "Cast",
    "DOM",
    "DOMDebugger",
    "DOMSnapshot",
    "DOMStorage",
    "Database",
    "Debugger",
    "DeviceAccess",
    "DeviceOrientation",
    "Emulation",
    "EventBreakpoints",
    "Extensions",
    "FedCm",
    "Fetch",
    "FileSystem",
    "HeadlessExperimental",
    "HeapProfiler",
    "IO",
    "IndexedDB",
    "Input",
    "Inspector",
    "LayerTree",
    "Log",
    "Media",
    "Memory",
    "Network",
    "Overlay",
    "PWA",
    "Page",
    "Performance",
    "PerformanceTimeline",
    "Preload",
    "Profiler",
    "Runtime",
    "Schema",
    "Security",
    "ServiceWorker",
    "Storage",
    "SystemInfo",
    "Target",
    "Tethering",
    "Tracing",
    "WebAudio",
    "WebAuthn",
];

/// Crates whose sources may name methods: the engine, and the benchmark's raw-CDP floor.
const ALLOWED: &[&str] = &["crates/cdp/", "crates/bench/"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under the library and binary sources of the crates and the app.
fn sources() -> Vec<PathBuf> {
    let root = repo_root();
    let mut roots: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path().join("src"))
        .collect();
    roots.push(root.join("src-tauri/src"));
    let mut files = Vec::new();
    while let Some(dir) = roots.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                roots.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The `"Domain.method"` string literals in `text`.
fn methods_named(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices('"') {
        let rest = &text[at + 1..];
        let Some(end) = rest.find('"') else { break };
        let literal = &rest[..end];
        if let Some((domain, method)) = literal.split_once('.')
            && DOMAINS.contains(&domain)
            && method.starts_with(|c: char| c.is_ascii_lowercase())
            && method.chars().all(|c| c.is_ascii_alphanumeric())
        {
            found.push(literal.to_string());
        }
    }
    found
}

#[test]
fn the_method_finder_finds_methods_and_nothing_else() {
    assert_eq!(
        methods_named(r#"call("Runtime.evaluate", json!({})); x("DOM.setFileInputFiles")"#),
        ["Runtime.evaluate", "DOM.setFileInputFiles"]
    );
    assert!(methods_named(r#"read("Cargo.toml"); "Page.Enable"; "a.b""#).is_empty());
}

#[test]
fn methods_are_named_only_in_the_engine() {
    let files = sources();
    assert!(files.len() > 100, "the sources were found: {}", files.len());
    let root = repo_root();
    let mut named = Vec::new();
    for file in &files {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        if ALLOWED.iter().any(|a| name.starts_with(a)) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read");
        // A file's own unit tests may speak CDP directly.
        let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or("");
        for method in methods_named(code) {
            named.push(format!("{name}: {method}"));
        }
    }
    assert!(
        named.is_empty(),
        "CDP methods named outside the engine (add a typed command to \
         browserflow_cdp::commands, or a method to the engine): {named:#?}"
    );
}

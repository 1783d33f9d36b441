//! What a run refuses before it starts, a tool file refuses when it is read: unknown and
//! unclosed `{{placeholders}}`, URLs off the web, origins the tool may not go to, loopback
//! and link-local addresses it does not name; and an importer never writes such a tool.

use browserflow_steps::{ImportError, ToolFile, import_devtools};
use serde_json::{Value, json};

fn tool(origins: Option<Value>, steps: Value) -> Result<ToolFile, String> {
    let mut file = json!({
        "contract": { "name": "t", "version": "1.0.0", "kind": "browser", "description": "t",
                      "inputs": [{ "name": "query", "secret": false, "schema": { "type": "string" } }],
                      "output": { "type": "null" }, "capabilities": ["browser"] },
        "steps": steps
    });
    if let Some(origins) = origins {
        file["origins"] = origins;
    }
    ToolFile::from_json_str(&file.to_string()).map_err(|e| e.to_string())
}

fn fill(value: &str) -> Value {
    json!({ "type": "fill", "value": value,
            "selector": { "candidates": [{ "kind": "css", "value": "#q" }] } })
}

#[test]
fn placeholders_must_name_an_input_and_be_closed() {
    let open = json!({ "type": "navigate", "url": "https://shop.test/" });
    assert!(tool(None, json!([open, fill("{{query}} and {{ query }}")])).is_ok());
    let unknown = tool(None, json!([open, fill("{{nope}}")])).unwrap_err();
    assert!(
        unknown.contains("/steps/1/value") && unknown.contains("`{{nope}}` names no input"),
        "{unknown}"
    );
    assert!(unknown.contains("its inputs: query"), "{unknown}");
    let unclosed = tool(None, json!([open, fill("{{query")])).unwrap_err();
    assert!(
        unclosed.contains("/steps/1/value") && unclosed.contains("unclosed `{{`"),
        "{unclosed}"
    );
    // In a selector and a URL too: every string a run expands.
    let in_selector = tool(
        None,
        json!([open, { "type": "click",
            "selector": { "candidates": [{ "kind": "text", "value": "{{who}}" }] } }]),
    )
    .unwrap_err();
    assert!(
        in_selector.contains("/steps/1/selector/candidates/0/value"),
        "{in_selector}"
    );
}

#[test]
fn urls_a_run_refuses_are_refused_when_read() {
    for url in [
        "javascript:alert(1)",
        "file:///etc/hostname",
        "data:text/html,<h1>x</h1>",
        "chrome://version",
        "JavaScript:{{query}}",
        "http://169.254.169.254/latest/meta-data/",
    ] {
        let refused = tool(
            Some(json!(["*"])),
            json!([{ "type": "navigate", "url": url }]),
        )
        .unwrap_err();
        assert!(
            refused.contains("/steps/0/url") && refused.contains("is refused"),
            "{url}: {refused}"
        );
    }
    // An origin the file does not list, and loopback under `*`.
    let elsewhere = tool(
        Some(json!(["https://shop.test"])),
        json!([{ "type": "navigate", "url": "https://other.test/" }]),
    )
    .unwrap_err();
    assert!(
        elsewhere.contains("not in the tool's `origins`"),
        "{elsewhere}"
    );
    let loopback = tool(
        Some(json!(["*"])),
        json!([{ "type": "navigate", "url": "http://127.0.0.1:4780/" }]),
    )
    .unwrap_err();
    assert!(loopback.contains("loopback"), "{loopback}");
    // A URL that is not absolute: Page.navigate refuses it when the step runs.
    for url in ["//shop.test/", "/cart", "cart.html"] {
        let relative = tool(
            Some(json!(["*"])),
            json!([{ "type": "navigate", "url": url }]),
        )
        .unwrap_err();
        assert!(
            relative.contains("/steps/0/url") && relative.contains("is absolute"),
            "{url}: {relative}"
        );
    }
    // An expected navigation off the web.
    let expected = tool(
        None,
        json!([{ "type": "navigate", "url": "https://shop.test/" },
               { "type": "click", "navigation": { "url": "javascript:*" },
                 "selector": { "candidates": [{ "kind": "css", "value": "#a" }] } }]),
    )
    .unwrap_err();
    assert!(expected.contains("/steps/1/navigation/url"), "{expected}");
    // What the run allows reads: a URL that is an input, a listed loopback origin, a name.
    for (origins, url) in [
        (None, "{{query}}"),
        (None, "https://{{query}}.test/"),
        (
            Some(json!(["http://127.0.0.1:4780"])),
            "http://127.0.0.1:4780/x",
        ),
        (Some(json!(["*"])), "https://shop.test/"),
        (
            Some(json!(["http://169.254.169.254"])),
            "http://169.254.169.254/",
        ),
    ] {
        tool(origins.clone(), json!([{ "type": "navigate", "url": url }]))
            .unwrap_or_else(|e| panic!("{origins:?} {url}: {e}"));
    }
}

#[test]
fn an_importer_never_writes_a_tool_a_run_refuses() {
    let recording = |url: &str| {
        json!({ "title": "t", "steps": [
            { "type": "setViewport", "width": 800, "height": 600, "deviceScaleFactor": 1,
              "isMobile": false, "hasTouch": false, "isLandscape": false },
            { "type": "navigate", "url": url }
        ]})
        .to_string()
    };
    for url in ["javascript:alert(document.cookie)", "file:///etc/passwd"] {
        let refused = import_devtools(&recording(url), "imported", "1.0.0").unwrap_err();
        assert!(
            matches!(refused, ImportError::Refused(_)),
            "{url}: {refused}"
        );
        assert!(refused.to_string().contains("is refused"), "{refused}");
    }
    let typed = json!({ "title": "t", "steps": [
        { "type": "navigate", "url": "https://shop.test/" },
        { "type": "change", "value": "{{not an input", "selectors": [["#q"]] }
    ]})
    .to_string();
    let refused = import_devtools(&typed, "imported", "1.0.0").unwrap_err();
    assert!(refused.to_string().contains("unclosed"), "{refused}");
    assert!(import_devtools(&recording("https://shop.test/"), "imported", "1.0.0").is_ok());
}

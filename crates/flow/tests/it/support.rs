//! Shared helpers: contracts, registries, flows.

use std::path::PathBuf;

use browserflow_contract::{ToolContract, ToolRef};
use browserflow_flow::{Diagnostic, Diagnostics, FlowSpec, Plan, Registry, compile};
use serde_json::{Value, json};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn recordings_registry() -> Registry {
    let mut registry = Registry::new();
    registry
        .load_dir(repo_root().join("recordings/contracts"))
        .unwrap_or_else(|e| panic!("recordings/contracts load: {e}"));
    // search-price and price-alert are real tool files; their contracts are read from them.
    let tools = [
        repo_root().join("recordings/search-price@1.2.0.json"),
        repo_root().join("recordings/price-alert@1.0.0.json"),
    ];
    registry
        .load_files(&tools)
        .unwrap_or_else(|e| panic!("recordings' tool files load: {e}"));
    registry
}

/// A contract from JSON; panics with the problems when invalid.
pub fn contract(value: Value) -> ToolContract {
    ToolContract::from_json(&value).unwrap_or_else(|p| panic!("test contract invalid: {p}"))
}

/// A contract with the given parts; inputs as `(name, schema, secret)`.
pub fn tool(
    reference: &str,
    kind: &str,
    inputs: &[(&str, Value, bool)],
    output: Value,
    capabilities: &[&str],
) -> ToolContract {
    let (name, version) = reference.split_once('@').expect("name@version");
    let inputs: Vec<Value> = inputs
        .iter()
        .map(|(n, s, secret)| json!({"name": n, "schema": s, "secret": secret}))
        .collect();
    contract(json!({
        "name": name, "version": version, "kind": kind, "description": "test tool",
        "inputs": inputs, "output": output, "capabilities": capabilities,
    }))
}

/// The tools most tests use:
/// - `search-price@1.2.0` (browser): {query: string} → {name, price: number, currency}
/// - `format-name@1.0.0` (transform): {name: string} → string
/// - `price-alert@1.0.0` (transform): {price: number, threshold: number} → {dropped: boolean, message: string}
/// - `http.post@1.0.0` (http, net): {url: string, body: string} → {status: integer}
/// - `vault-fetch@1.0.0` (code, secrets): {token: secret string} → string
/// - `leaky@1.0.0` (code, no secrets): {token: secret string} → string
/// - `maybe@1.0.0` (transform): {value: string | null} → string
pub fn registry() -> Registry {
    let mut r = Registry::new();
    let tools = [
        tool(
            "search-price@1.2.0",
            "browser",
            &[("query", json!({"type": "string"}), false)],
            json!({"type": "object",
                   "properties": {"name": {"type": "string"}, "price": {"type": "number"}, "currency": {"type": "string"}},
                   "required": ["currency", "name", "price"], "additionalProperties": false}),
            &["browser"],
        ),
        tool(
            "format-name@1.0.0",
            "transform",
            &[("name", json!({"type": "string"}), false)],
            json!({"type": "string"}),
            &[],
        ),
        tool(
            "price-alert@1.0.0",
            "transform",
            &[
                ("price", json!({"type": "number"}), false),
                ("threshold", json!({"type": "number"}), false),
            ],
            json!({"type": "object",
                   "properties": {"dropped": {"type": "boolean"}, "message": {"type": "string"}},
                   "required": ["dropped", "message"], "additionalProperties": false}),
            &[],
        ),
        tool(
            "http.post@1.0.0",
            "http",
            &[
                ("url", json!({"type": "string"}), false),
                ("body", json!({"type": "string"}), false),
            ],
            json!({"type": "object", "properties": {"status": {"type": "integer"}}, "required": ["status"], "additionalProperties": false}),
            &["net"],
        ),
        tool(
            "vault-fetch@1.0.0",
            "code",
            &[("token", json!({"type": "string"}), true)],
            json!({"type": "string"}),
            &["secrets"],
        ),
        tool(
            "leaky@1.0.0",
            "code",
            &[("token", json!({"type": "string"}), true)],
            json!({"type": "string"}),
            &[],
        ),
        tool(
            "maybe@1.0.0",
            "transform",
            &[("value", json!({"type": ["string", "null"]}), false)],
            json!({"type": "string"}),
            &[],
        ),
    ];
    for t in tools {
        r.insert(t).expect("insert");
    }
    r
}

/// The `requires` entry pinning `reference` to its digest in `registry`.
pub fn pin(registry: &Registry, reference: &str) -> Value {
    let r = ToolRef::parse(reference).expect("ref");
    let tool = registry
        .get(&r)
        .unwrap_or_else(|| panic!("{reference} not in registry"));
    json!({"ref": reference, "contract_digest": tool.digest.to_string()})
}

/// A flow document: every tool the steps use is pinned from `registry`.
pub fn flow(registry: &Registry, inputs: Value, steps: Value, output: Value) -> Value {
    let mut refs: Vec<String> = steps
        .as_array()
        .expect("steps array")
        .iter()
        .map(|s| s["uses"].as_str().expect("uses").to_owned())
        .collect();
    refs.sort();
    refs.dedup();
    let requires: Vec<Value> = refs.iter().map(|r| pin(registry, r)).collect();
    json!({
        "name": "test-flow", "version": "1.0.0", "description": "a test flow",
        "inputs": inputs, "requires": requires, "steps": steps, "output": output,
    })
}

/// `{name, schema, secret}`.
pub fn input(name: &str, schema: Value, secret: bool) -> Value {
    json!({"name": name, "schema": schema, "secret": secret})
}

pub fn parse(value: &Value) -> FlowSpec {
    FlowSpec::from_json(value).unwrap_or_else(|d| panic!("flow does not parse:\n{d}"))
}

pub fn compile_ok(value: &Value, registry: &Registry) -> Plan {
    compile(&parse(value), registry).unwrap_or_else(|d| panic!("flow does not compile:\n{d}"))
}

pub fn compile_err(value: &Value, registry: &Registry) -> Diagnostics {
    match compile(&parse(value), registry) {
        Ok(_) => panic!("flow compiled, but errors were expected"),
        Err(d) => d,
    }
}

/// The only diagnostic; panics listing them all when there is not exactly one.
pub fn only(diagnostics: &Diagnostics) -> &Diagnostic {
    assert_eq!(
        diagnostics.0.len(),
        1,
        "expected one diagnostic, got:\n{diagnostics}"
    );
    &diagnostics.0[0]
}

/// Asserts code, step, slot and pointer of `d`, and that its message contains each of `parts`.
pub fn assert_diag(
    d: &Diagnostic,
    code: &str,
    step: Option<&str>,
    slot: Option<&str>,
    pointer: &str,
    parts: &[&str],
) {
    assert_eq!(d.code.as_str(), code, "code of {d}");
    assert_eq!(d.step.as_deref(), step, "step of {d}");
    assert_eq!(d.slot.as_deref(), slot, "slot of {d}");
    assert_eq!(d.pointer, pointer, "pointer of {d}");
    for part in parts {
        assert!(d.message.contains(part), "message of {d} lacks {part:?}");
    }
}

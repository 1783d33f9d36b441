//! `define_tool`: the contract comes from the Rust types, once.

use browserflow_contract::{Capability, JsonType, Kind};
use browserflow_rider::{DefineError, SecretInput, Tool, ToolCtx, ToolDef, define_tool};
use serde_json::json;

use crate::tools::slugify;

#[tokio::test]
async fn slugify_is_a_ten_line_tool_with_a_derived_contract() {
    let tool = slugify();
    let contract = tool.contract();
    assert_eq!(contract.reference(), "test/slugify@1.0.0");
    assert_eq!(contract.kind(), Kind::Transform);
    assert!(contract.is_pure());
    assert_eq!(contract.inputs().len(), 1);
    assert_eq!(contract.inputs()[0].name, "text");
    assert_eq!(
        contract.inputs()[0].schema.types,
        Some(vec![JsonType::String])
    );
    assert_eq!(contract.output().types, Some(vec![JsonType::String]));
    let ctx = ToolCtx::builder("run-1", "slug").build();
    let out = tool
        .run(json!({"text": "Hello, World! Ünïcode"}), ctx)
        .await
        .unwrap();
    assert_eq!(out, json!("hello-world-ünïcode"));
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct WithOptional {
    token: SecretInput,
    limit: Option<u32>,
    #[serde(default = "ten")]
    #[schemars(default = "ten")]
    count: u32,
}

fn ten() -> u32 {
    10
}

#[test]
fn optional_fields_get_defaults_and_secret_slots_are_marked() {
    let tool = define_tool(
        ToolDef::new("test/opt", "1.0.0", Kind::Http)
            .capabilities([Capability::Net, Capability::Secrets])
            .secret("token"),
        |_input: WithOptional, _ctx| async move { Ok(true) },
    )
    .unwrap();
    let contract = tool.contract();
    let token = contract.input("token").unwrap();
    assert!(token.secret);
    assert_eq!(token.schema.types, Some(vec![JsonType::String]));
    assert_eq!(
        contract.input("limit").unwrap().schema.default,
        Some(json!(null))
    );
    assert_eq!(
        contract.input("count").unwrap().schema.default,
        Some(json!(10))
    );
    assert!(!contract.input("limit").unwrap().secret);
}

#[test]
fn bad_definitions_are_clear_errors() {
    // A transform declaring a capability breaks the kind rule.
    let err = define_tool(
        ToolDef::new("test/bad", "1.0.0", Kind::Transform).capabilities([Capability::Net]),
        |_input: crate::tools::Text, _ctx| async move { Ok(1) },
    )
    .err()
    .unwrap();
    assert!(matches!(err, DefineError::Contract { .. }), "{err}");
    assert!(err.to_string().contains("transform"), "{err}");
    // The input must be a struct.
    let err = define_tool(
        ToolDef::new("test/bad", "1.0.0", Kind::Transform),
        |_input: String, _ctx| async move { Ok(1) },
    )
    .err()
    .unwrap();
    assert!(matches!(err, DefineError::InputNotAnObject { .. }), "{err}");
    // A secret slot the type does not have.
    let err = define_tool(
        ToolDef::new("test/bad", "1.0.0", Kind::Transform).secret("nope"),
        |_input: crate::tools::Text, _ctx| async move { Ok(1) },
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[tokio::test]
async fn input_that_does_not_fit_the_rust_type_is_a_terminal_error() {
    let tool = slugify();
    let ctx = ToolCtx::builder("run-1", "slug").build();
    let err = tool.run(json!({"text": 5}), ctx).await.unwrap_err();
    assert_eq!(err.class, browserflow_rider::ErrorClass::Terminal);
    assert!(err.message.contains("input"), "{err}");
}

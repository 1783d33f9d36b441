//! std/transform: slugify, jq, template, pick/map, parse-number/price, compare.

use browserflow_rider::{ErrorClass, Tool};
use browserflow_std::transform::{
    self, JqProgram, parse_number_text, parse_price_text, slugify_text,
};
use serde_json::{Value, json};

use crate::support::pure_ctx;

async fn run(tool: &dyn Tool, input: Value) -> Result<Value, browserflow_rider::ToolError> {
    tool.run(input, pure_ctx()).await
}

#[tokio::test]
async fn slugify_is_the_spec_example() {
    let tool = transform::slugify().unwrap();
    assert!(tool.contract().is_pure());
    assert_eq!(
        run(&tool, json!({"text": "  Hello, World! Ünïcode 2026 "}))
            .await
            .unwrap(),
        json!("hello-world-ünïcode-2026")
    );
    assert_eq!(slugify_text("--a__b--"), "a__b");
    assert_eq!(slugify_text("!!!"), "");
}

#[tokio::test]
async fn jq_runs_a_program() {
    let tool = transform::jq().unwrap();
    let input = json!({"items": [{"name": "a", "price": 3}, {"name": "b", "price": 1.5}]});
    let out = run(
        &tool,
        json!({"program": "[.items[].price] | min", "input": input}),
    )
    .await
    .unwrap();
    assert_eq!(out, json!(1.5));
    let all = run(
        &tool,
        json!({"program": ".items[].name", "input": input, "collect": true}),
    )
    .await
    .unwrap();
    assert_eq!(all, json!(["a", "b"]));
    let err = run(&tool, json!({"program": ".items[].name", "input": input}))
        .await
        .unwrap_err();
    assert!(err.message.contains("2 results"), "{err}");
    // Standard library definitions work (map, select, ascii_downcase, test).
    let out = run(
        &tool,
        json!({"program": "[.items[] | select(.price > 2) | .name | ascii_upcase]", "input": input}),
    )
    .await
    .unwrap();
    assert_eq!(out, json!(["A"]));
}

#[test]
fn jq_rejects_impure_builtins_when_compiling() {
    for (program, name) in [
        ("now", "now"),
        (". | mktime", "mktime"),
        ("env.HOME", "env"),
        ("$ENV.HOME", "$ENV"),
        ("input", "input"),
        ("[inputs]", "inputs"),
        ("debug", "debug"),
        ("stderr", "stderr"),
        ("halt", "halt"),
        ("1 | halt_error", "halt_error"),
        ("todate", "todate"),
    ] {
        let err = JqProgram::compile(program).unwrap_err().to_string();
        assert!(
            err.contains(&format!("`{name}`")) && err.contains("not allowed"),
            "{program}: {err}"
        );
        assert!(err.contains("line 1, column"), "{program}: {err}");
    }
}

#[test]
fn jq_errors_name_the_position() {
    let err = JqProgram::compile(".a |\n  map(.b +)")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2, column"), "{err}");
    let err = JqProgram::compile(".a | nosuchfn(1)")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`nosuchfn`") && err.contains("line 1, column 6"),
        "{err}"
    );
    let err = JqProgram::compile("\"abc").unwrap_err().to_string();
    assert!(err.contains("line 1, column"), "{err}");
    let runtime = JqProgram::compile(".a + 1")
        .unwrap()
        .run(&json!({"a": "x"}))
        .unwrap_err();
    assert!(runtime.to_string().contains("failed"), "{runtime}");
}

#[tokio::test]
async fn template_fills_placeholders() {
    let tool = transform::template().unwrap();
    let out = run(
        &tool,
        json!({"template": "{name} costs {price.amount} {{EUR}} {tags.1}", "values": {"name": "Lamp", "price": {"amount": 19.5}, "tags": ["a", "b"]}}),
    )
    .await
    .unwrap();
    assert_eq!(out, json!("Lamp costs 19.5 {EUR} b"));
    let err = run(
        &tool,
        json!({"template": "hi {nobody}", "values": {"x": 1}}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.class, ErrorClass::Terminal);
    assert!(
        err.message.contains("`{nobody}`") && err.message.contains("offset 3"),
        "{err}"
    );
}

#[tokio::test]
async fn pick_and_map_reshape() {
    let pick = transform::pick().unwrap();
    let out = run(
        &pick,
        json!({"input": {"a": 1, "b": {"c": 2}, "d": 3}, "fields": ["a", "b.c"]}),
    )
    .await
    .unwrap();
    assert_eq!(out, json!({"a": 1, "c": 2}));
    let err = run(&pick, json!({"input": {"a": 1}, "fields": ["zz"]}))
        .await
        .unwrap_err();
    assert!(err.message.contains("`zz`"), "{err}");
    let map = transform::map().unwrap();
    let out = run(
        &map,
        json!({"items": [{"p": {"v": 1}}, {"p": {"v": 2}}], "path": "p.v"}),
    )
    .await
    .unwrap();
    assert_eq!(out, json!([1, 2]));
    let err = run(&map, json!({"items": [{"p": 1}, {}], "path": "p"}))
        .await
        .unwrap_err();
    assert!(err.message.contains("item 1"), "{err}");
}

#[test]
fn numbers_are_read_locale_aware() {
    let cases: &[(&str, Option<char>, f64)] = &[
        ("$1,299.00", None, 1299.0),
        ("1.299,00 €", None, 1299.0),
        ("1 299,50", None, 1299.5),
        ("CHF 1'299.95", None, 1299.95),
        ("12,5", None, 12.5),
        ("1,299", None, 1299.0),
        ("1,299", Some(','), 1.299),
        ("1.299", Some('.'), 1.299),
        ("-3.5", None, -3.5),
        ("(42.00)", None, -42.0),
        ("Price: 7", None, 7.0),
        ("1.234.567", None, 1_234_567.0),
        ("0.125", None, 0.125),
    ];
    for (text, decimal, expected) in cases {
        let got = parse_number_text(text, *decimal).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!((got - expected).abs() < 1e-9, "{text}: {got} != {expected}");
    }
    for bad in ["", "abc", "1 and 2", "1,2,3.4.5"] {
        assert!(parse_number_text(bad, None).is_err(), "{bad} should fail");
    }
}

#[tokio::test]
async fn prices_carry_their_currency() {
    let p = parse_price_text("$1,299.00", None).unwrap();
    assert_eq!((p.amount, p.currency.as_deref()), (1299.0, Some("USD")));
    let p = parse_price_text("1.299,00 €", None).unwrap();
    assert_eq!((p.amount, p.currency.as_deref()), (1299.0, Some("EUR")));
    let p = parse_price_text("GBP 5", None).unwrap();
    assert_eq!(p.currency.as_deref(), Some("GBP"));
    assert_eq!(parse_price_text("12", None).unwrap().currency, None);
    let tool = transform::parse_price().unwrap();
    let out = run(&tool, json!({"text": "1.299 €", "locale": "de-DE"}))
        .await
        .unwrap();
    assert_eq!(out, json!({"amount": 1299.0, "currency": "EUR"}));
    let out = run(&tool, json!({"text": "1.299 €", "locale": "en-US"}))
        .await
        .unwrap();
    assert_eq!(out, json!({"amount": 1.299, "currency": "EUR"}));
    let number = transform::parse_number().unwrap();
    let err = run(&number, json!({"text": "1", "decimal": ";"}))
        .await
        .unwrap_err();
    assert!(err.message.contains("`decimal`"), "{err}");
}

#[tokio::test]
async fn compare_checks_thresholds() {
    let tool = transform::compare().unwrap();
    for (value, op, threshold, expected) in [
        (19.5, "<", 20.0, true),
        (20.0, "<", 20.0, false),
        (20.0, "<=", 20.0, true),
        (3.0, "!=", 3.0, false),
        (5.0, ">", 1.0, true),
    ] {
        let out = run(
            &tool,
            json!({"value": value, "op": op, "threshold": threshold}),
        )
        .await
        .unwrap();
        assert_eq!(out, json!(expected), "{value} {op} {threshold}");
    }
    // The contract names the operators.
    let op = tool.contract().input("op").unwrap();
    assert_eq!(
        op.schema.to_json()["enum"],
        json!(["<", "<=", "==", "!=", ">=", ">"])
    );
}

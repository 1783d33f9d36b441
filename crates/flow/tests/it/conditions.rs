//! `when` conditions: parsing, typing, evaluation.

use browserflow_flow::{Bound, Condition, Scope};
use serde_json::json;

use crate::support::*;

fn watch(when: &str) -> serde_json::Value {
    let registry = registry();
    flow(
        &registry,
        json!([
            input("query", json!({"type": "string"}), false),
            input("threshold", json!({"type": "number"}), false),
            input("loud", json!({"type": "boolean", "default": false}), false)
        ]),
        json!([
            {"id": "search", "uses": "search-price@1.2.0", "with": {"query": {"from": "input.query"}}},
            {"id": "post", "uses": "http.post@1.0.0", "when": when,
             "with": {"url": {"from": "secret.HOOK"}, "body": {"from": "steps.search.output.name"}}}
        ]),
        json!({"from": "steps.search.output"}),
    )
}

#[test]
fn a_when_over_a_step_output_compiles_and_orders_the_step() {
    let registry = registry();
    let plan = compile_ok(
        &watch("steps.search.output.price < input.threshold && !input.loud"),
        &registry,
    );
    let post = plan.step("post").unwrap();
    assert_eq!(post.depends_on, ["search"]);
    let when = post.when.as_ref().unwrap();
    assert_eq!(
        when.to_string(),
        "steps.search.output.price < input.threshold && !input.loud"
    );

    let mut scope = plan
        .start_scope(
            [
                ("query".to_owned(), Bound::Value(json!("kb"))),
                ("threshold".to_owned(), Bound::Value(json!(20))),
            ]
            .into(),
        )
        .unwrap();
    scope.finish(
        "search",
        json!({"name": "Keyboard", "price": 19.5, "currency": "EUR"}),
    );
    assert!(post.should_run(&scope).unwrap());
    scope.finish(
        "search",
        json!({"name": "Keyboard", "price": 25, "currency": "EUR"}),
    );
    assert!(!post.should_run(&scope).unwrap());
}

#[test]
fn a_when_comparing_a_number_with_a_string_is_a_type_mismatch() {
    let errors = compile_err(&watch("steps.search.output.price > \"cheap\""), &registry());
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("post"),
        None,
        "/steps/1/when",
        &["`steps.search.output.price > \"cheap\"` compares number with string"],
    );
}

#[test]
fn a_when_that_is_not_a_boolean_is_a_type_mismatch() {
    let errors = compile_err(&watch("steps.search.output.name"), &registry());
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("post"),
        None,
        "/steps/1/when",
        &["`steps.search.output.name` is string, but a condition needs a boolean"],
    );
}

#[test]
fn an_equality_that_can_never_hold_is_a_type_mismatch() {
    let errors = compile_err(&watch("steps.search.output.currency == 3"), &registry());
    assert_diag(
        only(&errors),
        "type_mismatch",
        Some("post"),
        None,
        "/steps/1/when",
        &["can never be equal"],
    );
}

#[test]
fn a_when_over_a_missing_step_is_an_unknown_step() {
    let errors = compile_err(&watch("steps.price.output.dropped"), &registry());
    assert_diag(
        only(&errors),
        "unknown_step",
        Some("post"),
        None,
        "/steps/1/when",
        &["no step `price`"],
    );
}

#[test]
fn a_when_that_does_not_parse_is_a_bad_condition() {
    let registry = registry();
    let doc = watch("steps.search.output.price < ");
    let errors = browserflow_flow::FlowSpec::from_json(&doc).unwrap_err();
    assert_diag(
        only(&errors),
        "bad_condition",
        Some("post"),
        None,
        "/steps/1/when",
        &["ends where a value was expected"],
    );
    for (text, why) in [
        ("a = b", "compare with `==`"),
        ("input.x < 1 < 2", "do not chain"),
        ("(input.x", "expected `)`"),
        ("input.x @ 1", "unexpected character `@`"),
        ("\"open", "never closed"),
        ("input.x ==", "ends where"),
        ("foo.bar", "is not a reference"),
    ] {
        let e = Condition::parse(text).unwrap_err();
        assert!(e.to_string().contains(why), "{text}: {e}");
    }
    let _ = registry;
}

#[test]
fn conditions_print_in_normal_form_and_round_trip() {
    for (text, normal) in [
        (
            "(input.a)&&(input.b||input.c)",
            "input.a && (input.b || input.c)",
        ),
        ("!(input.n  ==  1)", "!(input.n == 1)"),
        (
            "input.a || input.b && input.c",
            "input.a || input.b && input.c",
        ),
        ("input.s != \"x\\\"y\"", "input.s != \"x\\\"y\""),
        ("!!input.a", "!!input.a"),
        ("input.n >= -1.5e2", "input.n >= -150.0"),
    ] {
        let c = Condition::parse(text).unwrap();
        assert_eq!(c.to_string(), normal);
        assert_eq!(Condition::parse(normal).unwrap(), c, "{normal} round-trips");
    }
}

#[test]
fn evaluation_treats_skipped_steps_as_null() {
    let mut scope = Scope::new();
    scope.skip("alert");
    scope.set_input("n", Bound::Value(json!(2)));
    let eval = |t: &str| Condition::parse(t).unwrap().evaluate(&scope);
    assert_eq!(eval("steps.alert.output.dropped"), Ok(false));
    assert_eq!(eval("!steps.alert.output.dropped"), Ok(true));
    assert_eq!(eval("steps.alert.output == null"), Ok(true));
    assert_eq!(eval("steps.alert.output.price < 3"), Ok(false));
    assert_eq!(eval("input.n == 2.0"), Ok(true));
    assert_eq!(eval("input.n > 1 && input.n <= 2"), Ok(true));
    assert_eq!(eval("\"b\" > \"a\""), Ok(true));
    assert!(eval("input.n").is_err(), "a number is not a boolean");
    assert!(
        eval("steps.later.output").is_err(),
        "a step that has not run is an error"
    );
    assert!(eval("input.n < \"x\"").is_err());
}

//! Schemas derived from Rust types through schemars, converted into the subset.

// Fields exist to shape the derived schemas; most are never read.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};

use browserflow_contract::{Additional, CompiledSchema, JsonType, Rule, Schema, check_assignable};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(JsonSchema, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Closed,
}

#[derive(JsonSchema, Deserialize)]
#[serde(deny_unknown_fields)]
struct Customer {
    name: String,
    #[serde(rename = "e-mail")]
    email: String,
}

/// An order as the shop returns it.
#[derive(JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Order {
    order_id: String,
    price: f64,
    quantity: u32,
    note: Option<String>,
    tags: Vec<String>,
    customer: Customer,
    status: Status,
}

#[derive(JsonSchema, Deserialize)]
struct Node {
    value: i32,
    children: Vec<Node>,
}

#[derive(JsonSchema, Deserialize)]
struct Tree {
    name: String,
    root: Node,
}

/// Variants with doc comments make schemars emit `oneOf` of constants.
#[derive(JsonSchema, Deserialize)]
enum Documented {
    /// The first.
    First,
    /// The second.
    #[serde(rename = "zweite")]
    Second,
}

#[derive(JsonSchema, Deserialize)]
enum WithData {
    Empty,
    Count(u32),
}

#[derive(JsonSchema, Deserialize)]
struct Settings {
    #[serde(default)]
    retries: u8,
    #[deprecated]
    legacy: Option<bool>,
    extra: BTreeMap<String, i16>,
}

fn order() -> Schema {
    Schema::of::<Order>().unwrap_or_else(|p| panic!("Order converts: {p}"))
}

#[test]
fn a_struct_converts_field_by_field() {
    let schema = order();
    assert_eq!(schema.types, Some(vec![JsonType::Object]));
    assert_eq!(
        schema.required,
        ["customer", "orderId", "price", "quantity", "status", "tags"]
    );
    // Without deny_unknown_fields schemars says nothing about other keys.
    assert_eq!(schema.additional_properties, None);

    let p = &schema.properties;
    assert_eq!(p["orderId"], Schema::string());
    assert_eq!(p["price"], Schema::number());
    let quantity = &p["quantity"];
    assert_eq!(quantity.types, Some(vec![JsonType::Integer]));
    assert_eq!(quantity.minimum, Some(0.into()));
    assert_eq!(quantity.maximum, Some(u32::MAX.into()));
    assert_eq!(quantity.format, None);
    assert_eq!(p["note"], Schema::string().nullable());
    assert_eq!(p["tags"], Schema::array(Schema::string()));
    assert_eq!(
        p["customer"],
        Schema::object([("e-mail", Schema::string()), ("name", Schema::string())])
    );
    assert_eq!(p["status"].types, Some(vec![JsonType::String]));
    assert_eq!(
        p["status"].enum_values,
        Some(vec![json!("open"), json!("closed")])
    );
}

#[test]
fn the_converted_order_schema_is_stable() {
    insta::assert_json_snapshot!(order());
}

#[test]
fn the_schema_agrees_with_serde_on_real_documents() {
    let compiled = CompiledSchema::new(&order()).unwrap_or_else(|p| panic!("{p}"));
    let good = json!({
        "orderId": "A-1", "price": 9.5, "quantity": 3, "note": null, "tags": ["x"],
        "customer": {"name": "Ada", "e-mail": "ada@example.com"}, "status": "open"
    });
    assert!(compiled.is_valid(&good));
    let parsed: Order = serde_json::from_value(good).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.customer.email, "ada@example.com");

    let bad = [
        // snake_case instead of the serde rename
        json!({"order_id": "A-1", "price": 1, "quantity": 1, "tags": [],
               "customer": {"name": "Ada", "e-mail": "a"}, "status": "open"}),
        // unknown key in a deny_unknown_fields struct
        json!({"orderId": "A-1", "price": 1, "quantity": 1, "tags": [],
               "customer": {"name": "Ada", "e-mail": "a", "age": 3}, "status": "open"}),
        // out of u32's range
        json!({"orderId": "A-1", "price": 1, "quantity": 4_294_967_296_u64, "tags": [],
               "customer": {"name": "Ada", "e-mail": "a"}, "status": "open"}),
        // not a variant
        json!({"orderId": "A-1", "price": 1, "quantity": 1, "tags": [],
               "customer": {"name": "Ada", "e-mail": "a"}, "status": "Open"}),
    ];
    for document in &bad {
        assert!(!compiled.is_valid(document), "{document}");
        assert!(serde_json::from_value::<Order>(document.clone()).is_err());
    }
}

#[test]
fn a_recursive_type_is_refused_with_its_pointer() {
    let problems = Schema::of::<Node>().unwrap_err();
    let problem = problems
        .iter()
        .find(|p| p.rule == Rule::UnsupportedRustType)
        .unwrap_or_else(|| panic!("{problems}"));
    assert_eq!(problem.pointer, "/properties/children/items/$ref");
    assert!(problem.message.contains("recursive type"), "{problem}");

    let problems = Schema::of::<Tree>().unwrap_err();
    assert!(
        problems.iter().all(|p| p.rule == Rule::UnsupportedRustType),
        "{problems}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.pointer == "/properties/root/properties/children/items/$ref"),
        "{problems}"
    );
}

#[test]
fn integer_widths_become_ranges_and_numeric_formats_go() {
    let range = |schema: Schema| (schema.minimum, schema.maximum, schema.format);
    assert_eq!(
        range(Schema::of::<u8>().unwrap()),
        (Some(0.into()), Some(255.into()), None)
    );
    assert_eq!(
        range(Schema::of::<i32>().unwrap()),
        (Some(i32::MIN.into()), Some(i32::MAX.into()), None)
    );
    assert_eq!(
        range(Schema::of::<u64>().unwrap()),
        (Some(0.into()), Some(u64::MAX.into()), None)
    );
    assert_eq!(
        range(Schema::of::<i64>().unwrap()),
        (Some(i64::MIN.into()), Some(i64::MAX.into()), None)
    );
    assert_eq!(range(Schema::of::<f32>().unwrap()), (None, None, None));
    let optional = Schema::of::<Option<u16>>().unwrap();
    assert_eq!(
        optional.types,
        Some(vec![JsonType::Integer, JsonType::Null])
    );
    assert_eq!(optional.maximum, Some(u16::MAX.into()));
}

#[test]
fn a_documented_unit_enum_becomes_an_enum() {
    let schema = Schema::of::<Documented>().unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(schema.any_of, None);
    assert_eq!(
        schema.enum_values,
        Some(vec![json!("First"), json!("zweite")])
    );
}

#[test]
fn an_enum_with_data_is_refused_naming_one_of() {
    let problems = Schema::of::<WithData>().unwrap_err();
    let problem = problems
        .iter()
        .next()
        .unwrap_or_else(|| panic!("no problem"));
    assert_eq!(problem.rule, Rule::UnsupportedRustType);
    assert_eq!(problem.pointer, "/oneOf");
    assert!(problem.message.contains("`oneOf`"), "{problem}");
}

#[test]
fn keywords_outside_the_subset_are_refused_with_their_pointer() {
    let sets = Schema::of::<HashSet<String>>().unwrap_err();
    let problem = sets.iter().next().unwrap_or_else(|| panic!("no problem"));
    assert_eq!(
        (problem.rule, problem.pointer.as_str()),
        (Rule::UnsupportedRustType, "/uniqueItems")
    );
    assert!(problem.message.contains("uniqueItems"), "{problem}");

    let tuples = Schema::of::<(String, u8)>().unwrap_err();
    assert!(
        tuples
            .iter()
            .any(|p| p.pointer == "/prefixItems" && p.rule == Rule::UnsupportedRustType),
        "{tuples}"
    );
}

#[test]
fn defaults_maps_and_annotations_are_kept_or_dropped_as_they_matter() {
    let schema = Schema::of::<Settings>().unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(schema.required, ["extra"]);
    assert_eq!(schema.properties["retries"].default, Some(json!(0)));
    // `deprecated` is an annotation outside the subset: dropped, not refused.
    assert_eq!(schema.properties["legacy"], Schema::boolean().nullable());
    let Some(Additional::Schema(values)) = &schema.properties["extra"].additional_properties else {
        panic!("a map's values have a schema");
    };
    assert_eq!(values.maximum, Some(i16::MAX.into()));
    assert_eq!(
        Schema::of::<serde_json::Value>().unwrap().types,
        None,
        "any JSON value"
    );
}

#[test]
fn derived_schemas_feed_the_assignability_check() {
    let small = Schema::of::<u8>().unwrap();
    let wide = Schema::of::<u32>().unwrap();
    assert_eq!(check_assignable(&small, &wide), Ok(()));
    let narrowing = check_assignable(&wide, &small).unwrap_err();
    assert_eq!(
        narrowing.to_string(),
        "(root): integer (minimum 0, maximum 4294967295) is not assignable to integer (minimum 0, maximum 255)"
    );
    let optional = check_assignable(
        &Schema::of::<Option<String>>().unwrap(),
        &Schema::of::<String>().unwrap(),
    )
    .unwrap_err();
    assert_eq!(
        optional.to_string(),
        "(root): null is not assignable to string"
    );
}

#[derive(JsonSchema, Deserialize)]
struct Optionals {
    kind: Option<Documented>,
    status: Option<Status>,
    customer: Option<Customer>,
}

#[test]
fn optional_enums_and_structs_stay_nullable() {
    let schema = Schema::of::<Optionals>().unwrap_or_else(|p| panic!("{p}"));
    let compiled = CompiledSchema::new(&schema).unwrap_or_else(|p| panic!("{p}"));
    for good in [
        json!({}),
        json!({"kind": null, "status": null, "customer": null}),
        json!({"kind": "zweite", "status": "closed", "customer": {"name": "Ada", "e-mail": "a"}}),
    ] {
        assert!(compiled.is_valid(&good), "{good}");
        assert!(serde_json::from_value::<Optionals>(good).is_ok());
    }
    for bad in [
        json!({"kind": "Second"}),
        json!({"status": "Open"}),
        json!({"customer": {"name": "Ada"}}),
    ] {
        assert!(!compiled.is_valid(&bad), "{bad}");
        assert!(serde_json::from_value::<Optionals>(bad).is_err());
    }
    let mismatch = check_assignable(&schema.properties["status"], &Schema::string()).unwrap_err();
    assert_eq!(
        mismatch.to_string(),
        "(root): null is not assignable to string"
    );
}

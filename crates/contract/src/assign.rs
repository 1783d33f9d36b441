// One file on purpose: the rules below are one recursive relation, and each rule sits beside
// the argument for its soundness; split, a rule could change without its argument.

//! Schema assignability: is every value valid under one schema also valid under another?
//!
//! The flow compiler asks this of every wire: can the output of one step always be fed to the
//! input slot of the next? [`check_assignable`] is **sound**: it never answers yes when some
//! value valid under the source is invalid under the target. Where the question is hard
//! (different regular expressions, an unbounded number into an enum, …) it answers no, and
//! explains the first mismatch by path.
//!
//! How the check works, and why each step is sound:
//!
//! - A target that constrains nothing accepts everything.
//! - A source with finitely many values (`const`, `enum`, `boolean`, `null`) is checked
//!   exactly: each of its values is validated against the target.
//! - A source `anyOf` fits when every branch fits; the source's sibling keywords are folded
//!   into each branch where that is easy and dropped otherwise (dropping a constraint only
//!   makes the source larger, so a yes stays true).
//! - A source admitting several types is split into one part per type; each must fit.
//! - A target `anyOf` accepts a single-typed source that fits its sibling keywords and at
//!   least one branch.
//! - Otherwise the type must be admitted, and every constraint of the target must be implied
//!   by one of the source: bounds at least as tight, the same `pattern`, the same `format`,
//!   every required key required, every key's schema assignable.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Number, Value};

use crate::problem::push_pointer;
use crate::schema::{Additional, JsonType, Schema};
use crate::validate::CompiledSchema;

/// One step of the path to a mismatch, from the root of the value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// The value of a named object key.
    Key(String),
    /// Every item of an array (shown as `[]`).
    Items,
    /// Every object key not named in `properties` (shown as `*`).
    OtherKeys,
}

/// Why a source schema is not assignable to a target schema: the first mismatch found.
///
/// Displays as `path: reason`, for example `price: number is not assignable to string`,
/// `tags[]: null is not assignable to string` or `(root): any is not assignable to number`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {reason}", display_path(.path))]
pub struct Mismatch {
    /// Where, from the root of the value; empty for the root itself.
    pub path: Vec<PathSegment>,
    /// What does not fit, for a person.
    pub reason: String,
}

impl Mismatch {
    fn at(path: &[PathSegment], reason: impl Into<String>) -> Mismatch {
        Mismatch {
            path: path.to_vec(),
            reason: reason.into(),
        }
    }

    /// The path as a JSON pointer (RFC 6901) into the value: `""` for the root, `/price`,
    /// `/user/email`. Paths that stand for many locations use the token `*`: every item of an
    /// array (`/tags/*`) or every key not named in `properties` (`/meta/*`).
    pub fn pointer(&self) -> String {
        self.path
            .iter()
            .fold(String::new(), |pointer, segment| match segment {
                PathSegment::Key(key) => push_pointer(&pointer, key),
                PathSegment::Items | PathSegment::OtherKeys => push_pointer(&pointer, "*"),
            })
    }

    /// The path as shown in the message: `(root)`, `price`, `user.email`, `tags[]`, `meta.*`.
    pub fn path_text(&self) -> String {
        display_path(&self.path)
    }
}

fn display_path(path: &[PathSegment]) -> String {
    if path.is_empty() {
        return "(root)".to_owned();
    }
    let mut text = String::new();
    for segment in path {
        match segment {
            PathSegment::Items => text.push_str("[]"),
            PathSegment::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            PathSegment::OtherKeys => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push('*');
            }
        }
    }
    text
}

impl fmt::Display for PathSegment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&display_path(std::slice::from_ref(self)))
    }
}

/// Whether every value valid under `source` is also valid under `target`.
///
/// Sound: `Ok(())` is a guarantee. `Err` explains the first mismatch found; it may also mean
/// the check could not prove the answer (for example two different `pattern`s), never that a
/// wrong yes was given. Annotations (`title`, `description`, `default`, `examples`) play no part.
///
/// ```
/// use browserflow_contract::{Schema, check_assignable};
/// use serde_json::json;
///
/// let source = Schema::from_json(&json!({
///     "type": "object",
///     "properties": {"price": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}},
///     "required": ["price", "tags"]
/// })).unwrap();
/// let wants_string_price = Schema::from_json(&json!({
///     "type": "object",
///     "properties": {"price": {"type": "string"}},
///     "required": ["price"]
/// })).unwrap();
///
/// let mismatch = check_assignable(&source, &wants_string_price).unwrap_err();
/// assert_eq!(mismatch.to_string(), "price: number is not assignable to string");
/// assert_eq!(mismatch.pointer(), "/price");
///
/// // Integers are numbers; a number is not necessarily an integer.
/// assert!(check_assignable(&Schema::integer(), &Schema::number()).is_ok());
/// assert!(check_assignable(&Schema::number(), &Schema::integer()).is_err());
/// ```
pub fn check_assignable(source: &Schema, target: &Schema) -> Result<(), Mismatch> {
    check(source, target, &mut Vec::new())
}

fn check(source: &Schema, target: &Schema, path: &mut Vec<PathSegment>) -> Result<(), Mismatch> {
    if is_unconstrained(target) {
        return Ok(());
    }
    if source.types.as_ref().is_some_and(Vec::is_empty) {
        // No value has no type: an empty type list admits nothing, and nothing fits anywhere.
        return Ok(());
    }
    if let Some(values) = finite_values(source) {
        return check_values(source, &values, target, path);
    }
    if let Some(branches) = &source.any_of {
        let siblings = without_any_of(source);
        for branch in branches {
            check(&fold_into(&siblings, branch), target, path)?;
        }
        return Ok(());
    }
    match source.types.as_deref() {
        None => {
            if let Some(types) = &target.types
                && !admits_every_type(types)
            {
                return Err(Mismatch::at(
                    path,
                    format!("any is not assignable to {}", target.describe()),
                ));
            }
            // Number covers integer, so these six parts cover every value.
            for t in JsonType::ALL
                .into_iter()
                .filter(|t| *t != JsonType::Integer)
            {
                check(&restricted_to(source, t), target, path)?;
            }
            Ok(())
        }
        Some([single]) => check_single_type(source, *single, target, path),
        Some(types) => {
            for t in types {
                check(&restricted_to(source, *t), target, path)?;
            }
            Ok(())
        }
    }
}

/// `source` admits exactly one type, `t`, and has no `anyOf`, and is not finite.
fn check_single_type(
    source: &Schema,
    t: JsonType,
    target: &Schema,
    path: &mut Vec<PathSegment>,
) -> Result<(), Mismatch> {
    if let Some(branches) = &target.any_of {
        let siblings = without_any_of(target);
        check(source, &siblings, path)?;
        let mut candidates = Vec::new();
        for branch in branches {
            match check(source, branch, path) {
                Ok(()) => return Ok(()),
                Err(mismatch) => {
                    if branch
                        .types
                        .as_ref()
                        .is_none_or(|types| type_admits(types, t))
                    {
                        candidates.push(mismatch);
                    }
                }
            }
        }
        // One branch of the right type: its own explanation is the most useful one.
        if candidates.len() == 1
            && let Some(only) = candidates.pop()
        {
            return Err(only);
        }
        return Err(Mismatch::at(
            path,
            format!("{t} is not assignable to {}", target.describe()),
        ));
    }
    if let Some(types) = &target.types
        && !type_admits(types, t)
    {
        return Err(Mismatch::at(
            path,
            format!("{t} is not assignable to {}", target.describe()),
        ));
    }
    if target.enum_values.is_some() || target.const_value.is_some() {
        return Err(Mismatch::at(
            path,
            format!(
                "{} is not assignable to {}",
                describe_part(source, t),
                target.describe()
            ),
        ));
    }
    match t {
        JsonType::Integer | JsonType::Number => check_numbers(source, t, target, path),
        JsonType::String => check_strings(source, target, path),
        JsonType::Array => check_arrays(source, target, path),
        JsonType::Object => check_objects(source, target, path),
        // Booleans and null are finite and checked value by value before this point.
        JsonType::Boolean | JsonType::Null => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Finite sources
// ---------------------------------------------------------------------------------------------

/// The values of a source with finitely many, or `None`. May list values the source rejects
/// (they are filtered out by validation later), never omits one it accepts.
fn finite_values(source: &Schema) -> Option<Vec<Value>> {
    if let Some(value) = &source.const_value {
        return Some(vec![value.clone()]);
    }
    if let Some(values) = &source.enum_values {
        return Some(values.clone());
    }
    if let Some(types) = &source.types
        && types
            .iter()
            .all(|t| matches!(t, JsonType::Boolean | JsonType::Null))
    {
        let mut values = Vec::new();
        if types.contains(&JsonType::Boolean) {
            values.extend([Value::Bool(false), Value::Bool(true)]);
        }
        if types.contains(&JsonType::Null) {
            values.push(Value::Null);
        }
        return Some(values);
    }
    if let Some(branches) = &source.any_of {
        let mut values: Vec<Value> = Vec::new();
        for branch in branches {
            for value in finite_values(branch)? {
                if !values.contains(&value) {
                    values.push(value);
                }
            }
        }
        return Some(values);
    }
    None
}

fn check_values(
    source: &Schema,
    candidates: &[Value],
    target: &Schema,
    path: &[PathSegment],
) -> Result<(), Mismatch> {
    let target_compiled = CompiledSchema::new(target).map_err(|problems| {
        Mismatch::at(
            path,
            format!("the target schema cannot be used for checking: {problems}"),
        )
    })?;
    // Without a compiled source every candidate is checked: more values, still sound.
    let source_compiled = CompiledSchema::new(source).ok();
    let lists_values = source.const_value.is_some() || source.enum_values.is_some();
    for value in candidates {
        if source_compiled
            .as_ref()
            .is_some_and(|compiled| !compiled.is_valid(value))
        {
            continue;
        }
        if !target_compiled.is_valid(value) {
            let shown = match value {
                Value::Null => "null".to_owned(),
                Value::Bool(_) if !lists_values => "boolean".to_owned(),
                other => other.to_string(),
            };
            return Err(Mismatch::at(
                path,
                format!("{shown} is not assignable to {}", target.describe()),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/// A JSON number, compared exactly (no rounding through `f64` for large integers).
#[derive(Debug, Clone, Copy)]
enum Exact {
    Int(i128),
    Float(f64),
}

impl Exact {
    fn of(n: &Number) -> Exact {
        if let Some(i) = n.as_i64() {
            Exact::Int(i128::from(i))
        } else if let Some(u) = n.as_u64() {
            Exact::Int(i128::from(u))
        } else {
            Exact::Float(n.as_f64().unwrap_or(f64::NAN))
        }
    }

    /// `None` when unsure (NaN): callers then answer no.
    fn compare(self, other: Exact) -> Option<Ordering> {
        match (self, other) {
            (Exact::Int(a), Exact::Int(b)) => Some(a.cmp(&b)),
            (Exact::Float(a), Exact::Float(b)) => a.partial_cmp(&b),
            (Exact::Int(a), Exact::Float(b)) => int_cmp_float(a, b),
            (Exact::Float(a), Exact::Int(b)) => int_cmp_float(b, a).map(Ordering::reverse),
        }
    }

    /// The least integer `>= self` (`ceil`), when representable.
    fn ceil(self) -> Option<i128> {
        match self {
            Exact::Int(i) => Some(i),
            Exact::Float(f) => float_to_int(f.ceil()),
        }
    }

    /// The greatest integer `<= self` (`floor`), when representable.
    fn floor(self) -> Option<i128> {
        match self {
            Exact::Int(i) => Some(i),
            Exact::Float(f) => float_to_int(f.floor()),
        }
    }
}

/// 2^126: integral floats below this in magnitude convert to `i128` exactly, with room for ±1.
const SAFE_FLOAT: f64 = 85_070_591_730_234_615_865_843_651_857_942_052_864.0;

fn float_to_int(integral: f64) -> Option<i128> {
    // The cast is exact: `integral` has no fractional part and is well inside i128's range.
    (integral.is_finite() && integral.abs() < SAFE_FLOAT).then_some(integral as i128)
}

fn int_cmp_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f >= SAFE_FLOAT {
        return Some(Ordering::Less);
    }
    if f <= -SAFE_FLOAT {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    let floor_int = floor as i128;
    Some(match i.cmp(&floor_int) {
        Ordering::Equal if f != floor => Ordering::Less,
        other => other,
    })
}

/// One side of a numeric range: `value` itself included or not.
#[derive(Debug, Clone, Copy)]
struct Bound {
    value: Exact,
    inclusive: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Lower,
    Upper,
}

fn bounds(schema: &Schema, side: Side) -> Vec<Bound> {
    let (inclusive, exclusive) = match side {
        Side::Lower => (&schema.minimum, &schema.exclusive_minimum),
        Side::Upper => (&schema.maximum, &schema.exclusive_maximum),
    };
    let mut out = Vec::new();
    if let Some(n) = inclusive {
        out.push(Bound {
            value: Exact::of(n),
            inclusive: true,
        });
    }
    if let Some(n) = exclusive {
        out.push(Bound {
            value: Exact::of(n),
            inclusive: false,
        });
    }
    out
}

/// For integer values, every bound is equivalent to an inclusive integer bound:
/// `x > 0.5` is `x >= 1`, `x < 3` is `x <= 2`. Left as is when not representable.
fn integral_bound(bound: Bound, side: Side) -> Bound {
    let tightened = match (side, bound.inclusive) {
        (Side::Lower, true) => bound.value.ceil(),
        (Side::Lower, false) => bound.value.floor().and_then(|v| v.checked_add(1)),
        (Side::Upper, true) => bound.value.floor(),
        (Side::Upper, false) => bound.value.ceil().and_then(|v| v.checked_sub(1)),
    };
    match tightened {
        Some(v) => Bound {
            value: Exact::Int(v),
            inclusive: true,
        },
        None => bound,
    }
}

/// Whether every `x` within the source bound is within the target bound.
fn implies(source: Bound, target: Bound, side: Side) -> bool {
    let Some(order) = source.value.compare(target.value) else {
        return false;
    };
    // Orient so that "greater" means "tighter" on both sides.
    let order = match side {
        Side::Lower => order,
        Side::Upper => order.reverse(),
    };
    match order {
        Ordering::Greater => true,
        // Equal values: only `x >= v` fails to imply `x > v`.
        Ordering::Equal => !source.inclusive || target.inclusive,
        Ordering::Less => false,
    }
}

fn check_numbers(
    source: &Schema,
    t: JsonType,
    target: &Schema,
    path: &[PathSegment],
) -> Result<(), Mismatch> {
    for side in [Side::Lower, Side::Upper] {
        let normalise = |b: Bound| {
            if t == JsonType::Integer {
                integral_bound(b, side)
            } else {
                b
            }
        };
        let source_bounds: Vec<Bound> = bounds(source, side).into_iter().map(normalise).collect();
        for wanted in bounds(target, side).into_iter().map(normalise) {
            if !source_bounds
                .iter()
                .any(|have| implies(*have, wanted, side))
            {
                return Err(constraint_mismatch(source, t, target, path));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strings and arrays
// ---------------------------------------------------------------------------------------------

fn check_strings(source: &Schema, target: &Schema, path: &[PathSegment]) -> Result<(), Mismatch> {
    let fits = target
        .min_length
        .is_none_or(|min| source.min_length.unwrap_or(0) >= min)
        && target
            .max_length
            .is_none_or(|max| source.max_length.is_some_and(|have| have <= max))
        // Whether one regular expression implies another is not decidable here: only the
        // very same pattern is known to hold.
        && target
            .pattern
            .as_ref()
            .is_none_or(|pattern| source.pattern.as_ref() == Some(pattern))
        && target.format.is_none_or(|f| source.format == Some(f));
    if fits {
        Ok(())
    } else {
        Err(constraint_mismatch(source, JsonType::String, target, path))
    }
}

fn check_arrays(
    source: &Schema,
    target: &Schema,
    path: &mut Vec<PathSegment>,
) -> Result<(), Mismatch> {
    let counts_fit = target
        .min_items
        .is_none_or(|min| source.min_items.unwrap_or(0) >= min)
        && target
            .max_items
            .is_none_or(|max| source.max_items.is_some_and(|have| have <= max));
    if !counts_fit {
        return Err(constraint_mismatch(source, JsonType::Array, target, path));
    }
    let always_empty = source.max_items == Some(0);
    if let Some(target_items) = &target.items
        && !always_empty
    {
        let any = Schema::any();
        let source_items = source.items.as_deref().unwrap_or(&any);
        path.push(PathSegment::Items);
        let result = check(source_items, target_items, path);
        path.pop();
        result?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------

/// The schema an object's value for one key must match; `None` when the key cannot occur.
fn key_schema<'a>(schema: &'a Schema, key: &str, any: &'a Schema) -> Option<&'a Schema> {
    match schema.properties.get(key) {
        Some(property) => Some(property),
        None => other_keys_schema(schema, any),
    }
}

/// The schema of keys not named in `properties`; `None` when they are forbidden.
fn other_keys_schema<'a>(schema: &'a Schema, any: &'a Schema) -> Option<&'a Schema> {
    match &schema.additional_properties {
        None | Some(Additional::Any) => Some(any),
        Some(Additional::Forbidden) => None,
        Some(Additional::Schema(s)) => Some(s),
    }
}

fn check_objects(
    source: &Schema,
    target: &Schema,
    path: &mut Vec<PathSegment>,
) -> Result<(), Mismatch> {
    let any = Schema::any();
    for key in &target.required {
        if !source.required.contains(key) {
            path.push(PathSegment::Key(key.clone()));
            let mismatch = Mismatch::at(
                path,
                "may be missing, but the target requires it".to_owned(),
            );
            path.pop();
            return Err(mismatch);
        }
    }
    let named: BTreeSet<&String> = source
        .properties
        .keys()
        .chain(target.properties.keys())
        .collect();
    for key in named {
        let Some(from) = key_schema(source, key, &any) else {
            continue;
        };
        path.push(PathSegment::Key(key.clone()));
        let result = match key_schema(target, key, &any) {
            Some(to) => check(from, to, path),
            None => Err(Mismatch::at(
                path,
                "the source allows this key, the target does not",
            )),
        };
        path.pop();
        result?;
    }
    let Some(from) = other_keys_schema(source, &any) else {
        return Ok(());
    };
    match other_keys_schema(target, &any) {
        None => Err(Mismatch::at(
            path,
            "the source allows keys the target does not list, and the target forbids other keys",
        )),
        Some(to) => {
            path.push(PathSegment::OtherKeys);
            let result = check(from, to, path);
            path.pop();
            result
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Schema helpers
// ---------------------------------------------------------------------------------------------

/// Whether a schema admits every value (it may still carry annotations).
fn is_unconstrained(schema: &Schema) -> bool {
    let siblings_free = schema.types.is_none()
        && schema.properties.is_empty()
        && schema.required.is_empty()
        && match &schema.additional_properties {
            None | Some(Additional::Any) => true,
            Some(Additional::Forbidden) => false,
            Some(Additional::Schema(s)) => is_unconstrained(s),
        }
        && schema.items.as_deref().is_none_or(is_unconstrained)
        && schema.enum_values.is_none()
        && schema.const_value.is_none()
        && schema.format.is_none()
        && schema.minimum.is_none()
        && schema.maximum.is_none()
        && schema.exclusive_minimum.is_none()
        && schema.exclusive_maximum.is_none()
        && schema.min_length.is_none()
        && schema.max_length.is_none()
        && schema.pattern.is_none()
        && schema.min_items.is_none()
        && schema.max_items.is_none();
    siblings_free
        && schema
            .any_of
            .as_ref()
            .is_none_or(|branches| branches.iter().any(is_unconstrained))
}

/// Whether a `type` list admits every value.
fn admits_every_type(types: &[JsonType]) -> bool {
    JsonType::ALL
        .into_iter()
        .filter(|t| *t != JsonType::Integer)
        .all(|t| types.contains(&t))
}

/// Whether a `type` list admits every value of type `t`.
fn type_admits(types: &[JsonType], t: JsonType) -> bool {
    types.contains(&t) || (t == JsonType::Integer && types.contains(&JsonType::Number))
}

fn without_any_of(schema: &Schema) -> Schema {
    Schema {
        any_of: None,
        ..schema.clone()
    }
}

fn restricted_to(schema: &Schema, t: JsonType) -> Schema {
    Schema {
        types: Some(vec![t]),
        ..schema.clone()
    }
}

/// A schema admitting at least every value that matches both `siblings` and `branch`: the
/// branch, plus those sibling keywords that can be added without changing its meaning.
/// A sibling keyword the branch also has is kept only where the two combine exactly
/// (`type`, `required`); otherwise the branch's is kept, which only admits more.
fn fold_into(siblings: &Schema, branch: &Schema) -> Schema {
    let mut out = branch.clone();
    out.types = match (&siblings.types, &branch.types) {
        (None, types) | (types, None) => types.clone(),
        (Some(a), Some(b)) => Some(intersect_types(a, b)),
    };
    for key in &siblings.required {
        if !out.required.contains(key) {
            out.required.push(key.clone());
        }
    }
    out.required.sort();
    for (key, property) in &siblings.properties {
        out.properties
            .entry(key.clone())
            .or_insert_with(|| property.clone());
    }
    // `additionalProperties` covers the keys outside the `properties` of its own schema
    // object. The merged `properties` contains both, so either side's rule still holds for
    // every key it reaches.
    if out.additional_properties.is_none() {
        out.additional_properties = siblings.additional_properties.clone();
    }
    fill(&mut out.items, &siblings.items);
    fill(&mut out.enum_values, &siblings.enum_values);
    fill(&mut out.const_value, &siblings.const_value);
    fill(&mut out.format, &siblings.format);
    fill(&mut out.minimum, &siblings.minimum);
    fill(&mut out.maximum, &siblings.maximum);
    fill(&mut out.exclusive_minimum, &siblings.exclusive_minimum);
    fill(&mut out.exclusive_maximum, &siblings.exclusive_maximum);
    fill(&mut out.min_length, &siblings.min_length);
    fill(&mut out.max_length, &siblings.max_length);
    fill(&mut out.pattern, &siblings.pattern);
    fill(&mut out.min_items, &siblings.min_items);
    fill(&mut out.max_items, &siblings.max_items);
    out
}

fn fill<T: Clone>(slot: &mut Option<T>, from: &Option<T>) {
    if slot.is_none() {
        slot.clone_from(from);
    }
}

/// The types admitted by both lists (`integer` is what `integer` and `number` share).
fn intersect_types(a: &[JsonType], b: &[JsonType]) -> Vec<JsonType> {
    let mut out: Vec<JsonType> = JsonType::ALL
        .into_iter()
        .filter(|t| type_admits(a, *t) && type_admits(b, *t))
        .collect();
    if out.contains(&JsonType::Number) {
        // `number` already admits every integer.
        out.retain(|t| *t != JsonType::Integer);
    }
    out
}

fn constraint_mismatch(
    source: &Schema,
    t: JsonType,
    target: &Schema,
    path: &[PathSegment],
) -> Mismatch {
    Mismatch::at(
        path,
        format!(
            "{} is not assignable to {}",
            describe_part(source, t),
            describe_part(target, as_target_sees(target, t))
        ),
    )
}

/// The type name the target gives values of type `t`: `number` for an integer in a number slot.
fn as_target_sees(target: &Schema, t: JsonType) -> JsonType {
    match &target.types {
        Some(types) if t == JsonType::Integer && !types.contains(&t) => JsonType::Number,
        _ => t,
    }
}

/// `t` and the keywords of `schema` that constrain values of type `t`, for messages:
/// `string (maxLength 10, pattern ^a)`, `integer (minimum 1)`.
fn describe_part(schema: &Schema, t: JsonType) -> String {
    let mut parts: Vec<String> = Vec::new();
    match t {
        JsonType::Integer | JsonType::Number => {
            let numbers = [
                ("minimum", &schema.minimum),
                ("exclusiveMinimum", &schema.exclusive_minimum),
                ("maximum", &schema.maximum),
                ("exclusiveMaximum", &schema.exclusive_maximum),
            ];
            for (name, value) in numbers {
                if let Some(n) = value {
                    parts.push(format!("{name} {n}"));
                }
            }
        }
        JsonType::String => {
            if let Some(n) = schema.min_length {
                parts.push(format!("minLength {n}"));
            }
            if let Some(n) = schema.max_length {
                parts.push(format!("maxLength {n}"));
            }
            if let Some(p) = &schema.pattern {
                parts.push(format!("pattern {p}"));
            }
            if let Some(f) = schema.format {
                parts.push(format!("format {f}"));
            }
        }
        JsonType::Array => {
            if let Some(n) = schema.min_items {
                parts.push(format!("minItems {n}"));
            }
            if let Some(n) = schema.max_items {
                parts.push(format!("maxItems {n}"));
            }
        }
        JsonType::Object | JsonType::Boolean | JsonType::Null => {}
    }
    if parts.is_empty() {
        t.to_string()
    } else {
        format!("{t} ({})", parts.join(", "))
    }
}

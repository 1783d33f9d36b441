//! `ToolContract`, `InputDecl` and the rules that span fields (the kind rules among them).

use std::str::FromStr;

use serde_json::{Map, Value};

use crate::Capability;
use crate::Kind;
use crate::fields::Fields;
use crate::names::ToolName;
use crate::problem::{Problem, Problems, Rule, push_pointer};
use crate::schema::Schema;

/// One declared input slot. A `secret: true` slot never leaves the run boundary: it is
/// carried as a reference and resolved only inside a tool holding `secrets`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct InputDecl {
    /// The slot name: non-empty, unique within the contract.
    pub name: String,
    /// The slot's type.
    pub schema: Schema,
    /// Whether the slot carries a secret.
    pub secret: bool,
}

impl InputDecl {
    /// A non-secret slot.
    pub fn new(name: impl Into<String>, schema: Schema) -> InputDecl {
        InputDecl {
            name: name.into(),
            schema,
            secret: false,
        }
    }

    /// A secret slot.
    pub fn secret(name: impl Into<String>, schema: Schema) -> InputDecl {
        InputDecl {
            secret: true,
            ..InputDecl::new(name, schema)
        }
    }

    pub(crate) fn parse(value: &Value, pointer: &str, out: &mut Vec<Problem>) -> InputDecl {
        let mut fields = Fields::open(value, pointer, "an input declaration", out);
        let name = fields
            .string("name", out)
            .map(|(name, _)| name)
            .unwrap_or_default();
        let schema = fields
            .take("schema", out)
            .map(|(v, at)| Schema::parse_nested(v, &at, out))
            .unwrap_or_default();
        let secret = fields.boolean("secret", out).unwrap_or(false);
        fields.reject_unknown(out);
        InputDecl {
            name,
            schema,
            secret,
        }
    }
}

/// A tool's interface: what it takes, what it returns, which effects it may use.
///
/// Construct with [`ToolContract::new`] or parse with [`ToolContract::from_json`]; both check
/// every rule, so a `ToolContract` value is always valid.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolContract {
    name: ToolName,
    version: semver::Version,
    kind: Kind,
    description: String,
    inputs: Vec<InputDecl>,
    output: Schema,
    capabilities: Vec<Capability>,
}

/// The parts of a contract, for [`ToolContract::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct ContractParts {
    /// Tool name: lowercase letters, digits, `-`, `.`, `/`.
    pub name: String,
    /// Semver version.
    pub version: String,
    /// Kind.
    pub kind: Kind,
    /// What the tool does, for people.
    pub description: String,
    /// Input slots.
    pub inputs: Vec<InputDecl>,
    /// Output schema.
    pub output: Schema,
    /// Declared capabilities.
    pub capabilities: Vec<Capability>,
}

const CONTRACT_FIELDS: &str = "a tool contract";

impl ToolContract {
    /// Builds a contract, checking every rule.
    pub fn new(parts: ContractParts) -> Result<ToolContract, Problems> {
        let mut problems = Vec::new();
        let name = ToolName::check(&parts.name, "/name", &mut problems);
        let version = parse_version(&parts.version, "/version", &mut problems);
        for (i, input) in parts.inputs.iter().enumerate() {
            let at = push_pointer(&push_pointer("/inputs", &i.to_string()), "schema");
            problems.extend(input.schema.annotation_problems(&at));
        }
        problems.extend(parts.output.annotation_problems("/output"));
        check_rules(
            "",
            Some(parts.kind),
            &parts.inputs,
            &parts.capabilities,
            &mut problems,
        );
        Problems::check(problems)?;
        match (name, version) {
            (Some(name), Some(version)) => Ok(assemble(
                name,
                version,
                parts.kind,
                parts.description,
                parts.inputs,
                parts.output,
                parts.capabilities,
            )),
            _ => unreachable!("a bad name or version always leaves a problem"),
        }
    }

    /// Parses a contract from JSON text, reporting every problem with its JSON pointer.
    pub fn from_json_str(text: &str) -> Result<ToolContract, Problems> {
        let value =
            crate::json::parse_json_str(text).map_err(|e| Problems(vec![e.to_problem()]))?;
        ToolContract::from_json(&value)
    }

    /// Reads the contract of a document that is either a contract itself or a tool file with
    /// a top-level `contract` object (problems are then located under `/contract`). Only the
    /// contract is checked; the rest of a tool file belongs to the crate of its kind.
    pub fn from_document(value: &Value) -> Result<ToolContract, Problems> {
        match value.get("contract") {
            Some(inner) if value.get("kind").is_none() => {
                let mut out = Vec::new();
                let contract = ToolContract::parse_nested(inner, "/contract", &mut out);
                match contract {
                    Some(c) if out.is_empty() => Ok(c),
                    _ => Err(Problems(out)),
                }
            }
            _ => ToolContract::from_json(value),
        }
    }

    /// Parses a contract from a JSON value, reporting every problem with its JSON pointer.
    pub fn from_json(value: &Value) -> Result<ToolContract, Problems> {
        let mut out = Vec::new();
        let contract = ToolContract::parse_nested(value, "", &mut out);
        match contract {
            Some(c) if out.is_empty() => Ok(c),
            _ => Err(Problems(out)),
        }
    }

    /// Parses a contract nested in a larger document at `pointer`; `None` and problems in
    /// `out` when it is not valid.
    pub fn parse_nested(
        value: &Value,
        pointer: &str,
        out: &mut Vec<Problem>,
    ) -> Option<ToolContract> {
        let before = out.len();
        let mut fields = Fields::open(value, pointer, CONTRACT_FIELDS, out);
        let name = fields
            .string("name", out)
            .and_then(|(s, at)| ToolName::check(&s, &at, out));
        let version = fields
            .string("version", out)
            .and_then(|(s, at)| parse_version(&s, &at, out));
        let kind = fields.parsed::<Kind>("kind", out);
        let description = fields
            .string("description", out)
            .map(|(description, _)| description)
            .unwrap_or_default();
        let inputs = fields
            .array("inputs", out)
            .map(|(items, at)| {
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| InputDecl::parse(v, &push_pointer(&at, &i.to_string()), out))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let output = fields
            .take("output", out)
            .map(|(v, at)| Schema::parse_nested(v, &at, out))
            .unwrap_or_default();
        let capabilities = fields
            .array("capabilities", out)
            .map(|(items, at)| {
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| {
                        let item_at = push_pointer(&at, &i.to_string());
                        parse_string_enum::<Capability>(v, &item_at, out)
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        fields.reject_unknown(out);
        check_rules(pointer, kind, &inputs, &capabilities, out);
        match (name, version, kind) {
            (Some(name), Some(version), Some(kind)) if out.len() == before => Some(assemble(
                name,
                version,
                kind,
                description,
                inputs,
                output,
                capabilities,
            )),
            _ => None,
        }
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }

    /// The version.
    pub fn version(&self) -> &semver::Version {
        &self.version
    }

    /// `name@version`.
    pub fn reference(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The input slots, in declaration order.
    pub fn inputs(&self) -> &[InputDecl] {
        &self.inputs
    }

    /// The slot named `name`.
    pub fn input(&self, name: &str) -> Option<&InputDecl> {
        self.inputs.iter().find(|i| i.name == name)
    }

    /// The output schema.
    pub fn output(&self) -> &Schema {
        &self.output
    }

    /// The declared capabilities, sorted.
    pub fn capabilities(&self) -> &[Capability] {
        &self.capabilities
    }

    /// Whether the contract declares `capability`.
    pub fn has(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }

    /// Whether the tool is pure: it declares no capability, so it may be re-run freely.
    pub fn is_pure(&self) -> bool {
        self.capabilities.is_empty()
    }

    /// The object schema of the whole input: every slot a property, slots with a `default`
    /// optional, no other key.
    pub fn input_schema(&self) -> Schema {
        let mut schema = Schema::object(
            self.inputs
                .iter()
                .map(|i| (i.name.as_str(), i.schema.clone())),
        );
        schema
            .required
            .retain(|name| self.input(name).is_some_and(|i| i.schema.default.is_none()));
        schema
    }

    /// Pretty JSON with stable key order, as written to disk.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("name".into(), Value::String(self.name.to_string()));
        map.insert("version".into(), Value::String(self.version.to_string()));
        map.insert("kind".into(), Value::String(self.kind.as_str().into()));
        map.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        map.insert(
            "inputs".into(),
            Value::Array(self.inputs.iter().map(input_json).collect()),
        );
        map.insert("output".into(), self.output.to_json());
        map.insert(
            "capabilities".into(),
            Value::Array(
                self.capabilities
                    .iter()
                    .map(|c| Value::String(c.as_str().into()))
                    .collect(),
            ),
        );
        Value::Object(map)
    }
}

impl<'de> serde::Deserialize<'de> for ToolContract {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ToolContract::from_json(&value).map_err(serde::de::Error::custom)
    }
}

impl<'de> serde::Deserialize<'de> for InputDecl {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let mut out = Vec::new();
        let decl = InputDecl::parse(&value, "", &mut out);
        Problems::check(out).map_err(serde::de::Error::custom)?;
        Ok(decl)
    }
}

pub(crate) fn input_json(input: &InputDecl) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), Value::String(input.name.clone()));
    map.insert("schema".into(), input.schema.to_json());
    map.insert("secret".into(), Value::Bool(input.secret));
    Value::Object(map)
}

fn assemble(
    name: ToolName,
    version: semver::Version,
    kind: Kind,
    description: String,
    inputs: Vec<InputDecl>,
    output: Schema,
    mut capabilities: Vec<Capability>,
) -> ToolContract {
    capabilities.sort();
    ToolContract {
        name,
        version,
        kind,
        description,
        inputs,
        output,
        capabilities,
    }
}

/// Every rule that spans fields: unique non-empty slots, no duplicate capability, the kind rules.
fn check_rules(
    pointer: &str,
    kind: Option<Kind>,
    inputs: &[InputDecl],
    capabilities: &[Capability],
    out: &mut Vec<Problem>,
) {
    check_slots(pointer, inputs, out);
    check_capability_list(pointer, capabilities, out);
    if let Some(kind) = kind {
        check_kind_rules(pointer, kind, inputs, capabilities, out);
    }
}

fn parse_version(text: &str, pointer: &str, out: &mut Vec<Problem>) -> Option<semver::Version> {
    match semver::Version::parse(text) {
        Ok(v) => Some(v),
        Err(e) => {
            out.push(Problem::new(
                pointer,
                Rule::InvalidVersion,
                format!("`{text}` is not a semver version (like 1.2.0): {e}"),
            ));
            None
        }
    }
}

pub(crate) fn parse_string_enum<T: FromStr<Err = String>>(
    value: &Value,
    pointer: &str,
    out: &mut Vec<Problem>,
) -> Option<T> {
    match value {
        Value::String(s) => match s.parse() {
            Ok(v) => Some(v),
            Err(message) => {
                out.push(Problem::new(pointer, Rule::UnknownVariant, message));
                None
            }
        },
        other => {
            out.push(crate::schema::wrong_type(pointer, "a string", other));
            None
        }
    }
}

fn check_capability_list(pointer: &str, capabilities: &[Capability], out: &mut Vec<Problem>) {
    for (i, c) in capabilities.iter().enumerate() {
        if capabilities[..i].contains(c) {
            out.push(Problem::new(
                push_pointer(&push_pointer(pointer, "capabilities"), &i.to_string()),
                Rule::DuplicateCapability,
                format!("capability `{c}` is listed twice"),
            ));
        }
    }
}

fn check_slots(pointer: &str, inputs: &[InputDecl], out: &mut Vec<Problem>) {
    let inputs_at = push_pointer(pointer, "inputs");
    for (i, input) in inputs.iter().enumerate() {
        let at = push_pointer(&push_pointer(&inputs_at, &i.to_string()), "name");
        if input.name.is_empty() {
            out.push(Problem::new(
                at,
                Rule::EmptySlotName,
                "an input slot needs a non-empty name",
            ));
        } else if inputs[..i].iter().any(|other| other.name == input.name) {
            out.push(Problem::new(
                at,
                Rule::DuplicateSlot,
                format!("input slot `{}` is declared twice", input.name),
            ));
        }
    }
}

/// The kind rules: each kind needs (or refuses) certain capabilities.
fn check_kind_rules(
    pointer: &str,
    kind: Kind,
    inputs: &[InputDecl],
    capabilities: &[Capability],
    out: &mut Vec<Problem>,
) {
    let has = |c: Capability| capabilities.contains(&c);
    let at = push_pointer(pointer, "capabilities");
    let mut broken = |rule: Rule, message: String| {
        out.push(Problem::new(at.clone(), rule, message));
    };
    match kind {
        Kind::Transform if !capabilities.is_empty() => {
            let listed: Vec<&str> = capabilities.iter().map(|c| c.as_str()).collect();
            broken(
                Rule::TransformHasCapabilities,
                format!(
                    "a transform tool is pure and declares no capability, but this one declares {}",
                    listed.join(", ")
                ),
            );
        }
        Kind::Http => {
            if !has(Capability::Net) {
                broken(
                    Rule::HttpNeedsNet,
                    "an http tool must declare `net`".to_owned(),
                );
            }
            let secret_inputs: Vec<&str> = inputs
                .iter()
                .filter(|i| i.secret)
                .map(|i| i.name.as_str())
                .collect();
            match (secret_inputs.is_empty(), has(Capability::Secrets)) {
                (true, true) => broken(
                    Rule::HttpSecretsMismatch,
                    "an http tool declares `secrets` exactly when it has a `secret: true` input, and this one has none".to_owned(),
                ),
                (false, false) => broken(
                    Rule::HttpSecretsMismatch,
                    format!(
                        "an http tool with a secret input ({}) must declare `secrets`",
                        secret_inputs.join(", ")
                    ),
                ),
                _ => {}
            }
        }
        Kind::Browser if !has(Capability::Browser) => broken(
            Rule::BrowserNeedsBrowser,
            "a browser tool must declare `browser`".to_owned(),
        ),
        Kind::Shell if !has(Capability::Spawn) => broken(
            Rule::ShellNeedsSpawn,
            "a shell tool must declare `spawn`".to_owned(),
        ),
        Kind::Model if !has(Capability::Model) => broken(
            Rule::ModelNeedsModel,
            "a model tool must declare `model`".to_owned(),
        ),
        _ => {}
    }
}

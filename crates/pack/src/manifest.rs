//! `manifest.json`: what a pack holds, with every contract, digest and file hash.
//!
//! ```json
//! {
//!   "format": "browserflow-pack/1",
//!   "name": "shop-tools",
//!   "version": "1.0.0",
//!   "roots": ["daily-price-watch@1.0.0"],
//!   "entries": [
//!     {"ref": "search-price@1.2.0", "form": "tool", "kind": "browser",
//!      "contract": {…}, "contract_digest": "sha256:…",
//!      "file": "tools/search-price@1.2.0.json", "sha256": "sha256:…"},
//!     {"ref": "daily-price-watch@1.0.0", "form": "flow", "kind": "composite",
//!      "contract": {…}, "contract_digest": "sha256:…",
//!      "file": "flows/daily-price-watch@1.0.0.flow.json", "sha256": "sha256:…",
//!      "requires": [{"ref": "search-price@1.2.0", "contract_digest": "sha256:…"}]}
//!   ],
//!   "externals": [
//!     {"ref": "std/http.post@1.0.0", "kind": "http", "contract": {…}, "contract_digest": "sha256:…"}
//!   ]
//! }
//! ```
//!
//! `entries` are sorted by ref; `externals` are the built-in tools the flows use that the
//! pack does not carry (the importing program provides them; `bflow check` checks their pins).
//! The **pack digest** is `sha256:` of the exact bytes of `manifest.json`; the manifest
//! records the SHA-256 of every file, so the one digest covers every byte of content.

use browserflow_contract::{Digest, Require, ToolContract, ToolRef};
use serde_json::{Map, Value};

use crate::error::PackError;

/// The format tag of this version of the manifest.
pub const FORMAT: &str = "browserflow-pack/1";

/// Whether an entry is a tool file or a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Form {
    /// A tool file (a contract, or a document with a top-level `contract`).
    Tool,
    /// A flow (`*.flow.json`), published as a composite tool.
    Flow,
}

impl Form {
    /// `tool` or `flow`.
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Tool => "tool",
            Form::Flow => "flow",
        }
    }

    /// The path of the file of `reference` inside a pack (and inside a store folder).
    pub fn file_path(self, reference: &ToolRef) -> String {
        match self {
            Form::Tool => format!("tools/{reference}.json"),
            Form::Flow => format!("flows/{reference}.flow.json"),
        }
    }
}

/// One tool or flow in a pack.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `name@version`.
    pub reference: ToolRef,
    /// Tool or flow.
    pub form: Form,
    /// The contract (for a flow: its composite contract).
    pub contract: ToolContract,
    /// The contract digest.
    pub contract_digest: Digest,
    /// The file inside the pack.
    pub file: String,
    /// `sha256:` of the file's bytes.
    pub sha256: Digest,
    /// For a flow: its pins, sorted by ref.
    pub requires: Vec<Require>,
}

/// A tool a flow in the pack uses but the pack does not carry: a built-in of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct External {
    /// `name@version`.
    pub reference: ToolRef,
    /// Its contract.
    pub contract: ToolContract,
    /// The contract digest.
    pub contract_digest: Digest,
}

/// The manifest of a pack.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The pack name.
    pub name: String,
    /// The pack version.
    pub version: semver::Version,
    /// What was asked for on export, sorted.
    pub roots: Vec<ToolRef>,
    /// Every tool and flow the pack carries, sorted by ref.
    pub entries: Vec<Entry>,
    /// Built-in tools its flows use, sorted by ref.
    pub externals: Vec<External>,
}

impl Manifest {
    /// `NAME@VERSION`.
    pub fn reference(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// The file name of the pack: `NAME-VERSION.bfpack` (`@` belongs to references; a file
    /// name keeps to characters every shell and file system takes as they are).
    pub fn file_name(&self) -> String {
        format!("{}-{}.bfpack", self.name, self.version)
    }

    /// The entry of `reference`.
    pub fn entry(&self, reference: &ToolRef) -> Option<&Entry> {
        self.entries.iter().find(|e| &e.reference == reference)
    }

    /// The manifest as JSON, members in a fixed order.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("format".into(), FORMAT.into());
        map.insert("name".into(), self.name.clone().into());
        map.insert("version".into(), self.version.to_string().into());
        map.insert(
            "roots".into(),
            Value::Array(self.roots.iter().map(|r| r.to_string().into()).collect()),
        );
        map.insert(
            "entries".into(),
            Value::Array(self.entries.iter().map(entry_json).collect()),
        );
        map.insert(
            "externals".into(),
            Value::Array(self.externals.iter().map(external_json).collect()),
        );
        Value::Object(map)
    }

    /// The exact bytes of `manifest.json`: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text.into_bytes()
    }

    /// The pack digest: `sha256:` of [`Manifest::to_bytes`].
    pub fn digest(&self) -> Digest {
        Digest::of_bytes(&self.to_bytes())
    }

    /// Parses `manifest.json` strictly: every member required, none unknown, contracts valid.
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, PackError> {
        let value: Value = browserflow_contract::parse_json_slice(bytes)
            .map_err(|e| PackError::Manifest(e.to_problem().to_string()))?;
        let mut top = Obj::new(&value, "")?;
        let format = top.string("format")?;
        if format != FORMAT {
            return Err(PackError::Manifest(format!(
                "/format: `{format}` is not a pack format this program reads (expected `{FORMAT}`)"
            )));
        }
        let name = top.string("name")?;
        check_pack_name(&name).map_err(|why| PackError::Manifest(format!("/name: {why}")))?;
        let version_text = top.string("version")?;
        let version = semver::Version::parse(&version_text)
            .map_err(|e| PackError::Manifest(format!("/version: `{version_text}`: {e}")))?;
        let roots = top
            .array("roots")?
            .iter()
            .enumerate()
            .map(|(i, v)| parse_ref(v, &format!("/roots/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        let entries = top
            .array("entries")?
            .iter()
            .enumerate()
            .map(|(i, v)| parse_entry(v, &format!("/entries/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        let externals = top
            .array("externals")?
            .iter()
            .enumerate()
            .map(|(i, v)| parse_external(v, &format!("/externals/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        top.finish()?;
        Ok(Manifest {
            name,
            version,
            roots,
            entries,
            externals,
        })
    }
}

/// Checks a pack name: a tool name without `/` (it becomes a file name).
pub fn check_pack_name(name: &str) -> Result<(), String> {
    if name.contains('/') {
        return Err(format!("`{name}`: a pack name cannot contain `/`"));
    }
    browserflow_contract::ToolName::parse(name)
        .map(|_| ())
        .map_err(|p| format!("`{name}`: {p}"))
}

fn entry_json(entry: &Entry) -> Value {
    let mut map = Map::new();
    map.insert("ref".into(), entry.reference.to_string().into());
    map.insert("form".into(), entry.form.as_str().into());
    map.insert("kind".into(), entry.contract.kind().as_str().into());
    map.insert("contract".into(), entry.contract.to_json());
    map.insert(
        "contract_digest".into(),
        entry.contract_digest.to_string().into(),
    );
    map.insert("file".into(), entry.file.clone().into());
    map.insert("sha256".into(), entry.sha256.to_string().into());
    if entry.form == Form::Flow {
        map.insert(
            "requires".into(),
            Value::Array(entry.requires.iter().map(Require::to_json).collect()),
        );
    }
    Value::Object(map)
}

fn external_json(external: &External) -> Value {
    let mut map = Map::new();
    map.insert("ref".into(), external.reference.to_string().into());
    map.insert("kind".into(), external.contract.kind().as_str().into());
    map.insert("contract".into(), external.contract.to_json());
    map.insert(
        "contract_digest".into(),
        external.contract_digest.to_string().into(),
    );
    Value::Object(map)
}

fn parse_ref(value: &Value, at: &str) -> Result<ToolRef, PackError> {
    let text = value
        .as_str()
        .ok_or_else(|| PackError::Manifest(format!("{at}: expected a `name@version` string")))?;
    ToolRef::parse(text).map_err(|p| PackError::Manifest(format!("{at}: {p}")))
}

fn parse_digest(text: &str, at: &str) -> Result<Digest, PackError> {
    Digest::parse(text).map_err(|p| PackError::Manifest(format!("{at}: {p}")))
}

fn parse_contract(value: &Value, at: &str) -> Result<ToolContract, PackError> {
    ToolContract::from_json(value).map_err(|p| {
        let text: Vec<String> = p.iter().map(|p| format!("{at}{p}")).collect();
        PackError::Manifest(text.join("; "))
    })
}

fn parse_entry(value: &Value, at: &str) -> Result<Entry, PackError> {
    let mut obj = Obj::new(value, at)?;
    let reference = parse_ref(&obj.take("ref")?, &format!("{at}/ref"))?;
    let form = match obj.string("form")?.as_str() {
        "tool" => Form::Tool,
        "flow" => Form::Flow,
        other => {
            return Err(PackError::Manifest(format!(
                "{at}/form: `{other}` is neither `tool` nor `flow`"
            )));
        }
    };
    let kind = obj.string("kind")?;
    let contract = parse_contract(&obj.take("contract")?, &format!("{at}/contract"))?;
    if contract.kind().as_str() != kind {
        return Err(PackError::Manifest(format!(
            "{at}/kind: `{kind}` but the contract's kind is `{}`",
            contract.kind()
        )));
    }
    let contract_digest = parse_digest(
        &obj.string("contract_digest")?,
        &format!("{at}/contract_digest"),
    )?;
    let file = obj.string("file")?;
    let sha256 = parse_digest(&obj.string("sha256")?, &format!("{at}/sha256"))?;
    let requires = if form == Form::Flow {
        let mut problems = Vec::new();
        let list: Vec<Require> = obj
            .array("requires")?
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                Require::parse_nested(v, &format!("{at}/requires/{i}"), &mut problems)
            })
            .collect();
        if let Some(p) = problems.first() {
            return Err(PackError::Manifest(p.to_string()));
        }
        list
    } else {
        Vec::new()
    };
    obj.finish()?;
    Ok(Entry {
        reference,
        form,
        contract,
        contract_digest,
        file,
        sha256,
        requires,
    })
}

fn parse_external(value: &Value, at: &str) -> Result<External, PackError> {
    let mut obj = Obj::new(value, at)?;
    let reference = parse_ref(&obj.take("ref")?, &format!("{at}/ref"))?;
    let kind = obj.string("kind")?;
    let contract = parse_contract(&obj.take("contract")?, &format!("{at}/contract"))?;
    if contract.kind().as_str() != kind {
        return Err(PackError::Manifest(format!(
            "{at}/kind: `{kind}` but the contract's kind is `{}`",
            contract.kind()
        )));
    }
    let contract_digest = parse_digest(
        &obj.string("contract_digest")?,
        &format!("{at}/contract_digest"),
    )?;
    obj.finish()?;
    Ok(External {
        reference,
        contract,
        contract_digest,
    })
}

/// A strict reader of one JSON object: members are taken one by one, leftovers refused.
struct Obj<'a> {
    map: Map<String, Value>,
    at: &'a str,
}

impl<'a> Obj<'a> {
    fn new(value: &Value, at: &'a str) -> Result<Obj<'a>, PackError> {
        match value {
            Value::Object(map) => Ok(Obj {
                map: map.clone(),
                at,
            }),
            _ => Err(PackError::Manifest(format!(
                "{}: expected an object",
                root(at)
            ))),
        }
    }

    fn take(&mut self, key: &str) -> Result<Value, PackError> {
        self.map
            .remove(key)
            .ok_or_else(|| PackError::Manifest(format!("{}/{key}: missing", self.at)))
    }

    fn string(&mut self, key: &str) -> Result<String, PackError> {
        match self.map.remove(key) {
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(PackError::Manifest(format!(
                "{}/{key}: expected a string",
                self.at
            ))),
            None => Err(PackError::Manifest(format!("{}/{key}: missing", self.at))),
        }
    }

    fn array(&mut self, key: &str) -> Result<Vec<Value>, PackError> {
        match self.map.remove(key) {
            Some(Value::Array(items)) => Ok(items),
            Some(_) => Err(PackError::Manifest(format!(
                "{}/{key}: expected an array",
                self.at
            ))),
            None => Err(PackError::Manifest(format!("{}/{key}: missing", self.at))),
        }
    }

    fn finish(self) -> Result<(), PackError> {
        match self.map.keys().next() {
            Some(key) => Err(PackError::Manifest(format!(
                "{}/{key}: unknown member",
                self.at
            ))),
            None => Ok(()),
        }
    }
}

fn root(at: &str) -> &str {
    if at.is_empty() { "(root)" } else { at }
}

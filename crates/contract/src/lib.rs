//! Tool contracts for browserflow: the typed, content-addressed interface of a tool.
//!
//! A tool is a [`ToolContract`] (name, version, kind, inputs, output, capabilities) plus a
//! `run` function that lives in other crates. This crate owns the contract model of the
//! specification, exact and strict:
//!
//! - [`ToolContract`], [`InputDecl`], [`Require`], [`Kind`], [`Capability`], validated on
//!   construction and on parse, with every [`Problem`] located by JSON pointer;
//! - the JSON-Schema subset [`Schema`], typed rather than a raw `Value`, which serialises back
//!   to JSON Schema 2020-12, validates values ([`CompiledSchema`]), and is derived from Rust
//!   types ([`Schema::of`]);
//! - the contract digest ([`ToolContract::contract_digest`]), RFC 8785 canonical JSON and
//!   SHA-256, whose exact rule is documented in [`digest`](crate::canonical_json);
//! - schema assignability ([`check_assignable`]), which the flow compiler uses on every wire;
//! - the strict object reader [`Fields`], which every strict format (contracts here, flows in
//!   the flow crate) reads with, so unknown and missing fields are reported the same way.
//!
//! - the one strict JSON reader ([`read_json_file`], [`parse_json_str`]…): bounded in size and
//!   depth, refusing duplicate keys with their pointer; every reader of JSON files uses it.
//!
//! Its only I/O is opening a JSON file to read it, bounded; nothing here is async.
//!
//! ```
//! use browserflow_contract::{ToolContract, Capability};
//!
//! let contract = ToolContract::from_json_str(r#"{
//!     "name": "search-price", "version": "1.2.0", "kind": "browser",
//!     "description": "Search the shop and read the first result's price.",
//!     "inputs": [{"name": "query", "schema": {"type": "string"}, "secret": false}],
//!     "output": {"type": "object",
//!                "properties": {"name": {"type": "string"}, "price": {"type": "number"},
//!                               "currency": {"type": "string"}},
//!                "required": ["currency", "name", "price"], "additionalProperties": false},
//!     "capabilities": ["browser"]
//! }"#).expect("a valid contract");
//! assert!(contract.has(Capability::Browser));
//! assert!(contract.contract_digest().as_str().starts_with("sha256:"));
//!
//! // Every problem is reported, each with its location and rule.
//! let problems = ToolContract::from_json_str(r#"{"name": "Bad Name", "kind": "transform"}"#)
//!     .unwrap_err();
//! assert!(problems.iter().any(|p| p.pointer == "/name"));
//! assert!(problems.iter().count() >= 5);
//! ```

#![deny(missing_docs)]

mod assign;
mod contract;
mod digest;
mod fields;
mod from_rust;
mod io_words;
mod json;
mod kind;
mod names;
mod problem;
mod schema;
mod validate;

pub use assign::{Mismatch, PathSegment, check_assignable};
pub use contract::{ContractParts, InputDecl, ToolContract};
pub use digest::{CanonicalError, canonical_json};
pub use fields::Fields;
pub use io_words::io_in_words;
pub use json::{
    JsonError, JsonFileError, JsonLimits, MAX_DEPTH, MAX_DOCUMENT_BYTES, parse_json_slice,
    parse_json_slice_with, parse_json_str, read_document_text, read_json, read_json_file,
    read_json_file_with,
};
pub use kind::{Capability, Kind};
pub use names::{Digest, MAX_NAME_LEN, Require, ToolName, ToolRef};
pub use problem::{Problem, Problems, Rule, json_type_name, push_pointer};
pub use schema::{Additional, DIALECT, Format, JsonType, Schema};
pub use validate::{CompiledSchema, ValueError};

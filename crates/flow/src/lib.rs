//! Flows for browserflow: the [`FlowSpec`] on disk, and the compiler that turns it into a
//! typed, ordered [`Plan`] — or into every [`Diagnostic`] that stops it.
//!
//! A flow pins its tools (`requires`: exact `name@version` and contract digest), wires them
//! with [bindings](crate::Binding) (literals, flow inputs, step outputs, secrets, templates),
//! guards steps with [`when` conditions](crate::Condition), and names an output. The
//! compiler resolves every `uses` in a [`Registry`], checks every pin, types every wire with
//! the contract crate's assignability, holds the secret boundary, orders the steps and
//! derives the flow's capabilities. It runs nothing: the rider executes the [`Plan`] (see
//! [`plan`](crate::Plan) for that contract).
//!
//! # The secret boundary
//!
//! A secret value (`secret.NAME`, a `secret: true` flow input, or a template using either)
//! may go only into
//!
//! - a `secret: true` slot of a tool holding the `secrets` capability (else `secret_leak`), or
//! - any slot of an **`http`** tool. This is the `std/http` rule of the specification: an
//!   http contract declares `net` only (and no `secret: true` slot); binding a secret to one
//!   of its slots — a credentialed URL, an auth header, a token body — makes that slot secret
//!   for the run ([`PlannedStep::secret_slots`]) and adds `secrets` to the step's
//!   [effective capabilities](PlannedStep::effective_capabilities). With no secret bound, the
//!   step is `net` only. An http contract may also declare `secret: true` slots (it then
//!   declares `secrets`, as the contract crate's kind rule demands); those take secrets only.
//!
//! A `secret: true` slot bound to a plain value is `secret_expected`; a secret read by a
//! condition or returned as the flow output is `secret_leak`. Composite tools carry secret
//! inputs through by reference, so the boundary holds at any depth.
//!
//! ```
//! use browserflow_flow::{FlowSpec, Registry, compile};
//! use browserflow_contract::ToolContract;
//!
//! let slugify = ToolContract::from_json_str(r#"{
//!     "name": "slugify", "version": "1.0.0", "kind": "transform", "description": "",
//!     "inputs": [{"name": "text", "schema": {"type": "string"}, "secret": false}],
//!     "output": {"type": "string"}, "capabilities": []
//! }"#).unwrap();
//! let pin = slugify.contract_digest();
//! let mut registry = Registry::new();
//! registry.insert(slugify).unwrap();
//!
//! let flow = format!(r#"{{
//!     "name": "title-slug", "version": "1.0.0",
//!     "inputs": [{{"name": "title", "schema": {{"type": "string"}}, "secret": false}}],
//!     "requires": [{{"ref": "slugify@1.0.0", "contract_digest": "{pin}"}}],
//!     "steps": [{{"id": "slug", "uses": "slugify@1.0.0", "with": {{"text": {{"from": "input.title"}}}}}}],
//!     "output": {{"from": "steps.slug.output"}}
//! }}"#);
//! let plan = compile(&FlowSpec::from_json_str(&flow).unwrap(), &registry).unwrap();
//! assert!(plan.capabilities.is_empty());
//!
//! // A wire of the wrong type is reported with its code and location.
//! let bad = flow.replace(r#"{"from": "input.title"}"#, r#"{"value": 42}"#);
//! let errors = compile(&FlowSpec::from_json_str(&bad).unwrap(), &registry).unwrap_err();
//! assert_eq!(errors.codes(), ["type_mismatch"]);
//! assert_eq!(errors.0[0].pointer, "/steps/0/with/text");
//! ```

#![deny(missing_docs)]

mod binding;
mod compile;
mod composite;
mod condition;
mod diagnostic;
mod folder;
mod for_each;
mod plan;
mod reference;
mod registry;
mod scope;
mod secret;
mod spec;
mod template;

pub use binding::{Binding, TemplatePart};
pub use compile::{check_file, check_str, compile};
pub use condition::{CompareOp, Condition, ConditionError, Expr};
pub use diagnostic::{Code, Diagnostic, Diagnostics};
pub use folder::{FileShape, FolderFiles, Stranger, shape_of, tool_folder_files};
pub use for_each::{
    ForEach, ItemErrorKind, MAX_CONCURRENCY, OnItemError, collected_schema, output_entry,
};
pub use plan::{Plan, PlannedStep};
pub use reference::Reference;
pub use registry::{RegisteredTool, Registry, json_files_in};
pub use scope::{EvalError, Scope, StepState};
pub use secret::{Bound, SecretPart, SecretTemplate};
pub use spec::{FlowSpec, StepSpec};
pub use template::{
    TemplateError, TemplatePiece, TemplatePieces, escape_template_text, scan_template,
};

pub(crate) use browserflow_contract::json_type_name;

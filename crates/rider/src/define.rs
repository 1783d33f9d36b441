//! `define_tool`: a whole tool from Rust input and output types and an async function.
//!
//! The input type (a struct with named fields) becomes the contract's `inputs`, one slot per
//! field; the output type becomes `output`; both through
//! [`Schema::of`](browserflow_contract::Schema::of). The schema is written once, as Rust
//! types: the typed input handed to `run`, the validation at the boundary and the contract
//! digest all come from it.

use std::future::Future;
use std::marker::PhantomData;

use browserflow_contract::{
    Capability, ContractParts, InputDecl, Kind, Problems, Schema, ToolContract,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ctx::ToolCtx;
use crate::tool::{Tool, ToolError};

/// Why a tool definition is not a valid tool.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DefineError {
    /// A schema could not be derived from a Rust type.
    #[error("tool `{tool}`: the {what} type has no schema in the supported subset:\n{problems}")]
    Schema {
        /// The tool name.
        tool: String,
        /// `input` or `output`.
        what: &'static str,
        /// What is wrong.
        problems: Problems,
    },
    /// The input type is not a struct with named fields.
    #[error(
        "tool `{tool}`: the input type must be a struct with named fields (each field is an input slot), found {found}"
    )]
    InputNotAnObject {
        /// The tool name.
        tool: String,
        /// The schema found.
        found: String,
    },
    /// An optional field the contract cannot describe.
    #[error(
        "tool `{tool}`: input field `{field}` is optional but has no default; make it an `Option<_>` or give it `#[serde(default)]`"
    )]
    OptionalWithoutDefault {
        /// The tool name.
        tool: String,
        /// The field.
        field: String,
    },
    /// A slot named secret that the input type does not have.
    #[error("tool `{tool}`: `{slot}` is declared secret but the input type has no such field")]
    UnknownSecretSlot {
        /// The tool name.
        tool: String,
        /// The slot.
        slot: String,
    },
    /// The contract breaks a rule (kind rules, names, versions).
    #[error("tool `{tool}`: invalid contract:\n{problems}")]
    Contract {
        /// The tool name.
        tool: String,
        /// What is wrong.
        problems: Problems,
    },
}

/// Everything about a tool except its types and its function.
#[derive(Debug, Clone)]
pub struct ToolDef {
    name: String,
    version: String,
    kind: Kind,
    description: String,
    capabilities: Vec<Capability>,
    secret_slots: Vec<String>,
}

impl ToolDef {
    /// A tool `name@version` of `kind`, with no capability.
    pub fn new(name: &str, version: &str, kind: Kind) -> ToolDef {
        ToolDef {
            name: name.to_owned(),
            version: version.to_owned(),
            kind,
            description: String::new(),
            capabilities: Vec::new(),
            secret_slots: Vec::new(),
        }
    }

    /// What the tool does, for people.
    pub fn description(mut self, description: &str) -> ToolDef {
        self.description = description.to_owned();
        self
    }

    /// The capabilities the tool uses: exactly these will be on its context.
    pub fn capabilities(mut self, capabilities: impl IntoIterator<Item = Capability>) -> ToolDef {
        self.capabilities = capabilities.into_iter().collect();
        self
    }

    /// Marks input slot `slot` as `secret: true` (type its field as
    /// [`SecretInput`](crate::SecretInput)).
    pub fn secret(mut self, slot: &str) -> ToolDef {
        self.secret_slots.push(slot.to_owned());
        self
    }

    /// The contract for input type `I` and output type `O`.
    pub fn contract<I: schemars::JsonSchema, O: schemars::JsonSchema>(
        &self,
    ) -> Result<ToolContract, DefineError> {
        let tool = self.name.clone();
        let input = Schema::of::<I>().map_err(|problems| DefineError::Schema {
            tool: tool.clone(),
            what: "input",
            problems,
        })?;
        let output = Schema::of::<O>().map_err(|problems| DefineError::Schema {
            tool: tool.clone(),
            what: "output",
            problems,
        })?;
        let inputs = self.input_decls(input)?;
        ToolContract::new(ContractParts {
            name: self.name.clone(),
            version: self.version.clone(),
            kind: self.kind,
            description: self.description.clone(),
            inputs,
            output,
            capabilities: self.capabilities.clone(),
        })
        .map_err(|problems| DefineError::Contract { tool, problems })
    }

    fn input_decls(&self, input: Schema) -> Result<Vec<InputDecl>, DefineError> {
        let tool = || self.name.clone();
        let is_object =
            input.types.as_deref() == Some(&[browserflow_contract::JsonType::Object][..]);
        if !is_object || (input.properties.is_empty() && input.additional_properties.is_none()) {
            return Err(DefineError::InputNotAnObject {
                tool: tool(),
                found: input.describe(),
            });
        }
        for slot in &self.secret_slots {
            if !input.properties.contains_key(slot) {
                return Err(DefineError::UnknownSecretSlot {
                    tool: tool(),
                    slot: slot.clone(),
                });
            }
        }
        let mut decls = Vec::new();
        for (name, mut schema) in input.properties {
            if !input.required.contains(&name) && schema.default.is_none() {
                // An `Option<_>` field: absent means null, and the contract says so.
                if crate::validate::admits_null(&schema) {
                    schema.default = Some(Value::Null);
                } else {
                    return Err(DefineError::OptionalWithoutDefault {
                        tool: tool(),
                        field: name,
                    });
                }
            }
            let secret = self.secret_slots.contains(&name);
            decls.push(InputDecl {
                name,
                schema,
                secret,
            });
        }
        Ok(decls)
    }
}

/// A tool made by [`define_tool`].
pub struct FnTool<I, O, F> {
    contract: ToolContract,
    run: F,
    types: PhantomData<fn(I) -> O>,
}

/// Defines a tool from its [`ToolDef`], its Rust input type `I` (a struct: one slot per field),
/// its output type `O`, and its async `run` function.
///
/// ```
/// use browserflow_contract::Kind;
/// use browserflow_rider::{Tool, ToolDef, define_tool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Text { text: String }
///
/// /// The spec's `slugify`: a pure transform.
/// fn slugify() -> impl Tool {
///     define_tool(
///         ToolDef::new("slugify", "1.0.0", Kind::Transform)
///             .description("Lowercase, hyphenate, strip punctuation."),
///         |input: Text, _ctx| async move {
///             let lower = input.text.to_lowercase();
///             let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
///             Ok(words.join("-"))
///         },
///     )
///     .expect("a valid tool")
/// }
///
/// let tool = slugify();
/// assert_eq!(tool.contract().inputs()[0].name, "text");
/// assert!(tool.contract().is_pure());
/// ```
pub fn define_tool<I, O, F, Fut>(def: ToolDef, run: F) -> Result<FnTool<I, O, F>, DefineError>
where
    I: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    O: Serialize + schemars::JsonSchema + Send + 'static,
    F: Fn(I, ToolCtx) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
{
    let contract = def.contract::<I, O>()?;
    Ok(FnTool {
        contract,
        run,
        types: PhantomData,
    })
}

#[async_trait::async_trait]
impl<I, O, F, Fut> Tool for FnTool<I, O, F>
where
    I: DeserializeOwned + Send + 'static,
    O: Serialize + Send + 'static,
    F: Fn(I, ToolCtx) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
{
    fn contract(&self) -> &ToolContract {
        &self.contract
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        let typed: I = serde_json::from_value(input).map_err(|e| {
            ToolError::terminal(format!("the input does not fit the tool's Rust type: {e}"))
        })?;
        let output = (self.run)(typed, ctx).await?;
        serde_json::to_value(output)
            .map_err(|e| ToolError::terminal(format!("the output cannot be written as JSON: {e}")))
    }
}

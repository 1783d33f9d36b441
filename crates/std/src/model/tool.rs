//! [`ModelTool`]: the tool of the `model` kind.

use std::collections::BTreeMap;

use browserflow_contract::{Capability, CompiledSchema, Kind, ToolContract};
use browserflow_rider::{Tool, ToolCtx, ToolError};
use serde_json::{Value, json};

use crate::transform::render_template;

/// Why a model tool cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The contract does not fit the model kind.
    #[error("tool `{tool}`: {message}")]
    Contract {
        /// The tool.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// The tool file is malformed.
    #[error("model tool file: {0}")]
    File(String),
}

/// The declared call: what is sent to the model.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// The model name, such as `gpt-4o-mini`.
    pub model: String,
    /// The system prompt.
    #[serde(default)]
    pub system: Option<String>,
    /// The user prompt: a template whose `{name}` placeholders read the tool's inputs.
    pub prompt: String,
    /// The sampling temperature (default 0: as repeatable as the provider allows).
    #[serde(default)]
    pub temperature: Option<f64>,
}

/// A declared, recorded model call as a tool.
pub struct ModelTool {
    contract: ToolContract,
    spec: ModelSpec,
    output: CompiledSchema,
}

impl std::fmt::Debug for ModelTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelTool")
            .field("tool", &self.contract.reference())
            .field("spec", &self.spec)
            .finish()
    }
}

impl ModelTool {
    /// A tool for `contract` (kind `model`, declaring `model`) making the call `spec`.
    pub fn new(contract: ToolContract, spec: ModelSpec) -> Result<ModelTool, ModelError> {
        let fail = |message: String| ModelError::Contract {
            tool: contract.reference(),
            message,
        };
        if contract.kind() != Kind::Model {
            return Err(fail(format!(
                "a model tool's contract must have kind `model`, found `{}`",
                contract.kind().as_str()
            )));
        }
        if !contract.has(Capability::Model) {
            return Err(fail(
                "a model tool must declare the `model` capability".to_owned(),
            ));
        }
        let names: Vec<&str> = contract.inputs().iter().map(|i| i.name.as_str()).collect();
        let placeholders =
            BTreeMap::from_iter(names.iter().map(|n| ((*n).to_owned(), Value::Null)));
        render_template(&spec.prompt, &placeholders)
            .map_err(|e| fail(format!("the prompt: {e}")))?;
        let output = CompiledSchema::new(contract.output())
            .map_err(|p| fail(format!("the output schema: {p}")))?;
        Ok(ModelTool {
            contract,
            spec,
            output,
        })
    }

    /// Reads a tool file: `{"contract": {…}, "model": {"model": …, "system": …, "prompt": …}}`.
    pub fn from_tool_file(value: &Value) -> Result<ModelTool, ModelError> {
        let contract = value
            .get("contract")
            .ok_or_else(|| ModelError::File("no `contract` member".to_owned()))?;
        let contract =
            ToolContract::from_json(contract).map_err(|p| ModelError::File(p.to_string()))?;
        let spec = value
            .get("model")
            .ok_or_else(|| ModelError::File("no `model` member".to_owned()))?;
        let spec: ModelSpec = serde_json::from_value(spec.clone())
            .map_err(|e| ModelError::File(format!("`model`: {e}")))?;
        ModelTool::new(contract, spec)
    }

    /// The declared call.
    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    /// The provider request for `input`: what is sent, and what a recording is keyed by.
    pub fn request(&self, input: &Value) -> Result<Value, ToolError> {
        let values: BTreeMap<String, Value> = match input {
            Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            _ => {
                return Err(ToolError::terminal(
                    "a model tool's input must be an object",
                ));
            }
        };
        if values
            .values()
            .any(|v| v.get(browserflow_rider::SECRET_TEMPLATE_KEY).is_some())
        {
            return Err(ToolError::terminal("a secret may not be sent to a model"));
        }
        let prompt = render_template(&self.spec.prompt, &values)
            .map_err(|e| ToolError::terminal(format!("the prompt: {e}")))?;
        let mut messages = Vec::new();
        if let Some(system) = &self.spec.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.push(json!({"role": "user", "content": prompt}));
        Ok(json!({
            "model": self.spec.model,
            "messages": messages,
            "temperature": self.spec.temperature.unwrap_or(0.0),
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": self.contract.output().to_json()}
            }
        }))
    }
}

#[async_trait::async_trait]
impl Tool for ModelTool {
    fn contract(&self) -> &ToolContract {
        &self.contract
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        let model = ctx.require_model()?;
        let request = self.request(&input)?;
        let answer = model.call(request).await?;
        let content = answer
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ToolError::terminal("the model's answer has no `choices[0].message.content` string")
            })?;
        let output: Value = serde_json::from_str(content)
            .or_else(|_| serde_json::from_str(strip_fence(content)))
            .map_err(|e| ToolError::terminal(format!("the model's answer is not JSON: {e}")))?;
        if let Err(errors) = self.output.validate(&output) {
            let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return Err(ToolError::terminal(format!(
                "the model's answer does not match the output schema: {}",
                list.join("; ")
            )));
        }
        ctx.logger()
            .info(format!("model `{}` answered", self.spec.model));
        Ok(output)
    }
}

/// The inside of a Markdown code fence, which some models wrap JSON in.
fn strip_fence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

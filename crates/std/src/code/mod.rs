//! The `code` kind: a JavaScript tool run in an embedded QuickJS sandbox (rquickjs).
//!
//! The script defines `function run(input, ctx) { … }` and returns the output (any JSON
//! value). The sandbox has no ambient effect: no module loader, no file or process access,
//! no timers. `ctx` holds only what the contract declares:
//!
//! - always: `ctx.clock.now` (the run's recorded time, ms) and `ctx.clock.iso`, `ctx.env`
//!   (the run's variables), `ctx.idempotencyKey`, `ctx.log(message)`;
//! - with `net`: `ctx.net.fetch(url, {method, headers, body})` →
//!   `{status, headers, body}` (synchronous; `body` is text);
//! - with `fs`: `ctx.fs.readText(path)`, `ctx.fs.writeText(path, text)`, `ctx.fs.list(path)`.
//!
//! Without the capability the member is `undefined`. `Math.random` draws from the step's
//! seeded `random`, and `Date.now()` / `new Date()` read the run's `clock`, so a code tool
//! with no capability is pure: two runs give the same output. A memory limit, a stack limit
//! and a deadline (enforced by QuickJS's interrupt handler) bound every run.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use browserflow_contract::ToolContract;
//! use browserflow_rider::{Tool, ToolCtx};
//! use browserflow_std::code::{CodeLimits, CodeTool};
//!
//! let contract = ToolContract::from_json_str(r#"{"name": "double", "version": "1.0.0", "kind": "code",
//!   "description": "", "inputs": [{"name": "n", "schema": {"type": "number"}, "secret": false}],
//!   "output": {"type": "number"}, "capabilities": []}"#).unwrap();
//! let tool = CodeTool::new(contract, "function run(input) { return input.n * 2; }", CodeLimits::default()).unwrap();
//! let out = tool.run(serde_json::json!({"n": 21}), ToolCtx::builder("run", "step").build()).await.unwrap();
//! assert_eq!(out, serde_json::json!(42));
//! # }
//! ```

mod sandbox;

use browserflow_contract::{Kind, ToolContract};
use browserflow_rider::{Tool, ToolCtx, ToolError};
use serde_json::Value;

pub use sandbox::CodeLimits;

/// Why a code tool cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    /// The contract is not of kind `code`.
    #[error("tool `{tool}`: a code tool's contract must have kind `code`, found `{found}`")]
    WrongKind {
        /// The tool.
        tool: String,
        /// The kind found.
        found: String,
    },
    /// The tool file is malformed.
    #[error("code tool file: {0}")]
    File(String),
}

/// A JavaScript tool: a contract of kind `code` and its source.
#[derive(Debug, Clone)]
pub struct CodeTool {
    contract: ToolContract,
    source: String,
    limits: CodeLimits,
}

impl CodeTool {
    /// A tool running `source` under `contract` within `limits`.
    pub fn new(
        contract: ToolContract,
        source: &str,
        limits: CodeLimits,
    ) -> Result<CodeTool, CodeError> {
        if contract.kind() != Kind::Code {
            return Err(CodeError::WrongKind {
                tool: contract.reference(),
                found: contract.kind().as_str().to_owned(),
            });
        }
        Ok(CodeTool {
            contract,
            source: source.to_owned(),
            limits,
        })
    }

    /// Reads a tool file: `{"contract": {…}, "code": {"source": "…", "timeout_ms": …,
    /// "memory_bytes": …, "stack_bytes": …}}`.
    pub fn from_tool_file(value: &Value) -> Result<CodeTool, CodeError> {
        let contract_json = value
            .get("contract")
            .ok_or_else(|| CodeError::File("no `contract` member".to_owned()))?;
        let contract =
            ToolContract::from_json(contract_json).map_err(|p| CodeError::File(p.to_string()))?;
        let code = value
            .get("code")
            .ok_or_else(|| CodeError::File("no `code` member".to_owned()))?;
        let source = code
            .get("source")
            .and_then(Value::as_str)
            .ok_or_else(|| CodeError::File("`code.source` must be a string".to_owned()))?;
        let mut limits = CodeLimits::default();
        let number = |key: &str| -> Result<Option<u64>, CodeError> {
            match code.get(key) {
                None => Ok(None),
                Some(v) => v
                    .as_u64()
                    .map(Some)
                    .ok_or_else(|| CodeError::File(format!("`code.{key}` must be a whole number"))),
            }
        };
        if let Some(ms) = number("timeout_ms")? {
            limits.timeout_ms = ms;
        }
        if let Some(bytes) = number("memory_bytes")? {
            limits.memory_bytes = bytes as usize;
        }
        if let Some(bytes) = number("stack_bytes")? {
            limits.stack_bytes = bytes as usize;
        }
        CodeTool::new(contract, source, limits)
    }

    /// The source.
    pub fn source(&self) -> &str {
        &self.source
    }
}

#[async_trait::async_trait]
impl Tool for CodeTool {
    fn contract(&self) -> &ToolContract {
        &self.contract
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        sandbox::run(
            &self.contract.reference(),
            &self.source,
            self.limits,
            input,
            ctx,
        )
        .await
    }
}

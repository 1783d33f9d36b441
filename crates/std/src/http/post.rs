//! `std/http.post@1.0.0`, whose contract the canonical `daily-price-watch` flow pins
//! (`recordings/contracts/std-http.post@1.0.0.contract.json`): written out rather than
//! derived, so its digest is exactly the pinned one.

use std::collections::BTreeMap;

use browserflow_contract::ToolContract;
use browserflow_rider::{DefineError, SecretInput, Tool, ToolCtx, ToolError};
use serde_json::{Value, json};

use super::request::{Expect, Method, Request, perform};

/// The pinned contract of `std/http.post@1.0.0`.
pub fn http_post_contract() -> Result<ToolContract, DefineError> {
    ToolContract::from_json(&json!({
        "name": "std/http.post",
        "version": "1.0.0",
        "kind": "http",
        "description": "POST a text body to a URL. Declares `net`; binding a secret to any slot (a credentialed URL, an auth header, a token body) makes that slot secret for the run and adds `secrets` to the step's effective capabilities.",
        "inputs": [
            {"name": "url", "schema": {"type": "string", "format": "uri"}, "secret": false},
            {"name": "body", "schema": {"type": "string"}, "secret": false},
            {"name": "headers", "schema": {"type": "object", "additionalProperties": {"type": "string"}, "default": {}}, "secret": false}
        ],
        "output": {
            "type": "object",
            "properties": {"status": {"type": "integer"}, "body": {"type": "string"}},
            "required": ["body", "status"],
            "additionalProperties": false
        },
        "capabilities": ["net"]
    }))
    .map_err(|problems| DefineError::Contract {
        tool: "std/http.post".to_owned(),
        problems,
    })
}

/// `std/http.post@1.0.0`: POSTs a text body (`url` and `body` may carry a secret); the
/// output is `{status, body}` with the response as text.
#[derive(Debug, Clone)]
pub struct HttpPost {
    contract: ToolContract,
}

/// `std/http.post@1.0.0`.
pub fn http_post() -> Result<HttpPost, DefineError> {
    Ok(HttpPost {
        contract: http_post_contract()?,
    })
}

#[async_trait::async_trait]
impl Tool for HttpPost {
    fn contract(&self) -> &ToolContract {
        &self.contract
    }

    async fn run(&self, input: Value, ctx: ToolCtx) -> Result<Value, ToolError> {
        let slot = |name: &str| input.get(name).cloned().unwrap_or(Value::Null);
        let url = SecretInput::from_json(&slot("url"))
            .map_err(|e| ToolError::terminal(format!("slot `url`: {e}")))?;
        let headers: BTreeMap<String, String> = match slot("headers") {
            Value::Null => BTreeMap::new(),
            other => serde_json::from_value(other).map_err(|e| {
                ToolError::terminal(format!(
                    "slot `headers`: an object of strings is expected: {e}"
                ))
            })?,
        };
        let body = match slot("body") {
            Value::String(text) => Value::String(text),
            Value::Object(map)
                if map.len() == 1 && map.contains_key(browserflow_rider::SECRET_TEMPLATE_KEY) =>
            {
                Value::Object(map)
            }
            other => {
                return Err(ToolError::terminal(format!(
                    "slot `body`: a string is expected, found {}",
                    crate::json_path::type_name(&other)
                )));
            }
        };
        let request = Request {
            method: Method::Post,
            url,
            body: Some(body),
            content_type: None,
            headers,
            authorization: None,
            timeout_ms: None,
            max_bytes: None,
            expect: Expect::Text,
        };
        let response = perform(request, &ctx).await?;
        Ok(json!({"status": response.status, "body": response.body}))
    }
}

//! [`OpenAiModel`]: the live `model` capability for OpenAI-compatible endpoints.

use std::any::Any;
use std::time::Duration;

use browserflow_rider::caps::model::ModelClient;
use browserflow_rider::secrecy::SecretString;
use browserflow_rider::{ModelCapability, ToolError};
use serde_json::Value;

/// Calls `POST {base_url}/chat/completions` (`base_url` such as `https://api.openai.com/v1`)
/// through the Rider's one [`ModelClient`] (answers read at most
/// [`MAX_ANSWER_BYTES`](browserflow_rider::caps::model::MAX_ANSWER_BYTES)).
#[derive(Debug)]
pub struct OpenAiModel {
    client: ModelClient,
}

impl OpenAiModel {
    /// A client of `base_url`, sending `api_key` as a bearer token when given.
    pub fn new(
        base_url: &str,
        api_key: Option<SecretString>,
        timeout: Duration,
    ) -> Result<OpenAiModel, ToolError> {
        Ok(OpenAiModel {
            client: ModelClient::new(base_url, api_key, timeout)?,
        })
    }

    /// The endpoint called.
    pub fn endpoint(&self) -> String {
        self.client.endpoint()
    }
}

#[async_trait::async_trait]
impl ModelCapability for OpenAiModel {
    async fn call(&self, request: Value) -> Result<Value, ToolError> {
        let body = serde_json::to_vec(&request)
            .map_err(|e| ToolError::terminal(format!("model request: {e}")))?;
        Ok(self.client.post_json(body).await?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

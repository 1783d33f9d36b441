//! Recording model calls at authoring time, and replaying them without a model.

use std::any::Any;
use std::path::Path;
use std::sync::{Arc, Mutex};

use browserflow_contract::{Digest, canonical_json};
use browserflow_rider::{ModelCapability, ToolError};
use serde_json::Value;

/// The digest identifying a request: `sha256:` of its RFC 8785 canonical JSON.
pub fn request_digest(request: &Value) -> Result<Digest, ToolError> {
    let text =
        canonical_json(request).map_err(|e| ToolError::terminal(format!("model request: {e}")))?;
    Ok(Digest::of_bytes(text.as_bytes()))
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedCall {
    /// [`request_digest`] of `request`.
    pub request_digest: String,
    /// The request sent.
    pub request: Value,
    /// The provider's answer.
    pub response: Value,
}

/// Recorded calls, in the order they were made. Stored as pretty JSON.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// The calls.
    pub calls: Vec<RecordedCall>,
}

impl Recording {
    /// The answer recorded for `digest`.
    pub fn answer(&self, digest: &str) -> Option<&Value> {
        self.calls
            .iter()
            .find(|c| c.request_digest == digest)
            .map(|c| &c.response)
    }

    /// Reads a recording file.
    pub fn load(path: &Path) -> Result<Recording, String> {
        // Strict and bounded, like every JSON file browserflow reads.
        let value = browserflow_contract::read_json_file(path).map_err(|e| e.to_string())?;
        serde_json::from_value(value)
            .map_err(|e| format!("{}: not a model recording: {e}", path.display()))
    }

    /// Writes the recording as pretty JSON.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Authoring time: calls the live model and records each request with its answer.
pub struct RecordingModel {
    live: Arc<dyn ModelCapability>,
    recording: Mutex<Recording>,
}

impl RecordingModel {
    /// Records the calls made to `live`, adding to `recording`.
    pub fn new(live: Arc<dyn ModelCapability>, recording: Recording) -> RecordingModel {
        RecordingModel {
            live,
            recording: Mutex::new(recording),
        }
    }

    /// What was recorded so far.
    pub fn recording(&self) -> Recording {
        self.recording
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }
}

#[async_trait::async_trait]
impl ModelCapability for RecordingModel {
    async fn call(&self, request: Value) -> Result<Value, ToolError> {
        let digest = request_digest(&request)?;
        let response = self.live.call(request.clone()).await?;
        let mut recording = self
            .recording
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        recording
            .calls
            .retain(|c| c.request_digest != digest.as_str());
        recording.calls.push(RecordedCall {
            request_digest: digest.to_string(),
            request,
            response: response.clone(),
        });
        Ok(response)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Replay: answers from a recording and never calls a model.
#[derive(Debug, Clone)]
pub struct ReplayModel {
    recording: Recording,
}

impl ReplayModel {
    /// Answers from `recording`.
    pub fn new(recording: Recording) -> ReplayModel {
        ReplayModel { recording }
    }
}

#[async_trait::async_trait]
impl ModelCapability for ReplayModel {
    async fn call(&self, request: Value) -> Result<Value, ToolError> {
        let digest = request_digest(&request)?;
        self.recording.answer(digest.as_str()).cloned().ok_or_else(|| {
            let model = request.get("model").and_then(Value::as_str).unwrap_or("?");
            ToolError::terminal(format!(
                "no recorded answer for this model request ({digest}, model `{model}`; {} call(s) recorded): a replay never calls the model — record the tool again at authoring time",
                self.recording.calls.len()
            ))
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

//! Authoring-time model assistance (off unless configured): an OpenAI-compatible endpoint
//! suggests a name and descriptions for the recorded tool, its inputs and outputs, and a better
//! selector for a step ([`crate::Recorder::suggest_selector`]: the suggestion is checked
//! in the live page, unique and on the recorded element, before it becomes a candidate).
//!
//! Configured by `BROWSERFLOW_MODEL_URL` (the API base, such as `https://api.openai.com/v1`),
//! `BROWSERFLOW_MODEL` (default `gpt-4o-mini`) and the secret `BROWSERFLOW_SECRET_MODEL_KEY`
//! (sent as a bearer token, never stored). Every call is kept in [`Draft::model_calls`] and
//! from there in the tool file's `metadata.model_calls` (endpoint, model, the digest of the
//! request, the answer). The prompt holds step descriptions and names only: no typed values.
//! A tool's replay never calls a model.

use std::collections::BTreeMap;
use std::time::Duration;

use browserflow_contract::Digest;
use browserflow_rider::caps::model::ModelClient;
use browserflow_rider::secrecy::SecretString;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::RecordError;
use super::draft::{Draft, now_rfc3339, valid_name};
use browserflow_steps::{SelectorCandidate, Step};

/// The variable naming the API base URL; assistance is off when it is unset.
pub const MODEL_URL_ENV: &str = "BROWSERFLOW_MODEL_URL";
/// The variable naming the model.
pub const MODEL_ENV: &str = "BROWSERFLOW_MODEL";
/// The secret variable holding the API key.
pub const MODEL_KEY_ENV: &str = "BROWSERFLOW_SECRET_MODEL_KEY";
/// The model asked when `BROWSERFLOW_MODEL` is unset.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// One model call, as kept in the recording's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCall {
    /// What was asked for (`names`).
    pub purpose: String,
    /// The endpoint called.
    pub endpoint: String,
    /// The model.
    pub model: String,
    /// `sha256:` of the request body (the prompt), so the call can be matched later.
    pub prompt_digest: String,
    /// The answer's content (parsed JSON when it was JSON, else the text).
    pub response: Value,
    /// When (RFC 3339, UTC).
    pub at: String,
    /// What became of the answer (for selector suggestions: added at a position, or why it
    /// was rejected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

/// What became of a selector suggestion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectorSuggestion {
    /// The candidate the model suggested, when its answer named one.
    pub candidate: Option<SelectorCandidate>,
    /// Where it was added among the step's candidates (`None`: rejected).
    pub position: Option<usize>,
    /// Why it was rejected.
    pub rejected: Option<String>,
}

/// What the model suggested. Names are checked before use; anything invalid is ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Suggestions {
    /// A tool name (`search-price`).
    #[serde(default)]
    pub name: Option<String>,
    /// A one-sentence tool description.
    #[serde(default)]
    pub description: Option<String>,
    /// Input name → description.
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// Output field → description.
    #[serde(default)]
    pub outputs: BTreeMap<String, String>,
}

/// Model assistance over an OpenAI-compatible chat-completions endpoint, called through the
/// Rider's one [`ModelClient`] (answers read at most
/// [`MAX_ANSWER_BYTES`](browserflow_rider::caps::model::MAX_ANSWER_BYTES)).
#[derive(Debug)]
pub struct ModelAssist {
    model: String,
    client: ModelClient,
}

impl ModelAssist {
    /// A client of `base_url` (`…/v1`) asking `model`, with an optional bearer key.
    pub fn new(
        base_url: &str,
        model: &str,
        api_key: Option<String>,
    ) -> Result<ModelAssist, RecordError> {
        let client = ModelClient::new(
            base_url,
            api_key.map(SecretString::from),
            Duration::from_secs(60),
        )
        .map_err(|e| RecordError::Model(e.to_string()))?;
        Ok(ModelAssist {
            model: model.to_string(),
            client,
        })
    }

    /// The client configured by the environment; `None` when `BROWSERFLOW_MODEL_URL` is unset
    /// (assistance is off by default).
    pub fn from_env() -> Result<Option<ModelAssist>, RecordError> {
        let Some(url) = std::env::var(MODEL_URL_ENV).ok().filter(|u| !u.is_empty()) else {
            return Ok(None);
        };
        let model = std::env::var(MODEL_ENV)
            .ok()
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let key = std::env::var(MODEL_KEY_ENV).ok().filter(|k| !k.is_empty());
        ModelAssist::new(&url, &model, key).map(Some)
    }

    /// The endpoint called.
    pub fn endpoint(&self) -> String {
        self.client.endpoint()
    }

    /// Asks for names and descriptions, records the call in `draft.model_calls`, and applies
    /// what fits: the description when the draft has none, the suggested name, input
    /// descriptions, and output descriptions as the labels of their extract steps.
    pub async fn suggest(&self, draft: &mut Draft) -> Result<Suggestions, RecordError> {
        let request = json!({
            "model": self.model,
            "temperature": 0,
            "response_format": { "type": "json_object" },
            "messages": [
                { "role": "system", "content": SYSTEM_PROMPT },
                { "role": "user", "content": describe_draft(draft) },
            ],
        });
        let body = serde_json::to_vec(&request).map_err(|e| RecordError::Model(e.to_string()))?;
        let prompt_digest = Digest::of_bytes(&body).as_str().to_string();
        let answer = self.post(body).await?;
        let content = answer["choices"][0]["message"]["content"]
            .as_str()
            .ok_or_else(|| {
                RecordError::Model(format!(
                    "the answer of {} has no choices[0].message.content",
                    self.endpoint()
                ))
            })?;
        let parsed: Option<Value> = serde_json::from_str(content).ok();
        draft.model_calls.push(ModelCall {
            purpose: "names".into(),
            endpoint: self.endpoint(),
            model: self.model.clone(),
            prompt_digest,
            response: parsed
                .clone()
                .unwrap_or_else(|| Value::String(content.to_string())),
            at: now_rfc3339(),
            outcome: None,
        });
        let suggestions: Suggestions = parsed
            .and_then(|v| serde_json::from_value(v).ok())
            .ok_or_else(|| {
                RecordError::Model(format!(
                    "the model's answer is not the JSON object asked for: {content:?}"
                ))
            })?;
        apply(draft, &suggestions);
        Ok(suggestions)
    }

    /// Asks for a better selector for a step. Returns the call (for the metadata) and the
    /// candidate the answer names, or why it names none. The prompt holds the step's
    /// description, its current candidates and the element's markup without values.
    pub(crate) async fn ask_selector(
        &self,
        description: &str,
        candidates: &[SelectorCandidate],
        outline: &str,
    ) -> Result<(ModelCall, Result<SelectorCandidate, String>), RecordError> {
        let current: Vec<String> = candidates.iter().map(|c| c.describe()).collect();
        let prompt = format!(
            "Step: {description}\nCurrent candidates, best first:\n- {}\nThe element (and its parent's start tag):\n{outline}\n",
            current.join("\n- ")
        );
        let request = json!({
            "model": self.model,
            "temperature": 0,
            "response_format": { "type": "json_object" },
            "messages": [
                { "role": "system", "content": SELECTOR_PROMPT },
                { "role": "user", "content": prompt },
            ],
        });
        let body = serde_json::to_vec(&request).map_err(|e| RecordError::Model(e.to_string()))?;
        let prompt_digest = Digest::of_bytes(&body).as_str().to_string();
        let answer = self.post(body).await?;
        let content = answer["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let parsed: Option<Value> = serde_json::from_str(&content).ok();
        let candidate = parsed
            .clone()
            .ok_or_else(|| format!("the answer is not JSON: {content:?}"))
            .and_then(|v| {
                serde_json::from_value::<SelectorCandidate>(v)
                    .map_err(|e| format!("the answer is not a selector candidate: {e}"))
            })
            .and_then(|c| {
                if c.value.trim().is_empty() {
                    Err("the suggested selector is empty".to_string())
                } else {
                    Ok(c)
                }
            });
        let call = ModelCall {
            purpose: "selector".into(),
            endpoint: self.endpoint(),
            model: self.model.clone(),
            prompt_digest,
            response: parsed.unwrap_or(Value::String(content)),
            at: now_rfc3339(),
            outcome: None,
        };
        Ok((call, candidate))
    }

    async fn post(&self, body: Vec<u8>) -> Result<Value, RecordError> {
        self.client
            .post_json(body)
            .await
            .map_err(|e| RecordError::Model(e.to_string()))
    }
}

const SYSTEM_PROMPT: &str = "You name recorded browser automations. Answer with one JSON object: \
{\"name\": kebab-case tool name, \"description\": one sentence, \"inputs\": {input name: \
description}, \"outputs\": {output field: description}}. Use only the input and output names given.";

const SELECTOR_PROMPT: &str = "You suggest robust selectors for elements of recorded browser \
steps: prefer a test id, then an ARIA role with its accessible name, a label, a placeholder, \
visible text, a stable id, and short CSS last; avoid generated ids, hashed classes and positions. \
Answer with one JSON object: {\"kind\": one of test_id, role, label, placeholder, text, id, css, \
xpath, \"value\": the selector (for role: the role), \"name\": the accessible name (role only)}.";

/// What the model sees: step descriptions, URLs without query strings, and the names of the
/// inputs and outputs. Never a typed value.
fn describe_draft(draft: &Draft) -> String {
    let mut text = String::from("Recorded steps:\n");
    for (i, s) in draft.steps.iter().enumerate() {
        let url = s.url.split(['?', '#']).next().unwrap_or_default();
        text.push_str(&format!("{}. {} (on {url})\n", i + 1, s.description));
    }
    let inputs: Vec<&str> = draft.inputs.iter().map(|i| i.name.as_str()).collect();
    text.push_str(&format!("Inputs: {}\n", inputs.join(", ")));
    text.push_str(&format!("Outputs: {}\n", draft.output_fields().join(", ")));
    text
}

fn apply(draft: &mut Draft, s: &Suggestions) {
    if draft.description.is_none() {
        draft.description = s.description.clone().filter(|d| !d.trim().is_empty());
    }
    if let Some(name) = &s.name {
        let ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if ok {
            draft.suggested_name = Some(name.clone());
        }
    }
    for input in &mut draft.inputs {
        if let Some(d) = s.inputs.get(&input.name)
            && input.description.is_none()
        {
            input.description = Some(d.clone());
        }
    }
    for step in &mut draft.steps {
        if let Step::Extract(e) = &mut step.step
            && valid_name(&e.field)
            && let Some(d) = s.outputs.get(&e.field)
        {
            e.label = Some(d.clone());
        }
    }
}

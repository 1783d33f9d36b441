//! The `model` kind: a declared, recorded LLM call to an OpenAI-compatible endpoint.
//!
//! A [`ModelTool`] is a contract of kind `model` (capability `model`) plus a [`ModelSpec`]:
//! the model name, an optional system prompt and a prompt template whose `{placeholders}`
//! read the tool's inputs. The tool asks for JSON matching the contract's output schema
//! (`response_format: json_schema`), and checks the answer against it.
//!
//! The call goes through the `model` capability, and which implementation the Rider is
//! given decides what happens:
//!
//! - [`OpenAiModel`] calls the endpoint (`POST {base}/chat/completions`);
//! - [`RecordingModel`] wraps a live model at authoring time and records every request with
//!   its response ([`Recording`], pretty JSON on disk);
//! - [`ReplayModel`] answers from a recording and never calls a model: a request that was
//!   not recorded is a clear terminal error, never a silent live call.
//!
//! The Rider journals a model step like any effectful step, so a resumed run reuses the
//! recorded outcome too.

mod capability;
mod recording;
mod tool;

pub use capability::OpenAiModel;
pub use recording::{RecordedCall, Recording, RecordingModel, ReplayModel, request_digest};
pub use tool::{ModelError, ModelSpec, ModelTool};

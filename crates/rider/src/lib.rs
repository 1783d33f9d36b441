//! The Rider: the browserflow runtime.
//!
//! It runs a compiled [`Plan`](browserflow_flow::Plan): it validates every value at step
//! boundaries, builds each step's [`ToolCtx`] with exactly the capabilities the step declares,
//! applies the retry policy of the step's kind, records effectful steps in a journal
//! ([`JournalStore`]; [`SqliteJournal`] today) exactly once in outcome, and resumes a crashed run without repeating a
//! recorded effect. Secrets are resolved only inside tools holding `secrets`, as
//! [`secrecy`] types, and one [`Redactor`] guards every writer.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use std::collections::BTreeMap;
//! use std::sync::Arc;
//! use browserflow_contract::Kind;
//! use browserflow_rider::{MapSecrets, Rider, RiderOptions, SqliteJournal, Tool, ToolDef, ToolRegistry, define_tool};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Text { text: String }
//!
//! fn slugify() -> impl Tool {
//!     define_tool(
//!         ToolDef::new("slugify", "1.0.0", Kind::Transform).description("Lowercase, hyphenate."),
//!         |input: Text, _ctx| async move {
//!             let lower = input.text.to_lowercase();
//!             let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
//!             Ok(words.join("-"))
//!         },
//!     )
//!     .expect("a valid tool")
//! }
//!
//! let mut registry = ToolRegistry::new();
//! registry.register(slugify).expect("registered");
//! let dir = tempfile::tempdir().unwrap();
//! let journal = Arc::new(SqliteJournal::open(dir.path().join("journal.sqlite")).unwrap());
//! let rider = Rider::new(registry, journal, Arc::new(MapSecrets::new()), RiderOptions::default()).unwrap();
//! // With a compiled plan: `rider.run(&plan, inputs).await` → RunOutcome { run_id, output, .. }
//! # let _ = (rider, BTreeMap::<String, String>::new());
//! # }
//! ```

#![deny(missing_docs)]

mod artifacts;
pub mod caps;
pub mod clock;
mod crash;
mod ctx;
mod define;
mod error;
mod events;
mod exec;
pub mod journal;
mod logger;
mod options;
mod plan_identity;
mod random;
mod redact;
mod redact_forms;
mod redact_writer;
mod registry;
mod retry;
mod rider;
mod secret_input;
mod signal;
mod tool;
mod validate;

pub use artifacts::{Artifacts, Screenshot, ToolOutput, call_folder};
pub use caps::fs::{FsCap, FsError};
pub use caps::net::{NetCap, NetError, NetOptions};
pub use caps::secrets::{
    ChainSecrets, EnvSecrets, FileSecrets, MapSecrets, SecretsCap, SecretsError, SecretsProvider,
};
pub use caps::spawn::{Command, SpawnCap, SpawnError, SpawnOutput};
pub use caps::{BrowserCapability, ModelCapability};
pub use clock::Clock;
pub use crash::{CrashHook, CrashPoint};
pub use ctx::{EnvView, ToolCtx, ToolCtxBuilder, idempotency_key};
pub use define::{DefineError, FnTool, ToolDef, define_tool};
pub use error::{RunError, RunFailure};
pub use events::{EventSink, RunEvent};
pub use journal::{
    Attempt, AttemptOutcome, CancelAnswer, Claim, EffectStart, ErrorReport, Fence, FiringRecord,
    FiringState, JournalError, JournalLocation, JournalOptions, JournalStore, LeaseAnswer,
    LeaseGrant, LeaseHolder, LeaseOwner, PG_SCHEMA_VERSION, PendingStep, PgJournal, PgUrl,
    QueueOrigin, QueuedStart, RecordedStep, RunEnd, RunEntry, RunRecord, RunReport, RunStart,
    RunSummary, ScheduleBook, ScheduleRecord, SqliteJournal, StepReport, StepStart, Takeover,
};
pub use logger::Logger;
pub use options::RiderOptions;
pub use plan_identity::{PlanChange, StepIdentity};
pub use random::Random;
pub use redact::{REDACTED, Redactor};
pub use redact_writer::{RedactingMakeWriter, RedactingWriter};
pub use registry::{IntoTool, RegistryError, ToolRegistry};
pub use retry::RetryPolicy;
pub use rider::{Rider, RiderError, RunOutcome};
pub use secrecy;
pub use secret_input::{SECRET_TEMPLATE_KEY, SecretInput};
pub use signal::{CancelHandle, CancelSignal};
pub use tool::{DynTool, ErrorClass, SharedTool, Tool, ToolError};
pub use validate::Violation;

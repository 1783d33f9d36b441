//! The tool's logger: a `tracing` span carrying the run and step ids, whose every message
//! passes through the redactor.

use std::fmt::Display;

use crate::redact::Redactor;

/// Logs for one step. Messages are redacted before they reach `tracing`.
#[derive(Debug, Clone)]
pub struct Logger {
    span: tracing::Span,
    redactor: Redactor,
}

impl Logger {
    /// A logger for `step_id` of `run_id`.
    pub fn new(run_id: &str, step_id: &str, redactor: Redactor) -> Logger {
        Logger {
            span: tracing::info_span!("step", run_id = %run_id, step_id = %step_id),
            redactor,
        }
    }

    /// The redactor every message passes through.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The span, for tools that instrument their own futures.
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Logs at debug level.
    pub fn debug(&self, message: impl Display) {
        let text = self.redactor.redact_string(&message.to_string());
        tracing::debug!(parent: &self.span, "{text}");
    }

    /// Logs at info level.
    pub fn info(&self, message: impl Display) {
        let text = self.redactor.redact_string(&message.to_string());
        tracing::info!(parent: &self.span, "{text}");
    }

    /// Logs at warn level.
    pub fn warn(&self, message: impl Display) {
        let text = self.redactor.redact_string(&message.to_string());
        tracing::warn!(parent: &self.span, "{text}");
    }

    /// Logs at error level.
    pub fn error(&self, message: impl Display) {
        let text = self.redactor.redact_string(&message.to_string());
        tracing::error!(parent: &self.span, "{text}");
    }
}

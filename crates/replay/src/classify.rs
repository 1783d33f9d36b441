//! Failure classes of browser tools in the Rider.
//!
//! The Rider retries `browser` steps on transient errors only, decided on the step's
//! [`FailureKind`] (never on its message). Transient: the browser crashed or the CDP
//! connection dropped ([`FailureKind::BrowserDisconnected`], or a browser no longer
//! connected after the replay; the handle relaunches on the next attempt), a navigation,
//! popup or download that did not finish loading ([`FailureKind::LoadFailed`]), a browser
//! that could not be started or reached. Terminal: every other step failure (no selector
//! candidate actionable, an assertion or expected navigation that does not hold, an
//! extracted value of the wrong type): the site or the recording changed, and replaying
//! again would fail the same way.

use browserflow_cdp::BrowserError;
use browserflow_rider::ToolError;

use crate::secrets::ReplaySecrets;
use crate::{FailureKind, ReplayError};

/// The class of a browser that could not be started or reached.
pub(crate) fn classify_browser_error(error: &BrowserError) -> ToolError {
    match error {
        // Configuration problems: a retry finds the same machine.
        BrowserError::ChromiumNotFound { .. }
        | BrowserError::Spawn { .. }
        | BrowserError::UserDataDir(_) => ToolError::terminal(error.to_string()),
        _ => ToolError::transient(format!("the browser is unavailable: {error}")),
    }
}

/// The class of a failed replay; see the module docs. Decided on the failure's kind alone
/// (and on whether the browser is still there), never on its message.
pub(crate) fn classify_replay_error(
    error: &ReplayError,
    browser_alive: bool,
    secrets: &ReplaySecrets,
) -> ToolError {
    let message = secrets.redact(&error.to_string());
    let kind = error.failure_kind();
    match error {
        ReplayError::InvalidStep { .. } | ReplayError::Input { .. } | ReplayError::File { .. } => {
            ToolError::terminal(message)
        }
        // The liveness check may see the browser gone before the step's failure says so.
        ReplayError::StepFailed { .. }
            if !browser_alive || kind == FailureKind::BrowserDisconnected =>
        {
            ToolError::transient(format!(
                "the browser crashed or its connection dropped: {message}"
            ))
        }
        ReplayError::StepFailed { .. } if kind.is_transient() => ToolError::transient(message),
        ReplayError::StepFailed { .. } => ToolError::terminal(message),
    }
}

#[cfg(test)]
mod tests {
    use browserflow_rider::ErrorClass;

    use serde_json::Map;

    use super::*;
    use crate::{Missing, ReplayReport, Unactionable};

    fn failed(failure: FailureKind, message: &str) -> ReplayError {
        ReplayError::StepFailed {
            index: 0,
            kind: "click".into(),
            label: None,
            message: message.into(),
            failure,
            report: Box::new(ReplayReport {
                steps: Vec::new(),
                outputs: Map::new(),
                final_url: String::new(),
                duration_ms: 0.0,
            }),
        }
    }

    fn class(error: &ReplayError, browser_alive: bool) -> (ErrorClass, String) {
        let e = classify_replay_error(error, browser_alive, &ReplaySecrets::default());
        (e.class, e.message)
    }

    #[test]
    fn disconnects_are_transient_and_say_so() {
        let (c, message) = class(&failed(FailureKind::BrowserDisconnected, "boom"), true);
        assert_eq!(c, ErrorClass::Transient);
        assert!(message.starts_with("the browser crashed or its connection dropped: "));
    }

    #[test]
    fn a_dead_browser_makes_any_step_failure_a_disconnect() {
        let error = failed(
            FailureKind::NotActionable(Unactionable::NoCandidateReady),
            "x",
        );
        let (c, message) = class(&error, false);
        assert_eq!(c, ErrorClass::Transient);
        assert!(message.starts_with("the browser crashed or its connection dropped: "));
    }

    #[test]
    fn load_failures_are_transient() {
        let (c, message) = class(&failed(FailureKind::LoadFailed, "slow"), true);
        assert_eq!(c, ErrorClass::Transient);
        assert!(!message.contains("crashed"), "{message}");
    }

    #[test]
    fn the_words_of_a_message_decide_nothing() {
        // Messages that once made a failure transient, on failures that are not.
        let words = [
            "the connection to the browser is closed",
            "navigation to x failed: net::ERR_FAILED timed out",
            "did not finish within 5 ms",
            "the popup did not load",
        ];
        let kinds = [
            FailureKind::NotActionable(Unactionable::NoCandidateReady),
            FailureKind::NotFound(Missing::Frame),
            FailureKind::Assertion,
            FailureKind::Timeout,
            FailureKind::Gone,
            FailureKind::Extraction,
            FailureKind::NavigationRefused,
        ];
        for kind in kinds {
            for text in words {
                assert_eq!(
                    class(&failed(kind, text), true).0,
                    ErrorClass::Terminal,
                    "{kind:?} {text}"
                );
            }
        }
    }

    #[test]
    fn steps_wrong_before_the_run_are_terminal_even_when_the_browser_is_gone() {
        let error = ReplayError::InvalidStep {
            index: 0,
            kind: "click".into(),
            message: "no candidates".into(),
        };
        assert_eq!(error.failure_kind(), FailureKind::InvalidStep);
        assert_eq!(class(&error, false).0, ErrorClass::Terminal);
    }
}

//! Named crash points, for crash tests: a hook the Rider calls at each point of an
//! effectful step, so a test can kill the process exactly there.

use std::sync::Arc;

/// A point in the life of an effectful step attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CrashPoint {
    /// The intent is committed; the tool has not run.
    BeforeEffect,
    /// The tool returned; its outcome is not yet committed.
    AfterEffect,
    /// The outcome is committed.
    AfterCommit,
}

impl CrashPoint {
    /// Every point, in order.
    pub const ALL: [CrashPoint; 3] = [
        CrashPoint::BeforeEffect,
        CrashPoint::AfterEffect,
        CrashPoint::AfterCommit,
    ];

    /// `before-effect`, `after-effect`, `after-commit`.
    pub fn as_str(self) -> &'static str {
        match self {
            CrashPoint::BeforeEffect => "before-effect",
            CrashPoint::AfterEffect => "after-effect",
            CrashPoint::AfterCommit => "after-commit",
        }
    }

    /// Parses [`CrashPoint::as_str`]'s spelling.
    pub fn parse(text: &str) -> Option<CrashPoint> {
        CrashPoint::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

/// Called with the point and the step id. For tests only: a hook that blocks lets the test
/// SIGKILL the process at that point.
pub type CrashHook = Arc<dyn Fn(CrashPoint, &str) + Send + Sync>;

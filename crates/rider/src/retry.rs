//! Retry policy, derived from the tool's kind.
//!
//! Pure steps are never retried (they would fail the same way). `http`, `browser` and
//! `model` steps are retried on transient errors with bounded exponential backoff; terminal
//! errors (a 4xx, a refused capability, a bad input) stop at once. Other kinds (`shell`,
//! `code`, `composite`) are not retried: their effects are not known to be safe to repeat.

use std::time::Duration;

use browserflow_contract::Kind;

use crate::tool::{ErrorClass, ToolError};

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all (1: no retry).
    pub max_attempts: u32,
    /// The delay before the second attempt.
    pub initial_delay: Duration,
    /// The longest delay between attempts.
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// No retry.
    pub const NONE: RetryPolicy = RetryPolicy {
        max_attempts: 1,
        initial_delay: Duration::ZERO,
        max_delay: Duration::ZERO,
    };

    /// The default for effectful `http`, `browser` and `model` steps: 4 attempts, 200 ms
    /// doubling to at most 5 s.
    pub const BACKOFF: RetryPolicy = RetryPolicy {
        max_attempts: 4,
        initial_delay: Duration::from_millis(200),
        max_delay: Duration::from_secs(5),
    };

    /// The policy of a step: none for a pure step, [`RetryPolicy::BACKOFF`] scaled by
    /// `backoff` for the retryable kinds.
    pub fn for_step(kind: Kind, pure: bool, backoff: RetryPolicy) -> RetryPolicy {
        match kind {
            _ if pure => RetryPolicy::NONE,
            Kind::Http | Kind::Browser | Kind::Model => backoff,
            _ => RetryPolicy::NONE,
        }
    }

    /// The delay before attempt `next` (2 for the first retry), or `None` when `error` must
    /// not be retried or the attempts are used up.
    pub fn delay_before(&self, next: u32, error: &ToolError) -> Option<Duration> {
        if error.class != ErrorClass::Transient || next > self.max_attempts {
            return None;
        }
        let doublings = next.saturating_sub(2).min(30);
        let delay = self.initial_delay.saturating_mul(1 << doublings);
        Some(delay.min(self.max_delay))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_is_bounded_and_stops_on_terminal_errors() {
        let p = RetryPolicy::BACKOFF;
        let transient = ToolError::transient("503");
        assert_eq!(
            p.delay_before(2, &transient),
            Some(Duration::from_millis(200))
        );
        assert_eq!(
            p.delay_before(3, &transient),
            Some(Duration::from_millis(400))
        );
        assert_eq!(
            p.delay_before(4, &transient),
            Some(Duration::from_millis(800))
        );
        assert_eq!(p.delay_before(5, &transient), None);
        assert_eq!(p.delay_before(2, &ToolError::terminal("404")), None);
        let long = RetryPolicy {
            max_attempts: 40,
            ..p
        };
        assert_eq!(long.delay_before(30, &transient), Some(p.max_delay));
        assert_eq!(
            RetryPolicy::for_step(Kind::Transform, true, p),
            RetryPolicy::NONE
        );
        assert_eq!(
            RetryPolicy::for_step(Kind::Shell, false, p),
            RetryPolicy::NONE
        );
        assert_eq!(RetryPolicy::for_step(Kind::Http, false, p), p);
    }
}

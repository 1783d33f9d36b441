//! The run's clock: the logical time recorded when the run started. Every step of the run,
//! and every resume of it, sees the same instant, so a pure step re-run gives the same answer.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A fixed instant: the run's recorded start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    unix_millis: i64,
}

impl Clock {
    /// The clock of a run recorded at `unix_millis` (milliseconds since the Unix epoch).
    pub fn at_unix_millis(unix_millis: i64) -> Clock {
        Clock { unix_millis }
    }

    /// The wall-clock time now, for a new run.
    pub fn now_wall() -> Clock {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Clock::at_unix_millis(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub fn unix_millis(&self) -> i64 {
        self.unix_millis
    }

    /// The instant as a `SystemTime`.
    pub fn now(&self) -> SystemTime {
        if self.unix_millis >= 0 {
            UNIX_EPOCH + Duration::from_millis(self.unix_millis as u64)
        } else {
            UNIX_EPOCH - Duration::from_millis(self.unix_millis.unsigned_abs())
        }
    }

    /// RFC 3339 in UTC with milliseconds: `2026-11-30T02:32:27.123Z`.
    pub fn rfc3339(&self) -> String {
        let millis = self.unix_millis.rem_euclid(1000);
        let secs = self.unix_millis.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        )
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(
            Clock::at_unix_millis(0).rfc3339(),
            "1970-01-01T00:00:00.000Z"
        );
        assert_eq!(
            Clock::at_unix_millis(1_709_251_199_999).rfc3339(),
            "2024-02-29T23:59:59.999Z"
        );
        assert_eq!(
            Clock::at_unix_millis(-1).rfc3339(),
            "1969-12-31T23:59:59.999Z"
        );
    }
}

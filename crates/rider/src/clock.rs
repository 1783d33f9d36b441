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
        let (date, time) = utc_date_and_time(secs);
        format!("{date}T{time}.{millis:03}Z")
    }
}

/// The proleptic Gregorian `(year, month, day)` of `days_since_epoch` days after 1970-01-01
/// (negative days are before it), in UTC. `month` is 1–12 and `day` 1–31.
///
/// Howard Hinnant's `civil_from_days`. It is the one implementation of this algorithm in
/// browserflow: call it (or [`rfc3339_utc_seconds`], [`utc_date`]) rather than copy it, so
/// every timestamp agrees.
///
/// ```
/// use browserflow_rider::clock::civil_from_days;
///
/// assert_eq!(civil_from_days(0), (1970, 1, 1));
/// assert_eq!(civil_from_days(19_782), (2024, 2, 29));
/// assert_eq!(civil_from_days(-1), (1969, 12, 31));
/// ```
pub fn civil_from_days(days_since_epoch: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so that the leap day is the last day of a year.
    let z = days_since_epoch + 719_468;
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

/// `unix_secs` (seconds since the Unix epoch) as RFC 3339 in UTC to the second:
/// `2026-11-30T05:21:55Z`.
///
/// ```
/// use browserflow_rider::clock::rfc3339_utc_seconds;
///
/// assert_eq!(rfc3339_utc_seconds(1_709_251_199), "2024-02-29T23:59:59Z");
/// ```
pub fn rfc3339_utc_seconds(unix_secs: i64) -> String {
    let (date, time) = utc_date_and_time(unix_secs);
    format!("{date}T{time}Z")
}

/// The UTC date of `unix_secs` (seconds since the Unix epoch) as `YYYY-MM-DD`.
///
/// ```
/// use browserflow_rider::clock::utc_date;
///
/// assert_eq!(utc_date(-1), "1969-12-31");
/// ```
pub fn utc_date(unix_secs: i64) -> String {
    utc_date_and_time(unix_secs).0
}

/// `YYYY-MM-DD` and `HH:MM:SS` of a Unix time in seconds, in UTC.
fn utc_date_and_time(unix_secs: i64) -> (String, String) {
    let days = unix_secs.div_euclid(86_400);
    let secs_of_day = unix_secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        format!(
            "{:02}:{:02}:{:02}",
            secs_of_day / 3600,
            secs_of_day % 3600 / 60,
            secs_of_day % 60
        ),
    )
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

    /// The reverse of `civil_from_days`, written independently (count whole years, then
    /// months), to check it day by day.
    fn days_from_civil_by_counting(year: i64, month: u32, day: u32) -> i64 {
        let is_leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let year_len = |y: i64| if is_leap(y) { 366 } else { 365 };
        let mut days: i64 = if year >= 1970 {
            (1970..year).map(year_len).sum()
        } else {
            -(year..1970).map(year_len).sum::<i64>()
        };
        let february = if is_leap(year) { 29 } else { 28 };
        let month_lens = [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        days += month_lens[..month as usize - 1].iter().sum::<i64>();
        days + i64::from(day) - 1
    }

    #[test]
    fn civil_from_days_knows_leap_years_and_centuries() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(10_956), (1999, 12, 31));
        // 2000 is a leap year (divisible by 400), 2100 is not (divisible by 100).
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(47_540), (2100, 2, 28));
        assert_eq!(civil_from_days(47_541), (2100, 3, 1));
        assert_eq!(civil_from_days(-719_468), (0, 3, 1));
    }

    #[test]
    fn civil_from_days_agrees_with_counting_for_every_day_of_four_centuries() {
        // 1800-01-01 to 2200-01-01: both sides of the epoch, three non-leap centuries.
        let first = days_from_civil_by_counting(1800, 1, 1);
        let last = days_from_civil_by_counting(2200, 1, 1);
        let mut previous = civil_from_days(first - 1);
        for days in first..=last {
            let (year, month, day) = civil_from_days(days);
            assert!((1..=12).contains(&month) && (1..=31).contains(&day));
            assert_eq!(days_from_civil_by_counting(year, month, day), days);
            assert!((year, month, day) > previous, "dates increase day by day");
            previous = (year, month, day);
        }
    }

    #[test]
    fn formats_unix_seconds_as_rfc3339_and_as_a_date() {
        assert_eq!(rfc3339_utc_seconds(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc_seconds(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(rfc3339_utc_seconds(-1), "1969-12-31T23:59:59Z");
        assert_eq!(utc_date(1_709_251_200), "2024-03-01");
        assert_eq!(utc_date(-86_401), "1969-12-30");
    }
}

//! When a schedule fires: a cron expression read in an IANA time zone, and the slots it
//! names.
//!
//! # Daylight saving time
//!
//! Slots follow the wall clock of the schedule's time zone, as Vixie cron does (the rule
//! croner implements, and the tests below pin on a spring-forward and a fall-back day):
//!
//! - **A gap** (clocks jump forward, e.g. 02:00 → 03:00): a fixed-time schedule whose time
//!   falls in the gap (`30 2 * * *`) fires once, at the first instant after the gap (03:00);
//!   an interval or wildcard schedule (`*/15 * * * *`) simply has no slots in the gap.
//! - **A repeat** (clocks go back, e.g. 03:00 → 02:00): a fixed-time schedule fires once, at
//!   the first occurrence; an interval or wildcard schedule fires at every matching instant
//!   of both passes.
//!
//! A slot is an instant (UTC): its identity, and the run id it starts, do not depend on the
//! time zone's offset.

use std::str::FromStr;

use croner::Cron;
use croner::parser::{CronParser, Seconds};
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// A cron expression or time zone that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimingError {
    /// The expression does not parse.
    #[error(
        "cron expression `{expression}`: {reason} (five fields: minute hour day-of-month month day-of-week, or six with seconds first)"
    )]
    BadCron {
        /// The expression as given.
        expression: String,
        /// Why.
        reason: String,
    },
    /// No such time zone in the time-zone database.
    #[error(
        "time zone `{0}` is unknown (an IANA name such as Europe/Paris, America/New_York or UTC)"
    )]
    UnknownTimeZone(String),
    /// The expression names no instant after the one asked (e.g. `0 0 30 2 *`).
    #[error("cron expression `{expression}` names no time after {after}")]
    NoNextSlot {
        /// The expression.
        expression: String,
        /// The instant searched from.
        after: Timestamp,
    },
}

/// A cron expression in a time zone.
#[derive(Debug, Clone)]
pub struct Timing {
    cron: Cron,
    expression: String,
    zone: TimeZone,
    zone_name: String,
}

impl Timing {
    /// Reads `expression` (5 fields, or 6 with seconds first) in the time zone `zone`.
    pub fn parse(expression: &str, zone: &str) -> Result<Timing, TimingError> {
        let cron = CronParser::builder()
            .seconds(Seconds::Optional)
            .build()
            .parse(expression)
            .map_err(|e| TimingError::BadCron {
                expression: expression.to_owned(),
                reason: e.to_string(),
            })?;
        let tz = TimeZone::get(zone).map_err(|_| TimingError::UnknownTimeZone(zone.to_owned()))?;
        let timing = Timing {
            cron,
            expression: expression.to_owned(),
            zone: tz,
            zone_name: zone.to_owned(),
        };
        // An expression that never fires (the 30th of February) is refused now, not at the
        // first tick of a worker.
        timing.next_after(Timestamp::now())?;
        Ok(timing)
    }

    /// The expression, as written.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The time zone's name, as written.
    pub fn zone_name(&self) -> &str {
        &self.zone_name
    }

    /// The expression in words (`At 08:00`…).
    pub fn describe(&self) -> String {
        self.cron.describe()
    }

    /// `instant` on the schedule's wall clock.
    pub fn local(&self, instant: Timestamp) -> Zoned {
        instant.to_zoned(self.zone.clone())
    }

    /// The first slot strictly after `after`.
    pub fn next_after(&self, after: Timestamp) -> Result<Timestamp, TimingError> {
        self.cron
            .find_next_occurrence(&self.local(after), false)
            .map(|z| z.timestamp())
            .map_err(|_| TimingError::NoNextSlot {
                expression: self.expression.clone(),
                after,
            })
    }

    /// The last slot at or before `at`, if any.
    pub fn last_at_or_before(&self, at: Timestamp) -> Option<Timestamp> {
        self.cron
            .find_previous_occurrence(&self.local(at), true)
            .ok()
            .map(|z| z.timestamp())
    }

    /// The slots in `(after, until]`, oldest first, at most `max`.
    pub fn slots_between(&self, after: Timestamp, until: Timestamp, max: usize) -> Vec<Timestamp> {
        let mut slots = Vec::new();
        let mut from = after;
        while slots.len() < max {
            match self.next_after(from) {
                Ok(next) if next <= until => {
                    slots.push(next);
                    from = next;
                }
                _ => break,
            }
        }
        slots
    }
}

impl FromStr for CatchUp {
    type Err = String;

    fn from_str(word: &str) -> Result<CatchUp, String> {
        match word {
            "none" => Ok(CatchUp::None),
            "latest" => Ok(CatchUp::Latest),
            other => Err(format!("catch-up `{other}`: expected none or latest")),
        }
    }
}

impl FromStr for Overlap {
    type Err = String;

    fn from_str(word: &str) -> Result<Overlap, String> {
        match word {
            "skip" => Ok(Overlap::Skip),
            "queue" => Ok(Overlap::Queue),
            other => Err(format!("overlap `{other}`: expected skip or queue")),
        }
    }
}

/// What slots missed while no worker ran become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CatchUp {
    /// Nothing: missed slots are not run.
    None,
    /// The latest missed slot runs, once.
    #[default]
    Latest,
}

impl CatchUp {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            CatchUp::None => "none",
            CatchUp::Latest => "latest",
        }
    }
}

/// What a slot does while the schedule's previous run still runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overlap {
    /// It is recorded as skipped and does not run.
    #[default]
    Skip,
    /// It waits, and runs when the previous run ended.
    Queue,
}

impl Overlap {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Overlap::Skip => "skip",
            Overlap::Queue => "queue",
        }
    }
}

/// The slots a worker fires now, from the last slot fired.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Due {
    /// To fire, oldest first.
    pub fire: Vec<Timestamp>,
    /// How many slots were missed (older than the grace) and not fired.
    pub missed: usize,
}

/// The slots due at `now`: those after `since` (the last slot fired, or when the schedule
/// became active) and at or before `now`.
///
/// A slot at most `grace` old is on time and fires. Older slots were missed (no worker
/// ran): with [`CatchUp::Latest`] the newest of them fires once — unless an on-time slot
/// fires anyway —, with [`CatchUp::None`] none does. At most `max_on_time` on-time slots are
/// returned (the newest; a schedule firing every second seen after a long grace).
pub fn due(
    timing: &Timing,
    since: Timestamp,
    now: Timestamp,
    grace: jiff::SignedDuration,
    catch_up: CatchUp,
    max_on_time: usize,
) -> Due {
    let Some(newest) = timing.last_at_or_before(now) else {
        return Due::default();
    };
    if newest <= since {
        return Due::default();
    }
    let horizon = now.checked_sub(grace).unwrap_or(Timestamp::MIN);
    let on_time_from = if since > horizon { since } else { horizon };
    let mut fire = timing.slots_between(on_time_from, now, 100_000);
    if fire.len() > max_on_time {
        fire.drain(..fire.len() - max_on_time);
    }
    // Slots in (since, horizon]: missed.
    let newest_missed = if since < horizon {
        timing
            .last_at_or_before(horizon)
            .filter(|slot| *slot > since)
    } else {
        None
    };
    let Some(newest_missed) = newest_missed else {
        return Due { fire, missed: 0 };
    };
    // Counting every missed slot of a per-second schedule off for a month would take long;
    // the count is capped, as it only informs.
    let missed = timing.slots_between(since, newest_missed, 10_000).len();
    match (catch_up, fire.is_empty()) {
        (CatchUp::Latest, true) => Due {
            fire: vec![newest_missed],
            missed: missed - 1,
        },
        _ => Due { fire, missed },
    }
}

/// The run a slot of `schedule` starts: one id per (schedule, slot), so that however many
/// workers fire it, the journal records one run. `sched-NAME-20261202T080000Z`.
pub fn slot_run_id(schedule: &str, slot: Timestamp) -> String {
    format!("sched-{schedule}-{}", slot.strftime("%Y%m%dT%H%M%SZ"))
}

/// The run `bflow schedule run-now` starts at `at`: apart from every slot's, to the
/// millisecond. `sched-NAME-now-20261202T081503.250Z`.
pub fn manual_run_id(schedule: &str, at: Timestamp) -> String {
    format!("sched-{schedule}-now-{}", at.strftime("%Y%m%dT%H%M%S%.3fZ"))
}

#[cfg(test)]
mod tests;

use jiff::{SignedDuration, Timestamp};

use super::*;

fn at(text: &str) -> Timestamp {
    text.parse().expect("an RFC 3339 instant")
}

fn paris(expression: &str) -> Timing {
    Timing::parse(expression, "Europe/Paris").expect("a valid timing")
}

#[test]
fn a_bad_expression_or_zone_is_refused_naming_it() {
    let bad = Timing::parse("61 * * * *", "UTC").unwrap_err();
    assert!(matches!(&bad, TimingError::BadCron { expression, .. } if expression == "61 * * * *"));
    assert!(bad.to_string().contains("`61 * * * *`"), "{bad}");
    let zone = Timing::parse("0 8 * * *", "Mars/Olympus_Mons").unwrap_err();
    assert_eq!(
        zone,
        TimingError::UnknownTimeZone("Mars/Olympus_Mons".into())
    );
    assert!(zone.to_string().contains("Mars/Olympus_Mons"));
    let never = Timing::parse("0 0 30 2 *", "UTC").unwrap_err();
    assert!(matches!(never, TimingError::NoNextSlot { .. }), "{never:?}");
}

#[test]
fn a_daily_time_follows_the_zone_offset_through_the_year() {
    let daily = paris("0 8 * * *");
    // Winter: CET, UTC+1.
    assert_eq!(
        daily.next_after(at("2026-12-02T10:00:00Z")).unwrap(),
        at("2026-12-03T07:00:00Z")
    );
    // Summer: CEST, UTC+2.
    assert_eq!(
        daily.next_after(at("2026-07-01T00:00:00Z")).unwrap(),
        at("2026-07-01T06:00:00Z")
    );
    // Six fields: seconds first.
    let every_two_seconds = Timing::parse("*/2 * * * * *", "UTC").unwrap();
    assert_eq!(
        every_two_seconds.slots_between(at("2026-01-01T00:00:00Z"), at("2026-01-01T00:00:07Z"), 10),
        ["00:00:02", "00:00:04", "00:00:06"]
            .map(|t| at(&format!("2026-01-01T{t}Z")))
            .to_vec()
    );
}

#[test]
fn spring_forward_a_fixed_time_in_the_gap_fires_once_right_after_it() {
    // Europe/Paris, 2026-03-29: 02:00 CET becomes 03:00 CEST; 02:30 does not exist.
    let slots = paris("30 2 * * *").slots_between(
        at("2026-03-28T00:00:00Z"),
        at("2026-03-31T00:00:00Z"),
        10,
    );
    assert_eq!(
        slots,
        vec![
            at("2026-03-28T01:30:00Z"), // 02:30 CET
            at("2026-03-29T01:00:00Z"), // 03:00 CEST, the first instant after the gap
            at("2026-03-30T00:30:00Z"), // 02:30 CEST
        ]
    );
}

#[test]
fn spring_forward_an_interval_has_no_slots_in_the_gap() {
    let slots = paris("*/30 * * * *").slots_between(
        at("2026-03-28T23:59:00Z"),
        at("2026-03-29T02:00:00Z"),
        10,
    );
    assert_eq!(
        slots,
        vec![
            at("2026-03-29T00:00:00Z"), // 01:00 CET
            at("2026-03-29T00:30:00Z"), // 01:30 CET
            at("2026-03-29T01:00:00Z"), // 03:00 CEST
            at("2026-03-29T01:30:00Z"), // 03:30 CEST
            at("2026-03-29T02:00:00Z"), // 04:00 CEST
        ]
    );
}

#[test]
fn fall_back_a_fixed_time_in_the_repeat_fires_once_at_its_first_occurrence() {
    // Europe/Paris, 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 happens twice.
    let slots = paris("30 2 * * *").slots_between(
        at("2026-10-24T00:00:00Z"),
        at("2026-10-26T12:00:00Z"),
        10,
    );
    assert_eq!(
        slots,
        vec![
            at("2026-10-24T00:30:00Z"), // 02:30 CEST
            at("2026-10-25T00:30:00Z"), // 02:30 CEST, the first of the two
            at("2026-10-26T01:30:00Z"), // 02:30 CET
        ]
    );
}

#[test]
fn fall_back_an_interval_fires_in_both_passes_of_the_repeated_hour() {
    let slots = paris("*/30 * * * *").slots_between(
        at("2026-10-24T23:59:00Z"),
        at("2026-10-25T02:00:00Z"),
        10,
    );
    assert_eq!(
        slots,
        vec![
            at("2026-10-25T00:00:00Z"), // 02:00 CEST
            at("2026-10-25T00:30:00Z"), // 02:30 CEST
            at("2026-10-25T01:00:00Z"), // 02:00 CET
            at("2026-10-25T01:30:00Z"), // 02:30 CET
            at("2026-10-25T02:00:00Z"), // 03:00 CET
        ]
    );
}

#[test]
fn due_fires_on_time_slots_and_catches_up_the_latest_missed_once() {
    let minutely = Timing::parse("* * * * *", "UTC").unwrap();
    let grace = SignedDuration::from_secs(60);
    let now = at("2026-12-02T10:00:30Z");

    // Nothing since the last slot fired.
    assert_eq!(
        due(
            &minutely,
            at("2026-12-02T10:00:00Z"),
            now,
            grace,
            CatchUp::Latest,
            100
        ),
        Due::default()
    );
    // One slot on time.
    assert_eq!(
        due(
            &minutely,
            at("2026-12-02T09:59:00Z"),
            now,
            grace,
            CatchUp::Latest,
            100
        ),
        Due {
            fire: vec![at("2026-12-02T10:00:00Z")],
            missed: 0
        }
    );
    // A worker that was down from 09:00: the on-time slot (10:00) fires; the 59 before it
    // that are older than the grace were missed, and the on-time run stands for them.
    assert_eq!(
        due(
            &minutely,
            at("2026-12-02T09:00:00Z"),
            now,
            grace,
            CatchUp::Latest,
            100
        ),
        Due {
            fire: vec![at("2026-12-02T10:00:00Z")],
            missed: 59
        }
    );
    // A daily schedule whose 08:00 slot was missed by hours: latest catches it up once…
    let daily = Timing::parse("0 8 * * *", "UTC").unwrap();
    let since = at("2026-11-30T09:00:00Z");
    let late = at("2026-12-02T11:00:00Z");
    assert_eq!(
        due(&daily, since, late, grace, CatchUp::Latest, 100),
        Due {
            fire: vec![at("2026-12-02T08:00:00Z")],
            missed: 1
        }
    );
    // …and none runs nothing.
    assert_eq!(
        due(&daily, since, late, grace, CatchUp::None, 100),
        Due {
            fire: vec![],
            missed: 2
        }
    );
    // A schedule never fires a slot at or before it became active.
    assert_eq!(
        due(
            &daily,
            at("2026-12-02T08:00:00Z"),
            late,
            grace,
            CatchUp::Latest,
            100
        ),
        Due::default()
    );
}

#[test]
fn due_keeps_the_newest_on_time_slots_within_the_cap() {
    let every_second = Timing::parse("* * * * * *", "UTC").unwrap();
    let now = at("2026-12-02T10:00:10Z");
    let got = due(
        &every_second,
        at("2026-12-02T10:00:00Z"),
        now,
        SignedDuration::from_secs(60),
        CatchUp::Latest,
        3,
    );
    assert_eq!(
        got.fire,
        ["08", "09", "10"]
            .map(|s| at(&format!("2026-12-02T10:00:{s}Z")))
            .to_vec()
    );
}

#[test]
fn a_slot_names_one_run() {
    assert_eq!(
        slot_run_id("daily-price-watch", at("2026-12-02T07:00:00Z")),
        "sched-daily-price-watch-20261202T070000Z"
    );
}

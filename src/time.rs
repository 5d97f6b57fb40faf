//! Timestamps: the clock is milliseconds since the epoch (pinned by `OMC_NOW_MS` in tests);
//! files carry RFC 3339 strings, as OMC's do, so a person can read them.

use chrono::{DateTime, SecondsFormat, Utc};

/// RFC 3339 in UTC with milliseconds, e.g. `2026-12-02T13:45:00.123Z`.
pub fn iso(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Milliseconds since the epoch of an RFC 3339 string; `None` if it does not parse.
pub fn parse_iso(s: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|d| d.timestamp_millis())
}

/// A compact stamp for file names, sortable as text: `20261202T134500123Z`.
pub fn stamp(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y%m%dT%H%M%S%3fZ")
        .to_string()
}

/// A date and minute for human-facing notes: `2026-12-02 13:45 UTC`.
pub fn human(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%d %H:%M UTC")
        .to_string()
}

/// "3m 20s", "2h 05m": a short duration for people.
pub fn short_duration(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trips() {
        let ms = 1_796_305_500_123;
        assert_eq!(parse_iso(&iso(ms)), Some(ms));
        assert_eq!(parse_iso("not a date"), None);
    }

    #[test]
    fn stamp_sorts_as_text() {
        assert!(stamp(1_000) < stamp(2_000));
        assert_eq!(stamp(0), "19700101T000000000Z");
    }

    #[test]
    fn durations() {
        assert_eq!(short_duration(59_000), "59s");
        assert_eq!(short_duration(200_000), "3m 20s");
        assert_eq!(short_duration(7_500_000), "2h 05m");
    }
}

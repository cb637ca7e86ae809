//! Time: the current instant (fixed by `ENGRAM_NOW` for reproducible runs), parsing
//! of the time values users type (RFC 3339, plain dates, relative durations) and the
//! one format engram writes (RFC 3339, UTC, whole seconds, so files do not churn).

use chrono::{DateTime, Duration, NaiveDate, SecondsFormat, Utc};

use crate::error::{Error, Result};

/// A point in time, always UTC.
pub type Timestamp = DateTime<Utc>;

/// The current time: `ENGRAM_NOW` if set (RFC 3339), else the system clock.
pub fn now() -> Result<Timestamp> {
    match std::env::var("ENGRAM_NOW") {
        Ok(value) if !value.trim().is_empty() => parse_time(&value).map_err(|_| {
            Error::Input(format!(
                "ENGRAM_NOW='{value}' is not an RFC 3339 time; use e.g. 2026-11-20T09:12:44Z"
            ))
        }),
        _ => Ok(truncate_to_seconds(Utc::now())),
    }
}

fn truncate_to_seconds(t: Timestamp) -> Timestamp {
    DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
}

/// Parses RFC 3339 (any offset, converted to UTC) or a plain `YYYY-MM-DD` date
/// (midnight UTC), the two forms Obsidian's date properties use.
pub fn parse_time(text: &str) -> std::result::Result<Timestamp, String> {
    let text = text.trim();
    let parsed = DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        // Obsidian writes date-times without an offset: take them as UTC.
        .or_else(|| {
            chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
                .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
                .ok()
                .map(|t| t.and_utc())
        })
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .map(|d| d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc())
        });
    match parsed {
        Some(t) if writable(&t) => Ok(t),
        Some(_) => Err(format!(
            "'{text}' is outside the years 0001 to 9999 that engram's files can hold"
        )),
        None => Err(format!(
            "'{text}' is not a time; use RFC 3339 (2026-11-20T09:12:44Z) or a date (2026-11-20)"
        )),
    }
}

/// Formats a time the way engram writes it: `2026-11-20T09:12:44Z`.
pub fn format_time(t: &Timestamp) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Parses a duration such as `30d`, `12h`, `45m`, `90s`, `2w` or `1y` (365 days).
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let bad = || {
        format!("'{text}' is not a duration; use a number and a unit: 30d, 12h, 45m, 90s, 2w, 1y")
    };
    let n: i64 = digits.parse().map_err(|_| bad())?;
    let d = match unit {
        "s" => Duration::try_seconds(n),
        "m" | "min" => Duration::try_minutes(n),
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        "y" => Duration::try_days(n.saturating_mul(365)),
        _ => None,
    };
    d.ok_or_else(bad)
}

/// Parses a time given on the command line: RFC 3339, a date, or a duration ago
/// (`7d` means seven days before now).
pub fn parse_time_arg(text: &str, now: Timestamp) -> std::result::Result<Timestamp, String> {
    let t = parse_time(text).or_else(|e| match parse_duration(text) {
        Ok(d) => shift(now, -d).map_err(|why| format!("'{text}' ago {why}")),
        Err(_) => Err(format!("{e}, or a duration ago (7d)")),
    })?;
    if writable(&t) {
        Ok(t)
    } else {
        Err(format!("'{text}' is outside the years 0001 to 9999"))
    }
}

/// `t` moved by `d`, if the result is a time engram can write (years 0001 to
/// 9999, the four-digit years of RFC 3339); else why not.
pub fn shift(t: Timestamp, d: Duration) -> std::result::Result<Timestamp, String> {
    t.checked_add_signed(d)
        .filter(writable)
        .ok_or_else(|| "falls outside the years 0001 to 9999; give a shorter duration".into())
}

/// Whether `t` has a four-digit year, as RFC 3339 and engram's files need.
pub fn writable(t: &Timestamp) -> bool {
    use chrono::Datelike;
    (1..=9999).contains(&t.year())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc3339_with_offset_into_utc() {
        let t = parse_time("2026-11-20T10:12:44+01:00").unwrap();
        assert_eq!(format_time(&t), "2026-11-20T09:12:44Z");
    }

    #[test]
    fn parses_plain_dates_and_obsidian_datetimes() {
        assert_eq!(
            format_time(&parse_time("2026-11-20").unwrap()),
            "2026-11-20T00:00:00Z"
        );
        assert_eq!(
            format_time(&parse_time("2026-11-20T08:30:00").unwrap()),
            "2026-11-20T08:30:00Z"
        );
        assert!(parse_time("yesterday").is_err());
    }

    #[test]
    fn parses_durations() {
        assert_eq!(parse_duration("30d").unwrap(), Duration::days(30));
        assert_eq!(parse_duration("12h").unwrap(), Duration::hours(12));
        assert_eq!(parse_duration("2w").unwrap(), Duration::weeks(2));
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("d").is_err());
        assert!(parse_duration("3x").is_err());
    }

    #[test]
    fn relative_time_args_count_back_from_now() {
        let now = parse_time("2026-11-20T00:00:00Z").unwrap();
        let t = parse_time_arg("2d", now).unwrap();
        assert_eq!(format_time(&t), "2026-11-18T00:00:00Z");
    }

    #[test]
    fn times_beyond_four_digit_years_are_refused_not_panicked_on() {
        let now = parse_time("2026-11-20T00:00:00Z").unwrap();
        for arg in ["100000000d", "3000y"] {
            let e = parse_time_arg(arg, now).unwrap_err();
            assert!(e.contains("9999"), "{arg}: {e}");
        }
        assert!(parse_time_arg("9223372036854775807s", now).is_err());
        let ttl = parse_duration("8000y").unwrap();
        assert!(shift(now, ttl).is_err());
        assert!(shift(now, parse_duration("100000000d").unwrap()).is_err());
        assert!(shift(now, parse_duration("70y").unwrap()).is_ok());
        for far in [
            "+10021-01-01T00:00:00Z",
            "+10000-01-01",
            "-0001-01-01",
            "0000-01-01",
        ] {
            assert!(parse_time(far).is_err(), "{far}");
        }
    }
}

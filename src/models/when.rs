//! When: time words in what was said ("yesterday", "last week", "three days
//! ago", "next Friday"), resolved against the time of capture.
//!
//! The words stay in the text and the date they mean is written after them, so
//! a fact read a year later still says when: "ran a half marathon yesterday"
//! captured on 2026-03-02 reads "ran a half marathon yesterday (2026-03-01)".
//! A day resolves to a date, a week to the Monday it starts on, a month to
//! `YYYY-MM`, a year to `YYYY`.

use std::sync::OnceLock;

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use regex::{Captures, Regex};

use crate::clock::Timestamp;

/// A time phrase found in a text and what it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The text with the date written after the phrase.
    pub text: String,
    /// The day the phrase means (for a week, month or year: its first day).
    pub date: NaiveDate,
}

fn phrases() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?ix)\b(?:
                (?P<day>yesterday|today|tonight|tomorrow|this\ (?:morning|afternoon|evening)|last\ night)
              | (?P<rel>last|this|next)\ (?P<unit>week|weekend|month|year|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)
              | (?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\ few|a\ couple\ of|couple\ of|few|\d{1,2})\ (?P<ago_unit>days?|weeks?|months?|years?)\ ago
              | on\ (?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)
            )\b(?P<after>\s*\()?",
        )
        .expect("valid regex")
    })
}

fn number(word: &str) -> Option<i64> {
    Some(match word.to_lowercase().as_str() {
        "a" | "an" | "one" => 1,
        "two" | "couple of" | "a couple of" => 2,
        "three" | "few" | "a few" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        n => n.parse().ok()?,
    })
}

fn weekday(word: &str) -> Option<Weekday> {
    word.to_lowercase().parse().ok()
}

fn monday_of(d: NaiveDate) -> NaiveDate {
    d - Duration::days(d.weekday().num_days_from_monday() as i64)
}

fn first_of_month(d: NaiveDate, months_back: i32) -> NaiveDate {
    let total = d.year() * 12 + d.month0() as i32 - months_back;
    NaiveDate::from_ymd_opt(total.div_euclid(12), total.rem_euclid(12) as u32 + 1, 1)
        .expect("first of a month exists")
}

/// The date a phrase means, and how to write it.
fn resolve_one(c: &Captures, today: NaiveDate) -> Option<(NaiveDate, String)> {
    let day = |d: NaiveDate| Some((d, d.format("%Y-%m-%d").to_string()));
    if let Some(m) = c.name("day") {
        let w = m.as_str().to_lowercase();
        return match w.as_str() {
            "yesterday" | "last night" => day(today - Duration::days(1)),
            "tomorrow" => day(today + Duration::days(1)),
            _ => day(today),
        };
    }
    if let Some(m) = c.name("wd") {
        // "on Friday" told afterwards: the last one before today.
        let wd = weekday(m.as_str())?;
        let back = (today.weekday().num_days_from_monday() as i64
            - wd.num_days_from_monday() as i64)
            .rem_euclid(7);
        return day(today - Duration::days(if back == 0 { 7 } else { back }));
    }
    if let (Some(rel), Some(unit)) = (c.name("rel"), c.name("unit")) {
        let rel = rel.as_str().to_lowercase();
        let unit = unit.as_str().to_lowercase();
        let step: i64 = match rel.as_str() {
            "last" => -1,
            "next" => 1,
            _ => 0,
        };
        if let Some(wd) = weekday(&unit) {
            let diff =
                wd.num_days_from_monday() as i64 - today.weekday().num_days_from_monday() as i64;
            let d = match step {
                -1 => {
                    today
                        - Duration::days(
                            (-diff).rem_euclid(7).max(1) + if diff == 0 { 6 } else { 0 },
                        )
                }
                1 => {
                    today
                        + Duration::days(diff.rem_euclid(7).max(1) + if diff == 0 { 6 } else { 0 })
                }
                _ => today + Duration::days(diff),
            };
            return day(d);
        }
        return match unit.as_str() {
            "week" | "weekend" => {
                let monday = monday_of(today) + Duration::weeks(step);
                let d = if unit == "weekend" {
                    monday + Duration::days(5)
                } else {
                    monday
                };
                Some((d, format!("week of {}", monday.format("%Y-%m-%d"))))
            }
            "month" => {
                let d = first_of_month(today, -step as i32);
                Some((d, d.format("%Y-%m").to_string()))
            }
            // A year, or a season of it.
            _ => {
                let y = today.year() + step as i32;
                let d = NaiveDate::from_ymd_opt(y, 1, 1)?;
                Some((d, y.to_string()))
            }
        };
    }
    if let (Some(n), Some(unit)) = (c.name("n"), c.name("ago_unit")) {
        let n = number(n.as_str())?;
        let unit = unit.as_str().to_lowercase();
        return if unit.starts_with("day") {
            day(today - Duration::days(n))
        } else if unit.starts_with("week") {
            let d = monday_of(today - Duration::weeks(n));
            Some((d, format!("week of {}", d.format("%Y-%m-%d"))))
        } else if unit.starts_with("month") {
            let d = first_of_month(today, n as i32);
            Some((d, d.format("%Y-%m").to_string()))
        } else {
            let y = today.year() - n as i32;
            Some((NaiveDate::from_ymd_opt(y, 1, 1)?, format!("{y}")))
        };
    }
    None
}

/// Writes after each time phrase the date it means, against `now`. Returns
/// `None` when the text holds no phrase to resolve (or every one already has
/// a parenthesis after it). The date is that of the first phrase.
pub fn resolve(text: &str, now: Timestamp) -> Option<Resolved> {
    let today = now.date_naive();
    let mut first = None;
    let out = phrases().replace_all(text, |c: &Captures| {
        let whole = &c[0];
        if c.name("after").is_some() {
            return whole.to_string();
        }
        match resolve_one(c, today) {
            Some((date, shown)) => {
                first.get_or_insert(date);
                format!("{whole} ({shown})")
            }
            None => whole.to_string(),
        }
    });
    first.map(|date| Resolved {
        text: out.into_owned(),
        date,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_time;

    fn at(day: &str) -> Timestamp {
        parse_time(&format!("{day}T15:00:00Z")).unwrap()
    }

    #[test]
    fn yesterday_is_the_day_before_capture_and_stays_in_the_text() {
        let r = resolve("Ran a half marathon yesterday", at("2026-03-02")).unwrap();
        assert_eq!(r.text, "Ran a half marathon yesterday (2026-03-01)");
        assert_eq!(r.date.to_string(), "2026-03-01");
    }

    #[test]
    fn weeks_months_and_years() {
        // 2026-03-04 is a Wednesday.
        let now = at("2026-03-04");
        assert_eq!(
            resolve("Moved house last week", now).unwrap().text,
            "Moved house last week (week of 2026-02-23)"
        );
        assert_eq!(
            resolve("Starts a new job next month", now).unwrap().text,
            "Starts a new job next month (2026-04)"
        );
        assert_eq!(
            resolve("Got married three years ago", now).unwrap().text,
            "Got married three years ago (2023)"
        );
        assert_eq!(
            resolve("Adopted a cat 2 days ago", now).unwrap().text,
            "Adopted a cat 2 days ago (2026-03-02)"
        );
        assert_eq!(
            resolve("Went to the January sales last month", at("2026-01-10"))
                .unwrap()
                .text,
            "Went to the January sales last month (2025-12)"
        );
    }

    #[test]
    fn weekdays_count_back_from_today() {
        let now = at("2026-03-04"); // Wednesday
        assert_eq!(
            resolve("Hiked up Ben Nevis last Sunday", now).unwrap().text,
            "Hiked up Ben Nevis last Sunday (2026-03-01)"
        );
        assert_eq!(
            resolve("Saw a concert on Monday", now)
                .unwrap()
                .date
                .to_string(),
            "2026-03-02"
        );
        assert_eq!(
            resolve("Has a dentist appointment next Friday", now)
                .unwrap()
                .date
                .to_string(),
            "2026-03-06"
        );
    }

    #[test]
    fn nothing_to_resolve() {
        assert_eq!(resolve("Lives in Lisbon", at("2026-03-04")), None);
        // Already written out: left alone.
        assert_eq!(
            resolve("Ran yesterday (2026-03-01)", at("2026-03-02")),
            None
        );
    }
}

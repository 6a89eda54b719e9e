//! Time words in a query — "in May 2023", "in 2024", "on 8 May 2023", "yesterday",
//! "last week", "last month", "last year" — as a window of instants (the turns' index
//! keeps each turn's instant and answers "which turns fall in it"). Relative words
//! count back from the memory's latest turn: a memory file's "now" is when it was last
//! spoken to.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};

/// A turn without a time.
pub(crate) const NONE: i64 = i64::MIN;

/// The instant (ms) of an RFC 3339 time.
pub(crate) fn instant(t: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|d| d.timestamp_millis())
}

use crate::text::MONTHS;

fn month(word: &str) -> Option<u32> {
    let w = word.to_lowercase();
    MONTHS
        .iter()
        .position(|m| {
            w == *m || (w.len() >= 3 && w != "may" && m.starts_with(&w) && w.len() <= m.len())
        })
        .or_else(|| (w == "may").then_some(4))
        .map(|i| i as u32 + 1)
}

fn ms(d: NaiveDate) -> i64 {
    d.and_hms_opt(0, 0, 0)
        .map_or(0, |t| t.and_utc().timestamp_millis())
}

/// The window a query names, if any. `now` is the memory's latest instant (ms).
pub(crate) fn window(query: &str, now: Option<i64>) -> Option<(i64, i64)> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let year = |w: &str| w.parse::<i32>().ok().filter(|y| (1900..=2200).contains(y));
    for (i, w) in words.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| words[p].as_str());
        // "8 May 2023": a day.
        if let (Some(m), Some(y)) = (month(w), words.get(i + 1).and_then(|n| year(n))) {
            let day = prev
                .and_then(|p| p.parse::<u32>().ok())
                .filter(|d| (1..=31).contains(d));
            let first = NaiveDate::from_ymd_opt(y, m, day.unwrap_or(1))?;
            let end = match day {
                Some(_) => first.succ_opt()?,
                None => NaiveDate::from_ymd_opt(if m == 12 { y + 1 } else { y }, m % 12 + 1, 1)?,
            };
            // "may 2023" must follow "in" or "of" or a day to be the month.
            if m == 5
                && w == "may"
                && day.is_none()
                && !matches!(prev, Some("in" | "of" | "during"))
            {
                continue;
            }
            return Some((ms(first), ms(end)));
        }
        // "in 2023": a year.
        if matches!(prev, Some("in" | "during" | "of")) {
            if let Some(y) = year(w) {
                return Some((
                    ms(NaiveDate::from_ymd_opt(y, 1, 1)?),
                    ms(NaiveDate::from_ymd_opt(y + 1, 1, 1)?),
                ));
            }
        }
    }
    let now = DateTime::<Utc>::from_timestamp_millis(now?)?.date_naive();
    let joined = words.join(" ");
    let days_back =
        |from: i64, to: i64| Some((ms(now - Duration::days(from)), ms(now - Duration::days(to))));
    if joined.contains("yesterday") {
        return days_back(1, 0);
    }
    if joined.contains("last week") {
        return days_back(14, 6);
    }
    if joined.contains("last month") {
        let first = NaiveDate::from_ymd_opt(now.year(), now.month(), 1)?;
        let prev = first.pred_opt()?;
        return Some((
            ms(NaiveDate::from_ymd_opt(prev.year(), prev.month(), 1)?),
            ms(first),
        ));
    }
    if joined.contains("last year") {
        let y = now.year() - 1;
        return Some((
            ms(NaiveDate::from_ymd_opt(y, 1, 1)?),
            ms(NaiveDate::from_ymd_opt(y + 1, 1, 1)?),
        ));
    }
    None
}

/// A question about time: "when", "how long", "what year", "what date".
pub(crate) fn is_when_question(q: &str) -> bool {
    let l = q.trim_start().to_lowercase();
    l.starts_with("when ")
        || l.contains(" when ")
        || l.starts_with("how long")
        || l.contains("what year")
        || l.contains("what date")
}

/// Whether a text places something in time: relative days and weeks, weekdays, months
/// (not "May", which is mostly the verb), years.
pub(crate) fn places_in_time(text: &str) -> bool {
    const CUES: &[&str] = &[
        "yesterday",
        "today",
        "tomorrow",
        "last week",
        "last month",
        "last year",
        "next week",
        "next month",
        "next year",
        "ago",
        "weekend",
        "this week",
        "this month",
        "tonight",
        "last night",
        "recently",
        "since",
        "years",
        "months",
        "weeks",
    ];
    let l = text.to_lowercase();
    CUES.iter().any(|c| l.contains(c))
        || crate::text::word_slices(&l)
            .any(|w| w != "may" && (MONTHS.contains(&w) || crate::text::WEEKDAYS.contains(&w)))
        || l.split(|c: char| !c.is_ascii_digit())
            .any(|n| n.len() == 4 && n.starts_with("20"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> i64 {
        ms(NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap())
    }

    #[test]
    fn windows_from_words() {
        assert_eq!(
            window("What did she do in May 2023?", None),
            Some((day("2023-05-01"), day("2023-06-01")))
        );
        assert_eq!(
            window("what happened on 8 May, 2023", None),
            Some((day("2023-05-08"), day("2023-05-09")))
        );
        assert_eq!(
            window("trips in 2022", None),
            Some((day("2022-01-01"), day("2023-01-01")))
        );
        assert_eq!(
            window("December 2023 plans", None),
            Some((day("2023-12-01"), day("2024-01-01")))
        );
        assert_eq!(window("I may 2023 you", None), None);
        let now = Some(day("2024-03-15"));
        assert_eq!(
            window("what did we decide last month", now),
            Some((day("2024-02-01"), day("2024-03-01")))
        );
        assert_eq!(
            window("yesterday's meeting", now),
            Some((day("2024-03-14"), day("2024-03-15")))
        );
        assert_eq!(
            window("last year", now),
            Some((day("2023-01-01"), day("2024-01-01")))
        );
        assert_eq!(window("no time here", now), None);
    }
}

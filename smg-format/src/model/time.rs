//! Times as the file writes them (spec §3): an RFC 3339 date-time, or for fields
//! called *date* an RFC 3339 full-date too. A value is kept exactly as written (so a
//! round trip changes no byte) and is made only through the check the validator
//! runs, so a [`Document`](crate::Document) cannot hold a time it would refuse with
//! `SMG-E113`.

use std::fmt;
use std::ops::Deref;

use chrono::{DateTime, FixedOffset, NaiveDate, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::checked::{string_value, Refused, Text};

/// An RFC 3339 date-time, e.g. `2025-12-04T10:30:00Z`, kept as written.
///
/// What chrono's RFC 3339 parser reads is accepted: `T`, `t` or a space between
/// date and time (RFC 3339 §5.6 allows the space), any number of fraction digits,
/// `Z` or a `±hh:mm` offset, years 0000–9999.
///
/// ```
/// use smg_format::model::Timestamp;
/// const CREATED: Timestamp = Timestamp::from_static("2025-12-04T10:30:00Z");
/// assert_eq!(CREATED, "2025-12-04T10:30:00Z");
/// assert!(Timestamp::new("2025-12-04").is_err());
/// assert!(Timestamp::new("2025-02-30T10:30:00Z").is_err());
/// assert_eq!(Timestamp::new("2025-12-04T11:30:00+01:00").unwrap().instant(), CREATED.instant());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
// Held inline (a time of seconds and a `Z` is 20 bytes): no allocation of its own.
pub struct Timestamp(Text);

impl Timestamp {
    /// `s`, unless it is not an RFC 3339 date-time.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        Timestamp::checked(s.into().into())
    }

    fn checked(s: Text) -> Result<Self, Refused> {
        if !is_date_time(&s) {
            return Err(not_a("date-time", &s));
        }
        Ok(Timestamp(s))
    }

    /// A literal of the plain form `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`,
    /// checked when compiled where it is a constant.
    ///
    /// # Panics
    /// If `s` is not of that form or names no day: meant for literals, never for
    /// what a program is given.
    pub const fn from_static(s: &'static str) -> Self {
        assert!(
            is_plain_date_time(s.as_bytes()),
            "a literal Timestamp that is not YYYY-MM-DDTHH:MM:SS[.f](Z|±HH:MM)"
        );
        Timestamp(Text::const_new(s))
    }

    /// `t` written in UTC with a `Z` and `precision`; refused only for a year past
    /// 9999, which RFC 3339 cannot write.
    ///
    /// ```
    /// use chrono::{DateTime, SecondsFormat};
    /// use smg_format::model::Timestamp;
    /// let t = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    /// assert_eq!(Timestamp::from_utc(&t, SecondsFormat::Secs).unwrap(), "2023-11-14T22:13:20Z");
    /// let far = DateTime::from_timestamp(400_000_000_000, 0).unwrap();
    /// assert!(Timestamp::from_utc(&far, SecondsFormat::Secs).is_err());
    /// ```
    pub fn from_utc(t: &DateTime<Utc>, precision: SecondsFormat) -> Result<Self, Refused> {
        Timestamp::new(t.to_rfc3339_opts(precision, true))
    }

    /// The current time in UTC to the second (`2025-12-04T10:30:00Z`); a clock past
    /// year 9999, which RFC 3339 cannot write, gives that year's last second.
    pub fn now() -> Self {
        Timestamp::from_utc(&Utc::now(), SecondsFormat::Secs)
            .unwrap_or(Timestamp::from_static("9999-12-31T23:59:59Z"))
    }

    /// The instant, with the offset it was written in.
    pub fn instant(&self) -> DateTime<FixedOffset> {
        // Checked when made: the default (the epoch) is never reached.
        DateTime::parse_from_rfc3339(&self.0).unwrap_or_default()
    }

    /// The text, as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0.into_string()
    }
}

string_value!(Timestamp, inline);

/// A *date* field's value (a rule's `effectiveDate`, `expiryDate`): an RFC 3339
/// full-date (`2025-12-31`) or date-time, kept as written.
///
/// ```
/// use smg_format::model::DateOrTime;
/// let d = DateOrTime::new("2025-12-31").unwrap();
/// let t = DateOrTime::new("2025-12-31T23:00:00-05:00").unwrap();
/// assert_eq!(d.day(), t.day());
/// assert!(DateOrTime::new("2025-12-32").is_err());
/// assert!(DateOrTime::new("2025-1-5").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DateOrTime(String);

impl DateOrTime {
    /// `s`, unless it is neither an RFC 3339 full-date nor a date-time.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        if !is_full_date(&s) && !is_date_time(&s) {
            return Err(not_a("date or date-time", &s));
        }
        Ok(DateOrTime(s))
    }

    /// The day it names (a date-time's, in the offset it was written in).
    pub fn day(&self) -> NaiveDate {
        // Checked when made: the default is never reached.
        full_date(&self.0)
            .or_else(|| {
                DateTime::parse_from_rfc3339(&self.0)
                    .ok()
                    .map(|t| t.date_naive())
            })
            .unwrap_or_default()
    }

    /// The text, as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

string_value!(DateOrTime);

/// The check of a JSON Schema `format: date-time` (spec/smg.schema.json).
pub(crate) fn is_date_time(s: &str) -> bool {
    DateTime::parse_from_rfc3339(s).is_ok()
}

/// The check of a JSON Schema `format: date` (RFC 3339 full-date).
pub(crate) fn is_full_date(s: &str) -> bool {
    full_date(s).is_some()
}

fn full_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    let shaped = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    shaped
        .then(|| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
        .flatten()
}

fn not_a(what: &str, s: &str) -> Refused {
    Refused::new(format!("{s:?} is not an RFC 3339 {what}"))
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` naming a real day and time: a subset
/// of what chrono reads, checked without it so that a literal can be a constant.
const fn is_plain_date_time(b: &[u8]) -> bool {
    const fn num(b: &[u8], at: usize, len: usize) -> Option<u32> {
        let mut n = 0;
        let mut i = at;
        while i < at + len {
            if i >= b.len() || !b[i].is_ascii_digit() {
                return None;
            }
            n = n * 10 + (b[i] - b'0') as u32;
            i += 1;
        }
        Some(n)
    }
    const fn is(b: &[u8], at: usize, c: u8) -> bool {
        at < b.len() && b[at] == c
    }
    let (Some(y), Some(mo), Some(d)) = (num(b, 0, 4), num(b, 5, 2), num(b, 8, 2)) else {
        return false;
    };
    let (Some(h), Some(mi), Some(s)) = (num(b, 11, 2), num(b, 14, 2), num(b, 17, 2)) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match mo {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    let shaped = is(b, 4, b'-') && is(b, 7, b'-') && is(b, 10, b'T') && is(b, 13, b':');
    if !shaped || !is(b, 16, b':') || mo < 1 || mo > 12 || d < 1 || d > days {
        return false;
    }
    if h > 23 || mi > 59 || s > 59 {
        return false;
    }
    let mut i = 19;
    if is(b, i, b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    if is(b, i, b'Z') {
        return i + 1 == b.len();
    }
    if !(is(b, i, b'+') || is(b, i, b'-')) || !is(b, i + 3, b':') || i + 6 != b.len() {
        return false;
    }
    matches!((num(b, i + 1, 2), num(b, i + 4, 2)), (Some(oh), Some(om)) if oh < 24 && om < 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_is_read_as_chrono_reads_it() {
        for good in [
            "2025-12-04T10:30:00Z",
            "2024-02-29T23:59:59.123456789Z",
            "0000-01-01T00:00:00+23:59",
            "2025-12-04T10:30:00-05:00",
        ] {
            assert!(is_plain_date_time(good.as_bytes()), "{good}");
            assert!(is_date_time(good), "{good}");
        }
        for bad in [
            "2025-02-29T10:30:00Z",
            "2025-13-01T10:30:00Z",
            "2025-12-04T24:00:00Z",
            "2025-12-04T10:30:00",
            "2025-12-04T10:30:00.Z",
            "2025-12-04T10:30:00+0100",
            "2025-12-04T10:30:00+01:00x",
            "2025-12-04",
            "",
        ] {
            assert!(!is_plain_date_time(bad.as_bytes()), "{bad}");
            assert!(!is_date_time(bad), "{bad}");
        }
    }

    #[test]
    fn chrono_reads_more_than_a_literal_may_be() {
        for t in ["2025-12-04 10:30:00Z", "2025-12-04t10:30:00z"] {
            assert!(Timestamp::new(t).is_ok(), "{t}");
            assert!(!is_plain_date_time(t.as_bytes()), "{t}");
        }
    }

    #[test]
    fn serde_reads_only_checked_times_and_writes_them_as_read() {
        let t: Timestamp = serde_json::from_str("\"2025-12-04T10:30:00.50+01:00\"").unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"2025-12-04T10:30:00.50+01:00\""
        );
        let bad = serde_json::from_str::<Timestamp>("\"yesterday\"").unwrap_err();
        assert!(
            bad.to_string().contains("is not an RFC 3339 date-time"),
            "{bad}"
        );
        assert!(serde_json::from_str::<DateOrTime>("\"2025-12-31\"").is_ok());
        assert!(serde_json::from_str::<DateOrTime>("\"+2025-12-31\"").is_err());
    }
}

//! Values that carry the schema's constraints (issue 31): a role, an id or a type is
//! never empty, a score is a finite number in \[0, 1\], a content hash has its one
//! form. A value is made only through a check, by a constructor or by serde, so a
//! [`Document`](crate::Document) read or built by any path cannot hold one the
//! schema refuses; reading one names the field (`SMG-E012` at its JSON Pointer).
//!
//! Held so: a turn's `role` and `importance`; a node's `id`, `type`, `status`,
//! `importance` and `confidence`; an edge's `from`, `to`, `relation` and `strength`;
//! who retrieved a node; an artifact's `type` and `hash` and each version's `hash`;
//! the memory's branch, each fork's branch and parent digest; a collaborator's id;
//! a block's and a sealed tier's turn ranges; every number the schema counts from 1
//! (turns, versions, provenance turns, dimensions, PBKDF2 iterations); and every time
//! ([`super::Timestamp`]).
//! Constraints that span fields or concern the JSON kept as it is (`extra`) are
//! checked before a write instead (`validate::fields`, `validate::semantic`).

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a value was refused, in the schema's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(String);

impl Refused {
    pub(super) fn new(why: String) -> Self {
        Refused(why)
    }
}

/// A string of at least one character: roles, ids, types, relations.
///
/// ```
/// use smg_format::model::NonEmpty;
/// let role = NonEmpty::new("user").unwrap();
/// assert_eq!(role, "user");
/// assert!(NonEmpty::new("").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NonEmpty(Cow<'static, str>);

impl NonEmpty {
    /// `s`, unless it is empty.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        if s.is_empty() {
            return Err(Refused("\"\" is shorter than 1 character".into()));
        }
        Ok(NonEmpty(Cow::Owned(s)))
    }

    /// A literal, checked when compiled where it is a constant.
    ///
    /// # Panics
    /// If `s` is empty: meant for literals, never for what a program is given.
    pub const fn from_static(s: &'static str) -> Self {
        assert!(!s.is_empty(), "an empty literal for a NonEmpty");
        NonEmpty(Cow::Borrowed(s))
    }

    /// `head` and then `tail`: never empty, since `head` is not. What a program
    /// makes ids with (`mem-` and a hash).
    ///
    /// ```
    /// use smg_format::model::NonEmpty;
    /// const MEM: NonEmpty = NonEmpty::from_static("mem-");
    /// assert_eq!(NonEmpty::joined(&MEM, format_args!("{}-{}", "ab12", 1)), "mem-ab12-1");
    /// ```
    pub fn joined(head: &NonEmpty, tail: impl fmt::Display) -> Self {
        NonEmpty(Cow::Owned(format!("{head}{tail}")))
    }

    /// `bytes` in lowercase hex (a digest): never empty, since an array of no bytes
    /// does not compile.
    ///
    /// ```
    /// use smg_format::model::NonEmpty;
    /// assert_eq!(NonEmpty::hex([0xab, 0x01]), "ab01");
    /// ```
    pub fn hex<const N: usize>(bytes: [u8; N]) -> Self {
        const { assert!(N > 0, "the hex of no bytes would be empty") };
        NonEmpty(Cow::Owned(hex::encode(bytes)))
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The string, owned.
    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

/// What a string value offers besides its own constructors: read as `str`, compared
/// with strings, converted back, and read and written by serde only through `new`.
macro_rules! string_value {
    ($t:ident) => {
        impl Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                self.as_str()
            }
        }

        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<String> for $t {
            fn eq(&self, other: &String) -> bool {
                self.as_str() == other
            }
        }

        impl TryFrom<String> for $t {
            type Error = Refused;
            fn try_from(s: String) -> Result<Self, Refused> {
                $t::new(s)
            }
        }

        impl std::str::FromStr for $t {
            type Err = Refused;
            fn from_str(s: &str) -> Result<Self, Refused> {
                $t::new(s)
            }
        }

        impl From<$t> for String {
            fn from(s: $t) -> String {
                s.into_string()
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $t::new(String::deserialize(d)?).map_err(serde::de::Error::custom)
            }
        }
    };
}

pub(super) use string_value;

string_value!(NonEmpty);

/// Ids are looked up in maps keyed by `String`.
impl Borrow<str> for NonEmpty {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<NonEmpty> for str {
    fn eq(&self, other: &NonEmpty) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<NonEmpty> for &str {
    fn eq(&self, other: &NonEmpty) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<NonEmpty> for String {
    fn eq(&self, other: &NonEmpty) -> bool {
        self == other.as_str()
    }
}

impl TryFrom<&str> for NonEmpty {
    type Error = Refused;
    fn try_from(s: &str) -> Result<Self, Refused> {
        NonEmpty::new(s)
    }
}

/// The roles v1 defines (`role` is an open set).
pub mod role {
    use super::NonEmpty;
    /// `user`.
    pub const USER: NonEmpty = NonEmpty::from_static("user");
    /// `assistant`.
    pub const ASSISTANT: NonEmpty = NonEmpty::from_static("assistant");
    /// `system`.
    pub const SYSTEM: NonEmpty = NonEmpty::from_static("system");
    /// `tool`.
    pub const TOOL: NonEmpty = NonEmpty::from_static("tool");
}

/// A finite number in \[0, 1\]: importance, confidence, strength.
///
/// ```
/// use smg_format::model::Unit;
/// assert_eq!(Unit::new(0.25).unwrap().get(), 0.25);
/// assert!(Unit::new(1.5).is_err());
/// assert_eq!(Unit::clamped(1.5).get(), 1.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Unit(f64);

impl Unit {
    /// `v`, unless it is outside \[0, 1\] or not a number.
    pub fn new(v: f64) -> Result<Self, Refused> {
        if !v.is_finite() {
            // JSON has no NaN or infinity.
            Err(Refused(format!("{v} is not a JSON number")))
        } else if v < 0.0 {
            Err(Refused(format!("{v} is less than the minimum of 0")))
        } else if v > 1.0 {
            Err(Refused(format!("{v} is greater than the maximum of 1")))
        } else {
            Ok(Unit(v))
        }
    }

    /// `v` brought into \[0, 1\] (a computed score: not a number counts as 0).
    pub fn clamped(v: f64) -> Self {
        if v.is_nan() {
            Unit(0.0)
        } else {
            Unit(v.clamp(0.0, 1.0))
        }
    }

    /// The number.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl From<Unit> for f64 {
    fn from(u: Unit) -> f64 {
        u.0
    }
}

impl TryFrom<f64> for Unit {
    type Error = Refused;
    fn try_from(v: f64) -> Result<Self, Refused> {
        Unit::new(v)
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Serialize for Unit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

impl<'de> Deserialize<'de> for Unit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Unit::new(f64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A number from 1: a turn's number, a version's, a count of dimensions.
///
/// ```
/// use smg_format::model::Ordinal;
/// assert_eq!(Ordinal::new(3).unwrap().get(), 3);
/// assert!(Ordinal::new(0).is_err());
/// assert_eq!(Ordinal::after(0), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ordinal(std::num::NonZeroU64);

impl Ordinal {
    /// 1.
    pub const FIRST: Ordinal = Ordinal(std::num::NonZeroU64::MIN);

    /// `n`, unless it is 0.
    pub fn new(n: u64) -> Result<Self, Refused> {
        std::num::NonZeroU64::new(n)
            .map(Ordinal)
            .ok_or_else(|| Refused("0 is less than the minimum of 1".into()))
    }

    /// The number after `n` (`u64::MAX` stays there).
    pub fn after(n: u64) -> Self {
        Ordinal(std::num::NonZeroU64::MIN.saturating_add(n))
    }

    /// The number.
    pub fn get(self) -> u64 {
        self.0.get()
    }
}

/// The first: 1.
impl Default for Ordinal {
    fn default() -> Self {
        Ordinal::FIRST
    }
}

impl From<Ordinal> for u64 {
    fn from(n: Ordinal) -> u64 {
        n.get()
    }
}

impl PartialEq<u64> for Ordinal {
    fn eq(&self, other: &u64) -> bool {
        self.get() == *other
    }
}

impl PartialOrd<u64> for Ordinal {
    fn partial_cmp(&self, other: &u64) -> Option<std::cmp::Ordering> {
        self.get().partial_cmp(other)
    }
}

impl fmt::Display for Ordinal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Serialize for Ordinal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.get())
    }
}

impl<'de> Deserialize<'de> for Ordinal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ordinal::new(u64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A range of turn numbers as a block or a sealed tier names it: `first-last`, or one
/// number, in decimal digits (`^[0-9]+(-[0-9]+)?$`).
///
/// ```
/// use smg_format::model::TurnRange;
/// assert_eq!(TurnRange::span(3, 9), "3-9");
/// assert!(TurnRange::new("3-").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TurnRange(String);

impl TurnRange {
    /// `s`, unless it is not of that form.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        let ok = match s.split_once('-') {
            Some((a, b)) => digits(a) && digits(b),
            None => digits(&s),
        };
        if !ok {
            return Err(Refused(format!(
                "{s:?} does not match \"^[0-9]+(-[0-9]+)?$\""
            )));
        }
        Ok(TurnRange(s))
    }

    /// `first-last`.
    pub fn span(first: u64, last: u64) -> Self {
        TurnRange(format!("{first}-{last}"))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

string_value!(TurnRange);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Sha256Ref;

    #[test]
    fn each_value_refuses_what_the_schema_refuses() {
        assert!(NonEmpty::new("").is_err());
        assert!(NonEmpty::new("x").is_ok());
        for bad in [-0.5, 1.5, f64::NAN, f64::INFINITY] {
            assert!(Unit::new(bad).is_err(), "{bad}");
        }
        let hex = "ab".repeat(32);
        assert!(Sha256Ref::new(format!("sha256:{hex}")).is_ok());
        for bad in [
            hex.clone(),
            format!("sha256:{}", hex.to_uppercase()),
            format!("sha256:{}", &hex[1..]),
        ] {
            assert!(Sha256Ref::new(bad.clone()).is_err(), "{bad}");
        }
        for good in [0.0, 0.5, 1.0] {
            assert_eq!(Unit::new(good).unwrap().get(), good);
        }
    }

    #[test]
    fn serde_reads_only_what_the_constructors_make() {
        let read = |j: &str| serde_json::from_str::<NonEmpty>(j);
        assert!(read("\"\"").is_err());
        assert_eq!(read("\"a\"").unwrap(), "a");
        assert!(serde_json::from_str::<Unit>("1.5").is_err());
        assert_eq!(serde_json::to_string(&Unit::clamped(2.0)).unwrap(), "1.0");
    }

    #[test]
    fn a_computed_score_is_brought_into_range() {
        assert_eq!(Unit::clamped(f64::NAN).get(), 0.0);
        assert_eq!(Unit::clamped(-1.0).get(), 0.0);
        assert_eq!(Unit::clamped(0.3).get(), 0.3);
    }
}

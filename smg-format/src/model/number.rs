//! Numbers that carry the schema's constraints: a score in \[0, 1\], a number
//! counted from 1, a ratio that is never negative. Made only through a check, by a
//! constructor or by serde (see [`super::checked`]).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Refused;

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
        let v = NonNegative::new(v)?.get();
        if v > 1.0 {
            return Err(Refused::new(format!(
                "{v} is greater than the maximum of 1"
            )));
        }
        Ok(Unit(v))
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

/// What a checked float offers besides its own constructors: converted back and
/// forth, shown, and read by serde only through `new`.
macro_rules! float_value {
    ($t:ident) => {
        impl From<$t> for f64 {
            fn from(v: $t) -> f64 {
                v.0
            }
        }

        impl TryFrom<f64> for $t {
            type Error = Refused;
            fn try_from(v: f64) -> Result<Self, Refused> {
                $t::new(v)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_f64(self.0)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $t::new(f64::deserialize(d)?).map_err(serde::de::Error::custom)
            }
        }
    };
}

float_value!(Unit);

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
            .ok_or_else(|| Refused::new("0 is less than the minimum of 1".into()))
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

/// A finite number that is never negative: a file's compression ratio.
///
/// ```
/// use smg_format::model::NonNegative;
/// assert_eq!(NonNegative::new(2.5).unwrap().get(), 2.5);
/// assert!(NonNegative::new(-0.1).is_err());
/// assert!(NonNegative::new(f64::INFINITY).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct NonNegative(f64);

impl NonNegative {
    /// `v`, unless it is negative or not a number.
    pub fn new(v: f64) -> Result<Self, Refused> {
        if !v.is_finite() {
            Err(Refused::new(format!("{v} is not a JSON number")))
        } else if v < 0.0 {
            Err(Refused::new(format!("{v} is less than the minimum of 0")))
        } else {
            Ok(NonNegative(v))
        }
    }

    /// The number.
    pub fn get(self) -> f64 {
        self.0
    }
}

float_value!(NonNegative);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_number_refuses_what_the_schema_refuses() {
        for bad in [-0.5, 1.5, f64::NAN, f64::INFINITY] {
            assert!(Unit::new(bad).is_err(), "{bad}");
        }
        for good in [0.0, 0.5, 1.0] {
            assert_eq!(Unit::new(good).unwrap().get(), good);
        }
        for bad in [-0.5, f64::NAN, f64::NEG_INFINITY, f64::INFINITY] {
            assert!(NonNegative::new(bad).is_err(), "{bad}");
        }
        for good in [0.0, 0.5, 3.0, 1e300] {
            assert_eq!(NonNegative::new(good).unwrap().get(), good);
        }
        assert!(Ordinal::new(0).is_err());
    }

    #[test]
    fn serde_reads_only_what_the_constructors_make() {
        assert!(serde_json::from_str::<Unit>("1.5").is_err());
        assert_eq!(serde_json::to_string(&Unit::clamped(2.0)).unwrap(), "1.0");
        assert!(serde_json::from_str::<NonNegative>("-1").is_err());
        assert_eq!(serde_json::from_str::<NonNegative>("2").unwrap().get(), 2.0);
        assert!(serde_json::from_str::<Ordinal>("0").is_err());
    }

    #[test]
    fn a_computed_score_is_brought_into_range() {
        assert_eq!(Unit::clamped(f64::NAN).get(), 0.0);
        assert_eq!(Unit::clamped(-1.0).get(), 0.0);
        assert_eq!(Unit::clamped(0.3).get(), 0.3);
    }
}

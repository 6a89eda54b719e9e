//! Strings that carry the schema's constraints (issue 31): a role, an id, a type, a
//! relation or a branch is never empty ([`NonEmpty`]), a turn range has its one form
//! ([`TurnRange`]). A value is made only through a check, by a constructor or by
//! serde, so a [`Document`](crate::Document) read or built by any path cannot hold
//! one the schema refuses; reading one names the field (`SMG-E012` at its JSON
//! Pointer). The other values of the kind: numbers (`number`), digests (`digest`),
//! times (`time`), the document's frame (`frame`), sealed sections' ids and kinds
//! (`sealed`), lists (`lists`, [`super::Versions`], [`super::RecentAccesses`]).
//! What spans fields (references) or is kept as JSON (`extra`) is checked before a
//! write instead (`validate::semantic`, `validate::fields`).

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use compact_str::CompactString;
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
// Most ids, types and relations are short: held inline, they cost no allocation of
// their own (a large graph holds millions of them).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NonEmpty(CompactString);

impl NonEmpty {
    /// `s`, unless it is empty.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        NonEmpty::checked(s.into().into())
    }

    fn checked(s: CompactString) -> Result<Self, Refused> {
        if s.is_empty() {
            return Err(Refused("\"\" is shorter than 1 character".into()));
        }
        Ok(NonEmpty(s))
    }

    /// A literal, checked when compiled where it is a constant.
    ///
    /// # Panics
    /// If `s` is empty: meant for literals, never for what a program is given.
    pub const fn from_static(s: &'static str) -> Self {
        assert!(!s.is_empty(), "an empty literal for a NonEmpty");
        NonEmpty(CompactString::const_new(s))
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
        NonEmpty(compact_str::format_compact!("{head}{tail}"))
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
        NonEmpty(hex::encode(bytes).into())
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The string, owned.
    pub fn into_string(self) -> String {
        self.0.into_string()
    }
}

/// What a string value offers besides its own constructors: read as `str`, compared
/// with strings, converted back, and read and written by serde only through `new`
/// (or, for a type held `inline`, its `checked`, which takes the text as serde
/// gives it: short text without an allocation).
macro_rules! string_value {
    ($t:ident) => {
        string_value!(@common $t);

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $t::new(String::deserialize(d)?).map_err(serde::de::Error::custom)
            }
        }
    };
    ($t:ident, inline) => {
        string_value!(@common $t);

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = $crate::model::checked::Text::deserialize(d)?;
                $t::checked(text).map_err(serde::de::Error::custom)
            }
        }
    };
    (@common $t:ident) => {
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
    };
}

pub(super) use compact_str::CompactString as Text;
pub(super) use string_value;

string_value!(NonEmpty, inline);

/// Ids are looked up in maps keyed by `String`.
impl Borrow<str> for NonEmpty {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// Strings compared with a string value `$t`, the other way round.
macro_rules! compared_by_strings {
    ($t:ident) => {
        impl PartialEq<$t> for str {
            fn eq(&self, other: &$t) -> bool {
                self == other.as_str()
            }
        }

        impl PartialEq<$t> for &str {
            fn eq(&self, other: &$t) -> bool {
                *self == other.as_str()
            }
        }

        impl PartialEq<$t> for String {
            fn eq(&self, other: &$t) -> bool {
                self == other.as_str()
            }
        }
    };
}

pub(super) use compared_by_strings;

compared_by_strings!(NonEmpty);

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
        let hex = "ab".repeat(32);
        assert!(Sha256Ref::new(format!("sha256:{hex}")).is_ok());
        for bad in [
            hex.clone(),
            format!("sha256:{}", hex.to_uppercase()),
            format!("sha256:{}", &hex[1..]),
        ] {
            assert!(Sha256Ref::new(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn serde_reads_only_what_the_constructors_make() {
        let read = |j: &str| serde_json::from_str::<NonEmpty>(j);
        assert!(read("\"\"").is_err());
        assert_eq!(read("\"a\"").unwrap(), "a");
    }
}

//! Free text that is usually a word or an id: held inline when short.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::checked::{compared_by_strings, Text};

/// A string that is most often a word or a short id: keywords, tags, message and
/// conversation ids, `createdBy`, `memoryType`. Up to 24 bytes are held inline, with
/// no allocation of their own; a million-turn graph holds millions of them (at a
/// million turns, 25 MB of a document's 250 were these allocations). Any string is
/// one, the empty one too.
///
/// ```
/// use smg_format::model::ShortText;
/// let k = ShortText::from("rust");
/// assert_eq!(k, "rust");
/// assert_eq!(k.len(), 4);
/// assert_eq!(String::from(k), "rust");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShortText(Text);

impl ShortText {
    /// A literal, made when compiled where it is a constant.
    pub const fn from_static(s: &'static str) -> Self {
        ShortText(Text::const_new(s))
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

impl Deref for ShortText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ShortText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Looked up in maps and sets keyed by `String`.
impl Borrow<str> for ShortText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ShortText {
    fn from(s: &str) -> Self {
        ShortText(s.into())
    }
}

impl From<String> for ShortText {
    fn from(s: String) -> Self {
        ShortText(s.into())
    }
}

impl From<&String> for ShortText {
    fn from(s: &String) -> Self {
        ShortText(s.as_str().into())
    }
}

impl From<super::NonEmpty> for ShortText {
    fn from(s: super::NonEmpty) -> Self {
        ShortText(s.as_str().into())
    }
}

impl From<ShortText> for String {
    fn from(s: ShortText) -> String {
        s.into_string()
    }
}

impl std::str::FromStr for ShortText {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(s.into())
    }
}

impl PartialEq<str> for ShortText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ShortText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for ShortText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

compared_by_strings!(ShortText);

impl Serialize for ShortText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ShortText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Text::deserialize(d).map(ShortText)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_inline_and_long_text_is_kept_whole() {
        let short: ShortText = serde_json::from_str("\"explanation\"").unwrap();
        assert!(!short.0.is_heap_allocated());
        let long = "a".repeat(40);
        let read: ShortText = serde_json::from_str(&format!("\"{long}\"")).unwrap();
        assert_eq!(read, long);
        assert_eq!(serde_json::to_string(&read).unwrap(), format!("\"{long}\""));
        assert_eq!(serde_json::from_str::<ShortText>("\"\"").unwrap(), "");
        assert!(serde_json::from_str::<ShortText>("1").is_err());
    }
}

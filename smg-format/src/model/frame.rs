//! The document's frame: its JSON-LD context, its `@type` and its format version,
//! each made only through a check (a constructor or serde), so that a
//! [`Document`](crate::Document) cannot hold a frame the schema refuses.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::checked::{string_value, Refused};

/// The IRI of the bundled v1 JSON-LD context (`spec/context.jsonld`).
pub const CONTEXT_IRI: &str = "https://w3id.org/smg/v1";

/// A document's `@context`: an IRI, an inline context, or an array of them.
///
/// ```
/// use smg_format::model::Context;
/// assert_eq!(Context::v1().as_value(), "https://w3id.org/smg/v1");
/// assert!(Context::new(serde_json::json!(7)).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Context(Value);

impl Context {
    /// The bundled v1 context, by its IRI.
    pub fn v1() -> Self {
        Context(Value::String(CONTEXT_IRI.to_string()))
    }

    /// `value`, unless it is not a string, an object or an array.
    pub fn new(value: Value) -> Result<Self, Refused> {
        match value {
            Value::String(_) | Value::Object(_) | Value::Array(_) => Ok(Context(value)),
            other => Err(Refused::new(format!(
                "{other} is not a context: a string, an object or an array"
            ))),
        }
    }

    /// The context as JSON.
    pub fn as_value(&self) -> &Value {
        &self.0
    }

    /// The context as JSON, owned.
    pub fn into_value(self) -> Value {
        self.0
    }
}

impl Serialize for Context {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Context {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Context::new(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A document's `@type`: v1 has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum DocumentKind {
    /// `SemanticMemoryGraph`.
    #[default]
    SemanticMemoryGraph,
}

impl DocumentKind {
    /// The name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            DocumentKind::SemanticMemoryGraph => "SemanticMemoryGraph",
        }
    }
}

/// A format version this crate reads: `1` or `2`, then up to two more decimal
/// parts (`^[12](\.[0-9]+){0,2}$`). A file of another major version is refused when
/// read (`SMG-E013`), a malformed one too (`SMG-E014`). Format 2 writes a block's
/// turns in the clear in the JSON layout (spec §13); everything else is format 1's.
///
/// ```
/// use smg_format::model::FormatVersion;
/// assert_eq!(FormatVersion::CURRENT, "2.0");
/// assert_eq!(FormatVersion::new("1.3").unwrap().minor(), 3);
/// assert_eq!(FormatVersion::new("1.3").unwrap().major(), 1);
/// assert!(FormatVersion::new("3.0").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FormatVersion(Cow<'static, str>);

impl FormatVersion {
    /// The version this crate writes.
    pub const CURRENT: FormatVersion = FormatVersion(Cow::Borrowed("2.0"));

    /// Format 1, which `smg migrate` brings to [`FormatVersion::CURRENT`].
    pub const V1: FormatVersion = FormatVersion(Cow::Borrowed("1.0"));

    /// `s`, unless it is not a version of format 1 or 2.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        let mut parts = s.split('.');
        let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        let major = parts.next();
        let ok =
            matches!(major, Some("1" | "2")) && parts.clone().count() <= 2 && parts.all(digits);
        if !ok {
            return Err(Refused::new(format!(
                "{s:?} does not match \"^[12](\\.[0-9]+){{0,2}}$\""
            )));
        }
        Ok(FormatVersion(Cow::Owned(s)))
    }

    /// The major version: 1 or 2.
    pub fn major(&self) -> u64 {
        u64::from(!self.0.starts_with('1')) + 1
    }

    /// Whether a document of this version holds its blocks' turns in the clear
    /// (format 2), rather than compressed (format 1).
    pub fn blocks_in_clear(&self) -> bool {
        self.major() >= 2
    }

    /// The minor version (0 when there is none).
    pub fn minor(&self) -> u64 {
        let minor = self.0.split('.').nth(1).unwrap_or("0");
        minor.parse().unwrap_or(u64::MAX)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

string_value!(FormatVersion);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_version_is_of_format_1_or_2() {
        for good in ["1", "1.0", "1.12", "1.0.3", "2", "2.0", "2.1.4"] {
            assert_eq!(FormatVersion::new(good).unwrap(), good);
        }
        for (v, major) in [("1.4", 1), ("2.0", 2), ("2", 2)] {
            assert_eq!(FormatVersion::new(v).unwrap().major(), major);
        }
        assert!(FormatVersion::CURRENT.blocks_in_clear() && !FormatVersion::V1.blocks_in_clear());
        for bad in [
            "", "3.0", "0.9", "20.0", "01.0", "1.", "1.x", "1.0.0.0", "1..0", " 1.0",
        ] {
            assert!(FormatVersion::new(bad).is_err(), "{bad:?}");
        }
        assert_eq!(FormatVersion::new("1").unwrap().minor(), 0);
        assert_eq!(
            FormatVersion::new("1.99999999999999999999")
                .unwrap()
                .minor(),
            u64::MAX
        );
    }

    #[test]
    fn serde_reads_only_what_the_constructors_make() {
        assert!(serde_json::from_value::<Context>(json!(null)).is_err());
        assert!(serde_json::from_value::<Context>(json!([])).is_ok());
        assert!(serde_json::from_value::<DocumentKind>(json!("Other")).is_err());
        assert_eq!(
            serde_json::to_value(DocumentKind::SemanticMemoryGraph).unwrap(),
            json!("SemanticMemoryGraph")
        );
        assert!(serde_json::from_value::<FormatVersion>(json!("1.x")).is_err());
    }
}

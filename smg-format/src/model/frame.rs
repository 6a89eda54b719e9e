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

/// A v1 format version: `1`, `1.x` or `1.x.y` in decimal digits
/// (`^1(\.[0-9]+){0,2}$`). A file of another major version is refused when read
/// (`SMG-E013`), a malformed one too (`SMG-E014`).
///
/// ```
/// use smg_format::model::FormatVersion;
/// assert_eq!(FormatVersion::CURRENT, "1.0");
/// assert_eq!(FormatVersion::new("1.3").unwrap().minor(), 3);
/// assert!(FormatVersion::new("2.0").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FormatVersion(Cow<'static, str>);

impl FormatVersion {
    /// The version this crate writes.
    pub const CURRENT: FormatVersion = FormatVersion(Cow::Borrowed("1.0"));

    /// `s`, unless it is not a v1 version.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        let mut parts = s.split('.');
        let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        let ok = parts.next() == Some("1") && parts.clone().count() <= 2 && parts.all(digits);
        if !ok {
            return Err(Refused::new(format!(
                "{s:?} does not match \"^1(\\.[0-9]+){{0,2}}$\""
            )));
        }
        Ok(FormatVersion(Cow::Owned(s)))
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
    fn a_version_is_a_v1_version() {
        for good in ["1", "1.0", "1.12", "1.0.3"] {
            assert_eq!(FormatVersion::new(good).unwrap(), good);
        }
        for bad in ["", "2.0", "01.0", "1.", "1.x", "1.0.0.0", "1..0", " 1.0"] {
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

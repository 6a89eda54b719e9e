//! Content hashes and digests in the forms the file writes them (issue 31): made
//! only through a check, so a `Document` cannot hold a malformed one.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::checked::{string_value, Refused};

/// A content hash as the file names it: `sha256:` and 64 lowercase hex digits.
///
/// ```
/// use smg_format::model::Sha256Ref;
/// let h = Sha256Ref::of(b"hello");
/// assert!(h.as_str().starts_with("sha256:2cf24dba"));
/// assert!(Sha256Ref::new("sha256:ABC").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Ref(String);

impl Sha256Ref {
    /// `s`, unless it is not of the form `sha256:` and 64 lowercase hex digits.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        if !s.strip_prefix("sha256:").is_some_and(is_sha256_hex) {
            return Err(Refused::new(format!(
                "{s:?} does not match \"^sha256:[0-9a-f]{{64}}$\""
            )));
        }
        Ok(Sha256Ref(s))
    }

    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Sha256Ref(format!("sha256:{}", Sha256Hex::of(bytes)))
    }

    /// The reference, `sha256:…`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The reference, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The 64 hex digits.
    pub fn hex(&self) -> &str {
        &self.0["sha256:".len()..]
    }
}

/// A SHA-256 digest written as 64 lowercase hex digits, without a prefix (a fork's
/// parent file).
///
/// ```
/// use smg_format::model::Sha256Hex;
/// assert_eq!(Sha256Hex::of(b"").as_str().len(), 64);
/// assert!(Sha256Hex::new("sha256:ab").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Hex(String);

impl Sha256Hex {
    /// `s`, unless it is not 64 lowercase hex digits.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        if !is_sha256_hex(&s) {
            return Err(Refused::new(format!(
                "{s:?} does not match \"^[0-9a-f]{{64}}$\""
            )));
        }
        Ok(Sha256Hex(s))
    }

    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::{Digest, Sha256};
        Sha256Hex(hex::encode(Sha256::digest(bytes)))
    }

    /// The 64 hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The digits, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

string_value!(Sha256Hex);

/// Whether `h` is 64 lowercase hex digits.
fn is_sha256_hex(h: &str) -> bool {
    h.len() == 64
        && h.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

string_value!(Sha256Ref);

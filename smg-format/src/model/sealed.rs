//! Sealed sections: parts of a document encrypted with their own passphrase (spec
//! §10.2), described by what they are and never by their content.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_with::skip_serializing_none;

use super::checked::{string_value, Refused};
use super::{Extra, Ordinal, Scope, TurnRange};

/// A sealed part of the document: who and what it is, never its content.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SealedSection {
    /// `private:<collaborator id>` or `tier:<scope>`.
    pub id: SealedId,
    /// What is sealed.
    pub kind: SealedKind,
    /// The collaborator whose private context this is.
    pub collaborator: Option<String>,
    /// The memory tier sealed.
    pub tier: Option<Scope>,
    /// Bytes of sealed content (its canonical JSON).
    pub size: u64,
    /// Ids of the sealed nodes, so that references to them stay resolvable.
    pub node_ids: Option<Vec<String>>,
    /// For a tier: the turn ranges (`"first-last"`) of the sealed archive blocks, so
    /// that turn numbers stay unique and new turns are numbered after them.
    pub turn_ranges: Option<Vec<TurnRange>>,
    /// `brotli` when the content was compressed before it was encrypted; absent when
    /// it is stored as is.
    pub compression: Option<String>,
    /// Key derivation and nonce.
    pub encryption: SealParams,
    /// Base64 of the AES-256-GCM ciphertext and its 16-byte tag.
    pub ciphertext: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// How a sealed section was encrypted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SealParams {
    /// `PBKDF2-HMAC-SHA256`.
    pub kdf: String,
    /// PBKDF2 iterations.
    pub iterations: Ordinal,
    /// Base64 of the 16-byte salt.
    pub salt: String,
    /// Base64 of the 12-byte nonce.
    pub nonce: String,
    /// Base64 of the 16-byte key check.
    pub key_check: String,
}

/// What a sealed section holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SealedKind {
    /// A collaborator's private context.
    PrivateContext,
    /// A memory tier: its nodes, edges and archived turns.
    Tier,
}

impl SealedKind {
    /// The name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            SealedKind::PrivateContext => "privateContext",
            SealedKind::Tier => "tier",
        }
    }
}

/// A sealed section's id: `private:` or `tier:` and at least one more character, on
/// one line (`^(private|tier):.+$`, with ECMA-262's `.`).
///
/// ```
/// use smg_format::model::SealedId;
/// assert_eq!(SealedId::new("tier:restricted").unwrap(), "tier:restricted");
/// assert!(SealedId::new("tier:").is_err());
/// assert!(SealedId::new("box:a").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SealedId(String);

impl SealedId {
    /// `s`, unless it is not of that form.
    pub fn new(s: impl Into<String>) -> Result<Self, Refused> {
        let s = s.into();
        let rest = s
            .strip_prefix("private:")
            .or_else(|| s.strip_prefix("tier:"));
        // The schema's `.` is ECMA-262's: any character but a line terminator.
        if rest.is_some_and(|r| !r.is_empty() && !r.contains(LINE_BREAKS)) {
            return Ok(SealedId(s));
        }
        Err(Refused::new(format!(
            "{s:?} does not match \"^(private|tier):.+$\""
        )))
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

string_value!(SealedId);

/// What an ECMA-262 regular expression's `.` does not match: the line terminators.
const LINE_BREAKS: [char; 4] = ['\n', '\r', '\u{2028}', '\u{2029}'];

//! Signatures (spec §10.1): Ed25519 over a manifest of the SHA-256 of every top-level
//! section's canonical JSON, so a failed check names the sections that changed.
//!
//! ```
//! use smg_format::model::Timestamp;
//! use smg_format::sign::{generate_key, sign, verify};
//! use smg_format::Document;
//! let (secret, public) = generate_key().unwrap();
//! let mut doc = Document::new(Timestamp::from_static("2025-12-04T10:30:00Z"));
//! sign(&mut doc, &secret, &Timestamp::from_static("2025-12-04T10:31:00Z")).unwrap();
//! assert!(verify(&doc, Some(&public)).is_ok());
//! doc.metadata.project_name = Some("changed".into());
//! assert!(verify(&doc, Some(&public)).is_err());
//! ```

use std::collections::BTreeMap;

use base64::Engine;
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::model::{Document, Timestamp};

const SECRET_PREFIX: &str = "smg-ed25519-secret:";
const PUBLIC_PREFIX: &str = "smg-ed25519-public:";

/// What is signed: the signer's key, the time, and a hash per section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    algorithm: String,
    public_key: String,
    signed: String,
    /// In section-name order. A list, not an object keyed by name: names such as
    /// `@context` must not become JSON-LD keys.
    sections: Vec<SectionHash>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SectionHash {
    section: String,
    sha256: String,
}

/// The signature block stored at `metadata.signature`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SignatureBlock {
    #[serde(flatten)]
    manifest: Manifest,
    value: String,
}

/// A new Ed25519 key pair as text: (secret key file content, public key file content).
pub fn generate_key() -> Result<(Zeroizing<String>, String)> {
    let mut seed = Zeroizing::new([0u8; 32]);
    getrandom::getrandom(seed.as_mut()).map_err(|e| {
        Error::InvalidArgument(format!("no random numbers from the operating system: {e}"))
    })?;
    let key = SigningKey::from_bytes(&seed);
    let secret = Zeroizing::new(format!("{SECRET_PREFIX}{}\n", hex::encode(seed.as_ref())));
    let public = format!(
        "{PUBLIC_PREFIX}{}\n",
        hex::encode(key.verifying_key().as_bytes())
    );
    Ok((secret, public))
}

fn parse_key(text: &str, prefix: &str) -> Result<[u8; 32]> {
    let hexed = text.trim().strip_prefix(prefix).ok_or_else(|| {
        Error::InvalidArgument(format!("not a key file: it should start with `{prefix}`"))
    })?;
    let bytes = Zeroizing::new(
        hex::decode(hexed).map_err(|e| Error::InvalidArgument(format!("malformed key: {e}")))?,
    );
    bytes[..]
        .try_into()
        .map_err(|_| Error::InvalidArgument("a key is 32 bytes".into()))
}

/// SHA-256 (hex) of each top-level section's canonical JSON; the signature itself is
/// left out of `metadata`.
fn section_hashes(doc: &Document) -> Result<BTreeMap<String, String>> {
    // The sections as the file spells them, which a reader of the file hashes.
    let doc = crate::archive::settled(doc)?;
    let doc = doc.as_ref();
    let mut hashes = BTreeMap::new();
    crate::canonical::each_member_text(doc, &mut |key, text| {
        hashes.insert(key, hex::encode(Sha256::digest(text)));
    })?;
    if doc.metadata.extra.contains_key("signature") {
        let mut metadata = doc.metadata.clone();
        metadata.extra.remove("signature");
        let text = crate::canonical::to_vec(&metadata)?;
        hashes.insert("metadata".into(), hex::encode(Sha256::digest(text)));
    }
    Ok(hashes)
}

/// Sign `doc` with the secret key in `secret_key_text`, replacing any earlier signature.
pub fn sign(doc: &mut Document, secret_key_text: &str, signed_at: &Timestamp) -> Result<()> {
    let key = SigningKey::from_bytes(&parse_key(secret_key_text, SECRET_PREFIX)?);
    doc.metadata.extra.remove("signature");
    let manifest = Manifest {
        algorithm: "Ed25519".into(),
        public_key: hex::encode(key.verifying_key().as_bytes()),
        signed: signed_at.to_string(),
        sections: section_hashes(doc)?
            .into_iter()
            .map(|(section, sha256)| SectionHash { section, sha256 })
            .collect(),
    };
    let message = crate::canonical::to_vec(&manifest)?;
    let value = base64::engine::general_purpose::STANDARD.encode(key.sign(&message).to_bytes());
    let block = SignatureBlock { manifest, value };
    let block = serde_json::to_value(block).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    doc.metadata.extra.insert("signature".into(), block);
    Ok(())
}

/// Who signed, and when: the result of a successful [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The signer's public key (hex).
    pub public_key: String,
    /// When it was signed (as the signer stated).
    pub signed: String,
}

/// Check `doc`'s signature, against `public_key_text` when given (else against the key
/// the signature names, which proves integrity but not origin).
pub fn verify(doc: &Document, public_key_text: Option<&str>) -> Result<Verified> {
    let block = doc.metadata.extra.get("signature").ok_or(Error::Unsigned)?;
    let block: SignatureBlock = serde_json::from_value(block.clone())
        .map_err(|e| Error::BadSignature(format!("the signature block is malformed: {e}")))?;
    let named: [u8; 32] = hex::decode(&block.manifest.public_key)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::BadSignature("the signature names a malformed public key".into()))?;
    if let Some(text) = public_key_text {
        if parse_key(text, PUBLIC_PREFIX)? != named {
            return Err(Error::BadSignature(format!(
                "signed by another key ({})",
                block.manifest.public_key
            )));
        }
    }
    let key = VerifyingKey::from_bytes(&named)
        .map_err(|e| Error::BadSignature(format!("invalid public key: {e}")))?;
    let sig = base64::engine::general_purpose::STANDARD
        .decode(&block.value)
        .ok()
        .and_then(|b| ed25519_dalek::Signature::from_slice(&b).ok())
        .ok_or_else(|| Error::BadSignature("the signature value is malformed".into()))?;
    let message = crate::canonical::to_vec(&block.manifest)?;
    key.verify(&message, &sig)
        .map_err(|_| Error::BadSignature("the signature block itself was altered".into()))?;
    let now = section_hashes(doc)?;
    let then: BTreeMap<&str, &str> = block
        .manifest
        .sections
        .iter()
        .map(|s| (s.section.as_str(), s.sha256.as_str()))
        .collect();
    let mut changed: Vec<String> = now
        .iter()
        .filter(|(k, h)| then.get(k.as_str()) != Some(&h.as_str()))
        .map(|(k, _)| k.clone())
        .chain(
            then.keys()
                .filter(|k| !now.contains_key(**k))
                .map(|k| k.to_string()),
        )
        .collect();
    changed.sort();
    changed.dedup();
    if !changed.is_empty() {
        return Err(Error::BadSignature(format!(
            "changed since signing: {}",
            changed.join(", ")
        )));
    }
    Ok(Verified {
        public_key: block.manifest.public_key,
        signed: block.manifest.signed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::full_fixture as doc;

    #[test]
    fn sign_verify_and_name_what_changed() {
        let (secret, public) = generate_key().unwrap();
        let mut d = doc();
        sign(
            &mut d,
            &secret,
            &crate::model::Timestamp::from_static("2025-12-05T00:00:00Z"),
        )
        .unwrap();
        let bytes = crate::codec::to_canonical_json(&d).unwrap();
        let report =
            crate::validate::validate(&bytes, &crate::validate::ValidateOptions::default());
        assert!(
            report.is_valid(),
            "a signed document stays valid: {:?}",
            report.findings
        );
        let d = crate::codec::from_json_slice(&bytes).unwrap();
        assert_eq!(
            verify(&d, Some(&public)).unwrap().signed,
            "2025-12-05T00:00:00Z"
        );

        let mut changed = d.clone();
        changed
            .semantic_graph
            .as_mut()
            .unwrap()
            .nodes
            .as_mut()
            .unwrap()[0]
            .label = Some("forged".into());
        changed.collaborators = None;
        let err = verify(&changed, Some(&public)).unwrap_err();
        assert_eq!(err.code(), "SMG-E151");
        assert!(
            err.to_string().contains("collaborators, semanticGraph"),
            "{err}"
        );

        let (_, other) = generate_key().unwrap();
        assert!(verify(&d, Some(&other))
            .unwrap_err()
            .to_string()
            .contains("another key"));
        assert_eq!(verify(&doc(), None).unwrap_err().code(), "SMG-E150");

        let mut forged = d.clone();
        forged.metadata.extra.get_mut("signature").unwrap()["signed"] =
            "2030-01-01T00:00:00Z".into();
        assert!(verify(&forged, None)
            .unwrap_err()
            .to_string()
            .contains("itself was altered"));
    }
}

#[cfg(test)]
mod hashes {
    use super::*;

    /// The hashes as they were first made, through a `serde_json::Value` of the whole
    /// document: what every signature made so far holds.
    fn through_a_value(doc: &Document) -> BTreeMap<String, String> {
        let mut value = serde_json::to_value(doc).unwrap();
        if let Some(m) = value.get_mut("metadata").and_then(|m| m.as_object_mut()) {
            m.remove("signature");
        }
        let map = value.as_object().unwrap();
        map.iter()
            .map(|(k, v)| {
                let text = crate::canonical::to_canonical_json_value(v);
                (k.clone(), hex::encode(Sha256::digest(text)))
            })
            .collect()
    }

    #[test]
    fn each_section_hashes_as_through_a_value() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/valid");
        let mut read = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let Ok((mut doc, _)) = crate::read_file(&path, &Default::default()) else {
                continue;
            };
            assert_eq!(
                section_hashes(&doc).unwrap(),
                through_a_value(&doc),
                "{}",
                path.display()
            );
            let (secret, _) = generate_key().unwrap();
            sign(
                &mut doc,
                &secret,
                &Timestamp::from_static("2025-12-04T10:31:00Z"),
            )
            .unwrap();
            assert_eq!(
                section_hashes(&doc).unwrap(),
                through_a_value(&doc),
                "{}",
                path.display()
            );
            read += 1;
        }
        assert!(read > 10, "only {read} fixtures read");
    }
}

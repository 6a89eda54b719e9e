//! Sealed sections (spec §10.2): a collaborator's private context, or every node of a
//! memory tier, encrypted with its own passphrase while the rest stays readable.
//!
//! A reader without the key sees that the section exists (id, tier, size, node ids),
//! never its content, and the file still validates. Unsealing puts back exactly what
//! was sealed, at the same places.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use ring::aead::{Aad, Nonce};
use zeroize::Zeroizing;

use crate::crypto::{check_iterations, cipher, derive, key_check};
use crate::error::{Error, Result};
use crate::model::{
    Document, Extra, Ordinal, PrivateContext, Scope, SealParams, SealedId, SealedKind,
    SealedSection,
};
use tier::{has_tier, restore, take_tier, TierContent};

/// What to seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SealTarget<'a> {
    /// The private context of this collaborator.
    Collaborator(&'a str),
    /// Every node of this tier (with the edges that touch them), in every graph.
    Tier(Scope),
}

impl SealTarget<'_> {
    fn id(&self) -> Result<SealedId> {
        let id = match self {
            SealTarget::Collaborator(c) => format!("private:{c}"),
            SealTarget::Tier(s) => format!("tier:{}", s.name()),
        };
        SealedId::new(id)
            .map_err(|e| Error::InvalidArgument(format!("no sealed section can be named so: {e}")))
    }
}

/// The authenticated description of a section: everything but the ciphertext and key check.
fn aad(s: &SealedSection) -> Result<Vec<u8>> {
    let mut v = s.clone();
    v.ciphertext.clear();
    v.encryption.key_check.clear();
    crate::canonical::to_vec(&v)
}

/// Seal `target` in `doc` with `passphrase`; returns the section id.
pub fn seal(
    doc: &mut Document,
    target: SealTarget<'_>,
    passphrase: &[u8],
    iterations: u64,
) -> Result<String> {
    let (salt, nonce) = crate::crypto::fresh_salt_and_nonce()?;
    seal_with(doc, target, passphrase, iterations, &salt, &nonce)
}

/// [`seal`] with a given salt and nonce. Only for fixtures and test vectors: a nonce
/// must never be used twice with the same key.
pub fn seal_with(
    doc: &mut Document,
    target: SealTarget<'_>,
    passphrase: &[u8],
    iterations: u64,
    salt: &[u8; 16],
    nonce: &[u8; 12],
) -> Result<String> {
    let key = Key {
        passphrase,
        iterations,
        salt,
        nonce,
    };
    seal_as(doc, target, &key, true)
}

/// How a section is encrypted.
struct Key<'a> {
    passphrase: &'a [u8],
    iterations: u64,
    salt: &'a [u8; 16],
    nonce: &'a [u8; 12],
}

/// [`seal_with`]; uncompressed as sections were before `compression` (for the test
/// that they still open).
fn seal_as(
    doc: &mut Document,
    target: SealTarget<'_>,
    key: &Key<'_>,
    compress: bool,
) -> Result<String> {
    let Key {
        passphrase,
        iterations,
        salt,
        nonce,
    } = *key;
    check_iterations(iterations)?;
    let id = target.id()?;
    if doc.sealed_sections.iter().flatten().any(|s| s.id == id) {
        return Err(Error::InvalidArgument(format!("`{id}` is already sealed")));
    }
    let (plain, node_ids, turn_ranges, tier) = match target {
        SealTarget::Collaborator(c) => {
            let ctx = doc.private_contexts.as_mut().and_then(|m| m.remove(c));
            let ctx = ctx.ok_or_else(|| {
                Error::InvalidArgument(format!("no private context for collaborator `{c}`"))
            })?;
            if doc.private_contexts.as_ref().is_some_and(|m| m.is_empty()) {
                doc.private_contexts = None;
            }
            (crate::canonical::to_vec(&ctx)?, None, None, None)
        }
        SealTarget::Tier(scope) => {
            let content = take_tier(doc, scope);
            let (ids, ranges) = content.visible();
            if ids.is_none() && ranges.is_none() {
                return Err(Error::InvalidArgument(format!(
                    "no node and no archived turn has scope `{}`",
                    scope.name()
                )));
            }
            (
                crate::canonical::to_vec(&content)?,
                ids,
                ranges,
                Some(scope),
            )
        }
    };
    let plain = Zeroizing::new(plain);
    let collaborator = match target {
        SealTarget::Collaborator(c) => Some(c.to_string()),
        SealTarget::Tier(_) => None,
    };
    let mut section = SealedSection {
        id: id.clone(),
        kind: if collaborator.is_some() {
            SealedKind::PrivateContext
        } else {
            SealedKind::Tier
        },
        collaborator,
        tier,
        size: plain.len() as u64,
        node_ids,
        turn_ranges,
        compression: compress.then(|| BROTLI.into()),
        encryption: SealParams {
            kdf: "PBKDF2-HMAC-SHA256".into(),
            iterations: Ordinal::new(iterations).map_err(|_| Error::WeakKdf { iterations })?,
            salt: B64.encode(salt),
            nonce: B64.encode(nonce),
            key_check: String::new(),
        },
        ciphertext: String::new(),
        extra: Extra::new(),
    };
    let keys = derive(passphrase, salt, iterations)?;
    let header = aad(&section)?;
    section.encryption.key_check = B64.encode(key_check(&keys[32..], &header));
    let mut buf = Zeroizing::new(Vec::new());
    if compress {
        crate::envelope::brotli_compress(&plain, SEALED_QUALITY, &mut buf)?;
    } else {
        buf.extend_from_slice(&plain);
    }
    let tag = cipher(&keys[..32])
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(*nonce),
            Aad::from(&header),
            &mut buf,
        )
        .map_err(|_| Error::InvalidArgument("AES-GCM refused the input".into()))?;
    buf.extend_from_slice(tag.as_ref());
    section.ciphertext = B64.encode(&*buf);
    doc.sealed_sections
        .get_or_insert_with(Vec::new)
        .push(section);
    Ok(id.into_string())
}

/// The `compression` of what smg seals: its canonical JSON under Brotli.
const BROTLI: &str = "brotli";
/// Brotli quality of sealed content: sealed once, and a tier's nodes are mostly JSON
/// keys and repeated words (a sixth of their size at this quality).
const SEALED_QUALITY: i32 = 9;

/// Open the sealed section `id` with `passphrase` and put its content back.
pub fn unseal(doc: &mut Document, id: &str, passphrase: &[u8]) -> Result<()> {
    let sections = doc.sealed_sections.as_deref().unwrap_or_default();
    let pos = sections
        .iter()
        .position(|s| s.id == id)
        .ok_or_else(|| Error::InvalidArgument(format!("no sealed section `{id}`")))?;
    let section = sections[pos].clone();
    let plain = open(&section, passphrase)?;
    match (&section.collaborator, section.tier) {
        (Some(c), _) => {
            let ctx: PrivateContext =
                serde_json::from_slice(&plain).map_err(|_| Error::Tampered)?;
            doc.private_contexts
                .get_or_insert_with(Default::default)
                .insert(c.clone(), ctx);
        }
        (None, Some(_)) => {
            let content: TierContent =
                serde_json::from_slice(&plain).map_err(|_| Error::Tampered)?;
            restore(doc, content);
        }
        _ => {
            return Err(Error::InvalidArgument(format!(
                "sealed section `{id}` names neither a collaborator nor a tier"
            )))
        }
    }
    let sealed = doc.sealed_sections.as_mut().expect("found above");
    sealed.remove(pos);
    if sealed.is_empty() {
        doc.sealed_sections = None;
    }
    Ok(())
}

/// Open every sealed section that `passphrase` opens and put its content back, for an
/// authorised reader who works on the document in memory (the file stays sealed).
/// Returns what was opened, to [seal again](Opened::seal_again) before the document is
/// written; none opening is a wrong passphrase (`SMG-E141`).
///
/// ```
/// use smg_format::model::{Node, NonEmpty, Scope};
/// use smg_format::seal::{seal, unseal_all, SealTarget};
/// let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let secret = Node { scope: Some(Scope::Restricted), ..Node::new(NonEmpty::from_static("n1"), NonEmpty::from_static("memory")) };
/// doc.semantic_graph.get_or_insert_with(Default::default).nodes = Some(vec![secret]);
/// let original = doc.clone();
/// seal(&mut doc, SealTarget::Tier(Scope::Restricted), b"pass phrase", 600_000).unwrap();
/// assert_eq!(unseal_all(&mut doc.clone(), b"wrong").unwrap_err().code(), "SMG-E141");
/// let opened = unseal_all(&mut doc, b"pass phrase").unwrap();
/// assert_eq!(opened.ids().collect::<Vec<_>>(), ["tier:restricted"]);
/// assert_eq!(doc, original);
/// opened.seal_again(&mut doc, b"pass phrase").unwrap();
/// assert!(doc.semantic_graph.unwrap().nodes.unwrap_or_default().is_empty());
/// ```
pub fn unseal_all(doc: &mut Document, passphrase: &[u8]) -> Result<Opened> {
    let sections: Vec<(String, u64)> = doc
        .sealed_sections
        .iter()
        .flatten()
        .map(|s| (s.id.to_string(), s.encryption.iterations.get()))
        .collect();
    let mut opened = Opened::default();
    for (id, iterations) in sections {
        match unseal(doc, &id, passphrase) {
            Ok(()) => opened.sections.push((id, iterations)),
            Err(Error::WrongPassphrase) => {}
            Err(e) => return Err(e),
        }
    }
    if opened.sections.is_empty() && doc.sealed_sections.is_some() {
        return Err(Error::WrongPassphrase);
    }
    Ok(opened)
}

/// The sections [`unseal_all`] opened: what an authorised writer seals again, with
/// the same passphrase and iterations, before the document goes back to disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Opened {
    sections: Vec<(String, u64)>,
}

impl Opened {
    /// The ids of the sections opened (`tier:restricted`, `private:alice`).
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.sections.iter().map(|(id, _)| id.as_str())
    }

    /// Seal again in `doc` what was opened, as it is now (with what was added to the
    /// tier or the collaborator's context meanwhile). A tier left with nothing, or a
    /// context removed, has nothing to seal and is left out.
    pub fn seal_again(&self, doc: &mut Document, passphrase: &[u8]) -> Result<()> {
        for (id, iterations) in &self.sections {
            let target = match id.split_once(':') {
                Some(("tier", name)) => {
                    let scope: Scope = serde_json::from_value(name.into())
                        .map_err(|_| Error::InvalidArgument(format!("unknown tier in `{id}`")))?;
                    if !has_tier(doc, scope) {
                        continue;
                    }
                    SealTarget::Tier(scope)
                }
                Some(("private", c))
                    if doc
                        .private_contexts
                        .as_ref()
                        .is_some_and(|m| m.contains_key(c)) =>
                {
                    SealTarget::Collaborator(c)
                }
                Some(("private", _)) => continue,
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "unknown sealed section `{id}`"
                    )))
                }
            };
            seal(doc, target, passphrase, *iterations)?;
        }
        Ok(())
    }
}

fn open(section: &SealedSection, passphrase: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let p = &section.encryption;
    if p.kdf != "PBKDF2-HMAC-SHA256" {
        return Err(Error::UnknownAlgorithm(format!(
            "sealed section key derivation `{}`",
            p.kdf
        )));
    }
    if let Some(c) = section.compression.as_deref().filter(|c| *c != BROTLI) {
        return Err(Error::UnknownAlgorithm(format!(
            "sealed section compression `{c}`"
        )));
    }
    check_iterations(p.iterations.get())?;
    // Malformed parameters cannot come from a writer: the section was altered.
    let salt = B64.decode(&p.salt).map_err(|_| Error::Tampered)?;
    let nonce: [u8; 12] = B64
        .decode(&p.nonce)
        .ok()
        .and_then(|n| n.try_into().ok())
        .ok_or(Error::Tampered)?;
    let check = B64.decode(&p.key_check).map_err(|_| Error::Tampered)?;
    let keys = derive(passphrase, &salt, p.iterations.get())?;
    let header = aad(section)?;
    if key_check(&keys[32..], &header)[..] != check[..] {
        return Err(Error::WrongPassphrase);
    }
    let mut buf = Zeroizing::new(
        B64.decode(&section.ciphertext)
            .map_err(|_| Error::Tampered)?,
    );
    let n = cipher(&keys[..32])
        .open_in_place(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(&header),
            &mut buf,
        )
        .map_err(|_| Error::Tampered)?
        .len();
    buf.truncate(n);
    if section.compression.is_none() {
        return Ok(buf);
    }
    // The size is authenticated: content that does not inflate to it exactly was not
    // written by a sealer.
    let plain = crate::envelope::read_bounded(
        brotli::Decompressor::new(&buf[..], 1 << 16),
        section.size,
        "brotli",
        0,
    )
    .map_err(|_| Error::Tampered)?;
    let plain = Zeroizing::new(plain);
    if plain.len() as u64 != section.size {
        return Err(Error::Tampered);
    }
    Ok(plain)
}

#[cfg(test)]
mod tests;
mod tier;

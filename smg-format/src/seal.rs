//! Sealed sections (spec §10.2): a collaborator's private context, or every node of a
//! memory tier, encrypted with its own passphrase while the rest stays readable.
//!
//! A reader without the key sees that the section exists (id, tier, size, node ids),
//! never its content, and the file still validates. Unsealing puts back exactly what
//! was sealed, at the same places.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use ring::aead::{Aad, Nonce};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::crypto::{check_iterations, cipher, derive, key_check};
use crate::error::{Error, Result};
use crate::model::{Document, Edge, Node, PrivateContext, Scope, SealParams, SealedSection};

/// What to seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SealTarget<'a> {
    /// The private context of this collaborator.
    Collaborator(&'a str),
    /// Every node of this tier (with the edges that touch them), in every graph.
    Tier(Scope),
}

impl SealTarget<'_> {
    fn id(&self) -> String {
        match self {
            SealTarget::Collaborator(c) => format!("private:{c}"),
            SealTarget::Tier(s) => format!("tier:{}", s.name()),
        }
    }
}

/// A node or edge removed from a graph, with where it stood.
#[derive(Debug, Serialize, Deserialize)]
struct Placed<T> {
    at: String,
    index: usize,
    item: T,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TierContent {
    nodes: Vec<Placed<Node>>,
    edges: Vec<Placed<Edge>>,
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
    check_iterations(iterations)?;
    let id = target.id();
    if doc.sealed_sections.iter().flatten().any(|s| s.id == id) {
        return Err(Error::InvalidArgument(format!("`{id}` is already sealed")));
    }
    let (plain, node_ids, collaborator, tier) = match target {
        SealTarget::Collaborator(c) => {
            let ctx = doc.private_contexts.as_mut().and_then(|m| m.remove(c));
            let ctx = ctx.ok_or_else(|| {
                Error::InvalidArgument(format!("no private context for collaborator `{c}`"))
            })?;
            if doc.private_contexts.as_ref().is_some_and(|m| m.is_empty()) {
                doc.private_contexts = None;
            }
            (
                crate::canonical::to_vec(&ctx)?,
                None,
                Some(c.to_string()),
                None,
            )
        }
        SealTarget::Tier(scope) => {
            let content = take_tier(doc, scope);
            if content.nodes.is_empty() {
                return Err(Error::InvalidArgument(format!(
                    "no node has scope `{}`",
                    scope.name()
                )));
            }
            let ids = content.nodes.iter().map(|p| p.item.id.clone()).collect();
            (
                crate::canonical::to_vec(&content)?,
                Some(ids),
                None,
                Some(scope),
            )
        }
    };
    let plain = Zeroizing::new(plain);
    let mut section = SealedSection {
        id: id.clone(),
        kind: if collaborator.is_some() {
            "privateContext"
        } else {
            "tier"
        }
        .into(),
        collaborator,
        tier,
        size: plain.len() as u64,
        node_ids,
        encryption: SealParams {
            kdf: "PBKDF2-HMAC-SHA256".into(),
            iterations,
            salt: B64.encode(salt),
            nonce: B64.encode(nonce),
            key_check: String::new(),
        },
        ..SealedSection::default()
    };
    let keys = derive(passphrase, salt, iterations)?;
    let header = aad(&section)?;
    section.encryption.key_check = B64.encode(key_check(&keys[32..], &header));
    let mut buf = plain.to_vec();
    let tag = cipher(&keys[..32])
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(*nonce),
            Aad::from(&header),
            &mut buf,
        )
        .map_err(|_| Error::InvalidArgument("AES-GCM refused the input".into()))?;
    buf.extend_from_slice(tag.as_ref());
    section.ciphertext = B64.encode(&buf);
    doc.sealed_sections
        .get_or_insert_with(Vec::new)
        .push(section);
    Ok(id)
}

/// Remove every node of `scope` from every graph, with the edges that touch them.
fn take_tier(doc: &mut Document, scope: Scope) -> TierContent {
    let mut out = TierContent::default();
    let ids: std::collections::HashSet<String> = doc
        .graphs()
        .iter()
        .flat_map(|(_, g)| {
            g.nodes()
                .iter()
                .filter(|n| n.scope == Some(scope))
                .map(|n| n.id.clone())
        })
        .collect();
    for (at, graph) in graphs_mut(doc) {
        if let Some(nodes) = graph.nodes.as_mut() {
            out.nodes
                .extend(drain_where(nodes, &at, |n: &Node| ids.contains(&n.id)));
        }
        if let Some(edges) = graph.edges.as_mut() {
            out.edges.extend(drain_where(edges, &at, |e: &Edge| {
                ids.contains(&e.from) || ids.contains(&e.to)
            }));
        }
    }
    out
}

fn drain_where<T>(
    items: &mut Vec<T>,
    at: &str,
    mut pick: impl FnMut(&T) -> bool,
) -> Vec<Placed<T>> {
    let mut kept = Vec::with_capacity(items.len());
    let mut taken = Vec::new();
    for (index, item) in std::mem::take(items).into_iter().enumerate() {
        if pick(&item) {
            taken.push(Placed {
                at: at.to_string(),
                index,
                item,
            });
        } else {
            kept.push(item);
        }
    }
    *items = kept;
    taken
}

fn graphs_mut(doc: &mut Document) -> Vec<(String, &mut crate::model::Graph)> {
    let mut out = Vec::new();
    if let Some(g) = doc.semantic_graph.as_mut() {
        out.push(("/semanticGraph".to_string(), g));
    }
    if let Some(g) = doc.shared_graph.as_mut() {
        out.push(("/sharedGraph".to_string(), g));
    }
    for (id, ctx) in doc.private_contexts.iter_mut().flatten() {
        if let Some(g) = ctx.graph.as_mut() {
            out.push((
                format!(
                    "/privateContexts/{}/graph",
                    crate::model::escape_pointer(id)
                ),
                g,
            ));
        }
    }
    out
}

/// Open the sealed section `id` with `passphrase` and put its content back.
pub fn unseal(doc: &mut Document, id: &str, passphrase: &[u8]) -> Result<()> {
    let pos = doc
        .sealed_sections
        .iter()
        .flatten()
        .position(|s| s.id == id)
        .ok_or_else(|| Error::InvalidArgument(format!("no sealed section `{id}`")))?;
    let section = doc
        .sealed_sections
        .as_ref()
        .map(|v| v[pos].clone())
        .unwrap_or_default();
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

fn open(section: &SealedSection, passphrase: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let p = &section.encryption;
    if p.kdf != "PBKDF2-HMAC-SHA256" {
        return Err(Error::UnknownAlgorithm(format!(
            "sealed section key derivation `{}`",
            p.kdf
        )));
    }
    check_iterations(p.iterations)?;
    // Malformed parameters cannot come from a writer: the section was altered.
    let salt = B64.decode(&p.salt).map_err(|_| Error::Tampered)?;
    let nonce: [u8; 12] = B64
        .decode(&p.nonce)
        .ok()
        .and_then(|n| n.try_into().ok())
        .ok_or(Error::Tampered)?;
    let check = B64.decode(&p.key_check).map_err(|_| Error::Tampered)?;
    let keys = derive(passphrase, &salt, p.iterations)?;
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
    Ok(buf)
}

/// Put sealed nodes and edges back at their original places (ascending index order
/// restores each array exactly).
fn restore(doc: &mut Document, content: TierContent) {
    let mut graphs = graphs_mut(doc);
    for p in content.nodes {
        if let Some((_, g)) = graphs.iter_mut().find(|(at, _)| *at == p.at) {
            let nodes = g.nodes.get_or_insert_with(Vec::new);
            nodes.insert(p.index.min(nodes.len()), p.item);
        }
    }
    for p in content.edges {
        if let Some((_, g)) = graphs.iter_mut().find(|(at, _)| *at == p.at) {
            let edges = g.edges.get_or_insert_with(Vec::new);
            edges.insert(p.index.min(edges.len()), p.item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::full_fixture as doc;

    fn valid(d: &Document) -> bool {
        let r = crate::validate::validate(
            &crate::codec::to_canonical_json(d).unwrap(),
            &crate::validate::ValidateOptions::default(),
        );
        r.is_valid() || panic!("{:?}", r.findings)
    }

    #[test]
    fn sealing_hides_content_keeps_validity_and_unsealing_restores_exactly() {
        let original = doc();
        let mut d = original.clone();
        let pass = b"restricted pass";
        assert_eq!(
            seal(&mut d, SealTarget::Tier(Scope::Restricted), pass, 600_000).unwrap(),
            "tier:restricted"
        );
        assert_eq!(
            seal(
                &mut d,
                SealTarget::Collaborator("user_a"),
                b"user a",
                600_000
            )
            .unwrap(),
            "private:user_a"
        );
        let text = String::from_utf8(crate::codec::to_canonical_json(&d).unwrap()).unwrap();
        assert!(
            !text.contains("contract renegotiation") && !text.contains("idempotency"),
            "content leaked"
        );
        assert!(text.contains("tier:restricted") && text.contains("n_restricted"));
        assert!(valid(&d));

        assert_eq!(
            unseal(&mut d.clone(), "tier:restricted", b"wrong")
                .unwrap_err()
                .code(),
            "SMG-E141"
        );
        let mut tampered = d.clone();
        tampered.sealed_sections.as_mut().unwrap()[0].size += 1;
        assert_eq!(
            unseal(&mut tampered, "tier:restricted", pass)
                .unwrap_err()
                .code(),
            "SMG-E141"
        );
        let mut flipped = d.clone();
        let ct = &mut flipped.sealed_sections.as_mut().unwrap()[0].ciphertext;
        let mut raw = B64.decode(&*ct).unwrap();
        raw[3] ^= 1;
        *ct = B64.encode(raw);
        assert_eq!(
            unseal(&mut flipped, "tier:restricted", pass)
                .unwrap_err()
                .code(),
            "SMG-E142"
        );

        unseal(&mut d, "private:user_a", b"user a").unwrap();
        unseal(&mut d, "tier:restricted", pass).unwrap();
        assert_eq!(d, original);
    }
}

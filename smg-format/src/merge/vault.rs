//! The vault of a merge: versions added on both sides as a union, artifacts alike
//! everywhere set aside, versions counted.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{Ids, Taken};
use crate::error::{Error, Result};
use crate::model::{Artifact, ArtifactVault, Document, Extra, Sha256Ref, Timestamp};
use crate::vault::{next_version, rebuild_versions};

pub(super) fn versions(a: &Map<String, Value>) -> &[Value] {
    a.get("versions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn typed(id: &str, a: &Map<String, Value>) -> Result<Artifact> {
    serde_json::from_value(Value::Object(a.clone())).map_err(|e| Error::Artifact {
        artifact: id.to_string(),
        version: 0,
        detail: format!("not an artifact: {e}"),
    })
}

/// A version to be numbered again: when, its content, and what it carried besides.
struct Pending {
    timestamp: Option<Timestamp>,
    hash: Sha256Ref,
    content: String,
    stated_hash: bool,
    extra: Extra,
}

pub(super) fn union(
    id: &str,
    filename: Option<String>,
    o: &Map<String, Value>,
    t: &Map<String, Value>,
    prefix: usize,
) -> Result<(Value, String)> {
    let (ao, at) = (typed(id, o)?, typed(id, t)?);
    let (co, ct) = (rebuild_versions(id, &ao)?, rebuild_versions(id, &at)?);
    let mut seen = BTreeSet::new();
    let mut pending: Vec<Pending> = Vec::new();
    for (art, contents) in [(&ao, &co), (&at, &ct)] {
        for (v, content) in art.versions.iter().zip(contents).skip(prefix) {
            let hash = Sha256Ref::of(content.as_bytes());
            if seen.insert(hash.clone()) {
                pending.push(Pending {
                    timestamp: v.timestamp.clone(),
                    hash,
                    content: content.clone(),
                    stated_hash: v.hash.is_some(),
                    extra: v.extra.clone(),
                });
            }
        }
    }
    pending
        .sort_by(|x, y| (x.timestamp.as_deref(), &x.hash).cmp(&(y.timestamp.as_deref(), &y.hash)));
    let name = filename.as_deref().unwrap_or(id);
    let mut versions = ao.versions[..prefix].to_vec();
    let mut prev = prefix
        .checked_sub(1)
        .map(|i| co[i].clone())
        .unwrap_or_default();
    let mut hash = String::new();
    for p in pending {
        let mut v = next_version(name, &versions, &prev, &p.content, p.timestamp.as_ref());
        v.hash = p.stated_hash.then(|| p.hash.clone());
        v.extra = p.extra;
        versions.push(v);
        hash = p.hash.into();
        prev = p.content;
    }
    let list = serde_json::to_value(&versions)
        .map_err(|e| Error::InvalidArgument(format!("versions do not serialise: {e}")))?;
    Ok((list, hash))
}

/// The artifact versions (by artifact and content hash) each side added since the
/// base that the `merged` vault holds.
pub(super) fn added_versions([base, ours, theirs]: [&Document; 3], merged: &Document) -> Taken {
    let hashes = |d: &Document| -> BTreeSet<(String, Sha256Ref)> {
        let arts = d.artifact_vault.as_ref().and_then(|v| v.artifacts.as_ref());
        arts.into_iter()
            .flatten()
            .flat_map(|(id, a)| {
                let hashes = a.versions.iter().filter_map(|v| v.hash.clone());
                hashes.map(move |h| (id.clone(), h))
            })
            .collect()
    };
    let (b, m) = (hashes(base), hashes(merged));
    let added = |d: &Document| -> BTreeSet<(String, Sha256Ref)> {
        hashes(d)
            .into_iter()
            .filter(|k| !b.contains(k) && m.contains(k))
            .collect()
    };
    let (o, t) = (added(ours), added(theirs));
    let both = o.intersection(&t).count();
    let mut taken = Taken::default();
    (taken.ours, taken.theirs, taken.both) = (o.len() - both, t.len() - both, both);
    taken
}

fn artifacts(d: &Document) -> Option<&BTreeMap<String, Artifact>> {
    d.artifact_vault.as_ref().and_then(|v| v.artifacts.as_ref())
}

/// The ids of the artifacts the three documents hold alike. A merge cannot change
/// them, so they are left out of the documents' values (tens of megabytes of
/// content in a large vault) and taken back as they are ([`restore`]).
pub(super) fn settled([base, ours, theirs]: [&Document; 3]) -> Ids<'_> {
    use rayon::prelude::*;
    let (Some(b), Some(o), Some(t)) = (artifacts(base), artifacts(ours), artifacts(theirs)) else {
        return Ids::default();
    };
    // Tens of thousands of artifacts compared whole: side by side.
    b.par_iter()
        .filter(|(id, a)| o.get(*id) == Some(a) && t.get(*id) == Some(a))
        .map(|(id, _)| id.as_str())
        .collect::<Vec<_>>()
        .into_iter()
        .collect()
}

/// Put the `settled` artifacts, as `base` holds them, back into the merged vault.
pub(super) fn restore(merged: &mut Document, base: &Document, settled: &Ids<'_>) {
    let Some(b) = artifacts(base).filter(|_| !settled.is_empty()) else {
        return;
    };
    let vault = merged
        .artifact_vault
        .get_or_insert_with(ArtifactVault::default);
    let into = vault.artifacts.get_or_insert_with(BTreeMap::new);
    for (id, a) in b.iter().filter(|(id, _)| settled.contains(id.as_str())) {
        into.insert(id.clone(), a.clone());
    }
}

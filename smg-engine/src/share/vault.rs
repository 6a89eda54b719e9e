//! The vault: every version of every artifact rebuilt, redacted, and its chain of
//! diffs made again, so that each version still checks against its SHA-256.

use serde_json::Value;
use smg_format::model::{ArtifactVault, Sha256Ref};
use smg_format::vault::{rebuild_versions, unified_diff};

use super::rules::Rules;
use super::table::{self, Table};
use super::walk;
use crate::error::Result;

/// Every artifact's versions' full content, by artifact id in order.
pub(crate) fn contents(vault: Option<&ArtifactVault>) -> Result<Vec<(String, Vec<String>)>> {
    let artifacts = vault.and_then(|v| v.artifacts.as_ref());
    artifacts
        .into_iter()
        .flatten()
        .map(|(id, a)| Ok((id.clone(), rebuild_versions(id, a)?)))
        .collect()
}

/// `vault` with every value replaced: in each version's content (full content where
/// the version had it, else a diff against the version before), the artifacts' ids,
/// names and other fields.
pub(crate) fn redact(
    vault: Option<ArtifactVault>,
    contents: Vec<(String, Vec<String>)>,
    rules: &Rules,
    table: &mut Table,
) -> Result<Option<ArtifactVault>> {
    let Some(mut vault) = vault else {
        return Ok(None);
    };
    let mut artifacts = vault.artifacts.take().unwrap_or_default();
    for (id, versions) in contents {
        let Some(mut artifact) = artifacts.remove(&id) else {
            continue;
        };
        let mut changed = false;
        let new: Vec<String> = versions
            .into_iter()
            .enumerate()
            .map(|(i, text)| {
                let at = format!("{id} v{}", i + 1);
                match table::redact(rules, table, &text, "artifactVault", &|| at.clone()) {
                    Some(new) => {
                        changed = true;
                        new
                    }
                    None => text,
                }
            })
            .collect();
        if changed {
            let name = artifact.filename.clone().unwrap_or_else(|| id.clone());
            let mut prev: Option<&str> = None;
            for (version, text) in artifact.versions.iter_mut().zip(&new) {
                match prev {
                    Some(p) if version.content.is_none() => {
                        version.delta = Some(unified_diff(p, text, &name));
                    }
                    _ => version.content = Some(text.clone()),
                }
                if version.hash.is_some() {
                    version.hash = Some(Sha256Ref::of(text.as_bytes()));
                }
                prev = Some(text);
            }
            if let Some(last) = new.last() {
                artifact.hash = Sha256Ref::of(last.as_bytes());
            }
        }
        let mut fields = serde_json::to_value(&artifact).map_err(invalid)?;
        if let Value::Object(map) = &mut fields {
            map.remove("versions");
        }
        let mut strings_of = |v: &mut Value, what: &str| {
            let base = format!("{id} {what}");
            walk::strings(v, &mut Vec::new(), &mut |s, at| {
                let at = format!("{base}{}", at());
                table::redact(rules, table, s, "artifactVault", &|| at.clone())
            });
        };
        strings_of(&mut fields, "");
        apply_fields(&mut artifact, fields);
        for version in artifact.versions.iter_mut() {
            let mut extra = Value::Object(std::mem::take(&mut version.extra));
            strings_of(&mut extra, &format!("v{}", version.v.get()));
            if let Value::Object(map) = extra {
                version.extra = map;
            }
        }
        let key = table::redact(rules, table, &id, "artifactVault", &|| {
            format!("{id} (its id)")
        });
        artifacts.insert(key.unwrap_or(id), artifact);
    }
    vault.artifacts = Some(artifacts);
    let mut extra = Value::Object(std::mem::take(&mut vault.extra));
    walk::strings(&mut extra, &mut Vec::new(), &mut |s, at| {
        table::redact(rules, table, s, "artifactVault", &|| at())
    });
    if let Value::Object(map) = extra {
        vault.extra = map;
    }
    Ok(Some(vault))
}

/// The artifact's own fields (not its versions) from their redacted JSON.
fn apply_fields(artifact: &mut smg_format::model::Artifact, fields: Value) {
    let Value::Object(mut map) = fields else {
        return;
    };
    let text = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_string));
    artifact.filename = text(map.remove("filename"));
    artifact.language = text(map.remove("language"));
    for known in ["type", "hash"] {
        map.remove(known);
    }
    artifact.extra = map;
}

fn invalid(e: serde_json::Error) -> crate::Error {
    smg_format::Error::InvalidArgument(format!("share: an artifact: {e}")).into()
}

use std::fmt::Write as _;

use serde_json::json;
use smg_format::{
    vault::{NewContent, VaultWriter},
    Document, Error,
};

use crate::cli::{FileJson, VaultCommand};
use crate::io::Context;
use crate::io::{is_stdio, load, read_input, save_like, write_output, write_stdout};
use crate::Outcome;

pub(crate) fn run(cmd: VaultCommand, ctx: &Context) -> Result<Outcome, Error> {
    match cmd {
        VaultCommand::Add {
            file,
            path,
            name,
            language,
            kind,
        } => {
            let mut loaded = load(&file, ctx)?;
            let bytes = read_input(&path)?;
            let content = String::from_utf8(bytes).map_err(|e| {
                Error::InvalidArgument(format!(
                    "{} is not UTF-8 text (byte {}); v1 vaults hold text only",
                    path.display(),
                    e.utf8_error().valid_up_to()
                ))
            })?;
            let default_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.or(if is_stdio(&path) { None } else { default_name });
            let now = smg_format::model::Timestamp::now();
            let meta = NewContent {
                name: name.as_deref(),
                kind: Some(&kind),
                language: language.as_deref(),
                timestamp: Some(&now),
                ..NewContent::default()
            };
            let vault = loaded
                .doc
                .artifact_vault
                .get_or_insert_with(Default::default);
            let stored = VaultWriter::new(vault).add(&content, &meta)?;
            if stored.added {
                loaded.doc.metadata.modified = Some(now);
                save_like(&file, loaded)?;
            }
            let what = if stored.added {
                "stored as"
            } else {
                "already stored as"
            };
            write_stdout(
                format!("{what} {} version {}\n", stored.artifact, stored.version).as_bytes(),
            )?;
        }
        VaultCommand::List(FileJson { file, json }) => list(&load(&file, ctx)?.doc, json)?,
        VaultCommand::Log {
            file,
            artifact,
            json,
        } => log(&load(&file, ctx)?.doc, &artifact, json)?,
        VaultCommand::Show {
            file,
            artifact,
            version,
        } => {
            let (_, _, content) = version_content(&load(&file, ctx)?.doc, &artifact, version)?;
            write_stdout(content.as_bytes())?;
        }
        VaultCommand::Export {
            file,
            artifact,
            version,
            output,
        } => {
            let doc = load(&file, ctx)?.doc;
            let (_, name, content) = version_content(&doc, &artifact, version)?;
            let target = if output.is_dir() {
                let path = smg_format::vault::export_path(&output, &name)?;
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| Error::Io {
                        path: parent.to_path_buf(),
                        source: e,
                    })?;
                }
                path
            } else {
                output
            };
            write_output(&target, content.as_bytes())?;
            if !is_stdio(&target) {
                eprintln!("wrote {}", target.display());
            }
        }
        VaultCommand::Diff {
            file,
            artifact,
            v1,
            v2,
        } => {
            let doc = load(&file, ctx)?.doc;
            let (id, name, old) = version_content(&doc, &artifact, Some(v1))?;
            let (_, _, new) = version_content(&doc, &id, Some(v2))?;
            write_stdout(smg_format::vault::unified_diff(&old, &new, &name).as_bytes())?;
        }
    }
    Ok(Outcome::Success)
}

/// The artifact's id, file name (or id) and one version's content (the newest when
/// `version` is None). Only that version's chain is rebuilt.
fn version_content(
    doc: &Document,
    artifact: &str,
    version: Option<u64>,
) -> Result<(String, String, String), Error> {
    let (id, art) = smg_format::vault::find_artifact(doc.artifact_vault.as_ref(), artifact)?;
    let v = version.unwrap_or(art.versions.len() as u64);
    let content = smg_format::vault::rebuild_version(id, art, v)?;
    Ok((
        id.to_string(),
        art.filename.clone().unwrap_or_else(|| id.to_string()),
        content,
    ))
}

/// The first line of an artifact's first version, for telling unnamed ones apart.
fn first_line(a: &smg_format::model::Artifact) -> String {
    let first = a.versions.first().content.as_deref().unwrap_or("");
    let line = first.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    smg_engine::search::one_line(line.trim(), 48)
}

fn list(doc: &Document, as_json: bool) -> Result<(), Error> {
    let arts = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref());
    let rows: Vec<_> = arts
        .into_iter()
        .flatten()
        .map(|(id, a)| {
            json!({"id": id, "name": a.filename, "type": a.kind, "language": a.language,
                   "versions": a.versions.len(), "hash": a.hash, "firstLine": first_line(a)})
        })
        .collect();
    let out = if as_json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        )
    } else {
        let mut s = String::new();
        for r in &rows {
            let _ = writeln!(
                s,
                "{:<20} {:>4} versions  {:<8} {:<10} {}",
                r["id"].as_str().unwrap_or(""),
                r["versions"],
                r["type"].as_str().unwrap_or(""),
                r["language"].as_str().unwrap_or("-"),
                r["name"].as_str().map_or_else(
                    || format!("({})", r["firstLine"].as_str().unwrap_or("")),
                    str::to_string
                )
            );
        }
        let _ = writeln!(s, "{} artifacts", rows.len());
        s
    };
    write_stdout(out.as_bytes())
}

fn log(doc: &Document, artifact: &str, as_json: bool) -> Result<(), Error> {
    let (id, art) = smg_format::vault::find_artifact(doc.artifact_vault.as_ref(), artifact)?;
    let contents = smg_format::vault::rebuild_versions(id, art)?;
    let rows: Vec<_> = art
        .versions
        .iter()
        .zip(&contents)
        .map(|(v, c)| {
            let stored = if v.content.is_some() { "full" } else { "delta" };
            let stored_bytes = v.content.as_ref().or(v.delta.as_ref()).map_or(0, String::len);
            json!({"version": v.v, "timestamp": v.timestamp, "stored": stored, "storedBytes": stored_bytes,
                   "bytes": c.len(), "hash": smg_format::vault::content_hash(c)})
        })
        .collect();
    let out = if as_json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({"artifact": id, "versions": rows}))
                .unwrap_or_default()
        )
    } else {
        let mut s = format!("{id} ({})\n", art.filename.as_deref().unwrap_or("unnamed"));
        for r in &rows {
            let _ = writeln!(
                s,
                "  v{:<4} {:<5} {:>8} bytes stored, {:>8} bytes  {}  {}",
                r["version"],
                r["stored"].as_str().unwrap_or(""),
                r["storedBytes"],
                r["bytes"],
                r["timestamp"].as_str().unwrap_or("-"),
                &r["hash"].as_str().unwrap_or("")[..19]
            );
        }
        s
    };
    write_stdout(out.as_bytes())
}

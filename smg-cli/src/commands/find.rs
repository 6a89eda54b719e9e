//! `smg query`: a FIND query over the nodes of a memory and, unless `--no-links`, of
//! every file its links reach, ordered and limited as one.

use std::path::Path;

use smg_engine::search::{linked_documents, one_line, FileRef};
use smg_format::model::Node;
use smg_format::Document;

use super::retrieve::unsealed;
use crate::cli::{LinksArg, SealedArg};
use crate::io::{is_stdio, write_stdout, Context};
use crate::Outcome;

/// `smg query FILE QUERY`.
pub(crate) fn query(
    file: &Path,
    text: &str,
    as_json: bool,
    sealed: &SealedArg,
    links: &LinksArg,
    ctx: &Context,
) -> Result<Outcome, smg_engine::Error> {
    let parsed = smg_engine::query::parse(text)?;
    let doc = unsealed(file, sealed, ctx)?;
    let files = documents(file, doc, links, ctx);
    let docs: Vec<&Document> = files.iter().map(|(_, d)| d).collect();
    let found = smg_engine::query::run_all(&docs, &parsed);
    // A file alone answers as it always has: no file to name.
    let named = |i: usize| (files.len() > 1).then(|| &files[i].0);
    let out = if as_json {
        let nodes: Vec<serde_json::Value> = found
            .iter()
            .map(|(i, n)| {
                let mut v = serde_json::to_value(n).unwrap_or_default();
                if let Some(f) = named(*i) {
                    v["file"] = f.to_json();
                }
                v
            })
            .collect();
        format!("{}\n", serde_json::Value::Array(nodes))
    } else {
        found.iter().map(|(i, n)| line(n, named(*i))).collect()
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

/// The document of `file` and, unless links are off, those of the files its links
/// reach (each encrypted one opened with its link's passphrase); what cannot be
/// followed is said on standard error.
pub(crate) fn documents(
    file: &Path,
    doc: Document,
    links: &LinksArg,
    ctx: &Context,
) -> Vec<(FileRef, Document)> {
    if links.no_links || is_stdio(file) {
        return vec![(FileRef::new(None, file.display().to_string()), doc)];
    }
    let open = |path: &Path, name: &str| -> smg_engine::Result<Document> {
        let pass = crate::secret::link_passphrase(&links.passphrases, name)?;
        let bytes = std::fs::read(path).map_err(|source| smg_format::Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let secret = pass.as_deref().map(Vec::as_slice);
        Ok(smg_format::codec::from_bytes_with(&bytes, &ctx.limits, secret)?.0)
    };
    let (files, warnings) = linked_documents(file, doc, &open);
    for w in warnings {
        eprintln!("smg: warning: {w}");
    }
    files
}

/// A found node on one line: id, type, label, importance, time, and the linked
/// file it came from.
fn line(n: &Node, file: Option<&FileRef>) -> String {
    let from = match file.and_then(|f| f.name.as_deref()) {
        Some(name) => format!("  [{name}]"),
        None => String::new(),
    };
    format!(
        "{}  {}  {}  importance {}  {}{from}\n",
        n.id,
        n.kind,
        one_line(n.label.as_deref().unwrap_or(""), 160),
        n.importance.map_or("-".into(), |i| format!("{i:.3}")),
        n.timestamp.as_deref().unwrap_or("-"),
    )
}

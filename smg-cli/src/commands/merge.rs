//! `smg merge` and `smg migrate`: merges that derive again what the merged archive
//! gives, and old files' derived ids made stable.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};
use smg_engine::ingest::{ingest, migrate as migrate_ids, IngestOptions, Silent};
use smg_engine::merge::LeanMerged;
use smg_format::merge::{Conflict, Lean, MergeOptions, MergeReport, Renumbered, Side};
use smg_format::model::FormatVersion;
use smg_format::{Document, Encoding};

use super::checkpoint::report;
use super::working::Working;
use crate::cli::{MergeArgs, PreferArg};
use crate::io::{
    is_stdio, load, load_bytes, load_plain, load_unencrypted, read_input, save_indexed, seal,
    Context, Loaded,
};
use crate::secret::Secret;
use crate::Outcome;

/// A file as read, and whether it stores a search index (its rewrite stores a new one).
pub(crate) fn load_indexed(
    path: &Path,
    ctx: &Context,
) -> Result<(Loaded, bool), smg_format::Error> {
    let loaded = load(path, ctx)?;
    let indexed = loaded.indexed();
    Ok((loaded, indexed))
}

/// A file read for a merge.
struct Input {
    /// Read lean when it can be read again, else whole.
    lean: Lean,
    encoding: Encoding,
    encryption: Option<(Secret, u64)>,
    /// Whether the file stores a search index (its rewrite stores a new one).
    indexed: bool,
}

/// Three files read for a merge: side by side, but for an encrypted file or stdin,
/// read after the others (a passphrase is asked for once, in turn).
fn read_three(paths: [&Path; 3], ctx: &Context) -> Result<[Input; 3], smg_format::Error> {
    let limits = ctx.limits;
    let read = std::thread::scope(|s| {
        let jobs = paths.map(|p| s.spawn(move || read_plain(p, &limits)));
        jobs.map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    });
    let [a, b, c] = read;
    let [a, b, c] = [a?, b?, c?];
    let [pa, pb, pc] = paths;
    Ok([
        finish(a, pa, ctx)?,
        finish(b, pb, ctx)?,
        finish(c, pc, ctx)?,
    ])
}

/// What [`read_plain`] left to a passphrase or stdin, read. A document that could
/// not be read again without asking is kept whole.
fn finish(read: Plain, path: &Path, ctx: &Context) -> Result<Input, smg_format::Error> {
    let input = |loaded: Loaded, lean: fn(Document) -> Lean| Input {
        indexed: loaded.indexed(),
        encoding: loaded.encoding,
        encryption: loaded.encryption,
        lean: lean(loaded.doc),
    };
    Ok(match read {
        Plain::Read(loaded) => input(*loaded, Lean::new),
        Plain::Lean(lean, encoding) => Input {
            lean: *lean,
            encoding,
            encryption: None,
            indexed: false,
        },
        Plain::Encrypted(bytes) => input(load_bytes(&bytes, ctx)?, Lean::whole),
        Plain::Stdin => input(load_bytes(&read_input(path)?, ctx)?, Lean::whole),
    })
}

/// A file as a thread of its own reads it.
enum Plain {
    Read(Box<Loaded>),
    /// A compressed document read lean as it decompresses.
    Lean(Box<Lean>, Encoding),
    /// An encrypted file's bytes, for a passphrase.
    Encrypted(Vec<u8>),
    Stdin,
}

/// `path` read as [`crate::io::load`] reads it (a large compressed document lean),
/// but for what a passphrase or stdin is needed for.
fn read_plain(path: &Path, limits: &smg_format::Limits) -> Result<Plain, smg_format::Error> {
    if is_stdio(path) {
        return Ok(Plain::Stdin);
    }
    if let Some((lean, encoding, _)) = smg_format::file::read_streamed_lean(path, limits)? {
        return Ok(Plain::Lean(Box::new(lean), encoding));
    }
    if let Some(loaded) = load_plain(path, limits)? {
        return Ok(Plain::Read(Box::new(loaded)));
    }
    let bytes = read_input(path)?;
    if smg_format::crypto::is_encrypted(&bytes) {
        return Ok(Plain::Encrypted(bytes));
    }
    load_unencrypted(&bytes, limits).map(|l| Plain::Read(Box::new(l)))
}

pub(crate) fn merge(a: &MergeArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let paths = [&*a.base, &*a.ours, &*a.theirs];
    let [base, ours, theirs] = read_three(paths, ctx)?;
    let mut options = MergeOptions::default();
    options.limits = ctx.limits;
    // Blocks written again are written as ingest writes them.
    options.archive.quality = smg_engine::ingest::DEFAULT_QUALITY;
    if let Some(p) = a.prefer {
        options = options.prefer(match p {
            PreferArg::Ours => Side::Ours,
            PreferArg::Theirs => Side::Theirs,
        });
    }
    let working = Working::new("merging".into());
    let write = smg_format::WriteOptions::new(ours.encoding.for_writing());
    let indexed = ours.indexed && ours.encryption.is_none();
    let encryption = ours.encryption;
    let docs = [base.lean, ours.lean, theirs.lean];
    let (outcome, bytes) = merged_bytes(docs, paths, ctx, &options, &write, indexed)?;
    drop(working);
    let clean = bytes.is_some();
    let text = if a.json {
        format!("{}\n", merge_json(&outcome, clean))
    } else {
        merge_text(&outcome, clean)
    };
    if let Some(bytes) = bytes {
        seal(&a.output, bytes, encryption.as_ref())?;
    }
    report(&a.output, &text)?;
    Ok(if clean {
        Outcome::Success
    } else {
        Outcome::Invalid
    })
}

/// The merge of `docs` (base, ours, theirs, read from `paths`) encoded by `write`,
/// with a search index stored when `indexed`; no bytes while a conflict is
/// unsettled. When the merge needs what a lean read left out, the files are read
/// again whole.
fn merged_bytes(
    docs: [Lean; 3],
    paths: [&Path; 3],
    ctx: &Context,
    options: &MergeOptions,
    write: &smg_format::WriteOptions,
    indexed: bool,
) -> Result<(Summary, Option<Vec<u8>>), smg_engine::Error> {
    let m = match smg_engine::merge::merge_lean_into_bytes(docs, options, write, indexed)? {
        LeanMerged::Merged(m) => m,
        LeanMerged::ReadWhole(docs) => {
            let [b, o, t] = *docs;
            let [pb, po, pt] = paths;
            let docs = [whole(b, pb, ctx)?, whole(o, po, ctx)?, whole(t, pt, ctx)?];
            if indexed {
                smg_engine::merge::merge_into_indexed_bytes(docs, options, write)?
            } else {
                smg_engine::merge::merge_into_bytes(docs, options, write)?
            }
        }
    };
    let summary = Summary {
        conflicts: m.conflicts,
        report: m.report,
        rederived: m.rederived,
    };
    Ok((summary, m.bytes))
}

/// `lean`'s document whole: as it is, or read again from `path` (only a document that
/// can be read again without asking was read lean).
fn whole(lean: Lean, path: &Path, ctx: &Context) -> Result<Document, smg_format::Error> {
    match lean.into_whole() {
        Some(doc) => Ok(doc),
        None => Ok(load(path, ctx)?.doc),
    }
}

/// What a merge did, to report.
struct Summary {
    conflicts: Vec<Conflict>,
    report: MergeReport,
    rederived: usize,
}

impl Summary {
    fn unresolved(&self) -> usize {
        self.conflicts
            .iter()
            .filter(|c| c.resolved.is_none())
            .count()
    }
}

fn merge_json(merged: &Summary, clean: bool) -> Value {
    let r = &merged.report;
    json!({
        "written": clean,
        "turns": r.turns,
        "versions": r.versions,
        "nodes": {
            "added": r.nodes_added,
            "merged": r.nodes_merged,
            "rederived": merged.rederived,
        },
        "renumbered": runs(&r.renumbered),
        "conflicts": merged.conflicts,
    })
}

/// Renumbered turns as runs: `count` turns of `side` from `from` on, now from `to` on.
fn runs(renumbered: &[Renumbered]) -> Vec<Value> {
    let mut out: Vec<(Renumbered, u64)> = Vec::new();
    for r in renumbered {
        match out.last_mut() {
            Some((first, n))
                if first.side == r.side && first.from + *n == r.from && first.to + *n == r.to =>
            {
                *n += 1
            }
            _ => out.push((*r, 1)),
        }
    }
    out.into_iter()
        .map(|(r, count)| json!({"side": r.side, "from": r.from, "to": r.to, "count": count}))
        .collect()
}

fn merge_text(merged: &Summary, clean: bool) -> String {
    let show = |v: &Option<Value>| v.as_ref().map_or("(absent)".to_string(), Value::to_string);
    let mut s = String::new();
    for c in &merged.conflicts {
        let how = match c.resolved {
            Some(Side::Ours) => "took ours",
            Some(Side::Theirs) => "took theirs",
            None => "CONFLICT",
        };
        let _ = writeln!(
            s,
            "{how} {}: base {} | ours {} | theirs {}",
            c.pointer,
            show(&c.base),
            show(&c.ours),
            show(&c.theirs)
        );
    }
    let r = &merged.report;
    let t = r.turns;
    let _ = writeln!(
        s,
        "turns added: {} from ours, {} from theirs, {} on both (taken once); artifact versions added: {} from ours, {} from theirs, {} on both",
        t.ours, t.theirs, t.both, r.versions.ours, r.versions.theirs, r.versions.both
    );
    if !r.renumbered.is_empty() {
        let _ = writeln!(
            s,
            "{} turns archived under new numbers, their references rewritten",
            r.renumbered.len()
        );
    }
    let _ = write!(
        s,
        "authored nodes: {} added, {} merged field by field",
        r.nodes_added, r.nodes_merged
    );
    if r.rederive {
        let n = merged.rederived;
        let _ = writeln!(s, "; {n} derived nodes built again from the merged archive");
    } else {
        s.push('\n');
    }
    if clean {
        let _ = writeln!(s, "merged: {} conflicts settled", merged.conflicts.len());
    } else {
        let n = merged.unresolved();
        let _ = writeln!(
            s,
            "not merged: {n} conflicts; settle them with --prefer ours|theirs"
        );
    }
    s
}

/// `smg migrate`: stable ids for a file's derived nodes, and its derived content built
/// again, in place or to `output`.
pub(crate) fn migrate(
    file: &Path,
    output: Option<&Path>,
    as_json: bool,
    ctx: &Context,
) -> Result<Outcome, smg_engine::Error> {
    let (mut loaded, indexed) = load_indexed(file, ctx)?;
    let format = smg_format::archive::migrate(&mut loaded.doc, &ctx.limits)?;
    let renamed = migrate_ids(&mut loaded.doc, &ctx.limits)?;
    let mut options = IngestOptions::default();
    options.limits = ctx.limits;
    let built = ingest(&mut loaded.doc, Vec::new(), &options, &Silent)?;
    let target = output.unwrap_or(file);
    save_indexed(target, loaded, indexed, &ctx.limits)?;
    super::dropped::warn(&built.edges_dropped);
    let to = FormatVersion::CURRENT;
    let text = if as_json {
        let dropped = super::dropped::to_json(&built.edges_dropped);
        let format = json!({"from": format.from, "to": to, "blocks": format.blocks,
            "signatureRemoved": format.signature_removed});
        format!(
            "{}\n",
            json!({"format": format, "renamed": renamed, "nodes": built.nodes, "edges": built.edges, "edgesDropped": dropped})
        )
    } else {
        let mut s = match format.from == to.as_str() {
            true => format!("format {to} already; "),
            false => format!(
                "format {} → {to}: the turns of {} blocks now in the clear; ",
                format.from, format.blocks
            ),
        };
        let _ = writeln!(
            s,
            "{renamed} derived ids made stable; {} nodes and {} edges derived again",
            built.nodes, built.edges
        );
        if format.signature_removed {
            s.push_str("signature removed: it covered format 1's archive; sign the file again\n");
        }
        s
    };
    report(target, &text)?;
    Ok(Outcome::Success)
}

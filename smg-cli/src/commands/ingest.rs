//! `smg ingest`: transcripts and exports into a new memory file, or appended to one.

use std::path::Path;

use serde_json::json;
use smg_engine::ingest::{
    ingest_into_bytes, ingest_keeping_turns, ingest_lean_into_bytes, Archived, Imported,
    IngestOptions, IngestReport, LeanIngested,
};
use smg_engine::search::{encode_indexed, Retriever};
use smg_format::{Document, Encoding, Error, WriteOptions};
use smg_import::{Format, Input};

use super::working::Bar;
use super::{encoded, index_needs_packed, write_options};
use crate::cli::{FormatArg, IngestArgs, SealedArg};
use crate::io::Context;
use crate::io::{is_stdio, load, read_input, save_ingested, seal, write_output, write_stdout};
use crate::Outcome;

/// Skipped records listed on stderr before "… and N more".
const SHOWN_SKIPS: usize = 20;

pub(crate) fn run(args: &IngestArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let format = match args.format {
        FormatArg::Auto => Format::Auto,
        FormatArg::Jsonl => Format::Jsonl,
        FormatArg::Chatgpt => Format::Chatgpt,
        FormatArg::Claude => Format::Claude,
        FormatArg::Locomo => Format::Locomo,
        FormatArg::McpMemory => Format::McpMemory,
        FormatArg::Letta => Format::Letta,
        FormatArg::Git => Format::Git,
        FormatArg::Markdown => Format::Markdown,
    };
    // A repository or a folder is read from its directory; anything else as bytes.
    let inputs = args
        .inputs
        .iter()
        .map(|p| match format {
            Format::Git | Format::Markdown => Ok(Input::Path(p.clone())),
            _ => Ok(Input::bytes(p.display().to_string(), read_input(p)?)),
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut options = IngestOptions::default();
    options.recent_turns = args.recent;
    options.scope = Some(args.scope.into());
    options.restricted_conversations = args.restricted_conversations.clone();
    options.limits = ctx.limits;
    if let Some(level) = args.block_level {
        if !(0..=11).contains(&level) {
            return Err(
                Error::InvalidArgument(format!("--block-level {level} is outside 0..=11")).into(),
            );
        }
        options.archive.quality = level;
    }
    if args.append.is_none() {
        index_needs_packed(args.index, &args.encode)?;
    }
    let bar = Bar::new(args.quiet);
    let model = if args.embed {
        super::embed::load(&args.model)?
    } else {
        None
    };
    let imported = smg_import::read_all(inputs, format, args.strict, &bar)?;
    // What --redact replaced, for the report.
    let redacted = std::cell::RefCell::new(None);
    // Embedding needs the document after ingest, before it is written. The turns the
    // ingest held make the search index without decoding the archive again.
    let whole =
        |doc: &mut Document, imported| -> Result<(IngestReport, Archived), smg_engine::Error> {
            let (report, archived) = ingest_keeping_turns(doc, imported, &options, &bar)?;
            if args.redact {
                *redacted.borrow_mut() = Some(redact(doc, ctx)?);
            }
            if let Some(m) = &model {
                smg_engine::embed::embed(doc, m, false, &ctx.limits, &bar)?;
            }
            bar.done();
            Ok((report, archived))
        };
    // A large memory appended to as it is (no index to keep, nothing to embed, no
    // sealed section to open) is read without the derived graph the append derives
    // again.
    let plain =
        !args.index && model.is_none() && args.seal_passphrase_file.is_none() && !args.redact;
    let (imported, lean) = match (&args.append, plain) {
        (Some(path), true) => append_lean(path, imported, &options, &bar, ctx)?,
        _ => (imported, None),
    };
    let (report, path, written) = match (&args.append, &args.output, lean) {
        (Some(path), _, Some(report)) => {
            let written = std::fs::metadata(path).map_or(0, |m| m.len());
            (report, path.as_path(), written)
        }
        (Some(path), _, None) => {
            let mut loaded = load(path, ctx)?;
            // A file that kept a current search index keeps one, made for what it
            // holds now.
            let indexed = args.index || loaded.indexed();
            // The index the file stores, read in place: the new turns are added to it.
            let previous = indexed
                .then(|| Retriever::open_packed(path, &ctx.limits).ok().flatten())
                .flatten();
            let key = SealedArg {
                passphrase_file: args.seal_passphrase_file.clone(),
            };
            let opened = key.open(&mut loaded.doc)?;
            if args.index && loaded.encoding != Encoding::Packed {
                return Err(Error::InvalidArgument(format!(
                    "--index stores the search index in a packed file; {} is {}: rewrite it with `smg convert --layout packed` first",
                    path.display(),
                    loaded.encoding.name()
                ))
                .into());
            }
            let report = if indexed || model.is_some() || opened.is_some() || args.redact {
                let (report, archived) = whole(&mut loaded.doc, imported)?;
                // Sealed again or redacted, the archive no longer holds what the
                // ingest held.
                let archived = match &opened {
                    Some((opened, pass)) => {
                        opened.seal_again(&mut loaded.doc, pass)?;
                        None
                    }
                    None if args.redact => None,
                    None => Some((archived, previous)),
                };
                save_ingested(path, loaded, indexed, archived, &ctx.limits)?;
                report
            } else {
                let write = WriteOptions::new(loaded.encoding.for_writing());
                let (report, bytes) =
                    ingest_into_bytes(loaded.doc, imported, &options, &bar, &write)?;
                bar.done();
                seal(path, bytes, loaded.encryption.as_ref())?;
                report
            };
            (
                report,
                path.as_path(),
                std::fs::metadata(path).map_or(0, |m| m.len()),
            )
        }
        (None, Some(path), _) => {
            let mut doc = Document::new(smg_format::model::Timestamp::from_static(
                "1970-01-01T00:00:00Z",
            ));
            let write = write_options(&args.encode)?;
            let (report, bytes) = if args.redact {
                let (report, archived) = whole(&mut doc, imported)?;
                drop(archived);
                smg_format::validate::ensure_valid(&doc, &ctx.limits)?;
                (report, encoded(doc, &args.encode, args.index, ctx)?)
            } else if args.index {
                let (report, archived) = whole(&mut doc, imported)?;
                archived.check(&doc, &ctx.limits)?;
                let retriever = Retriever::after_ingest(&doc, archived, None, &ctx.limits)?;
                (report, encode_indexed(doc, &write, &retriever)?)
            } else if model.is_some() {
                let (report, archived) = whole(&mut doc, imported)?;
                archived.check(&doc, &ctx.limits)?;
                drop(archived);
                (report, encoded(doc, &args.encode, false, ctx)?)
            } else {
                let got = ingest_into_bytes(doc, imported, &options, &bar, &write)?;
                bar.done();
                got
            };
            write_output(path, &bytes)?;
            (report, path.as_path(), bytes.len() as u64)
        }
        (None, None, _) => unreachable!("clap requires --output or --append"),
    };
    for (file, why) in report.not_stored.iter().take(SHOWN_SKIPS) {
        eprintln!("smg: warning: {file} not stored in the vault: {why}");
    }
    let files = Files {
        versions: report.versions,
        skipped: report.not_stored.len(),
        redacted: redacted.take(),
    };
    print_report(&report, &files, path, written, args.json)?;
    Ok(Outcome::Success)
}

/// Every value `smg share` would replace, replaced in `doc`; what was found, on
/// stderr and in the report (`--json`: `redacted`, kinds and places, never values).
fn redact(
    doc: &mut Document,
    ctx: &Context,
) -> Result<smg_engine::share::Report, smg_engine::Error> {
    let rules = smg_engine::share::Rules::new(&[]);
    let report = smg_engine::share::redact(doc, &rules, &ctx.limits)?;
    if !report.findings.is_empty() {
        let values: usize = report.distinct.values().sum();
        eprintln!(
            "smg: redacted {} finding(s) of {values} value(s) (smg share --dry-run --json lists kinds and places)",
            report.findings.len()
        );
    }
    Ok(report)
}

/// Append what was `imported` to the memory at `path` read lean ([`smg_format::merge::Lean`]), when
/// it is a large compressed or JSON file: the report, once written; else the inputs
/// back, to be appended to it read whole.
fn append_lean(
    path: &Path,
    imported: Vec<Imported>,
    options: &IngestOptions,
    bar: &Bar,
    ctx: &Context,
) -> Result<(Vec<Imported>, Option<IngestReport>), smg_engine::Error> {
    if is_stdio(path) {
        return Ok((imported, None));
    }
    let Some((lean, encoding, _)) = smg_format::file::read_streamed_lean(path, &ctx.limits)? else {
        return Ok((imported, None));
    };
    // A sealed section is opened, and an ingest into it refused, with the whole file.
    if lean.document().sealed_sections.is_some() {
        return Ok((imported, None));
    }
    let write = WriteOptions::new(encoding.for_writing());
    match ingest_lean_into_bytes(lean, imported, options, bar, &write)? {
        LeanIngested::Written(report, bytes) => {
            bar.done();
            seal(path, bytes, None)?;
            Ok((Vec::new(), Some(report)))
        }
        LeanIngested::ReadWhole(imported) => Ok((imported, None)),
    }
}

/// What a repository or folder gave the vault.
struct Files {
    /// File versions added.
    versions: usize,
    /// Files not stored (binary, too large, not UTF-8).
    skipped: usize,
    /// What `--redact` replaced.
    redacted: Option<smg_engine::share::Report>,
}

fn print_report(
    r: &IngestReport,
    files: &Files,
    path: &Path,
    written: u64,
    as_json: bool,
) -> Result<(), Error> {
    for s in r.skipped.iter().take(SHOWN_SKIPS) {
        eprintln!(
            "smg: warning: skipped {}, {}: {}",
            s.file, s.position, s.reason
        );
    }
    if r.skipped.len() > SHOWN_SKIPS {
        eprintln!(
            "smg: warning: … and {} more skipped records",
            r.skipped.len() - SHOWN_SKIPS
        );
    }
    super::dropped::warn(&r.edges_dropped);
    let to_stdout = path.as_os_str() == "-";
    if as_json {
        let value = json!({
            "file": path.display().to_string(),
            "bytesIn": r.bytes_in, "bytesOut": written,
            "conversations": r.conversations, "messages": r.messages,
            "turnsAdded": r.turns_added, "turnsKnown": r.turns_known, "duplicates": r.duplicates,
            "skipped": r.skipped.iter().map(|s| json!({"file": s.file, "position": s.position, "reason": s.reason})).collect::<Vec<_>>(),
            "turns": r.turns_total, "nodes": r.nodes, "edges": r.edges, "artifacts": r.artifacts,
            "blocksWritten": r.blocks_written,
            "entities": r.entities, "relations": r.relations, "implicitEntities": r.implicit,
            "edgesDropped": super::dropped::to_json(&r.edges_dropped),
            "versionsAdded": files.versions, "filesSkipped": files.skipped,
            "redacted": files.redacted.as_ref().map(smg_engine::share::Report::to_json),
        });
        let text = format!("{value}\n");
        return if to_stdout {
            eprint!("{text}");
            Ok(())
        } else {
            write_stdout(text.as_bytes())
        };
    }
    let mcp = if r.entities + r.relations > 0 {
        format!(
            "{} entities and {} relations from MCP memory ({} made for relations that name no entity line); ",
            r.entities,
            r.relations,
            r.implicit.len()
        )
    } else {
        String::new()
    };
    let vault = if files.versions + files.skipped > 0 {
        format!(
            "{} file versions into the vault ({} files not stored); ",
            files.versions, files.skipped
        )
    } else {
        String::new()
    };
    let line = format!(
        "{mcp}{vault}{} turns added ({} already there, {} duplicates, {} skipped) from {} conversations, {} in; {} turns, {} nodes, {} edges, {} artifacts; {} → {}\n",
        r.turns_added,
        r.turns_known,
        r.duplicates,
        r.skipped.len(),
        r.conversations,
        size(r.bytes_in),
        r.turns_total,
        r.nodes,
        r.edges,
        r.artifacts,
        path.display(),
        size(written),
    );
    // The memory file itself may be on stdout: the summary then goes to stderr.
    if to_stdout {
        eprint!("{line}");
        Ok(())
    } else {
        write_stdout(line.as_bytes())
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1 << 10 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

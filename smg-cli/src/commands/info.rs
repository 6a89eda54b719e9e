use std::fmt::Write as _;

use smg_format::Error;

use crate::cli::{CatArgs, FileJson};
use crate::io::Context;
use crate::io::{load, write_stdout, Stdout};
use crate::Outcome;

pub(crate) fn run(args: &FileJson, ctx: &Context) -> Result<Outcome, Error> {
    let loaded = load(&args.file, ctx)?;
    let extensions = &loaded.extensions;
    let (doc, encoding) = (&loaded.doc, loaded.encoding);
    let encrypted = loaded.encryption.is_some();
    let stats = smg_format::stats::stats(doc);
    let out = if args.json {
        let value = serde_json::json!({
            "file": args.file.display().to_string(),
            "encoding": encoding.name(),
            "encrypted": encrypted,
            "fileBytes": loaded.file_bytes,
            "stats": stats,
            "extensions": extensions.iter().map(|(name, bytes, current)| serde_json::json!({"name": name, "bytes": bytes, "current": current})).collect::<Vec<_>>(),
        });
        format!(
            "{}\n",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        )
    } else {
        let mut s = String::new();
        let _ = writeln!(s, "file        {}", args.file.display());
        let sealed = if encrypted {
            ", encrypted (AES-256-GCM)"
        } else {
            ""
        };
        let _ = writeln!(s, "encoding    {encoding}{sealed}");
        let _ = writeln!(s, "version     {}", stats.version);
        let _ = writeln!(
            s,
            "bytes       {} on disk, {} as canonical JSON",
            loaded.file_bytes, stats.json_bytes
        );
        let _ = writeln!(s, "nodes       {}", stats.nodes);
        let _ = writeln!(s, "edges       {}", stats.edges);
        let _ = writeln!(
            s,
            "artifacts   {} ({} versions)",
            stats.artifacts, stats.artifact_versions
        );
        let _ = writeln!(
            s,
            "archive     {} blocks, {} turns",
            stats.blocks, stats.archived_turns
        );
        let _ = writeln!(s, "recent      {} turns", stats.recent_turns);
        let _ = writeln!(s, "people      {} collaborators", stats.collaborators);
        for (name, bytes, current) in extensions {
            let state = if *current {
                "current"
            } else {
                "stale: made from another head, ignored"
            };
            let _ = writeln!(s, "extension   {name} ({bytes} bytes, {state})");
        }
        for (id, size) in &stats.sealed {
            let _ = writeln!(s, "sealed      {id} ({size} bytes)");
        }
        let _ = writeln!(s, "sections (canonical JSON bytes):");
        for (name, n) in &stats.section_bytes {
            let _ = writeln!(s, "  {name:<16}{n:>12}");
        }
        s
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

pub(crate) fn cat(args: &CatArgs, ctx: &Context) -> Result<Outcome, Error> {
    let doc = load(&args.file, ctx)?.doc;
    if !args.pretty {
        // Written as it is serialised: a large memory's text is never held whole.
        let mut out = Stdout::new();
        smg_format::codec::write_canonical_json(doc, &mut |piece| out.write(piece))?;
        out.write(b"\n")?;
        out.finish()?;
        return Ok(Outcome::Success);
    }
    let value = serde_json::to_value(&doc).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let mut out =
        serde_json::to_vec_pretty(&value).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    out.push(b'\n');
    write_stdout(&out)?;
    Ok(Outcome::Success)
}

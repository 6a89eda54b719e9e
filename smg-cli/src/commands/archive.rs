use std::fmt::Write as _;

use serde_json::json;
use smg_format::{packed::PackedArchive, Encoding, Error};

use crate::cli::{ArchiveCommand, FileJson};
use crate::io::Context;
use crate::io::{is_stdio, load, write_stdout};
use crate::Outcome;

pub(crate) fn run(cmd: ArchiveCommand, ctx: &Context) -> Result<Outcome, Error> {
    match cmd {
        ArchiveCommand::List(FileJson { file, json }) => {
            let doc = load(&file, ctx)?.doc;
            let blocks = doc
                .deep_archive
                .as_ref()
                .map(|a| a.blocks())
                .unwrap_or_default();
            let rows: Vec<_> = blocks
                .iter()
                .map(|b| {
                    json!({"id": b.id, "turnRange": b.turn_range, "timeRange": b.time_range,
                           "compressedBytes": b.compressed_data.len(), "summary": b.summary, "keyPoints": b.key_points})
                })
                .collect();
            let out = if json {
                format!(
                    "{}\n",
                    serde_json::to_string_pretty(&rows).unwrap_or_default()
                )
            } else {
                let mut s = String::new();
                for (b, r) in blocks.iter().zip(&rows) {
                    let time = b
                        .time_range
                        .as_ref()
                        .map_or("-".to_string(), |t| format!("{} … {}", t.start, t.end));
                    let _ = writeln!(
                        s,
                        "block {:<5} turns {:<12} {:>8} bytes  {}  {}",
                        b.id,
                        b.turn_range,
                        r["compressedBytes"],
                        time,
                        b.summary.as_deref().unwrap_or("")
                    );
                }
                let _ = writeln!(s, "{} blocks", blocks.len());
                s
            };
            write_stdout(out.as_bytes())?;
        }
        ArchiveCommand::Show { file, turn, json } => {
            let packed = !is_stdio(&file) && is_packed(&file);
            let t = if packed {
                PackedArchive::open(&file, &ctx.limits)?.turn(turn)?
            } else {
                let doc = load(&file, ctx)?.doc;
                smg_format::archive::find_turn(&doc, turn, &ctx.limits)?
            };
            if json {
                let v =
                    serde_json::to_value(&t).map_err(|e| Error::InvalidArgument(e.to_string()))?;
                write_stdout(
                    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
                        .as_bytes(),
                )?;
            } else {
                write_stdout(t.content.as_bytes())?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// Whether the file starts with the packed envelope (read without loading it all).
fn is_packed(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; smg_format::envelope::HEADER_LEN];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|_| smg_format::envelope::detect(&head).is_ok_and(|e| e == Encoding::Packed))
}

//! `smg export`: a memory in another system's format, saying what it left out.

use serde_json::json;

use crate::cli::{ExportArgs, ExportFormat};
use crate::io::{is_stdio, load, write_output, write_stdout, Context};
use crate::Outcome;

pub(crate) fn run(a: &ExportArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let doc = load(&a.file, ctx)?.doc;
    let out = match a.to {
        ExportFormat::McpMemory => smg_engine::export::mcp_memory(&doc),
        ExportFormat::Markdown => smg_engine::export::markdown(&doc),
    };
    write_output(&a.output, out.text.as_bytes())?;
    let report = if a.json {
        let left: Vec<_> = out
            .left_out
            .iter()
            .map(|(what, why)| json!({"what": what, "why": why}))
            .collect();
        format!(
            "{}\n",
            json!({"entities": out.entities, "relations": out.relations, "leftOut": left})
        )
    } else {
        format!(
            "{} entries and {} relations written; {} left out{}\n",
            out.entities,
            out.relations,
            out.left_out.len(),
            if out.left_out.is_empty() {
                ""
            } else {
                " (--json lists them)"
            }
        )
    };
    if is_stdio(&a.output) {
        eprint!("{report}");
    } else {
        write_stdout(report.as_bytes())?;
    }
    Ok(Outcome::Success)
}

//! `smg export`: a memory in another system's format, saying what it left out.

use clap::ValueEnum;
use serde_json::json;

use crate::cli::{ExportArgs, ExportFormat, ViewArgs};
use crate::io::{is_stdio, load, write_output, write_output_with, write_stdout, Context};
use crate::Outcome;

use super::working::Working;

pub(crate) fn run(a: &ExportArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let mut loaded = load(&a.file, ctx)?;
    a.sealed.open(&mut loaded.doc)?;
    let (doc, limits) = (&loaded.doc, &loaded.limits);
    let out = {
        let _working = Working::new("exporting".into());
        match a.to {
            ExportFormat::McpMemory => smg_engine::export::mcp_memory(doc),
            ExportFormat::Markdown => smg_engine::export::markdown(doc),
            ExportFormat::Chatgpt => smg_engine::export::chatgpt(doc, limits)?,
            ExportFormat::Claude => smg_engine::export::claude(doc, limits)?,
            ExportFormat::Letta => smg_engine::export::letta(doc, limits)?,
            ExportFormat::JsonldNquads => smg_engine::export::nquads(doc)?,
        }
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
            json!({
                "format": a.to.to_possible_value().map(|v| v.get_name().to_string()),
                "entities": out.entities, "relations": out.relations,
                "conversations": out.conversations, "messages": out.messages,
                "leftOut": left,
            })
        )
    } else {
        format!(
            "{}; {} left out{}\n",
            written(a.to, &out),
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

/// What an export wrote, in words.
fn written(to: ExportFormat, out: &smg_engine::export::Export) -> String {
    match to {
        ExportFormat::Chatgpt | ExportFormat::Claude => format!(
            "{} conversations and {} messages written",
            out.conversations, out.messages
        ),
        ExportFormat::Letta => format!(
            "{} agents, {} messages and {} core memory blocks written",
            out.conversations, out.messages, out.entities
        ),
        ExportFormat::JsonldNquads => format!("{} quads written", out.entities),
        _ => format!(
            "{} entries and {} relations written",
            out.entities, out.relations
        ),
    }
}

/// `smg view`: the memory as one offline HTML page.
pub(crate) fn view(a: &ViewArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let mut loaded = load(&a.file, ctx)?;
    a.sealed.open(&mut loaded.doc)?;
    let output = match &a.output {
        Some(o) => o.clone(),
        None if is_stdio(&a.file) => "-".into(),
        None => a.file.with_extension("html"),
    };
    let mut options = smg_view::ViewOptions::default()
        .shown(a.shown)
        .limits(loaded.limits);
    if let Some(at) = super::time_arg("--at", a.at.as_deref())? {
        options = options.at(at);
    }
    if let Some(name) = a.file.file_name().filter(|_| !is_stdio(&a.file)) {
        options = options.title(&name.to_string_lossy());
    }
    let files = super::find::documents(&a.file, loaded.doc, &a.links, ctx);
    let working = Working::new("building the page".into());
    let prepared = smg_view::prepare_network(&files, &options)?;
    // Written as it is made: a million turns make a page of 400 MB.
    let mut stats = None;
    write_output_with(&output, |sink| {
        stats = Some(prepared.write_to(sink)?);
        Ok(())
    })?;
    drop(working);
    let s = stats.unwrap_or_default();
    let report = if a.json {
        let mut v = serde_json::to_value(s).unwrap_or_default();
        v["output"] = json!(output.display().to_string());
        format!("{v}\n")
    } else {
        format!(
            "{}: {} nodes ({} shown first, the most important), {} edges, {} turns in {} \
             conversations, {} artifacts, {} sealed sections{}; {} bytes\n",
            output.display(),
            s.nodes,
            s.shown,
            s.edges,
            s.turns,
            s.conversations,
            s.artifacts,
            s.sealed,
            match s.linked_files {
                0 => String::new(),
                n => format!(", from this file and {n} linked"),
            },
            s.bytes
        )
    };
    if is_stdio(&output) {
        eprint!("{report}");
    } else {
        write_stdout(report.as_bytes())?;
    }
    Ok(Outcome::Success)
}

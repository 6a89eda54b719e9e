//! `smg scope set` and `smg scope list`: the scope of conversations (spec §10.3).

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::json;
use smg_engine::ingest::{set_scope, IngestOptions};
use smg_format::archive::no_source;

use super::merge::load_indexed;
use crate::cli::{ScopeCommand, ScopeSetArgs};
use crate::io::{load, save_indexed, write_stdout, Context};
use crate::Outcome;

pub(crate) fn run(cmd: &ScopeCommand, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    match cmd {
        ScopeCommand::Set(a) => set(a, ctx),
        ScopeCommand::List { file, json } => list(file, *json, ctx),
    }
}

fn set(a: &ScopeSetArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let (mut loaded, indexed) = load_indexed(&a.file, ctx)?;
    let opened = a.sealed.open(&mut loaded.doc)?;
    let mut options = IngestOptions::default();
    options.limits = ctx.limits;
    let scope = a.scope.into();
    let done = set_scope(&mut loaded.doc, &a.conversation, scope, &options)?;
    if let Some((opened, pass)) = &opened {
        opened.seal_again(&mut loaded.doc, pass)?;
    }
    save_indexed(&a.file, loaded, indexed, &ctx.limits)?;
    let out = if a.json {
        json!({
            "file": a.file.display().to_string(), "conversation": a.conversation,
            "scope": scope.name(), "turns": done.turns, "blocks": done.blocks,
            "artifactsRemoved": done.artifacts_removed, "nodes": done.nodes,
        })
        .to_string()
    } else {
        format!(
            "conversation {}: {} turns now {}; {} blocks, {} nodes{}",
            a.conversation,
            done.turns,
            scope.name(),
            done.blocks,
            done.nodes,
            match done.artifacts_removed.len() {
                0 => String::new(),
                n => format!("; {n} artifacts of its code taken out of the vault"),
            }
        )
    };
    write_stdout(format!("{out}\n").as_bytes())?;
    Ok(Outcome::Success)
}

fn list(
    file: &std::path::Path,
    as_json: bool,
    ctx: &Context,
) -> Result<Outcome, smg_engine::Error> {
    let doc = load(file, ctx)?.doc;
    // Each conversation, in the order it first appears: its turns and scope.
    let mut rows: Vec<(String, usize, &'static str)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let turns = smg_format::archive::read_archive_with(&doc, &ctx.limits, &no_source)?;
    for a in turns {
        let id = a.turn.conversation_id.map(String::from).unwrap_or_default();
        let scope = a.turn.scope.map_or("personal", |s| s.name());
        let i = *at.entry(id.clone()).or_insert_with(|| {
            rows.push((id, 0, scope));
            rows.len() - 1
        });
        rows[i].1 += 1;
    }
    let sealed: Vec<(String, Vec<smg_format::model::TurnRange>)> = doc
        .sealed_sections
        .iter()
        .flatten()
        .map(|s| (s.id.to_string(), s.turn_ranges.clone().unwrap_or_default()))
        .collect();
    let out = if as_json {
        let conversations: Vec<_> = rows
            .iter()
            .map(|(id, n, s)| json!({"conversation": id, "turns": n, "scope": s}))
            .collect();
        let sealed: Vec<_> = sealed
            .iter()
            .map(|(id, r)| json!({"id": id, "turnRanges": r}))
            .collect();
        format!(
            "{}\n",
            json!({"conversations": conversations, "sealed": sealed})
        )
    } else {
        let mut out = String::new();
        for (id, n, s) in &rows {
            let _ = writeln!(out, "{s:<10}  {n:>7} turns  {id}");
        }
        for (id, r) in &sealed {
            let _ = writeln!(
                out,
                "sealed      {id} (turns {})",
                r.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ")
            );
        }
        out
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

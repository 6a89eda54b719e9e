//! The archive's turns: decoded block by block (in parallel), scanned, and the blocks
//! that hold a finding written again; blocks without one keep their bytes.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde_json::value::RawValue;
use serde_json::Value;
use smg_format::archive::{decode_block, decode_block_with, encode_turns_for, every_source};
use smg_format::model::{ArtifactVault, Block, Document, Turn};
use smg_format::validate::Fed;
use smg_format::Limits;

use super::rules::{Kind, Rules};
use super::table::{self, Table};
use super::walk;
use crate::error::Result;
use crate::ingest::DEFAULT_QUALITY;

/// What one block holds: each value found (kind, value, place) in order, the
/// highest placeholder numbers it already has, the turns with a finding.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub(crate) hits: Vec<(Kind, String, String)>,
    pub(crate) seen: BTreeMap<Kind, u64>,
    pub(crate) turns: Vec<u64>,
}

/// How many blocks are decoded side by side: memory holds the turns of these only.
const TOGETHER: usize = 32;

/// Every block of `doc`'s archive scanned, in block order; the turns of each block
/// without a finding (kept as it is) given to `fed`.
pub(crate) fn scan(
    doc: &Document,
    rules: &Rules,
    limits: &Limits,
    mut fed: Option<&mut Fed>,
) -> Result<Vec<Scanned>> {
    let Some(archive) = doc.deep_archive.as_ref() else {
        return Ok(Vec::new());
    };
    let method = archive.compression_method.unwrap_or_default();
    let vault = doc.artifact_vault.as_ref();
    let blocks = archive.blocks();
    // A source record is parsed only when its strings may hold a value or a
    // placeholder: most records are read as text and never made into a tree.
    let sources = |turn: &Turn, record: &RawValue| {
        let mut text = String::new();
        walk::strings_of_json(record.get(), &mut text);
        let mut placeholders = BTreeMap::new();
        table::note_placeholders(&text, &mut placeholders);
        match placeholders.is_empty() && !rules.may_hold(&text) {
            true => Ok(None),
            false => every_source(turn, record),
        }
    };
    let mut out = Vec::with_capacity(blocks.len());
    for (c, chunk) in blocks.chunks(TOGETHER).enumerate() {
        let scanned: Vec<(Scanned, Vec<Turn>)> = chunk
            .par_iter()
            .map(|block| {
                let mut turns = decode_block_with(block, method, vault, limits, &sources)?;
                let s = scan_block(&turns, rules)?;
                without_text(&mut turns);
                Ok((s, turns))
            })
            .collect::<Result<_>>()?;
        for (j, (s, turns)) in scanned.into_iter().enumerate() {
            if let Some(fed) = fed.as_deref_mut().filter(|_| s.turns.is_empty()) {
                fed.block(c * TOGETHER + j, &turns);
            }
            out.push(s);
        }
    }
    Ok(out)
}

/// What one block's `turns` hold.
fn scan_block(turns: &[Turn], rules: &Rules) -> Result<Scanned> {
    let mut s = Scanned::default();
    let texts: Vec<String> = turns.iter().map(texts_of).collect();
    let all = texts.concat();
    table::note_placeholders(&all, &mut s.seen);
    if rules.may_hold(&all) {
        for (turn, text) in turns.iter().zip(&texts) {
            let n = turn.turn.get();
            if !rules.may_hold(text) {
                continue;
            }
            let mut v = turn_value(turn)?;
            let before = s.hits.len();
            walk::strings(&mut v, &mut Vec::new(), &mut |text, place| {
                for h in rules.hits(text) {
                    let value = text[h.start..h.end].to_string();
                    s.hits
                        .push((h.kind, value, format!("turn {n} {}", place())));
                }
                None
            });
            if s.hits.len() > before {
                s.turns.push(n);
            }
        }
    }
    Ok(s)
}

/// Each block with a finding encoded again from its turns with every value
/// replaced (`vault` is the one the blocks were written against, for turns stored
/// as parts), its new turns given to `fed`.
pub(crate) fn rewrite(
    doc: &mut Document,
    scanned: &[Scanned],
    vault: Option<&ArtifactVault>,
    rules: &Rules,
    table: &Table,
    limits: &Limits,
    mut fed: Option<&mut Fed>,
) -> Result<()> {
    let version = doc.version.clone();
    let Some(archive) = doc.deep_archive.as_mut() else {
        return Ok(());
    };
    let method = archive.compression_method.unwrap_or_default();
    let Some(blocks) = archive.blocks.as_mut() else {
        return Ok(());
    };
    let changed: Vec<usize> = (0..scanned.len())
        .filter(|&i| !scanned[i].turns.is_empty())
        .collect();
    // The chunks' blocks in ascending order: one pass over the list finds them all.
    let mut rest = blocks.iter_mut().enumerate();
    for chunk in changed.chunks(TOGETHER) {
        let mut mine: Vec<(usize, &mut Block)> = Vec::with_capacity(chunk.len());
        for &i in chunk {
            mine.extend(rest.by_ref().find(|(j, _)| *j == i));
        }
        let written: Vec<(usize, Vec<Turn>)> = mine
            .into_par_iter()
            .map(|(i, block)| {
                let mut turns = decode_block(block, method, vault, limits)?
                    .into_iter()
                    .map(|t| redact_turn(t, &scanned[i].turns, rules, table))
                    .collect::<Result<Vec<Turn>>>()?;
                block.compressed_data = encode_turns_for(&version, &turns, DEFAULT_QUALITY)?;
                without_text(&mut turns);
                Ok((i, turns))
            })
            .collect::<Result<_>>()?;
        for (i, turns) in written {
            if let Some(fed) = fed.as_deref_mut() {
                fed.block(i, &turns);
            }
        }
    }
    Ok(())
}

/// Turn `t` with every value replaced when it is one of the turns with a finding.
fn redact_turn(t: Turn, with: &[u64], rules: &Rules, table: &Table) -> Result<Turn> {
    if !with.contains(&t.turn.get()) {
        return Ok(t);
    }
    let mut v = turn_value(&t)?;
    walk::strings(&mut v, &mut Vec::new(), &mut |text, _| {
        let hits = rules.hits(text);
        (!hits.is_empty()).then(|| table.replace(text, &hits))
    });
    serde_json::from_value::<Turn>(v).map_err(invalid)
}

/// `turns` without their text and source records, which a writers' gate does not
/// read: freed by the thread that decoded them, not by the one that gives them to it.
fn without_text(turns: &mut [Turn]) {
    for t in turns {
        t.content = String::new();
        t.extra = Default::default();
    }
}

/// Each block's summary, key points and unknown fields, redacted in place.
pub(crate) fn blocks_metadata(doc: &mut Document, rules: &Rules, table: &mut Table) {
    let blocks = doc.deep_archive.as_mut().and_then(|a| a.blocks.as_mut());
    for block in blocks.into_iter().flatten() {
        let place = |field: &str| format!("block {} /{field}", block.id);
        let mut one = |text: &mut String, at: String| {
            if let Some(new) = table::redact(rules, table, text, "deepArchive", &|| at.clone()) {
                *text = new;
            }
        };
        if let Some(s) = block.summary.as_mut() {
            one(s, place("summary"));
        }
        for (i, point) in block.key_points.iter_mut().flatten().enumerate() {
            one(point, place(&format!("keyPoints/{i}")));
        }
        let mut extra = Value::Object(std::mem::take(&mut block.extra));
        let id = block.id;
        walk::strings(&mut extra, &mut Vec::new(), &mut |s, at| {
            let at = format!("block {id} {}", at());
            table::redact(rules, table, s, "deepArchive", &|| at.clone())
        });
        if let Value::Object(map) = extra {
            block.extra = map;
        }
    }
}

/// A turn's strings joined as [`walk::joined`] joins them, without making it JSON.
fn texts_of(turn: &Turn) -> String {
    let mut out = String::with_capacity(turn.content.len() + 64);
    let short = [
        &turn.conversation_id,
        &turn.message_id,
        &turn.session_id,
        &turn.speaker,
    ];
    for s in [turn.content.as_str(), turn.role.as_str()]
        .into_iter()
        .chain(short.into_iter().flatten().map(|s| s.as_str()))
        .chain(turn.timestamp.as_ref().map(|t| t.as_str()))
    {
        out.push_str(s);
        out.push('\n');
    }
    for (k, v) in &turn.extra {
        out.push_str(k);
        out.push('\n');
        walk::joined(v, &mut out);
    }
    out
}

fn turn_value(turn: &Turn) -> Result<Value> {
    serde_json::to_value(turn).map_err(invalid)
}

fn invalid(e: serde_json::Error) -> crate::Error {
    smg_format::Error::InvalidArgument(format!("share: a turn: {e}")).into()
}

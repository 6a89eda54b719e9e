//! The archive's turns: decoded block by block (in parallel), scanned, and the blocks
//! that hold a finding written again; blocks without one keep their bytes.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde_json::Value;
use smg_format::archive::{decode_block, encode_turns};
use smg_format::model::{ArtifactVault, Document, Turn};
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

/// Every block of `doc`'s archive scanned, in block order.
pub(crate) fn scan(doc: &Document, rules: &Rules, limits: &Limits) -> Result<Vec<Scanned>> {
    let Some(archive) = doc.deep_archive.as_ref() else {
        return Ok(Vec::new());
    };
    let method = archive.compression_method.unwrap_or_default();
    let vault = doc.artifact_vault.as_ref();
    archive
        .blocks()
        .par_iter()
        .map(|block| {
            let mut s = Scanned::default();
            let turns = decode_block(block, method, vault, limits)?;
            let texts: Vec<String> = turns.iter().map(texts_of).collect();
            let all = texts.concat();
            table::note_placeholders(&all, &mut s.seen);
            if !rules.may_hold(&all) {
                return Ok(s);
            }
            for (turn, text) in turns.into_iter().zip(&texts) {
                let n = turn.turn.get();
                if !rules.may_hold(text) {
                    continue;
                }
                let mut v = turn_value(&turn)?;
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
            Ok(s)
        })
        .collect()
}

/// Each block with a finding encoded again from its turns with every value
/// replaced (`vault` is the one the blocks were written against, for turns stored
/// as parts).
pub(crate) fn rewrite(
    doc: &mut Document,
    scanned: &[Scanned],
    vault: Option<&ArtifactVault>,
    rules: &Rules,
    table: &Table,
    limits: &Limits,
) -> Result<()> {
    let Some(archive) = doc.deep_archive.as_mut() else {
        return Ok(());
    };
    let method = archive.compression_method.unwrap_or_default();
    let Some(blocks) = archive.blocks.as_mut() else {
        return Ok(());
    };
    blocks
        .par_iter_mut()
        .zip(scanned)
        .filter(|(_, s)| !s.turns.is_empty())
        .try_for_each(|(block, s)| -> Result<()> {
            let turns = decode_block(block, method, vault, limits)?
                .into_iter()
                .map(|t| {
                    if !s.turns.contains(&t.turn.get()) {
                        return Ok(t);
                    }
                    let mut v = turn_value(&t)?;
                    walk::strings(&mut v, &mut Vec::new(), &mut |text, _| {
                        let hits = rules.hits(text);
                        (!hits.is_empty()).then(|| table.replace(text, &hits))
                    });
                    serde_json::from_value::<Turn>(v).map_err(invalid)
                })
                .collect::<Result<Vec<Turn>>>()?;
            block.compressed_data = encode_turns(&turns, DEFAULT_QUALITY)?;
            Ok(())
        })
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

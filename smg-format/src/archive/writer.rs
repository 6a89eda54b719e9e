//! Appending turns to the deep archive: blocks by turn count and size, code moved to
//! the vault (stored once, revisions as diffs), and an index per block.

use std::borrow::Cow;

use serde_json::{json, Value};

use rayon::prelude::*;

use super::key_points::key_points;
use super::{code, naming};
use crate::archive::{decode_block, encode_json_for, raw_bytes, stored_turns};
use crate::error::{Error, Result};
use crate::model::{
    Block, CompressionMethod, DeepArchive, Document, Extra, FormatVersion, TimeRange, Timestamp,
    Turn, TurnRange,
};
use crate::vault::{NewContent, VaultWriter};

/// How turns are cut into blocks and compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArchiveOptions {
    /// Most turns in one block.
    pub max_turns: usize,
    /// Most bytes of (stored) JSON in one block, so one turn never costs more than
    /// decompressing this much.
    pub max_block_bytes: usize,
    /// Brotli quality of the blocks (0–11).
    pub quality: i32,
    /// Move fenced code blocks of at least [`ArchiveOptions::min_code_lines`] lines into
    /// the vault, so that code pasted again and again is stored once, and its revisions
    /// as diffs.
    pub extract_code: bool,
    /// Shortest code block moved to the vault, in lines.
    pub min_code_lines: usize,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        ArchiveOptions {
            max_turns: 250,
            max_block_bytes: 256 << 10,
            quality: 11,
            extract_code: true,
            min_code_lines: 4,
        }
    }
}

/// What [`append_turns`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppendReport {
    /// Turns archived.
    pub turns: usize,
    /// Blocks written.
    pub blocks: usize,
    /// Code blocks moved into the vault.
    pub code_blocks: usize,
    /// Of those, how many were already in the vault byte for byte.
    pub code_deduplicated: usize,
    /// For each turn given, in order: the `(artifact id, version)` its code went to.
    pub artifacts: Vec<Vec<(String, u64)>>,
}

/// Archive `turns` (in order, numbered after every turn already archived).
///
/// The last block is filled up first when it has room (it is decoded and written
/// again), so that archiving turns in two calls gives the same blocks as one call.
/// Blocks are compressed in parallel. Every turn comes back from
/// [`crate::archive::decode_block`] byte for byte.
pub fn append_turns(
    doc: &mut Document,
    turns: &[Turn],
    options: &ArchiveOptions,
) -> Result<AppendReport> {
    append_turns_with(doc, turns, options, &|_| Extra::new())
}

/// [`append_turns`], each turn stored with more members: `more(i)` gives those of
/// `turns[i]`, added to its `extra` as it is stored.
///
/// For a caller that keeps large members (an ingest's source records) compact until
/// they are archived: each turn's members are made a slice of turns at a time, and
/// freed once the turn is stored.
///
/// ```
/// use smg_format::archive::{append_turns_with, read_archive, ArchiveOptions};
/// use smg_format::model::{Extra, Turn};
/// let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let turns = vec![Turn::new(smg_format::model::Ordinal::FIRST, smg_format::model::role::USER, "hi")];
/// let more = |i: usize| Extra::from_iter([("source".to_string(), serde_json::json!({"line": i + 1}))]);
/// append_turns_with(&mut doc, &turns, &ArchiveOptions::default(), &more).unwrap();
/// let back = read_archive(&doc, &Default::default()).unwrap();
/// assert_eq!(back[0].turn.extra["source"], serde_json::json!({"line": 1}));
/// ```
pub fn append_turns_with(
    doc: &mut Document,
    turns: &[Turn],
    options: &ArchiveOptions,
    more: &(dyn Fn(usize) -> Extra + Sync),
) -> Result<AppendReport> {
    doc.deep_archive.get_or_insert_with(DeepArchive::default);
    let mut expected_after = super::last_turn(doc);
    for t in turns {
        if t.turn <= expected_after {
            return Err(Error::InvalidArgument(format!(
                "turn {} is not after turn {expected_after}: turns are archived in increasing order, once",
                t.turn
            )));
        }
        expected_after = t.turn.get();
    }
    if turns.is_empty() {
        return Ok(AppendReport::default());
    }
    let version = doc.version.clone();
    let mut pending = reopen_last_block(doc, options)?;
    let archive = doc.deep_archive.get_or_insert_with(DeepArchive::default);
    let mut next_id = archive.blocks().iter().map(|b| b.id + 1).max().unwrap_or(1);
    let vault = doc.artifact_vault.get_or_insert_with(Default::default);
    let mut writer = VaultWriter::new(vault);
    let mut report = AppendReport::default();
    // Blocks are compressed a batch at a time, in parallel, so that only a few
    // blocks' stored turns are held at once.
    let batch = rayon::current_num_threads().max(1) * 2;
    let mut groups: Vec<(u64, Vec<StoredTurn<'_>>)> = Vec::new();
    let mut blocks = Vec::new();
    let mut pending_bytes: usize = pending.iter().map(|t| t.1.len()).sum();
    // Turns without code are written side by side, a slice at a time; the vault
    // takes code in order.
    let prepared = turns
        .chunks(PREPARED_TURNS)
        .enumerate()
        .flat_map(|(c, slice)| {
            let ready: Vec<Result<Prepared<'_>>> = slice
                .par_iter()
                .enumerate()
                .map(|(i, t)| prepare(t, more(c * PREPARED_TURNS + i), options))
                .collect();
            slice.iter().zip(ready)
        });
    for (t, ready) in prepared {
        let (bytes, artifacts) = match ready? {
            Prepared::Stored(bytes) => (bytes, Vec::new()),
            Prepared::Code(whole) => {
                let fences = code_fences(&whole, options);
                let (stored, artifacts) = store_code(&whole, fences, &mut writer, &mut report)?;
                (
                    crate::canonical::to_canonical_json_value(&stored),
                    artifacts,
                )
            }
        };
        report.artifacts.push(artifacts);
        // A block holds one scope, so that sealing a scope seals its blocks whole.
        if pending.last().is_some_and(|p| p.0.scope != t.scope)
            || !pending.is_empty()
                && (pending.len() >= options.max_turns
                    || pending_bytes + bytes.len() > options.max_block_bytes)
        {
            groups.push((next_id, std::mem::take(&mut pending)));
            next_id += 1;
            pending_bytes = 0;
            if groups.len() >= batch {
                blocks.extend(encode_groups(&mut groups, &version, options.quality)?);
            }
        }
        pending_bytes += bytes.len();
        pending.push((Cow::Borrowed(t), bytes));
    }
    if !pending.is_empty() {
        groups.push((next_id, pending));
    }
    blocks.extend(encode_groups(&mut groups, &version, options.quality)?);
    report.turns = turns.len();
    report.blocks = blocks.len();
    let archive = doc.deep_archive.get_or_insert_with(DeepArchive::default);
    archive.blocks.get_or_insert_with(Vec::new).extend(blocks);
    if doc
        .artifact_vault
        .as_ref()
        .is_some_and(|v| v.artifacts.is_none() && v.extra.is_empty())
    {
        doc.artifact_vault = None;
    }
    Ok(report)
}

/// A turn as said, with the canonical JSON it is stored as.
type StoredTurn<'t> = (Cow<'t, Turn>, Vec<u8>);

/// Compress the blocks of `groups` in parallel (and empty it).
fn encode_groups(
    groups: &mut Vec<(u64, Vec<StoredTurn<'_>>)>,
    version: &FormatVersion,
    quality: i32,
) -> Result<Vec<Block>> {
    let blocks = groups
        .par_iter()
        .map(|(id, turns)| make_block(*id, turns, version, quality))
        .collect::<Result<Vec<Block>>>()?;
    groups.clear();
    Ok(blocks)
}

/// Take the last block out of the archive when it has room for more turns, and give
/// back its turns (as said, and as stored) to be written again with the new ones.
fn reopen_last_block(
    doc: &mut Document,
    options: &ArchiveOptions,
) -> Result<Vec<StoredTurn<'static>>> {
    let Some(archive) = doc.deep_archive.as_mut() else {
        return Ok(Vec::new());
    };
    let method = archive.compression_method.unwrap_or_default();
    let Some(last) = archive.blocks.as_ref().and_then(|b| b.last()) else {
        return Ok(Vec::new());
    };
    // A block is made again as its document's blocks are made: Brotli, or in the clear.
    let clear = last.compressed_data.turns_json().is_some();
    if !clear && method != CompressionMethod::Brotli {
        return Ok(Vec::new());
    }
    let (raw, held) = raw_bytes(last, method)?;
    let limits = crate::limits::Limits::default();
    let stored = stored_turns(last.id, raw, held, &limits)?;
    let stored: Vec<Vec<u8>> = stored
        .iter()
        .map(crate::canonical::to_canonical_json_value)
        .collect();
    let size: usize = stored.iter().map(Vec::len).sum();
    if stored.len() >= options.max_turns || size >= options.max_block_bytes {
        return Ok(Vec::new());
    }
    let said = decode_block(last, method, doc.artifact_vault.as_ref(), &limits)?;
    if said.len() != stored.len() {
        return Ok(Vec::new());
    }
    if let Some(blocks) = doc.deep_archive.as_mut().and_then(|a| a.blocks.as_mut()) {
        blocks.pop();
    }
    Ok(said.into_iter().map(Cow::Owned).zip(stored).collect())
}

/// Turns prepared side by side before the vault takes their code in order.
const PREPARED_TURNS: usize = 1024;

/// A turn ready to be stored: its canonical JSON, or (with its members) the turn
/// whose code blocks go to the vault first.
enum Prepared<'t> {
    Stored(Vec<u8>),
    Code(Cow<'t, Turn>),
}

fn prepare<'t>(t: &'t Turn, more: Extra, options: &ArchiveOptions) -> Result<Prepared<'t>> {
    let whole = if more.is_empty() {
        Cow::Borrowed(t)
    } else {
        let mut owned = t.clone();
        owned.extra.extend(more);
        Cow::Owned(owned)
    };
    if code_fences(t, options).is_empty() {
        Ok(Prepared::Stored(crate::canonical::to_vec(whole.as_ref())?))
    } else {
        Ok(Prepared::Code(whole))
    }
}

/// The code blocks of `t` long enough to go to the vault.
///
/// A turn with a scope keeps its code: the vault is shared by every scope, and a
/// sealed block must take all that was said with it.
fn code_fences<'t>(t: &'t Turn, options: &ArchiveOptions) -> Vec<code::Fence<'t>> {
    if !options.extract_code || t.scope.is_some() {
        return Vec::new();
    }
    let text = t.content.as_str();
    code::fences(text)
        .into_iter()
        .filter(|f| text[f.body.clone()].lines().count() >= options.min_code_lines)
        .collect()
}

/// The JSON stored for a turn whose code blocks (`fences`) move to the vault: the
/// turn with `content` replaced by `parts`.
fn store_code(
    t: &Turn,
    fences: Vec<code::Fence<'_>>,
    vault: &mut VaultWriter<'_>,
    report: &mut AppendReport,
) -> Result<(Value, Vec<(String, u64)>)> {
    let mut value = serde_json::to_value(t).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let text = t.content.as_str();
    let mut parts = Vec::new();
    let mut artifacts = Vec::new();
    let mut at = 0;
    for f in fences {
        let body = &text[f.body.clone()];
        let (name, language, given) = naming::name_and_language(&text[at..f.body.start], &f, body);
        let similar = if given {
            naming::given_revision(vault, name.as_deref(), body)
        } else {
            naming::inferred_revision(vault, name.as_deref(), body)
        };
        // An inferred name goes only to new code, and only if no artifact has it.
        let name = name.filter(|n| given || (similar.is_none() && vault.resolve(n).is_none()));
        let (name, language) = (name.as_deref(), language.as_deref());
        let meta = NewContent {
            name,
            language,
            timestamp: t.timestamp.as_ref(),
            artifact: similar.as_deref(),
            ..NewContent::default()
        };
        let stored = vault.add(body, &meta)?;
        report.code_blocks += 1;
        report.code_deduplicated += usize::from(!stored.added);
        if f.body.start > at {
            parts.push(json!({"text": &text[at..f.body.start]}));
        }
        parts.push(json!({"artifact": stored.artifact, "version": stored.version}));
        artifacts.push((stored.artifact, stored.version.get()));
        at = f.body.end;
    }
    if at < text.len() {
        parts.push(json!({"text": &text[at..]}));
    }
    let obj = value
        .as_object_mut()
        .expect("a turn serialises to an object");
    obj.remove("content");
    obj.insert("parts".into(), Value::Array(parts));
    Ok((value, artifacts))
}

fn make_block(
    id: u64,
    turns: &[StoredTurn<'_>],
    version: &FormatVersion,
    quality: i32,
) -> Result<Block> {
    let first = turns.first().map_or(0, |t| t.0.turn.get());
    let last = turns.last().map_or(0, |t| t.0.turn.get());
    let times: Vec<&Timestamp> = turns
        .iter()
        .filter_map(|t| t.0.timestamp.as_ref())
        .collect();
    // A canonical array of canonical values is the values joined by commas.
    let mut json = Vec::with_capacity(turns.iter().map(|t| t.1.len() + 1).sum::<usize>() + 2);
    json.push(b'[');
    for (i, t) in turns.iter().enumerate() {
        if i > 0 {
            json.push(b',');
        }
        json.extend_from_slice(&t.1);
    }
    json.push(b']');
    Ok(Block {
        time_range: match (times.first(), times.last()) {
            (Some(a), Some(b)) => Some(TimeRange {
                start: (*a).clone(),
                end: (*b).clone(),
                extra: Extra::new(),
            }),
            _ => None,
        },
        summary: summary(turns.iter().map(|t| t.0.as_ref())),
        key_points: Some(key_points(turns.iter().map(|t| t.0.as_ref()))),
        scope: turns.first().and_then(|t| t.0.scope),
        ..Block::new(
            id,
            TurnRange::span(first, last),
            encode_json_for(version, json, quality)?,
        )
    })
}

/// The first sentence (up to 160 characters) of the first turn with five words or more.
fn summary<'a>(turns: impl Iterator<Item = &'a Turn>) -> Option<String> {
    let text = turns
        .map(|t| t.content.trim())
        .find(|c| c.split_whitespace().count() >= 5)?;
    let end = text
        .find(['.', '?', '!', '\n'])
        .map_or(text.len(), |i| i + 1);
    let sentence: String = text[..end].chars().take(160).collect();
    Some(sentence.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::tests::turn;
    use crate::limits::Limits;
    use crate::model::CompressionMethod;

    fn all_turns(doc: &Document) -> Vec<Turn> {
        let a = doc.deep_archive.as_ref().unwrap();
        a.blocks()
            .iter()
            .flat_map(|b| {
                crate::archive::decode_block(
                    b,
                    CompressionMethod::Brotli,
                    doc.artifact_vault.as_ref(),
                    &Limits::default(),
                )
                .unwrap()
            })
            .collect()
    }

    #[test]
    fn code_moves_to_the_vault_and_comes_back_byte_for_byte() {
        let code1 = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
        let code2 = "fn main() {\n    let x = 2;\n    println!(\"{x}\");\n}\n";
        let turns = vec![
            turn(1, &format!("Here:\n```rust src/main.rs\n{code1}```\nok?")),
            turn(2, &format!("Again, same file:\n```rust\n{code1}```")),
            turn(3, &format!("Changed x\r\n```rust\n{code2}```\n")),
            turn(4, "thanks"),
        ];
        let mut doc = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        let r = append_turns(&mut doc, &turns, &ArchiveOptions::default()).unwrap();
        assert_eq!(
            (r.turns, r.blocks, r.code_blocks, r.code_deduplicated),
            (4, 1, 3, 1)
        );
        let arts = doc
            .artifact_vault
            .as_ref()
            .unwrap()
            .artifacts
            .as_ref()
            .unwrap();
        assert_eq!(
            arts.len(),
            1,
            "the revision is a version of the same artifact"
        );
        assert_eq!(arts.values().next().unwrap().versions.len(), 2);
        assert_eq!(all_turns(&doc), turns);
        let report = crate::validate::validate(
            &crate::codec::to_canonical_json(&doc).unwrap(),
            &crate::validate::ValidateOptions::default(),
        );
        assert!(report.is_valid(), "{:?}", report.findings);
    }

    #[test]
    fn members_added_as_turns_are_stored_give_the_bytes_of_turns_that_held_them() {
        let opts = ArchiveOptions {
            max_turns: 3,
            ..ArchiveOptions::default()
        };
        let code = "```rust src/a.rs\nfn a() {\n    1;\n}\n// end\n```";
        let turns: Vec<Turn> = (1..=7)
            .map(|n| {
                turn(
                    n,
                    &format!("turn {n}\n{}", if n % 2 == 0 { code } else { "" }),
                )
            })
            .collect();
        let more = |i: usize| {
            let mut extra = Extra::new();
            if i % 3 != 1 {
                extra.insert(
                    "source".into(),
                    json!({"line": i, "record": {"b": 1, "a": [i]}}),
                );
            }
            extra
        };
        let holding: Vec<Turn> = (0..turns.len())
            .map(|i| {
                let mut t = turns[i].clone();
                t.extra.extend(more(i));
                t
            })
            .collect();
        let mut expected =
            Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        append_turns(&mut expected, &holding, &opts).unwrap();
        let mut got = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        let report = append_turns_with(&mut got, &turns, &opts, &more).unwrap();
        assert_eq!(report.code_blocks, 3);
        assert_eq!(got, expected);
        assert_eq!(all_turns(&got), holding);
    }

    #[test]
    fn archiving_in_two_calls_gives_the_bytes_of_one_call() {
        let opts = ArchiveOptions {
            max_turns: 4,
            ..ArchiveOptions::default()
        };
        let code = |v: usize| format!("```rust src/a.rs\nfn a() {{\n    {v};\n}}\n// end\n```");
        let turns: Vec<Turn> = (1..=11)
            .map(|n| turn(n, &format!("turn {n} {}", code(n as usize % 3))))
            .collect();
        let mut whole = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        append_turns(&mut whole, &turns, &opts).unwrap();
        let expected =
            crate::codec::to_canonical_json_value(&serde_json::to_value(&whole).unwrap());
        for cut in [1, 2, 4, 6, 10] {
            let mut doc =
                Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
            append_turns(&mut doc, &turns[..cut], &opts).unwrap();
            append_turns(&mut doc, &turns[cut..], &opts).unwrap();
            let got = crate::codec::to_canonical_json_value(&serde_json::to_value(&doc).unwrap());
            assert!(got == expected, "cut at {cut}");
        }
    }

    #[test]
    fn blocks_split_by_count_and_size_and_appends_continue() {
        let mut doc = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        let opts = ArchiveOptions {
            max_turns: 3,
            max_block_bytes: 200,
            ..ArchiveOptions::default()
        };
        let turns: Vec<Turn> = (1..=7)
            .map(|n| turn(n, &"word ".repeat(n as usize * 5)))
            .collect();
        append_turns(&mut doc, &turns[..5], &opts).unwrap();
        append_turns(&mut doc, &turns[5..], &opts).unwrap();
        let ranges: Vec<_> = doc
            .deep_archive
            .as_ref()
            .unwrap()
            .blocks()
            .iter()
            .map(|b| b.turn_range.clone())
            .collect();
        assert!(ranges.len() >= 3, "{ranges:?}");
        assert_eq!(all_turns(&doc), turns);
        let err = append_turns(&mut doc, &turns[..1], &opts).unwrap_err();
        assert_eq!(err.code(), "SMG-E020");
    }
}
#[cfg(test)]
mod similarity_tests {
    use super::*;

    #[test]
    fn an_unlabelled_revision_joins_the_named_file() {
        let code: Vec<String> = (0..40)
            .map(|i| format!("    let value_{i} = x + {i};"))
            .collect();
        let v1 = code.join("\n") + "\n";
        let mut c2 = code.clone();
        c2[7] = "    let changed = 1;".into();
        let v2 = c2.join("\n") + "\n";
        let turns = vec![
            Turn::new(
                crate::model::Ordinal::new(1).unwrap(),
                crate::model::role::USER,
                format!("```rust src/a.rs\n{v1}```"),
            ),
            Turn::new(
                crate::model::Ordinal::new(2).unwrap(),
                crate::model::role::USER,
                format!("```rust\n{v2}```"),
            ),
        ];
        let mut doc = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        append_turns(&mut doc, &turns, &ArchiveOptions::default()).unwrap();
        let arts = doc.artifact_vault.unwrap().artifacts.unwrap();
        assert_eq!(arts.len(), 1, "{arts:#?}");
    }
}

//! Embedding a memory: each archived turn and each graph node gets a vector from a
//! sentence-embedding model, kept in the deep archive's vector index (SMG §9.2) where
//! hybrid search and the context find them.
//!
//! The model is anything that implements [`Embedder`] (the smg-embed crate runs one
//! in process). Vectors are stored quantised to 8-bit integers (`quantization:
//! "int8"`): each vector scaled so that its largest component is ±127 and rounded.
//! Cosine similarity ignores the scale, and the rounding moves it by about 0.002 on
//! 384 dimensions, a quarter of the file size of the floats.

use std::collections::HashSet;

use smg_format::model::{Embedding, Ordinal, Turn, Vector};
use smg_format::{Document, Limits};

use crate::error::{Error, Result};
use crate::ingest::Progress;
use crate::search::{display, QueryVector};

/// A sentence-embedding model.
pub trait Embedder {
    /// The name recorded in the file: it must tell apart any two sets of weights.
    fn model(&self) -> &str;
    /// The length of every vector.
    fn dimensions(&self) -> usize;
    /// One vector per text, in order; an error says what failed.
    fn embed(&self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, String>;
}

/// What [`embed`] did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Embedded {
    /// The model's name, as the file records it.
    pub model: String,
    /// Its dimensions.
    pub dimensions: usize,
    /// Turns embedded by this call.
    pub turns: usize,
    /// Nodes embedded by this call.
    pub nodes: usize,
    /// Embeddings already in the file, of the same model, kept.
    pub kept: usize,
}

/// The value stored for `quantization` in the vector index.
pub const QUANTIZATION: &str = "int8";

/// Texts handed to the model at once: progress moves in steps of this many.
const STEP: usize = 256;

/// Embed every turn and node of `doc` that has no embedding yet, with `embedder`.
///
/// A file whose embeddings come from another model is refused (`SMG-E231`) unless
/// `replace` is set, which drops them all first: vectors of two models cannot be
/// compared. A model that fails is `SMG-E232`; `doc` is then unchanged.
pub fn embed(
    doc: &mut Document,
    embedder: &dyn Embedder,
    replace: bool,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<Embedded> {
    let model = embedder.model().to_string();
    let dimensions = embedder.dimensions();
    // The index is changed on a copy, put back only when every text is embedded.
    let mut index = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.vector_index.clone())
        .unwrap_or_default();
    let mut rows = index.embeddings.take().unwrap_or_default();
    let same = index.model.as_deref() == Some(model.as_str());
    if !rows.is_empty() && !same && !replace {
        return Err(Error::Embedding {
            code: "SMG-E231",
            detail: format!(
                "the file's embeddings come from `{}`, not `{model}`: embed with that model, \
                 or replace them all (--replace)",
                index.model.as_deref().unwrap_or("an unnamed model")
            ),
        });
    }
    if replace || !same {
        rows.clear();
    }
    let mut report = Embedded {
        model: model.clone(),
        dimensions,
        kept: rows.len(),
        ..Embedded::default()
    };
    let texts = missing(doc, &rows, limits)?;
    progress.start("embed", texts.len() as u64);
    for chunk in texts.chunks(STEP) {
        let batch: Vec<&str> = chunk.iter().map(|(_, t)| t.as_str()).collect();
        let out = embedder.embed(&batch).map_err(|detail| Error::Embedding {
            code: "SMG-E232",
            detail,
        })?;
        if out.len() != batch.len() || out.iter().any(|v| v.len() != dimensions) {
            return Err(Error::Embedding {
                code: "SMG-E232",
                detail: format!(
                    "the model gave vectors of another count or size than {dimensions}"
                ),
            });
        }
        // Quantised as they come: the floats of a whole archive are never all held.
        for ((key, _), v) in chunk.iter().zip(out) {
            let (turn, node_id) = match key {
                Key::Turn(t) => (Some(*t), None),
                Key::Node(id) => (None, Some(id.clone())),
            };
            report.turns += usize::from(turn.is_some());
            report.nodes += usize::from(node_id.is_some());
            rows.push(Embedding {
                turn,
                node_id,
                vector: quantise(&v),
                ..Embedding::default()
            });
        }
        progress.advance(chunk.len() as u64);
    }
    index.enabled = true;
    index.model = Some(model);
    index.dimensions = Ordinal::new(dimensions as u64).ok();
    index.quantization = Some(QUANTIZATION.into());
    index.embeddings = Some(rows);
    doc.deep_archive
        .get_or_insert_with(Default::default)
        .vector_index = Some(index);
    Ok(report)
}

/// `text` (a query) embedded by `embedder`, ready for [`crate::search::Retriever::rank`],
/// the context and [`crate::search::SearchOptions::vector`]. A model that fails is
/// `SMG-E232`.
pub fn query(embedder: &dyn Embedder, text: &str) -> Result<QueryVector> {
    let failed = |detail| Error::Embedding {
        code: "SMG-E232",
        detail,
    };
    let values = embedder
        .embed(&[text])
        .map_err(failed)?
        .pop()
        .ok_or_else(|| failed("the model gave no vector".into()))?;
    Ok(QueryVector {
        model: embedder.model().to_string(),
        values: values.into_iter().map(f64::from).collect(),
    })
}

/// What an embedding belongs to.
enum Key {
    Turn(Ordinal),
    Node(String),
}

/// The turns (archive order) and nodes (graph order) without a row, with the text
/// the model reads: a turn as a context shows it (speaker and words), a node's text.
fn missing(doc: &Document, rows: &[Embedding], limits: &Limits) -> Result<Vec<(Key, String)>> {
    let turns: HashSet<Ordinal> = rows.iter().filter_map(|r| r.turn).collect();
    let nodes: HashSet<&str> = rows.iter().filter_map(|r| r.node_id.as_deref()).collect();
    let (archived, _) = crate::search::load_turns(doc, limits)?;
    let mut out: Vec<(Key, String)> = archived
        .iter()
        .enumerate()
        .filter(|(_, t)| !turns.contains(&t.turn))
        .map(|(i, t)| {
            let before = i.checked_sub(1).map(|b| &archived[b]);
            (Key::Turn(t.turn), turn_text(t, before))
        })
        .collect();
    for n in doc
        .semantic_graph
        .iter()
        .flat_map(|g| g.nodes.iter().flatten())
    {
        let text = crate::search::node_text(n);
        if !nodes.contains(n.id.as_str()) && !text.trim().is_empty() {
            out.push((Key::Node(n.id.to_string()), text));
        }
    }
    Ok(out)
}

/// What a turn's vector is made from: the turn as a context shows it, then the turn
/// before it in the same session. A chat line alone often leaves its subject to the
/// line before ("They were stoked for the dinosaur exhibit!" answers "How did the
/// kids like the museum?"); with it, LoCoMo's R@10 with all-MiniLM-L6-v2 went from
/// 0.812 to 0.818–0.824. The turn comes first so that a model's cut to its sequence
/// length takes from the line before, never from the turn.
fn turn_text(turn: &Turn, before: Option<&Turn>) -> String {
    match before {
        Some(b) if b.conversation_id == turn.conversation_id && b.session_id == turn.session_id => {
            format!("{}\n{}", display(turn), display(b))
        }
        _ => display(turn),
    }
}

/// `v` scaled so that its largest component is ±127, rounded (`int8`).
fn quantise(v: &[f32]) -> Vector {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return Vector::zeroing(vec![0.0; v.len()]);
    }
    // A component the model left undefined (NaN) counts as 0.
    Vector::zeroing(
        v.iter()
            .map(|x| f64::from((x / max * 127.0).round()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::Silent;

    /// Counts letters: texts that share letters point the same way.
    struct Letters(&'static str);

    impl Embedder for Letters {
        fn model(&self) -> &str {
            self.0
        }
        fn dimensions(&self) -> usize {
            26
        }
        fn embed(&self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, String> {
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0f32; 26];
                    for c in t
                        .to_ascii_lowercase()
                        .bytes()
                        .filter(u8::is_ascii_lowercase)
                    {
                        v[(c - b'a') as usize] += 1.0;
                    }
                    v
                })
                .collect())
        }
    }

    fn memory() -> Document {
        crate::search::tests::document(&[
            ("Ann", "We decided to use postgres for the shop."),
            ("Bo", "Postgres it is; the schema comes next."),
        ])
    }

    fn run(doc: &mut Document, model: &'static str, replace: bool) -> Result<Embedded> {
        embed(doc, &Letters(model), replace, &Limits::default(), &Silent)
    }

    #[test]
    fn every_turn_and_node_is_embedded_once() {
        let mut doc = memory();
        let first = run(&mut doc, "letters", false).unwrap();
        assert_eq!(first.turns, 2);
        assert!(first.nodes > 0);
        let index = doc
            .deep_archive
            .as_ref()
            .unwrap()
            .vector_index
            .clone()
            .unwrap();
        assert_eq!(index.model.as_deref(), Some("letters"));
        assert_eq!(index.dimensions.map(Ordinal::get), Some(26));
        assert_eq!(index.quantization.as_deref(), Some("int8"));
        let rows = index.embeddings.unwrap();
        assert!(rows.iter().all(|r| r
            .vector
            .iter()
            .all(|x| x.fract() == 0.0 && x.abs() <= 127.0)));
        assert!(rows
            .iter()
            .all(|r| r.vector.iter().any(|x| x.abs() == 127.0)));
        let again = run(&mut doc, "letters", false).unwrap();
        assert_eq!((again.turns, again.nodes, again.kept), (0, 0, rows.len()));
        smg_format::validate::ensure_valid(&doc, &Limits::default()).unwrap();
    }

    #[test]
    fn another_models_embeddings_are_replaced_only_when_asked() {
        let mut doc = memory();
        run(&mut doc, "a", false).unwrap();
        let before = doc.clone();
        let err = run(&mut doc, "b", false).unwrap_err();
        assert_eq!(err.code(), "SMG-E231");
        assert_eq!(doc, before);
        let done = run(&mut doc, "b", true).unwrap();
        assert_eq!(done.kept, 0);
        assert_eq!(
            doc.deep_archive
                .unwrap()
                .vector_index
                .unwrap()
                .model
                .as_deref(),
            Some("b")
        );
    }

    /// Keeps the texts it is handed, and answers like [`Letters`].
    struct Recorder(std::cell::RefCell<Vec<String>>);

    impl Embedder for Recorder {
        fn model(&self) -> &str {
            "recorder"
        }
        fn dimensions(&self) -> usize {
            26
        }
        fn embed(&self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, String> {
            self.0
                .borrow_mut()
                .extend(texts.iter().map(|t| t.to_string()));
            Letters("recorder").embed(texts)
        }
    }

    #[test]
    fn a_turn_is_embedded_with_the_turn_before_it_in_its_session() {
        let mut doc = crate::search::tests::document(&[
            ("Ann", "How did the kids like the museum?"),
            ("Bo", "They loved the dinosaurs."),
            ("Ann", "Nice."),
            ("Bo", "See you."),
            ("Ann", "New day, new talk."),
        ]);
        let recorder = Recorder(Default::default());
        embed(&mut doc, &recorder, false, &Limits::default(), &Silent).unwrap();
        let texts = recorder.0.into_inner();
        let has = |t: &str| texts.iter().any(|x| x == t);
        assert!(has("Ann: How did the kids like the museum?"));
        assert!(has(
            "Bo: They loved the dinosaurs.\nAnn: How did the kids like the museum?"
        ));
        // The first turn of session s2 stands alone.
        assert!(has("Ann: New day, new talk."));
    }

    #[test]
    fn quantising_keeps_the_direction() {
        let v = [0.3f32, -0.6, 0.05, 0.0];
        let q = quantise(&v);
        assert_eq!(*q, [64.0, -127.0, 11.0, 0.0]);
        let cos = |a: &[f64], b: &[f32]| {
            let dot: f64 = a.iter().zip(b).map(|(x, y)| x * f64::from(*y)).sum();
            let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
            let nb = b.iter().map(|y| f64::from(*y).powi(2)).sum::<f64>().sqrt();
            dot / na / nb
        };
        assert!(cos(&q, &v) > 0.9999);
        assert_eq!(*quantise(&[0.0, 0.0]), [0.0, 0.0]);
        assert_eq!(*quantise(&[f32::NAN, 0.5]), [0.0, 127.0]);
    }
}

//! Retrieval measured on LoCoMo: each conversation is ingested (the importer reads
//! only the dialogue), then every question of categories 1–4 with evidence is asked
//! through [`Retriever::rank`] and [`Retriever::pack`] (what [`Retriever::context`]
//! does), and the turns they return are mapped back to LoCoMo's `dia_id`s through each
//! turn's `messageId`.
//!
//! The metric is the one of `locomo-dev/README.md`: `R@k` is the share of a question's
//! evidence turns in the top k turns; `Rtok{B}` the share inside a context of B tokens
//! (characters / 4 of what the context shows). The questions, answers and evidence
//! are read here, after retrieval, and never reach the retriever.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use smg_format::model::{ShortText, Timestamp};
use smg_format::{Document, Limits};

use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::ingest::{ingest, Imported, IngestOptions, Silent};
use crate::search::{Found, Item, Retriever, SearchOptions, Tokens};

mod folds;
pub use folds::{locomo_folds, Fold, Folds, Measures};

/// The `k` of `R@k`.
pub const RANKS: [usize; 3] = [5, 10, 20];
/// The budgets of `Rtok`.
pub const BUDGETS: [usize; 3] = [500, 1000, 2000];

/// Results over every question of every file.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LocomoReport {
    /// Files read.
    pub files: Vec<PathBuf>,
    /// Questions asked (categories 1–4 with evidence in the dialogue).
    pub questions: usize,
    /// Mean `R@k` for each of [`RANKS`].
    pub recall: [f64; 3],
    /// Mean `Rtok{B}` for each of [`BUDGETS`].
    pub rtok: [f64; 3],
    /// Mean `R@k` of the turns [`Retriever::search`] finds (what `smg search` and the
    /// packages' `search` return), for each of [`RANKS`].
    pub search_recall: [f64; 3],
    /// Mean `R@k` of the memory nodes [`Retriever::search`] finds, for each of
    /// [`RANKS`]: the evidence turns among the provenance of the top k nodes.
    pub node_recall: [f64; 3],
    /// Mean `Rtok{B}` of what `smg context` prints ([`crate::search::prompt`]: working
    /// memory, date lines and turns within B tokens), for each of [`BUDGETS`].
    pub context_rtok: [f64; 3],
    /// Tokens `smg context` used of a 1,000-token budget, per question.
    pub context_tokens: Vec<usize>,
    /// Time of each question's retrieval (embedding the question, rank and
    /// context), in order.
    pub latencies: Vec<Duration>,
    /// The embedding model the memories and questions were embedded with, if any.
    pub model: Option<String>,
    /// The memory and decision nodes ingest drew, held against the turns LoCoMo's
    /// annotators drew an observation from (`session_N_observation`); `None` when no
    /// file has observations.
    pub labelled: Option<Labelled>,
    /// Each question asked, in order: where its evidence ranked, so that what no
    /// mix of the rankings could reach can be told from what the mix misses.
    pub asked: Vec<Asked>,
}

/// One question of [`LocomoReport::asked`]. A place is 1-based; `None` is a turn the
/// ranking left out.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Asked {
    /// The file the question belongs to.
    pub file: PathBuf,
    /// The question.
    pub question: String,
    /// Its evidence turns (LoCoMo's `dia_id`s) in the dialogue, in LoCoMo's order.
    pub evidence: Vec<String>,
    /// Each evidence turn's place in the ranking retrieval uses ([`Retriever::rank`]).
    pub ranked: Vec<Option<usize>>,
    /// …in the ranking by words alone (no query vector).
    pub words: Vec<Option<usize>>,
    /// …in the ranking by the query's embedding alone (no words); `None` without a
    /// model.
    pub meaning: Option<Vec<Option<usize>>>,
    /// The turns `smg context` shows at each of [`BUDGETS`].
    pub shown: [usize; 3],
}

/// Nodes drawn by ingest against a labelled sample: the turns people drew a fact
/// from (LoCoMo's observations, each citing the `dia_id` it came from).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Labelled {
    /// Memory and decision nodes drawn.
    pub nodes: usize,
    /// Of them, those drawn from a labelled turn.
    pub nodes_labelled: usize,
    /// Labelled turns (in the dialogue).
    pub turns: usize,
    /// Of them, those some memory or decision node is drawn from.
    pub turns_drawn: usize,
}

impl Labelled {
    /// The share of nodes drawn from a labelled turn.
    pub fn precision(&self) -> f64 {
        self.nodes_labelled as f64 / self.nodes.max(1) as f64
    }

    /// The share of labelled turns some node is drawn from.
    pub fn recall(&self) -> f64 {
        self.turns_drawn as f64 / self.turns.max(1) as f64
    }

    /// These counts and `doc`'s, whose turns `observed` are labelled.
    fn add(&mut self, doc: &Document, observed: &HashSet<String>) {
        let mut drawn: HashSet<&str> = HashSet::new();
        for node in doc
            .graphs()
            .into_iter()
            .flat_map(|(_, g)| g.nodes())
            .filter(|n| n.kind == "memory" || n.kind == "decision")
        {
            let ids: Vec<&str> = node
                .provenance
                .iter()
                .flatten()
                .flat_map(|p| p.message_ids.iter().flatten())
                .map(ShortText::as_str)
                .collect();
            self.nodes += 1;
            self.nodes_labelled += usize::from(ids.iter().any(|i| observed.contains(*i)));
            drawn.extend(ids);
        }
        self.turns += observed.len();
        self.turns_drawn += observed
            .iter()
            .filter(|t| drawn.contains(t.as_str()))
            .count();
    }
}

impl LocomoReport {
    /// The median of [`LocomoReport::context_tokens`].
    pub fn median_context_tokens(&self) -> usize {
        let mut all = self.context_tokens.clone();
        all.sort_unstable();
        all.get(all.len() / 2).copied().unwrap_or(0)
    }

    /// The `p`-th percentile of the retrieval latencies (0–100).
    pub fn percentile(&self, p: f64) -> Duration {
        let mut all = self.latencies.clone();
        all.sort();
        if all.is_empty() {
            return Duration::ZERO;
        }
        let i = ((p / 100.0) * (all.len() - 1) as f64).round() as usize;
        all[i.min(all.len() - 1)]
    }
}

/// How [`locomo`] runs.
#[derive(Default)]
#[non_exhaustive]
pub struct LocomoOptions<'a> {
    /// Curate each memory at this time ([`crate::curate::curate`]) before asking it.
    pub curate_at: Option<&'a Timestamp>,
    /// Embed each memory ([`crate::embed::embed`]) and each question with this model:
    /// retrieval then mixes meaning with words.
    pub embedder: Option<&'a dyn Embedder>,
    /// How contexts count their tokens.
    pub tokens: Tokens,
}

/// Reads one conversation file (its name and bytes): the LoCoMo importer of the
/// `smg-import` crate.
pub type ReadConversation = dyn Fn(&str, Vec<u8>) -> Result<Imported>;

/// Run the benchmark on every `*.json` file of `dir`, each read by `read`, as
/// `options` say.
pub fn locomo(
    dir: &Path,
    read: &ReadConversation,
    run: &LocomoOptions<'_>,
) -> Result<LocomoReport> {
    let files = files_of(dir)?;
    let mut report = LocomoReport {
        model: run.embedder.map(|e| e.model().to_string()),
        ..LocomoReport::default()
    };
    let mut sums = ([0.0; 3], [0.0; 3], [0.0; 3], [0.0; 3]);
    let mut searched = [0.0; 3];
    for f in &files {
        let asking = Asking::new(f, read, run)?;
        let (retriever, ids, embedder) = (&asking.retriever, &asking.ids, run.embedder);
        if !asking.observed.is_empty() {
            report
                .labelled
                .get_or_insert_with(Labelled::default)
                .add(&asking.doc, &asking.observed);
        }
        for (question, listed) in &asking.questions {
            let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
            let evidence: HashSet<&str> = listed.iter().copied().collect();
            // Timed: what `smg context` does for one question (rank, then pack).
            let start = Instant::now();
            let vector = embedder
                .map(|e| crate::embed::query(e, question))
                .transpose()?;
            let vector = vector.as_ref();
            let ranked = retriever.rank(question, vector, &crate::search::Period::ALL)?;
            let first = retriever.pack(&ranked, BUDGETS[0])?;
            report.latencies.push(start.elapsed());
            let packs: Vec<_> = std::iter::once(Ok(first))
                .chain(BUDGETS[1..].iter().map(|&b| retriever.pack(&ranked, b)))
                .collect::<Result<_>>()?;
            let share = |found: &HashSet<&str>| share(&evidence, found);
            for (s, &k) in RANKS.iter().enumerate() {
                let top: HashSet<&str> = ranked
                    .iter()
                    .take(k)
                    .map(|(i, _)| ids[*i].as_str())
                    .collect();
                sums.0[s] += share(&top);
            }
            for (s, pack) in packs.iter().enumerate() {
                sums.1[s] += share(&shown(&pack.items));
            }
            let mut shown_turns = [0; 3];
            for (s, &b) in BUDGETS.iter().enumerate() {
                let context = crate::search::prompt(
                    retriever,
                    question,
                    vector,
                    b,
                    &crate::search::Period::ALL,
                )?;
                if b == 1000 {
                    report.context_tokens.push(context.tokens);
                }
                sums.3[s] += share(&shown(&context.items));
                shown_turns[s] = context.items.len();
            }
            let mut options = SearchOptions::new(RANKS[2]);
            options.vector = vector.cloned();
            let found = retriever.search(question, &options)?;
            for (s, &k) in RANKS.iter().enumerate() {
                let top: HashSet<&str> = found.nodes.iter().take(k).flat_map(message_ids).collect();
                sums.2[s] += share(&top);
                let top: HashSet<&str> = found.turns.iter().take(k).flat_map(message_ids).collect();
                searched[s] += share(&top);
            }
            let place_in = |list: &[(usize, f64)]| places(&listed, list, ids);
            let all = crate::search::Period::ALL;
            let meaning = match vector {
                Some(v) => Some(place_in(&retriever.rank("", Some(v), &all)?)),
                None => None,
            };
            report.asked.push(Asked {
                file: f.clone(),
                question: question.clone(),
                evidence: listed.iter().map(|e| e.to_string()).collect(),
                ranked: place_in(&ranked),
                words: place_in(&retriever.rank(question, None, &all)?),
                meaning,
                shown: shown_turns,
            });
            report.questions += 1;
        }
    }
    let n = report.questions.max(1) as f64;
    report.recall = sums.0.map(|s| s / n);
    report.rtok = sums.1.map(|s| s / n);
    report.node_recall = sums.2.map(|s| s / n);
    report.context_rtok = sums.3.map(|s| s / n);
    report.search_recall = searched.map(|s| s / n);
    report.files = files;
    Ok(report)
}

/// The `*.json` files of `dir`, in name order.
fn files_of(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(std::result::Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// One conversation file made a memory to ask.
pub(crate) struct Asking {
    /// The memory: ingested, curated and embedded as the run says.
    pub(crate) doc: Document,
    pub(crate) retriever: Retriever,
    /// Each turn's message id (LoCoMo's `dia_id`), by position.
    pub(crate) ids: Vec<String>,
    /// The questions whose evidence the dialogue holds, each with those of its
    /// evidence turns it holds, in LoCoMo's order, once each.
    pub(crate) questions: Vec<Question>,
    /// The turns the file's observations cite that the dialogue holds.
    pub(crate) observed: HashSet<String>,
}

impl Asking {
    /// The file `f`, read by `read` and made a memory as `run` says.
    pub(crate) fn new(f: &Path, read: &ReadConversation, run: &LocomoOptions<'_>) -> Result<Self> {
        let bytes = std::fs::read(f).map_err(|e| io(f, e))?;
        let (questions, observed) = labels(f, &bytes)?;
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "1970-01-01T00:00:00Z",
        ));
        let input = read(&f.display().to_string(), bytes)?;
        ingest(&mut doc, vec![input], &IngestOptions::default(), &Silent)?;
        if let Some(at) = run.curate_at {
            crate::curate::curate(&mut doc, &crate::curate::CurateOptions::at(at.clone()))?;
        }
        if let Some(e) = run.embedder {
            crate::embed::embed(&mut doc, e, false, &Limits::default(), &Silent)?;
        }
        let mut retriever = Retriever::new(&doc, &Limits::default())?;
        retriever.set_tokens(run.tokens.clone());
        let ids: Vec<String> = (0..retriever.turn_count())
            .map(|i| {
                Ok(retriever
                    .turn(i)?
                    .message_id
                    .clone()
                    .map(String::from)
                    .unwrap_or_default())
            })
            .collect::<Result<_>>()?;
        let known: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let questions = questions
            .into_iter()
            .filter_map(|(question, evidence)| {
                let mut listed: Vec<String> = Vec::new();
                for e in evidence {
                    if known.contains(e.as_str()) && !listed.contains(&e) {
                        listed.push(e);
                    }
                }
                (!listed.is_empty()).then_some((question, listed))
            })
            .collect();
        let observed = observed
            .into_iter()
            .filter(|t| known.contains(t.as_str()))
            .collect();
        Ok(Asking {
            doc,
            retriever,
            ids,
            questions,
            observed,
        })
    }
}

/// Each of `evidence`'s 1-based place in `ranked` (turn numbers into `ids`).
fn places(evidence: &[&str], ranked: &[(usize, f64)], ids: &[String]) -> Vec<Option<usize>> {
    evidence
        .iter()
        .map(|e| {
            ranked
                .iter()
                .position(|(i, _)| ids[*i] == *e)
                .map(|p| p + 1)
        })
        .collect()
}

/// The share of `evidence` among what was `found`.
fn share(evidence: &HashSet<&str>, found: &HashSet<&str>) -> f64 {
    evidence.iter().filter(|e| found.contains(*e)).count() as f64 / evidence.len().max(1) as f64
}

/// The message ids of the turns a context shows.
fn shown(items: &[crate::search::Hit]) -> HashSet<&str> {
    items
        .iter()
        .filter_map(|h| h.turn.message_id.as_deref())
        .collect()
}

/// The message ids a search result stands for: a turn's own, a node's provenance.
fn message_ids(found: &Found) -> Vec<&str> {
    match &found.item {
        Item::Turn { turn, .. } => turn.message_id.as_deref().into_iter().collect(),
        Item::Node { provenance, .. } => provenance
            .iter()
            .flat_map(|p| p.message_ids.iter().flatten())
            .map(ShortText::as_str)
            .collect(),
    }
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Format(smg_format::Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// A question and the ids of its evidence turns.
type Question = (String, Vec<String>);

/// The questions of categories 1–4 that list evidence, with their evidence ids, and
/// the turns the file's observations cite.
fn labels(path: &Path, bytes: &[u8]) -> Result<(Vec<Question>, HashSet<String>)> {
    let bad = |detail: String| Error::Import {
        file: path.display().to_string(),
        position: "qa".into(),
        detail,
    };
    let v: Value = serde_json::from_slice(bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
    let qa = v
        .get("qa")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `qa` list".into()))?;
    let questions = qa
        .iter()
        .filter(|q| {
            q.get("category")
                .and_then(Value::as_u64)
                .is_some_and(|c| (1..=4).contains(&c))
        })
        .filter_map(|q| {
            let question = q.get("question")?.as_str()?.to_string();
            let evidence: Vec<String> = q
                .get("evidence")?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .map(|e| e.trim().to_string())
                .filter(|e| !e.is_empty())
                .collect();
            (!evidence.is_empty()).then_some((question, evidence))
        })
        .collect();
    Ok((questions, observed(&v)))
}

/// The `dia_id`s the observations of a LoCoMo file cite: `session_N_observation`
/// maps each speaker to `[fact, dia_id or [dia_id, …]]` pairs.
fn observed(v: &Value) -> HashSet<String> {
    let sessions = v.as_object().into_iter().flatten();
    sessions
        .filter(|(k, _)| k.starts_with("session_") && k.ends_with("_observation"))
        .filter_map(|(_, o)| o.as_object())
        .flat_map(|o| o.values().filter_map(Value::as_array).flatten())
        .filter_map(|pair| pair.get(1))
        .flat_map(|cited| match cited {
            Value::Array(l) => l.iter().filter_map(Value::as_str).collect::<Vec<_>>(),
            other => other.as_str().into_iter().collect(),
        })
        .map(|id| id.trim().to_string())
        .filter(|id| !id.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_label_the_turns_they_cite() {
        let file = serde_json::json!({
            "qa": [],
            "session_1_observation": {
                "Ann": [["Ann went hiking.", "D1:3"], ["Ann has a sister.", ["D1:3", "D1:5"]]],
                "Bob": [["Bob likes bread.", " D1:6 "], ["no citation"]],
            },
            "session_1_summary": "not an observation",
        });
        let mut got: Vec<String> = observed(&file).into_iter().collect();
        got.sort();
        assert_eq!(got, ["D1:3", "D1:5", "D1:6"]);
        let (questions, labels) = labels(Path::new("x.json"), file.to_string().as_bytes()).unwrap();
        assert!(questions.is_empty());
        assert_eq!(labels.len(), 3);
    }

    #[test]
    fn places_count_from_one_and_leave_out_what_is_not_ranked() {
        let ids: Vec<String> = ["D1:1", "D1:2", "D1:3"].map(String::from).into();
        let ranked = [(2, 0.9), (0, 0.5)];
        let got = places(&["D1:1", "D1:3", "D1:2"], &ranked, &ids);
        assert_eq!(got, [Some(2), Some(1), None]);
    }

    #[test]
    fn nodes_are_held_against_the_labelled_turns() {
        let doc = crate::search::tests::document(&[
            (
                "Ann",
                "I went hiking in the Rocky Mountains with my sister.",
            ),
            ("Bob", "Sounds amazing, was it cold?"),
            ("Ann", "My new job at the bakery starts on Monday."),
        ]);
        let ids: Vec<String> = doc
            .graphs()
            .into_iter()
            .flat_map(|(_, g)| g.nodes())
            .filter(|n| n.kind == "memory")
            .flat_map(|n| n.provenance.iter().flatten())
            .flat_map(|p| p.message_ids.iter().flatten().map(|m| m.to_string()))
            .collect();
        assert!(!ids.is_empty(), "the chat has memories");
        let labelled: HashSet<String> = [ids[0].clone(), "elsewhere".to_string()].into();
        let mut l = Labelled::default();
        l.add(&doc, &labelled);
        assert_eq!((l.turns, l.turns_drawn), (2, 1));
        assert!(l.nodes >= 1 && l.nodes_labelled == 1, "{l:?}");
        assert_eq!(l.recall(), 0.5);
        assert_eq!(
            Labelled::default().precision(),
            0.0,
            "no nodes, no division by zero"
        );
    }
}

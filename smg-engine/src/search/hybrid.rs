//! Hybrid search (luminescent seed: BM25 + vector + graph, fused by reciprocal rank):
//! ranked lists of archived turns (BM25 and the turn rules), of memory nodes by their
//! text, of the entities the query names with the nodes around them and around the
//! strongest text matches, and of embeddings when the caller brings the query's.
//! Each item's fused score is Σ 1 / (60 + rank); the first places are then chosen by
//! maximal marginal relevance, so that a fact and the turn it was drawn from do not
//! both take a place.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::json;
use smg_format::model::{Provenance, Turn};

use super::file_ref::FileRef;
use super::nodes::Entry;
use super::scores::IdMap;
use super::sketch::Sketch;
use super::vectors::QueryVector;
use super::words::tokens;
use super::{display, time, Column64, Key, Period, Retriever};
use crate::error::Result;

/// The RRF constant (Cormack et al.; the luminescent seed's `k`).
const RRF_K: f64 = 60.0;
/// Each list offers at least this many items.
pub(super) const LIST: usize = 50;
/// Relevance against novelty in MMR (1 = relevance only).
const MMR_LAMBDA: f64 = 0.7;
/// Places chosen by MMR; the rest follow in fused order.
const MMR_DEPTH: usize = 50;
/// Results this alike (share of words) or more are near-duplicates, which MMR moves
/// down; less alike ones keep their rank. For texts of equal size 0.5 is a term
/// cosine of 0.67, the memgraph seed's `related_to` band.
const NEAR_DUPLICATE: f64 = 0.5;

/// What `smg search` asks for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// How many results.
    pub k: usize,
    /// The query's embedding, to search the file's embeddings of the same model.
    pub vector: Option<QueryVector>,
    /// Score every embedded turn and node against the query's embedding. Without
    /// it, a file of 65,536 embeddings or more first narrows them by sign bits to
    /// those worth scoring (a few milliseconds instead of tens at a million; what
    /// it finds nearly always the same).
    pub exact: bool,
    /// The span of time turns (by their time) and nodes (by their timestamp) must
    /// fall in: the best inside it are found, in the indexes.
    pub period: Period,
}

impl SearchOptions {
    /// The `k` best, without a query vector.
    pub fn new(k: usize) -> Self {
        SearchOptions {
            k,
            vector: None,
            exact: false,
            period: Period::ALL,
        }
    }
}

/// What [`Retriever::search`] finds: turns and memory nodes, each best first.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct SearchResults {
    /// Archived turns.
    pub turns: Vec<Found>,
    /// Memory nodes: facts, decisions, concepts, entities, artifacts.
    pub nodes: Vec<Found>,
    /// What the caller should know (a query vector the file has no embeddings for).
    pub warnings: Vec<String>,
}

impl SearchResults {
    /// The results as JSON, the shape `smg search --json` and the C ABI give:
    /// `{"query", "hits": [turns], "nodes": [nodes]}`.
    pub fn to_json(&self, query: &str) -> serde_json::Value {
        json!({
            "query": query,
            "hits": self.turns.iter().map(Found::to_json).collect::<Vec<_>>(),
            "nodes": self.nodes.iter().map(Found::to_json).collect::<Vec<_>>(),
            "warnings": self.warnings,
        })
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Found {
    /// The fused score (higher is better; comparable within one query only).
    pub score: f64,
    /// The lists that found it: `turns` (BM25 and the turn rules; for a node, drawn
    /// from the turns they rank best), `text` (BM25 over node text), `graph` (around
    /// named entities and strong matches), `vector`.
    pub sources: Vec<&'static str>,
    /// The turn or node.
    pub item: Item,
    /// The file of a network it came from ([`super::Network`]); `None` from one file
    /// alone.
    pub file: Option<FileRef>,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Item {
    /// An archived turn (without its source record) and the segment it belongs to.
    Turn {
        /// The turn.
        turn: Turn,
        /// Its segment node, when the graph has one.
        segment: Option<String>,
    },
    /// A memory node.
    Node {
        /// Its id.
        id: String,
        /// Its type.
        kind: String,
        /// Label, description, content, outcome and rationale.
        text: String,
        /// Importance in \[0, 1\].
        importance: Option<f64>,
        /// Confidence in \[0, 1\].
        confidence: Option<f64>,
        /// When it happened or was said.
        timestamp: Option<String>,
        /// Where it came from.
        provenance: Vec<Provenance>,
    },
}

impl Found {
    /// The result as JSON, the shape `smg search --json` and the C ABI give.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = self.item_json();
        if let Some(f) = &self.file {
            v["file"] = f.to_json();
        }
        v
    }

    fn item_json(&self) -> serde_json::Value {
        let score = (self.score * 1e6).round() / 1e6;
        match &self.item {
            Item::Turn { turn: t, segment } => json!({
                "type": "turn", "turn": t.turn, "score": score, "sources": self.sources,
                "speaker": t.speaker, "role": t.role, "content": t.content, "timestamp": t.timestamp,
                "segment": segment,
                "provenance": {"conversationId": t.conversation_id, "sessionId": t.session_id, "messageId": t.message_id},
            }),
            Item::Node {
                id,
                kind,
                text,
                importance,
                confidence,
                timestamp,
                provenance,
            } => json!({
                "type": kind, "id": id, "score": score, "sources": self.sources, "text": text,
                "importance": importance, "confidence": confidence, "timestamp": timestamp,
                "provenance": provenance,
            }),
        }
    }

    /// The result on one line: score, what it is, when, the linked file it came from
    /// (`[name]`), and its text.
    pub fn to_line(&self, width: usize) -> String {
        let (what, when, text) = match &self.item {
            Item::Turn { turn, .. } => (
                format!("turn {}", turn.turn),
                turn.timestamp.as_deref(),
                display(turn),
            ),
            Item::Node {
                id,
                kind,
                text,
                timestamp,
                ..
            } => (format!("{kind} {id}"), timestamp.as_deref(), text.clone()),
        };
        let when = when.unwrap_or("-");
        // A linked file's hits say which; the file asked's go unnamed.
        let from = match self.file.as_ref().and_then(|f| f.name.as_deref()) {
            Some(name) => format!(" [{name}]"),
            None => String::new(),
        };
        format!(
            "{:>9.5}  {what} ({when}){from} {}",
            self.score,
            crate::text::clip(&text, width)
        )
    }
}

impl Retriever {
    /// The best archived turns and the best memory nodes for `query`, `k` of each.
    ///
    /// Turns: as [`Retriever::rank`] ranks them (BM25 with the turn rules, and the
    /// file's embeddings of turns joined as [`super::Tuning`] says when `options`
    /// carries the query's): what `smg context` packs. Nodes: BM25 over their text,
    /// the neighbourhood of the entities the query names and one and two hops out
    /// from the strongest matches, and embeddings of nodes, fused by reciprocal rank
    /// and weighted by importance and decay. Each side is diversified.
    /// A query vector of another model or size is `SMG-E230`.
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<SearchResults> {
        let n = options.k.max(LIST);
        let period = &options.period;
        // Turns are ranked as every context ranks them (meaning joined to the words
        // as `Tuning` says); nodes apart, side by side.
        let (turns, by_text) = rayon::join(
            || self.scored(query, options.vector.as_ref(), period),
            || self.nodes_by_text(query, n, period, None),
        );
        let turns = turns?.map_or_else(Vec::new, |s| s.top(n));
        let (node_lists, warnings) = self.ranked_nodes(query, options, &turns, by_text?)?;
        let turn_lists = [(
            "turns",
            turns.iter().map(|&(i, _)| Key::Turn(i as u32)).collect(),
        )];
        let node_lists: Vec<(&'static str, Vec<Key>)> = node_lists
            .into_iter()
            .map(|(source, l)| (source, l.into_iter().map(|(i, _)| Key::Node(i)).collect()))
            .collect();
        // The turns are read while the nodes are: side by side.
        let (turns, nodes) = rayon::join(
            || self.fuse(&turn_lists, options.k),
            || self.fuse(&node_lists, options.k),
        );
        Ok(SearchResults {
            turns: turns?,
            nodes: nodes?,
            warnings,
        })
    }

    /// The ranked lists of nodes for `query`, each best first with its score: by
    /// their embeddings (when `options` carries the query's), by text (`by_text`),
    /// drawn from the best `turns`, and by the graph; only nodes in the period. And
    /// what the caller should know.
    pub(super) fn ranked_nodes(
        &self,
        query: &str,
        options: &SearchOptions,
        turns: &[(usize, f64)],
        by_text: Vec<(u32, f64)>,
    ) -> Result<(ScoredLists, Vec<String>)> {
        let n = options.k.max(LIST);
        let period = &options.period;
        let mut lists = Vec::new();
        let mut warnings = Vec::new();
        if let (Some(v), Some(vectors)) = (&options.vector, &self.ix.vectors) {
            let inside = self.inside(period);
            let (_, nodes) = if options.exact {
                vectors.best_of_all(v, n, inside.as_ref())?
            } else {
                vectors.best(v, n, inside.as_ref())?
            };
            let nodes = nodes.into_iter().filter_map(|(k, s)| match k {
                Key::Node(i) => Some((i, s)),
                Key::Turn(_) => None,
            });
            lists.push(("vector", nodes.collect()));
        } else if options.vector.is_some() {
            warnings.push("the file carries no embeddings: searched by words alone".into());
        }
        let drawn = self.drawn_from(turns, n);
        lists.extend(self.node_lists(query, by_text, drawn));
        // Nodes drawn from a turn inside, or reached through the graph, may be dated
        // outside.
        for (_, list) in &mut lists {
            list.retain(|&(i, _)| self.key_in(Key::Node(i), period));
        }
        Ok((lists, warnings))
    }

    /// The nodes that match `query`'s words and fall in `period`, best first; `n` at
    /// most.
    pub(super) fn nodes_by_text(
        &self,
        query: &str,
        n: usize,
        period: &Period,
        stats: Option<&super::fulltext::Stats>,
    ) -> Result<Vec<(u32, f64)>> {
        let terms: Vec<(String, f64)> = tokens(query).into_iter().map(|t| (t, 1.0)).collect();
        let window = time::window(query, self.now());
        self.ix.nodes.by_text(&terms, window, period, n, stats)
    }

    /// Whether a turn's time, or a node's timestamp, falls in `period`.
    fn key_in(&self, key: Key, period: &Period) -> bool {
        period.is_all()
            || match key {
                Key::Turn(t) => self.in_period(t as usize, period),
                Key::Node(n) => period.contains_ms(self.ix.nodes.time(n)),
            }
    }

    /// The ranked lists of nodes: by text (`by_text`), drawn from the best turns
    /// (`drawn`), and by the graph around the entities the query names and the
    /// strongest matches of either kind (the named entities themselves are seeds,
    /// not results: the query already names them).
    fn node_lists(
        &self,
        query: &str,
        by_text: Vec<(u32, f64)>,
        drawn: Vec<(u32, f64)>,
    ) -> ScoredLists {
        let named = self.ix.nodes.named_in(query);
        // Relevance in [0, 1] (a share of each list's best), the larger of the two.
        let mut relevance: IdMap<f64> = IdMap::default();
        for list in [&by_text, &drawn] {
            let best = list.first().map_or(1.0, |b| b.1).max(f64::MIN_POSITIVE);
            for &(i, s) in list {
                let r = relevance.entry(i).or_default();
                *r = r.max(s / best);
            }
        }
        let mut strongest: Vec<(u32, f64)> = relevance.iter().map(|(&i, &r)| (i, r)).collect();
        strongest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let seeds = self.ix.nodes.seeds(&named, &strongest);
        let graph = self.ix.nodes.expand(&seeds, &relevance);
        let keys = |l: Vec<(u32, f64)>| -> Vec<(u32, f64)> {
            l.into_iter().filter(|(i, _)| !named.contains(i)).collect()
        };
        vec![
            ("text", keys(by_text)),
            ("turns", keys(drawn)),
            ("graph", keys(graph)),
        ]
    }

    /// The nodes that can be hits drawn from `turns` (best first), in the order of
    /// the best turn each is drawn from, scored as that turn; `n` at most. What a
    /// passage that answers the query taught the memory answers it too, however it
    /// is worded.
    fn drawn_from(&self, turns: &[(usize, f64)], n: usize) -> Vec<(u32, f64)> {
        let mut seen = std::collections::HashSet::new();
        turns
            .iter()
            .flat_map(|&(i, score)| self.drawn(i).into_iter().map(move |node| (node, score)))
            .filter(|&(node, _)| self.ix.nodes.is_hit(node) && seen.insert(node))
            .take(n)
            .collect()
    }

    /// Reciprocal rank fusion of `lists`, the first places chosen by MMR; `k` at most.
    fn fuse(&self, lists: &[(&'static str, Vec<Key>)], k: usize) -> Result<Vec<Found>> {
        let fused = fused(lists);
        let chosen = diversify(&fused, k, |key| self.sketch(key));
        // The turns chosen are read together.
        let positions: Vec<usize> = chosen
            .iter()
            .filter_map(|&i| match fused[i].0 {
                Key::Turn(t) => Some(t as usize),
                Key::Node(_) => None,
            })
            .collect();
        let mut turns = self.turns.get_many(&positions)?.into_iter();
        let mut found = Vec::with_capacity(chosen.len());
        for i in chosen {
            let (key, score, sources) = fused[i].clone();
            let item = match key {
                Key::Turn(t) => Item::Turn {
                    turn: turns.next().map(Cow::into_owned).ok_or_else(|| {
                        smg_format::Error::InvalidArgument(format!("turn {t} was not read"))
                    })?,
                    segment: self.segment(t as usize)?,
                },
                Key::Node(n) => self.node_item(n)?,
            };
            found.push(Found {
                score,
                sources,
                item,
                file: None,
            });
        }
        Ok(found)
    }

    pub(super) fn node_item(&self, i: u32) -> Result<Item> {
        let e: Entry = self.ix.nodes.entry(i)?;
        Ok(Item::Node {
            id: e.id,
            kind: e.kind,
            text: e.text,
            importance: e.importance,
            confidence: e.confidence,
            timestamp: e.timestamp,
            provenance: serde_json::from_str(&e.provenance).unwrap_or_default(),
        })
    }

    /// What MMR compares a result by: a turn's or a node's sketch, kept in its index
    /// (its text is not read).
    pub(super) fn sketch(&self, key: Key) -> Sketch {
        let n = match key {
            Key::Turn(i) => self.value(Column64::Sketch, i as usize),
            Key::Node(i) => self.ix.nodes.sketch(i),
        };
        n.map_or_else(Sketch::default, Sketch::from_u64)
    }
}

/// Ranked lists of node numbers, each best first with its score, by the source that
/// ranked it.
pub(super) type ScoredLists = Vec<(&'static str, Vec<(u32, f64)>)>;

/// Reciprocal rank fusion of `lists`: each item with its fused score and the lists
/// that hold it, best first (ties to the lower key).
pub(super) fn fused<K: Copy + Ord + std::hash::Hash>(
    lists: &[(&'static str, Vec<K>)],
) -> Vec<(K, f64, Vec<&'static str>)> {
    let mut fused: HashMap<K, (f64, Vec<&'static str>)> = HashMap::new();
    for (source, list) in lists {
        for (rank, key) in list.iter().enumerate() {
            let f = fused.entry(*key).or_default();
            f.0 += 1.0 / (RRF_K + rank as f64 + 1.0);
            f.1.push(source);
        }
    }
    let mut fused: Vec<(K, f64, Vec<&'static str>)> =
        fused.into_iter().map(|(k, (s, src))| (k, s, src)).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused
}

/// The order of the first `k` of `fused` (best first): the first places by MMR,
/// in which only near-duplicates (by `sketch`) count as alike.
pub(super) fn diversify<K: Copy>(
    fused: &[(K, f64, Vec<&'static str>)],
    k: usize,
    sketch: impl Fn(K) -> Sketch,
) -> Vec<usize> {
    let depth = fused.len().min(MMR_DEPTH);
    // Relevance from 1 (the best) to 0 (what one list gives its last place MMR
    // considers), so that ranks stay apart however short the lists.
    let best = fused.first().map_or(1.0, |f| f.1);
    let floor = 1.0 / (RRF_K + MMR_DEPTH as f64);
    let relevance = |i: usize| (fused[i].1 - floor) / (best - floor).max(f64::MIN_POSITIVE);
    let sketches: Vec<Sketch> = fused[..depth].iter().map(|f| sketch(f.0)).collect();
    let mut chosen: Vec<usize> = Vec::new();
    let mut left: Vec<usize> = (0..depth).collect();
    // Each one's likeness to the most alike already chosen.
    let mut likeness = vec![0.0f64; depth];
    while chosen.len() < k && !left.is_empty() {
        let value = |i: usize| MMR_LAMBDA * relevance(i) - (1.0 - MMR_LAMBDA) * likeness[i];
        let (at, _) = left
            .iter()
            .enumerate()
            .map(|(at, &i)| (at, value(i)))
            .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a });
        let pick = left.remove(at);
        for &i in &left {
            let alike = sketches[i].likeness(&sketches[pick]);
            if alike >= NEAR_DUPLICATE {
                likeness[i] = likeness[i].max(alike);
            }
        }
        chosen.push(pick);
    }
    chosen.extend((depth..fused.len()).take(k.saturating_sub(chosen.len())));
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::{document, memory, CHAT};
    use smg_format::{
        model::{DeepArchive, Embedding, VectorIndex},
        Limits,
    };

    fn ids(found: &[Found]) -> Vec<String> {
        found
            .iter()
            .map(|f| match &f.item {
                Item::Turn { turn, .. } => format!("turn {}", turn.turn),
                Item::Node { id, .. } => id.clone(),
            })
            .collect()
    }

    #[test]
    fn finds_turns_and_the_facts_drawn_from_them() {
        let r = memory(CHAT);
        let found = r
            .search("hiking in the Rocky Mountains", &SearchOptions::new(3))
            .unwrap();
        assert_eq!(ids(&found.turns)[0], "turn 3");
        let fact = found.nodes.first().expect("a memory node");
        assert!(
            matches!(&fact.item, Item::Node { text, kind, .. }
            if kind == "memory" && text.contains("Rocky Mountains")),
            "{fact:?}"
        );
        assert!(fact.sources.contains(&"text"));
        let json = found.to_json("q");
        assert_eq!(json["hits"][0]["type"], "turn");
        assert_eq!(json["nodes"][0]["provenance"][0]["turns"][0], 3);
        assert!(found.warnings.is_empty());
        let none = r.search("", &SearchOptions::new(3)).unwrap();
        assert!(none.turns.is_empty() && none.nodes.is_empty());
    }

    #[test]
    fn a_fact_is_found_through_the_turn_it_was_drawn_from() {
        let r = memory(CHAT);
        let drawn = r.drawn(2);
        assert_eq!(drawn.len(), 1, "one memory from the hiking turn");
        let Item::Node { text, .. } = r.node_item(drawn[0]).unwrap() else {
            panic!("a node")
        };
        assert!(text.contains("Rocky Mountains"), "{text}");
        assert!(r.drawn(1).is_empty(), "nothing is drawn from \"No idea\"");
        // "sister" is said in the hiking turn alone: the fact drawn from it is found
        // both by its own words and through its turn.
        let found = r.search("sister", &SearchOptions::new(3)).unwrap();
        let fact = found.nodes.first().expect("the fact");
        assert!(fact.sources.contains(&"turns"), "{fact:?}");
        assert!(fact.sources.contains(&"text"), "{fact:?}");
    }

    #[test]
    fn names_in_the_query_lead_to_their_neighbourhood_not_to_themselves() {
        let r = memory(CHAT);
        let found = r
            .search("What about Bob?", &SearchOptions::new(10))
            .unwrap();
        let bob = |f: &Found| matches!(&f.item, Item::Node { kind, text, .. } if kind == "entity" && text == "Bob");
        assert!(!found.nodes.iter().any(bob), "{found:?}");
        assert!(r.ix.nodes.named_in("What about Bob?").len() == 1);
    }

    #[test]
    fn near_duplicates_give_way_to_something_new() {
        let r = memory(&[
            ("Ann", "pizza with olives and cheese"),
            ("Ann", "pizza with olives and cheese"),
            ("Bob", "pizza on friday night"),
        ]);
        let found = r.search("pizza olives", &SearchOptions::new(3)).unwrap();
        // By words alone the two copies come first; diversity puts the third between.
        let by_words: Vec<usize> = r
            .rank("pizza olives", None, &Period::ALL)
            .unwrap()
            .iter()
            .map(|x| x.0)
            .collect();
        assert_eq!(by_words[..2].iter().sum::<usize>(), 1, "positions 0 and 1");
        let order = ids(&found.turns);
        assert!(
            ["turn 1", "turn 2"].contains(&order[0].as_str()),
            "{order:?}"
        );
        assert_eq!(order[1], "turn 3", "{order:?}");
        let a = Sketch::of("pizza with olives and cheese");
        assert_eq!(
            a.likeness(&Sketch::of("Pizza with olives, and cheese!")),
            1.0
        );
        assert!(a.likeness(&Sketch::of("the weather in Oslo tomorrow")) < NEAR_DUPLICATE);
        assert_eq!(Sketch::of("").likeness(&Sketch::of("the and")), 0.0);
    }

    #[test]
    fn embeddings_of_the_same_model_join_the_search() {
        let mut doc = document(CHAT);
        let fact = doc
            .graphs()
            .into_iter()
            .flat_map(|(_, g)| g.nodes())
            .find(|n| n.kind == "memory")
            .unwrap()
            .id
            .clone();
        let embed = |turn: Option<u64>, node: Option<&str>, vector: Vec<f64>| Embedding {
            turn: turn.map(|t| smg_format::model::Ordinal::new(t).unwrap()),
            node_id: node.map(String::from),
            vector: smg_format::model::Vector::new(vector).unwrap(),
            ..Embedding::default()
        };
        let archive: &mut DeepArchive = doc.deep_archive.as_mut().unwrap();
        archive.vector_index = Some(VectorIndex {
            enabled: true,
            model: Some("toy".into()),
            dimensions: Some(smg_format::model::Ordinal::new(2).unwrap()),
            embeddings: Some(vec![
                embed(Some(5), None, vec![1.0, 0.0]),
                embed(None, Some(&fact), vec![0.0, 2.0]),
                embed(Some(1), None, vec![1.0, 1.0, 1.0]),
            ]),
            ..VectorIndex::default()
        });
        let r = Retriever::new(&doc, &Limits::default()).unwrap();
        let ask = |model: &str, values: Vec<f64>| {
            let mut o = SearchOptions::new(2);
            o.vector = Some(QueryVector {
                model: model.into(),
                values,
            });
            r.search("zebra", &o)
        };
        // "zebra" matches no word: what is found, meaning found (turn 5, then its
        // neighbour through the turn rules), ranked as contexts rank turns.
        let found = ask("toy", vec![0.9, 0.1]).unwrap();
        assert_eq!(ids(&found.turns)[0], "turn 5");
        assert_eq!(found.turns[0].sources, ["turns"]);
        assert_eq!(ids(&ask("toy", vec![0.0, 1.0]).unwrap().nodes), [fact]);
        for (model, values) in [
            ("other", vec![1.0, 0.0]),
            ("toy", vec![1.0]),
            ("toy", vec![0.0, 0.0]),
        ] {
            assert_eq!(ask(model, values).unwrap_err().code(), "SMG-E230");
        }
        let plain = memory(CHAT);
        let mut o = SearchOptions::new(2);
        o.vector = Some(QueryVector {
            model: "toy".into(),
            values: vec![1.0, 0.0],
        });
        assert_eq!(plain.search("bakery", &o).unwrap().warnings.len(), 1);
    }
}

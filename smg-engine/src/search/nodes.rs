//! The graph side of retrieval: memory nodes (facts, decisions, concepts, entities,
//! artifacts) found by BM25 over their text, by the entities a query names, and by
//! walking one or two edges out from the strongest of those (memgraph seed: entity
//! neighbourhood, expansion from strong seeds, at most 20 added). Each is weighted by
//! its importance and by decay: a half-life by node type (the curation seed's table),
//! counted from the node's last sign of life (its time, update or last access) to
//! the memory's latest instant, so that an access resets it.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};
use chrono::DateTime;
use rayon::prelude::*;
use smg_format::{model::Node, Document};

use super::fulltext::{Column64, Doc, FullText, FLAG_HIT};
use super::scores::IdMap;
use super::sketch::Sketch;
use super::words::tokens_cached;
use crate::error::Result;

/// Relations that do not make two nodes about the same thing (`next` is turn order).
const NOT_RELATED: &[&str] = &["next"];
/// A hop away from a seed keeps this share of its score.
const HOP: f64 = 0.5;
/// Nodes with more edges than this are hubs, which no path passes through.
const HUB: usize = 256;
/// Most nodes one hop adds (memgraph `MAX_GRAPH_EXPANSION`).
const MAX_EXPANSION: usize = 20;
/// Text matches at least this share of the best one are seeds for expansion
/// (memgraph `GRAPH_EXPANSION_SIM`).
const SEED_SHARE: f64 = 0.5;
/// Most text matches used as seeds.
const MAX_SEEDS: usize = 5;
/// Importance counts from this floor, so that an unrated node is not erased.
const IMPORTANCE_FLOOR: f64 = 0.5;
/// What a fully decayed node keeps: decay lowers, it never erases (the curation
/// seed's additive rule against cliffs).
const DECAY_FLOOR: f64 = 0.25;
/// Names shorter than this are not matched in queries (memgraph: 3+ characters).
const MIN_NAME: usize = 3;
const DAY_MS: f64 = 86_400_000.0;

/// Half-life in days of a node type (jochi curation seed: belief 180, synthesis 120,
/// compressed context 90, analysis 60, memory entry 45).
pub(crate) fn half_life_days(kind: &str) -> f64 {
    match kind {
        "decision" | "entity" => 180.0,
        "concept" => 120.0,
        "artifact" | "segment" => 90.0,
        "problem" | "solution" => 60.0,
        _ => 45.0,
    }
}

/// One node as a hit shows it: its record in the nodes' index, read when it is
/// one.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Entry {
    pub(crate) id: String,
    pub(crate) kind: String,
    /// What a hit shows: label, description, content, outcome and rationale.
    pub(crate) text: String,
    pub(crate) importance: Option<f64>,
    pub(crate) confidence: Option<f64>,
    pub(crate) timestamp: Option<String>,
    /// Where it came from: the JSON of its provenance list (kept as text so that the
    /// stored index needs no self-describing format).
    pub(crate) provenance: String,
}

/// Segments stand for their turns, which retrieval finds as turns: they link nodes
/// but are never hits themselves.
fn is_hit(n: &Node) -> bool {
    n.kind != "segment"
}

fn millis(t: Option<&str>) -> Option<i64> {
    DateTime::parse_from_rfc3339(t?)
        .ok()
        .map(|d| d.timestamp_millis())
}

/// A node's text as retrieval reads it: its texts, each once.
pub(crate) fn text_of(n: &Node) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in crate::graph::node_texts(n) {
        if !parts.iter().any(|q| q.contains(p)) {
            parts.push(p);
        }
    }
    parts.join(" — ")
}

/// The nodes of a document, indexed for retrieval.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Nodes {
    /// Stored as a part of its own, read in place (see `stored`): each node's terms,
    /// weight, time, whether it can be a hit, and its [`Entry`].
    #[serde(skip)]
    pub(super) index: FullText,
    /// Entity and concept names, lowercased, sorted; name `p` names `named[p]`.
    names: Vec<String>,
    named: Vec<Vec<u32>>,
    /// A matcher of `names`, made again when the index is read back.
    #[serde(skip)]
    matcher: Option<AhoCorasick>,
    /// The memory's latest instant (ms), from which decay counts.
    now: Option<i64>,
}

impl Nodes {
    /// The nodes of `doc`; `latest_turn` (ms) is the archive's latest instant, which
    /// with the nodes' own times makes the memory's "now".
    pub(crate) fn new(doc: &Document, latest_turn: Option<i64>) -> Result<Self> {
        let nodes = live(doc);
        let fresh = |n: &Node| {
            [&n.timestamp, &n.updated, &n.last_accessed]
                .into_iter()
                .filter_map(|t| millis(t.as_deref()))
                .max()
        };
        let now = nodes.iter().filter_map(|n| fresh(n)).max().max(latest_turn);
        let mut links = links_of(doc, &nodes);
        let docs: Vec<Result<Doc>> = nodes
            .par_iter()
            .zip(links.par_iter_mut())
            .map(|(n, links)| {
                let entry = entry(n);
                let hit = is_hit(n);
                Ok(Doc {
                    terms: if hit {
                        tokens_cached(&entry.text)
                    } else {
                        Vec::new()
                    },
                    numbers: vec![
                        (Column64::Flags, if hit { FLAG_HIT } else { 0 }),
                        (Column64::Sketch, Sketch::of(&entry.text).to_u64()),
                    ],
                    time: millis(n.timestamp.as_deref()),
                    weight: Some(weight(n, fresh(n), now)),
                    record: postcard::to_stdvec(&entry).map_err(|e| {
                        super::frames::damaged(format!("node {} could not be kept: {e}", n.id))
                    })?,
                    links: std::mem::take(links),
                    key: Some(n.id.to_string()),
                })
            })
            .collect();
        let index = FullText::build(docs.into_iter().collect::<Result<Vec<Doc>>>()?)?;
        let (names, named) = names_of(&nodes);
        Ok(Nodes {
            index,
            matcher: matcher(&names),
            names,
            named,
            now,
        })
    }

    /// Whether stored nodes hold together: names that name nodes.
    pub(crate) fn holds_together(&self) -> bool {
        let n = self.index.len();
        self.names.len() == self.named.len()
            && self.named.iter().flatten().all(|&i| (i as usize) < n)
    }

    /// These nodes read back from a stored index: the name matcher made again.
    pub(crate) fn restored(mut self) -> Self {
        self.matcher = matcher(&self.names);
        self
    }

    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    /// Node `i` as a hit shows it, read from the index.
    pub(crate) fn entry(&self, i: u32) -> Result<Entry> {
        postcard::from_bytes(&self.index.record(i)?).map_err(|e| {
            super::frames::damaged(format!("node {i} of the index cannot be read: {e}"))
        })
    }

    /// Node `i`'s sketch ([`Sketch::to_u64`]).
    pub(crate) fn sketch(&self, i: u32) -> Option<u64> {
        self.index.number(Column64::Sketch, i)
    }

    /// Whether node `i` can be a hit.
    pub(crate) fn is_hit(&self, i: u32) -> bool {
        self.index.flag(FLAG_HIT, i)
    }

    /// Whether node `i` is a segment (a node retrieval knows that is no hit).
    pub(crate) fn is_segment(&self, i: u32) -> bool {
        (i as usize) < self.len() && !self.is_hit(i)
    }

    /// The number of the node whose id is `id`, if retrieval knows it.
    pub(crate) fn find(&self, id: &str) -> Result<Option<u32>> {
        self.index.find(id)
    }

    /// Node `i`'s importance lowered by decay (0 for a number past the nodes).
    fn weight(&self, i: u32) -> f64 {
        self.index.weight(i).unwrap_or(0.0)
    }

    /// The memory's latest instant (ms): the "now" of decay and of relative time
    /// words.
    pub(crate) fn now(&self) -> Option<i64> {
        self.now
    }

    /// Nodes whose text matches the query (weighted terms), as (node, BM25 ×
    /// weight), best first, at most `n`. `window` (ms) favours nodes inside it;
    /// `period` keeps to the nodes inside it.
    pub(crate) fn by_text(
        &self,
        query: &[(String, f64)],
        window: Option<(i64, i64)>,
        period: &super::Period,
        n: usize,
        stats: Option<&super::fulltext::Stats>,
    ) -> Result<Vec<(u32, f64)>> {
        // The window first: a node's time is read only when the query names one.
        let inside = |d: u32| {
            window.is_some_and(|(from, to)| {
                self.index.time(d).is_some_and(|t| (from..to).contains(&t))
            })
        };
        let scale = |d: u32, mut s: f64| {
            s *= self.weight(d);
            if inside(d) {
                s *= 2.0;
            }
            s
        };
        self.index
            .top_scaled(query, n, period.range().as_ref(), stats, scale)
    }

    /// Node `i`'s timestamp (ms).
    pub(crate) fn time(&self, i: u32) -> Option<i64> {
        self.index.time(i)
    }

    /// Entities and concepts the query names (whole words, names of 3+ characters,
    /// any case), in the order named.
    pub(crate) fn named_in(&self, query: &str) -> Vec<u32> {
        let Some(matcher) = &self.matcher else {
            return Vec::new();
        };
        let lower = query.to_lowercase();
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let mut out = Vec::new();
        for m in matcher.find_iter(&lower) {
            let before = lower[..m.start()].chars().next_back();
            let after = lower[m.end()..].chars().next();
            if word(before) || word(after) {
                continue;
            }
            for &n in &self.named[m.pattern().as_usize()] {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// Seeds, and the nodes that match the query's words (`relevance`, in \[0, 1\])
    /// one or two edges out from them, scored seed score × 0.5 per hop × edge
    /// strength × weight × relevance; each hop adds at most 20 nodes. Seeds keep their
    /// own score. A path never passes through a hub (a node of more than 256 edges,
    /// such as the user, linked to nearly everything). Best first.
    pub(crate) fn expand(&self, seeds: &[(u32, f64)], relevance: &IdMap<f64>) -> Vec<(u32, f64)> {
        let seed: IdMap<f64> = seeds.iter().copied().collect();
        let mut relevant: Vec<(u32, f64)> = relevance
            .iter()
            .map(|(&m, &r)| (m, r))
            .filter(|(m, r)| *r > 0.0 && !seed.contains_key(m))
            .collect();
        relevant.sort_unstable_by_key(|r| r.0);
        let mut hops: [Vec<(u32, f64)>; 2] = Default::default();
        for (m, rel) in relevant {
            let (one, two) = self.reach(m, &seed);
            if one > 0.0 {
                hops[0].push((m, one * rel));
            } else if two > 0.0 {
                hops[1].push((m, two * rel));
            }
        }
        let mut out: Vec<(u32, f64)> = seeds
            .iter()
            .copied()
            .filter(|(n, _)| self.is_hit(*n))
            .collect();
        for mut hop in hops {
            hop.sort_by(best_first);
            hop.truncate(MAX_EXPANSION);
            out.extend(hop);
        }
        out.sort_by(best_first);
        out
    }

    /// How strongly node `m` is reached from `seed` in one hop, and in two (through
    /// a node that is no hub).
    fn reach(&self, m: u32, seed: &IdMap<f64>) -> (f64, f64) {
        let weight = |n: u32| self.weight(n);
        let (mut one, mut two) = (0.0f64, 0.0f64);
        for (b, strength) in self.index.links(m) {
            let near = HOP * strength * weight(m);
            if let Some(&s) = seed.get(&b) {
                one = one.max(s * near);
            }
            if self.index.link_count(b) > HUB {
                continue;
            }
            for (far, strength) in self.index.links(b) {
                if let Some(&s) = seed.get(&far).filter(|_| far != m) {
                    two = two.max(s * HOP * strength * weight(b) * near);
                }
            }
        }
        (one, two)
    }

    /// How specific a node is, in (0, 1]: an entity linked to everything (the user,
    /// the other speaker) says little about what a query is after.
    fn specificity(&self, n: u32) -> f64 {
        let total = self.len().max(2) as f64;
        let degree = self.index.link_count(n).max(1) as f64;
        ((total / degree).ln() / total.ln()).clamp(0.01, 1.0)
    }

    /// The seeds of expansion: the nodes the query names, then the strongest text
    /// matches (at least half the best one's score, five at most).
    pub(crate) fn seeds(&self, named: &[u32], by_text: &[(u32, f64)]) -> Vec<(u32, f64)> {
        let mut seeds: Vec<(u32, f64)> = named.iter().map(|&n| (n, self.specificity(n))).collect();
        let best = by_text.first().map_or(0.0, |b| b.1);
        for &(n, s) in by_text.iter().take(MAX_SEEDS) {
            if s >= SEED_SHARE * best && !seeds.iter().any(|x| x.0 == n) {
                seeds.push((n, s / best));
            }
        }
        seeds
    }
}

/// The nodes of `doc` retrieval knows (all but tombstones), node `i` numbered `i`.
fn live(doc: &Document) -> Vec<&Node> {
    doc.graphs()
        .into_iter()
        .flat_map(|(_, g)| g.nodes().iter())
        .filter(|n| n.tombstone != Some(true))
        .collect()
}

/// The numbers of `nodes` by id.
fn positions<'a>(nodes: &[&'a Node]) -> HashMap<&'a str, u32> {
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i as u32))
        .collect()
}

/// Each node's links: the nodes it is related to (by an edge other than turn order,
/// or as one of its related nodes), with the strength of the link, both ways.
fn links_of(doc: &Document, nodes: &[&Node]) -> Vec<Vec<(u32, f32)>> {
    let position = positions(nodes);
    let mut links = vec![Vec::new(); nodes.len()];
    let mut link = |a: u32, b: u32, strength: f64| {
        let strength = strength.clamp(0.0, 1.0) as f32;
        links[a as usize].push((b, strength));
        if a != b {
            links[b as usize].push((a, strength));
        }
    };
    for e in doc.graphs().into_iter().flat_map(|(_, g)| g.edges().iter()) {
        if let (Some(&a), Some(&b)) = (position.get(e.from.as_str()), position.get(e.to.as_str())) {
            if !NOT_RELATED.contains(&e.relation.as_str()) {
                link(a, b, e.strength.map_or(1.0, f64::from));
            }
        }
    }
    for n in nodes {
        for other in n.related_nodes.iter().flatten() {
            if let (Some(&a), Some(&b)) =
                (position.get(n.id.as_str()), position.get(other.as_str()))
            {
                link(a, b, 1.0);
            }
        }
    }
    links
}

/// The numbers of the nodes of `doc` that retrieval knows, by id.
pub(crate) fn numbers(doc: &Document) -> HashMap<&str, u32> {
    positions(&live(doc))
}

/// Higher score first; ties to the earlier node.
fn best_first(a: &(u32, f64), b: &(u32, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Importance from a floor, lowered by decay at `now` from the node's last sign of
/// life by its type's half-life.
fn weight(n: &Node, fresh: Option<i64>, now: Option<i64>) -> f64 {
    let importance = IMPORTANCE_FLOOR + n.importance.map_or(0.5, f64::from).clamp(0.0, 1.0);
    let decay = match (fresh, now) {
        (Some(t), Some(now)) => {
            let days = (now - t).max(0) as f64 / DAY_MS;
            0.5f64.powf(days / half_life_days(&n.kind))
        }
        _ => 1.0,
    };
    importance * (DECAY_FLOOR + (1.0 - DECAY_FLOOR) * decay)
}

fn entry(n: &Node) -> Entry {
    let hit = is_hit(n);
    Entry {
        id: n.id.to_string(),
        kind: n.kind.to_string(),
        text: if hit { text_of(n) } else { String::new() },
        importance: n.importance.map(f64::from),
        confidence: n.confidence.map(f64::from),
        timestamp: n.timestamp.as_ref().map(|t| t.to_string()),
        provenance: match &n.provenance {
            Some(p) if hit => serde_json::to_string(p).unwrap_or_default(),
            _ => String::new(),
        },
    }
}

/// Entity and concept names (3+ characters, lowercased), sorted, and the nodes each
/// names.
fn names_of(nodes: &[&Node]) -> (Vec<String>, Vec<Vec<u32>>) {
    let mut by_name: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
    for (i, n) in nodes.iter().enumerate() {
        if n.kind != "entity" && n.kind != "concept" {
            continue;
        }
        let name = n.label.as_deref().unwrap_or("").trim().to_lowercase();
        if name.chars().count() >= MIN_NAME {
            by_name.entry(name).or_default().push(i as u32);
        }
    }
    by_name.into_iter().unzip()
}

/// A matcher of `names`, longest first where they overlap.
fn matcher(names: &[String]) -> Option<AhoCorasick> {
    if names.is_empty() {
        return None;
    }
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(names)
        .ok()
}

#[cfg(test)]
mod tests;

//! The graph under construction, and what the rule modules that fill it share: nodes
//! found by id, edges made once per relation, provenance of turns, each turn's facts.
//! build.rs runs the rules in order; each rule module takes what it needs from here.

use smg_format::model::{Edge, Node, NonEmpty, Provenance, ShortText, Turn, Unit};

use super::analyze::Facts;
use super::names::NameKind;
use crate::fast::{FastMap, FastSet};
use thin_vec::ThinVec;

/// `createdBy` of every node ingest makes: a later ingest replaces exactly these.
pub(crate) const CREATED_BY: &str = Node::DERIVED_BY;

/// Graph under construction: nodes by id, edges without duplicates.
#[derive(Default)]
pub(crate) struct Graph {
    /// Boxed: a node is large (760 bytes), and a vector of them grows by doubling (a
    /// large archive's graph would hold up to twice its nodes' size while it grows).
    #[allow(clippy::vec_box)]
    pub(crate) nodes: Vec<Box<Node>>,
    index: FastMap<String, usize>,
    pub(crate) edges: Vec<Edge>,
    seen: FastSet<(usize, usize, &'static str)>,
}

impl Graph {
    pub(crate) fn add(&mut self, node: impl Into<Box<Node>>) -> usize {
        let node = node.into();
        let at = self.nodes.len();
        self.index.insert(node.id.to_string(), at);
        self.nodes.push(node);
        at
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut Node> {
        self.index.get(id).map(|i| &mut *self.nodes[*i])
    }

    pub(crate) fn has(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    /// Add an edge between two nodes of the graph, once per relation.
    pub(crate) fn link(&mut self, from: &str, to: &str, relation: &'static str, strength: f64) {
        let (Some(&a), Some(&b)) = (self.index.get(from), self.index.get(to)) else {
            return;
        };
        if a != b && self.seen.insert((a, b, relation)) {
            self.edges.push(Edge {
                strength: Some(Unit::clamped(round(strength))),
                ..Edge::new(
                    self.nodes[a].id.clone(),
                    NonEmpty::from_static(relation),
                    self.nodes[b].id.clone(),
                )
            });
        }
    }
}

/// Per turn: its facts, whether it makes memories, and its segment.
pub(super) struct TurnInfo {
    pub(super) facts: Facts,
    pub(super) memorable: bool,
    pub(super) segment: usize,
}

impl TurnInfo {
    /// What the graph's steps after the turns' decisions, memories and goals are read
    /// (mentions, artifacts, requirements, importance) read of it.
    pub(super) fn into_rest(self) -> Rest {
        let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Rest {
            segment: self.segment,
            words: small(self.facts.words),
            decision_cues: small(self.facts.decision_cues),
            decisions: small(self.facts.decisions.len()),
            memorable: self.memorable,
            names: self.facts.names,
            technical: self.facts.technical,
            requires: self.facts.requires,
        }
    }
}

/// What is left of a [`TurnInfo`] once its decisions, memories and goals are in the
/// graph: 48 bytes a turn and the names and terms it holds, where the whole was 120
/// bytes and the text of all the rules found. The names go too once the mentions are
/// linked. A million-turn ingest finishes its graph with about 150 MB less.
pub(super) struct Rest {
    pub(super) segment: usize,
    /// Words and decision cues (SMG §9.1 decision density) and decisions; a turn's
    /// counts fit in 32 bits (a turn is at most `Limits::max_turn_bytes`), and
    /// saturate if not.
    pub(super) words: u32,
    pub(super) decision_cues: u32,
    pub(super) decisions: u32,
    pub(super) memorable: bool,
    pub(super) names: ThinVec<(String, NameKind)>,
    pub(super) technical: ThinVec<String>,
    pub(super) requires: ThinVec<(String, String)>,
}

/// The part of a derived node's id that names the turn it starts from (spec §11):
/// 16 hex digits of the SHA-256 of the turn's conversation id and message id, so that
/// the same message gives the same id on every branch whatever its archive number. A
/// turn without a message id (written by hand) is named by its number instead.
pub(crate) fn turn_ref(t: &Turn) -> String {
    use sha2::{Digest, Sha256};
    let Some(message) = t.message_id.as_deref() else {
        return t.turn.to_string();
    };
    let mut h = Sha256::new();
    h.update(t.conversation_id.as_deref().unwrap_or_default().as_bytes());
    h.update([0]);
    h.update(message.as_bytes());
    hex::encode(&h.finalize()[..8])
}

/// The id of the `k`th decision (from 1) said in turn `t`.
pub(super) fn decision_id(t: &Turn, k: usize) -> NonEmpty {
    NonEmpty::joined(
        &NonEmpty::from_static("dec-"),
        format_args!("{}-{k}", turn_ref(t)),
    )
}

/// A score to four decimals, as every score in the file is written.
pub(crate) fn round(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// Provenance of consecutive turns of one conversation.
pub(crate) fn provenance<'a>(turns: impl Iterator<Item = &'a Turn> + Clone) -> Provenance {
    let first = turns.clone().next();
    Provenance {
        conversation_id: first.and_then(|t| t.conversation_id.clone()),
        session_id: first.and_then(|t| t.session_id.clone()),
        message_ids: Some(turns.clone().filter_map(|t| t.message_id.clone()).collect())
            .filter(|v: &Vec<ShortText>| !v.is_empty()),
        turns: Some(turns.map(|t| t.turn).collect()),
        timestamp: first.and_then(|t| t.timestamp.clone()),
        ..Provenance::default()
    }
}

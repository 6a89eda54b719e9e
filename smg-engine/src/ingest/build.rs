//! The semantic graph built from every archived turn: segments (semantic chunks),
//! decisions, typed memories, entities, concepts and artifacts, their edges, and
//! importance by SMG §9.1.

use crate::fast::{FastMap, FastSet};

use rayon::prelude::*;
use smg_format::model::{Edge, Node, NonEmpty, ShortText, Turn, Unit};

use super::graph::{decision_id, provenance, round, turn_ref, Graph, Rest, TurnInfo, CREATED_BY};
use super::TurnView;

use super::analyze::{analyze, Facts, Terms};
use super::chunk::{chunk, ChunkTurn};
use super::classify::Kind;
use super::links::{artifacts, link_mentions, requirements, supersede, ArtifactLabels};
use super::memories::Memories;
use super::named::{count, Counted, Named};
use super::names::NameKind;
use crate::text::{self, clip};

/// The graph and what working memory needs from the analysis.
pub(crate) struct Built {
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    /// Goals stated in the turns, with their turn number, in order.
    pub(crate) goals: Vec<(u64, String)>,
}

/// Most turns analysed as one piece of parallel work.
const ANALYSED_TOGETHER: usize = 128;

/// What the rules find in each turn, in order, and whether each turn's text is said
/// for the first time.
pub(crate) struct Analysis {
    facts: Vec<Facts>,
    first_said: Vec<bool>,
}

/// What the rules find in each of `turns`, side by side.
pub(crate) fn facts(turns: &[&Turn]) -> Vec<Facts> {
    // In small pieces: while the archive keeps the other thread busy, rayon would
    // otherwise leave the rest of the turns in one piece that no thread can share
    // once the archive is done.
    turns
        .par_iter()
        .with_max_len(ANALYSED_TOGETHER)
        .map(|t| analyze(&t.content, is_ai(t)))
        .collect()
}

/// The [`Analysis`] of `turns`, of whose first turns `known` holds the [`facts`]
/// already: the rules run side by side on the rest, and the repeats are found beside
/// them.
pub(crate) fn analyze_all(turns: &[&Turn], known: Vec<Facts>) -> Analysis {
    let (facts, first_said) = rayon::join(
        || {
            let mut all = known;
            all.truncate(turns.len());
            let rest = facts(&turns[all.len()..]);
            all.extend(rest);
            all
        },
        || {
            let mut seen: FastSet<&str> = FastSet::default();
            turns
                .iter()
                .map(|t| seen.insert(t.content.trim()))
                .collect()
        },
    );
    Analysis { facts, first_said }
}

/// The graph under way, what its steps share, and what the rules found in each turn
/// (`I`: as much as the steps still to come read).
pub(super) struct Stage<I> {
    g: Graph,
    info: Vec<I>,
    segments: Vec<String>,
    named: Named,
    decisions: Vec<(usize, String, bool, Vec<String>)>,
    memories: Memories,
    goals: Vec<(u64, String)>,
    total: u64,
}

/// The graph as far as the turns alone tell it: all but the artifacts, which the
/// vault names once the turns are archived, and importance, which counts them. Its
/// segments are drafted while the archive is written, the rest ([`Draft::read`])
/// once it is.
pub(super) type Draft = Stage<TurnInfo>;

/// The graph but its artifacts, requirements and importance, and what the rules found
/// in each turn that those still read.
pub(super) type Linked = Stage<Rest>;

/// Draft the graph of `turns` (the whole archive, in order), given their
/// [`analyze_all`] facts.
pub(super) fn draft(turns: &[&Turn], analysis: Analysis) -> Draft {
    let mut info: Vec<TurnInfo> = analysis
        .facts
        .into_iter()
        .zip(analysis.first_said)
        .map(|(facts, fresh)| TurnInfo {
            memorable: fresh && !facts.filler,
            facts,
            segment: 0,
        })
        .collect();
    let mut g = Graph::default();
    let segments = segments(&mut g, turns, &mut info);
    // Content words served the chunking; a large archive should not hold them longer.
    for i in &mut info {
        i.facts.terms = Terms::default();
    }
    Draft {
        g,
        info,
        segments,
        named: Named::default(),
        decisions: Vec::new(),
        memories: Memories::default(),
        goals: Vec::new(),
        total: turns.last().map_or(0, |t| t.turn.get()),
    }
}

impl Draft {
    /// The draft's decisions, memories, goals, concepts and entities, with their
    /// edges: mostly work on one thread, in turn order. Once the decisions, memories
    /// and goals are read, what the rules found in each turn shrinks to what the
    /// later steps read ([`Rest`]).
    pub(crate) fn read(mut self, turns: &[&Turn]) -> Linked {
        let (names, terms) = self.read_turns(turns);
        let mut rest: Vec<Rest> = self
            .info
            .into_par_iter()
            .with_max_len(super::FREED_TOGETHER)
            .map(TurnInfo::into_rest)
            .collect();
        let g = &mut self.g;
        self.named = Named::add(g, &names.0, &terms.0);
        link_mentions(g, turns, &rest, &self.segments, &self.named);
        supersede(g, turns, &self.decisions);
        rest.par_iter_mut()
            .with_max_len(super::FREED_TOGETHER)
            .for_each(|r| r.names = Default::default());
        Stage {
            g: self.g,
            info: rest,
            segments: self.segments,
            named: self.named,
            decisions: self.decisions,
            memories: self.memories,
            goals: self.goals,
            total: self.total,
        }
    }

    /// Decisions, memories and goals of each memorable turn; the names and technical
    /// terms counted over all.
    fn read_turns(&mut self, turns: &[&Turn]) -> (Counted, Counted) {
        let mut names: Counted = Default::default();
        let mut terms: Counted = Default::default();
        for (i, (t, inf)) in turns.iter().zip(&self.info).enumerate() {
            let n = t.turn;
            let seg = &self.segments[inf.segment];
            let technical_turn = !matches!(inf.facts.kind, Kind::Explanation | Kind::ShortExchange);
            if let Some(s) = &t.speaker {
                count(&mut names, s, n.get(), Some(NameKind::Person), false);
            }
            if !inf.memorable {
                continue;
            }
            for (name, kind) in &inf.facts.names {
                count(&mut names, name, n.get(), Some(*kind), technical_turn);
            }
            for term in &inf.facts.technical {
                count(&mut terms, term, n.get(), None, true);
            }
            for (k, d) in inf.facts.decisions.iter().enumerate() {
                let id = decision_id(t, k + 1);
                self.g.add(decision_node(id.clone(), d, t, &inf.facts));
                self.g.link(&id, seg, "part_of", 1.0);
                let words = text::terms(&d.outcome).collect();
                self.decisions.push((i, id.into_string(), d.changes, words));
            }
            for (kind, sentence) in &inf.facts.memories {
                self.memories.add(&mut self.g, *kind, sentence, t, seg);
            }
            self.goals
                .extend(inf.facts.goals.iter().map(|s| (n.get(), s.clone())));
        }
        (names, terms)
    }
}

impl Linked {
    /// The whole graph, now that `turns` (the draft's turns) say which artifact
    /// versions they hold.
    pub(crate) fn finish(mut self, turns: &[TurnView<'_>], labels: &ArtifactLabels) -> Built {
        let g = &mut self.g;
        let (rest, concepts) = (&self.info, &self.named.concepts);
        artifacts(
            g,
            turns,
            rest,
            &self.segments,
            labels,
            &self.decisions,
            concepts,
        );
        requirements(g, rest, concepts);
        self.memories.finish(g, &self.named);
        super::importance::score(g, turns, rest, self.total);
        // Technical terms of every turn are freed side by side.
        self.info
            .into_par_iter()
            .with_max_len(super::FREED_TOGETHER)
            .for_each(drop);
        Built {
            nodes: self.g.nodes.into_iter().map(|n| *n).collect(),
            edges: self.g.edges,
            goals: self.goals,
        }
    }
}

/// An assistant (not a named person) speaks: its first-person sentences are not the
/// user's memories.
fn is_ai(t: &Turn) -> bool {
    t.role != "user" && t.speaker.is_none()
}

/// Most conversations chunked as one piece of parallel work.
const CHUNKED_TOGETHER: usize = 8;

/// Chunk each conversation and add a `segment` node per chunk, `next` between them.
fn segments(g: &mut Graph, turns: &[&Turn], info: &mut [TurnInfo]) -> Vec<String> {
    let mut by_conversation: Vec<Vec<usize>> = Vec::new();
    let mut index: FastMap<Option<&str>, usize> = FastMap::default();
    for (i, t) in turns.iter().enumerate() {
        let at = *index
            .entry(t.conversation_id.as_deref())
            .or_insert_with(|| {
                by_conversation.push(Vec::new());
                by_conversation.len() - 1
            });
        by_conversation[at].push(i);
    }
    // Conversations are chunked side by side, a few at a time (so that a thread
    // freed by the archive finds work to share); their nodes join the graph in order.
    let info_now: &[TurnInfo] = info;
    // Boxed: a node is large, and the vectors that gather them grow by doubling.
    let chunked: Vec<Vec<(Vec<usize>, Box<Node>)>> = by_conversation
        .par_iter()
        .with_max_len(CHUNKED_TOGETHER)
        .map(|members| {
            let input: Vec<ChunkTurn<'_>> = members
                .iter()
                .map(|&i| ChunkTurn {
                    session: turns[i].session_id.as_deref(),
                    scope: turns[i].scope,
                    tokens: text::tokens(&turns[i].content),
                    terms: &info_now[i].facts.terms,
                    question: turns[i].content.trim_end().ends_with('?'),
                })
                .collect();
            chunk(&input, |c| {
                let chunk_turns = members[c.turns].to_vec();
                let node = segment_node(turns, info_now, &chunk_turns, c.words);
                (chunk_turns, Box::new(node))
            })
        })
        .collect();
    let mut ids = Vec::new();
    for conversation in chunked {
        let mut previous: Option<String> = None;
        for (chunk_turns, node) in conversation {
            let id = node.id.to_string();
            g.add(node);
            for &i in &chunk_turns {
                info[i].segment = ids.len();
            }
            if let Some(p) = &previous {
                g.link(p, &id, "next", 1.0);
            }
            previous = Some(id.clone());
            ids.push(id);
        }
    }
    ids
}

/// Most frequent words named as a segment's keywords.
const SEGMENT_KEYWORDS: usize = 8;

/// The segment node of a chunk: its turns (`members`) and its content words, counted.
fn segment_node(
    turns: &[&Turn],
    info: &[TurnInfo],
    members: &[usize],
    words: FastMap<&str, usize>,
) -> Node {
    let first = turns[members[0]];
    let last = turns[members[members.len() - 1]];
    // Named by the first turn only: appending turns may grow the last chunk, never
    // move where a chunk starts, so the id stays.
    let id = NonEmpty::joined(&NonEmpty::from_static("seg-"), turn_ref(first));
    let mut kinds: FastMap<&'static str, usize> = FastMap::default();
    for &i in members {
        *kinds.entry(info[i].facts.kind.name()).or_default() += 1;
    }
    let mut ranked: Vec<(&str, usize)> = words.into_iter().collect();
    let order = |a: &(&str, usize), b: &(&str, usize)| b.1.cmp(&a.1).then(a.0.cmp(b.0));
    if ranked.len() > SEGMENT_KEYWORDS {
        // The eighth highest count, found among the counts alone: only the words that
        // reach it can rank, and they are few unless it is 1.
        let mut counts: Vec<usize> = ranked.iter().map(|w| w.1).collect();
        let (_, bar, _) = counts.select_nth_unstable_by(SEGMENT_KEYWORDS - 1, |a, b| b.cmp(a));
        let bar = *bar;
        ranked.retain(|w| w.1 >= bar);
    }
    if ranked.len() > SEGMENT_KEYWORDS {
        ranked.select_nth_unstable_by(SEGMENT_KEYWORDS, order);
        ranked.truncate(SEGMENT_KEYWORDS);
    }
    ranked.sort_by(order);
    let kind = kinds
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map(|k| k.0);
    let speaker = |t: &Turn| t.speaker.clone().unwrap_or_else(|| t.role.clone().into());
    let label = members
        .iter()
        .map(|&i| turns[i])
        .find(|t| t.content.split_whitespace().count() >= 3)
        .unwrap_or(first);
    Node {
        label: Some(clip(&format!("{}: {}", speaker(label), label.content), 100)),
        confidence: Some(Unit::clamped(1.0)),
        first_mentioned: Some(first.turn.get()),
        last_mentioned: Some(last.turn.get()),
        timestamp: first.timestamp.clone(),
        keywords: Some(
            // From a slice: collecting `ranked.into_iter()` would reuse its allocation
            // (a word-count pair is as large as a String) and keep every segment's
            // whole vocabulary as spare capacity (81 MB on a 50 MB transcript).
            ranked.iter().map(|&(w, _)| w.into()).collect(),
        ),
        tags: kind.map(|k| vec![k.into()]),
        provenance: Some(vec![provenance(members.iter().map(|&i| turns[i]))]),
        created_by: Some(CREATED_BY.into()),
        ..Node::new(id, NonEmpty::from_static("segment"))
    }
}

fn decision_node(id: NonEmpty, d: &super::analyze::Decision, t: &Turn, facts: &Facts) -> Node {
    let confidence = 0.6
        + if d.rationale.is_some() { 0.2 } else { 0.0 }
        + if d.options.is_some() { 0.1 } else { 0.0 };
    Node {
        label: Some(clip(&d.outcome, 80)),
        description: Some(d.sentence.clone()),
        outcome: Some(d.outcome.clone()),
        rationale: d.rationale.clone(),
        confidence: Some(Unit::clamped(round(confidence))),
        first_mentioned: Some(t.turn.get()),
        last_mentioned: Some(t.turn.get()),
        timestamp: t.timestamp.clone(),
        keywords: Some(text::terms(&d.outcome).take(6).map(Into::into).collect())
            .filter(|k: &Vec<ShortText>| !k.is_empty()),
        tags: Some(vec![facts.kind.name().into()]),
        metadata: d
            .options
            .as_ref()
            .map(|o| serde_json::json!({ "options": o })),
        provenance: Some(vec![provenance(std::iter::once(t))]),
        created_by: Some(CREATED_BY.into()),
        ..Node::new(id, NonEmpty::from_static("decision"))
    }
}

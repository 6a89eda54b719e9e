//! Retrieval over a memory file: archived turns ranked for a query by BM25 (stemmed,
//! stopwords removed; a tantivy index, stored in a packed file and read in place), a
//! second pass with the query widened by the best turns' words (pseudo-relevance
//! feedback), a share of each strong hit's score lent to the turns
//! around it, a boost for the sessions that hold the strongest hits, and one for the
//! turns of a person the query names; a "when" question favours turns that place
//! something in time, and turns inside a time the query names ("in May 2023", "last
//! week") come first among equals.

mod bytes;
mod context;
mod file_ref;
mod frames;
mod fulltext;
mod hybrid;
mod network;
mod nodes;
mod period;
mod pieces;
mod placed;
mod prompt;
mod rules;
mod scores;
mod sketch;
mod stored;
mod time;
mod tokens;
mod tuning;
mod turns;
mod vectors;
mod words;

use std::borrow::Cow;
use std::collections::HashMap;

use rayon::prelude::*;

use smg_format::{archive::decode_block, model::Turn, Document, Limits};

use crate::error::Result;
pub use context::ContextPack;
use fulltext::{Column64, Doc, FullText, FLAG_TIMED};
pub use hybrid::{Found, Item, SearchOptions, SearchResults};
pub use network::{linked_documents, open_file, FileRef, LinkWarning, Network, Opener};
pub(crate) use nodes::text_of as node_text;
pub(crate) use period::instant;
pub use period::Period;
pub use prompt::{prompt, Prompt};
use scores::Scores;
pub(crate) use stored::packed_only;
pub use stored::{
    encode_indexed, encode_with_search_index, has_search_index, ingest_into_indexed_bytes,
    packed_with_search_index, read_packed, with_search_index, EXTENSION,
};
pub use tokens::{Count, Tokens};
pub use tuning::Tuning;
pub use vectors::QueryVector;
pub(crate) use words::with_stem;
use words::{tokens, tokens_cached};

/// A ranked thing: a turn (position in the archive) or a node (its number).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub(crate) enum Key {
    Turn(u32),
    Node(u32),
}

/// Turns of a stored index compared field by field with the turns an append holds.
const SPOT_CHECKS: usize = 16;
/// Matches that go on to the neighbour, session, speaker and time rules; in a large
/// archive the rest (weak matches of common words) cannot reach the top.
const CANDIDATES: usize = 2000;
/// Turns whose words widen the query.
const FEEDBACK_TURNS: usize = 3;
/// Words added to the query from them.
const FEEDBACK_TERMS: usize = 10;
/// Weight of an added word against one of the query's own.
const FEEDBACK_WEIGHT: f64 = 0.3;
/// A word in more than this share of the turns is too common to widen a query by:
/// it tells little (its idf is low) and costs much (its postings are long).
const FEEDBACK_MOST_SHARE: f64 = 0.05;

/// One ranked turn with where it came from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Hit {
    /// The turn, as archived.
    pub turn: Turn,
    /// Relevance (higher is better; comparable within one query only).
    pub score: f64,
    /// The segment node the turn belongs to, when the graph has one.
    pub segment: Option<String>,
    /// The file of a network it came from ([`Network`]); `None` from one file alone.
    pub file: Option<FileRef>,
}

impl Hit {
    pub(crate) fn new(turn: Turn, score: f64, segment: Option<String>) -> Self {
        Hit {
            turn,
            score,
            segment,
            file: None,
        }
    }

    /// The hit as JSON, the shape `smg search --json` and the C ABI give: turn, score,
    /// speaker, role, content, time, segment and provenance, and the file of a
    /// network it came from.
    pub fn to_json(&self) -> serde_json::Value {
        let t = &self.turn;
        let mut v = serde_json::json!({
            "type": "turn", "turn": t.turn, "score": (self.score * 1e4).round() / 1e4,
            "speaker": t.speaker, "role": t.role, "content": t.content, "timestamp": t.timestamp,
            "segment": self.segment,
            "provenance": {"conversationId": t.conversation_id, "sessionId": t.session_id, "messageId": t.message_id},
        });
        if let Some(f) = &self.file {
            v["file"] = f.to_json();
        }
        v
    }
}

/// `text` on one line of at most `max` characters, cut with an ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    crate::text::clip(text, max)
}

/// A memory file loaded for retrieval: every archived turn and its index, and the
/// graph's nodes and theirs.
#[derive(Debug)]
pub struct Retriever {
    turns: turns::TurnStore,
    ix: Indexes,
    /// Whether `ix` was read from the file.
    stored: bool,
    /// How a context's budget is counted.
    tokens: Tokens,
    /// How meaning joins words.
    tuning: Tuning,
}

/// What retrieval knows of the turns and nodes besides their text: what a packed file
/// can store ([`stored`]) so that opening it skips indexing.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Indexes {
    /// Stored as a part of its own, read in place ([`stored`]): each turn's terms,
    /// session, speaker, instant, characters, sketch, and whether it places something
    /// in time.
    #[serde(skip)]
    index: FullText,
    /// Each turn's segment and the other nodes drawn from it; stored as a part of
    /// its own, read in place ([`stored`]).
    #[serde(skip)]
    placed: placed::Placed,
    /// Stored as a part of its own ([`stored`]).
    #[serde(skip)]
    nodes: nodes::Nodes,
    vectors: Option<vectors::Vectors>,
    /// The index terms of each speaker's name, which a turn's speaker number points
    /// into.
    speakers: Vec<Vec<String>>,
    /// Turns in each archive block, in order.
    block_sizes: Vec<u32>,
    /// SHA-256 of the turns' numbers in order: which turns these indexes describe.
    digest: [u8; 32],
    /// Working memory and active artifacts, for [`prompt`].
    memory: prompt::PromptMemory,
}

/// Every archived turn, without its source record (`extra`): retrieval never reads it,
/// and on a large archive the records are most of the memory (2.3 GB of a million
/// turns). Blocks decode in parallel, each stripped as it is decoded.
pub(crate) fn load_turns(doc: &Document, limits: &Limits) -> Result<(Vec<Turn>, Vec<u32>)> {
    let Some(archive) = doc.deep_archive.as_ref() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let method = archive.compression_method.unwrap_or_default();
    let blocks: Vec<Vec<Turn>> = archive
        .blocks()
        .par_iter()
        .map(|block| {
            let mut turns = decode_block(block, method, doc.artifact_vault.as_ref(), limits)?;
            for t in &mut turns {
                t.extra = Default::default();
            }
            Ok(turns)
        })
        .collect::<Result<_>>()?;
    let sizes = blocks.iter().map(|b| b.len() as u32).collect();
    Ok((blocks.into_iter().flatten().collect(), sizes))
}

/// How many of `turns`, in order, each of `doc`'s archive blocks holds, by the turn
/// numbers each block's range names; `None` unless each block's run of them begins
/// and ends with the numbers its range names, and the blocks hold them all.
fn block_sizes(doc: &Document, turns: &[Turn]) -> Option<Vec<u32>> {
    let blocks = doc.deep_archive.as_ref().map_or(&[][..], |a| a.blocks());
    let mut sizes = Vec::with_capacity(blocks.len());
    let mut at = 0;
    for block in blocks {
        let (first, last) = smg_format::archive::parse_turn_range(block.turn_range.as_str())?;
        let held = turns[at..]
            .iter()
            .take_while(|t| (first..=last).contains(&t.turn.get()))
            .count();
        let run = &turns[at..at + held];
        let ends = (run.first()?.turn.get(), run.last()?.turn.get());
        if ends != (first, last) {
            return None;
        }
        sizes.push(u32::try_from(held).ok()?);
        at += held;
    }
    (at == turns.len()).then_some(sizes)
}

impl Indexes {
    /// Whether stored indexes hold together: as many turns in the blocks as in the
    /// index, nodes and vectors inside what they number. A stored index is read only
    /// when it does; what is read per turn from the index is checked as it is read.
    fn holds_together(&self) -> bool {
        let n = self.index.len();
        self.block_sizes.iter().map(|&b| b as usize).sum::<usize>() == n
            && self.placed.len() == n
            && self.nodes.holds_together()
            && self
                .vectors
                .as_ref()
                .is_none_or(|v| v.keys_below(n, self.nodes.len()))
    }

    /// These indexes read back from a stored index.
    fn restored(mut self) -> Self {
        self.nodes = self.nodes.restored();
        self
    }
}

/// The turns' index's documents of `turns`, numbered as `numbered` says. Tokenising
/// (stemming) is most of the work of opening: in parallel, a few thousand turns at a
/// time so that the token lists never all exist at once.
fn turn_docs<'a>(turns: &'a [Turn], numbered: &'a [(u32, u32)]) -> impl Iterator<Item = Doc> + 'a {
    let pieces = turns.chunks(16384).zip(numbered.chunks(16384));
    pieces.flat_map(|(chunk, numbered)| {
        chunk
            .par_iter()
            .zip(numbered)
            .map(|(t, &n)| turn_doc(t, tokens_cached(&display(t)), n))
            .collect::<Vec<_>>()
    })
}

/// Turn `t` as the turns' index keeps it: its terms, its session and speaker
/// (`numbered`), instant, characters, sketch and flags.
fn turn_doc(t: &Turn, terms: Vec<String>, numbered: (u32, u32)) -> Doc {
    let shown = display(t).chars().count() as u64;
    let timed = time::places_in_time(&t.content);
    let numbers = vec![
        (Column64::Session, u64::from(numbered.0)),
        (Column64::Speaker, u64::from(numbered.1)),
        (Column64::Chars, shown),
        (Column64::Sketch, sketch::Sketch::of(&t.content).to_u64()),
        (Column64::Flags, if timed { FLAG_TIMED } else { 0 }),
    ];
    Doc {
        terms,
        numbers,
        time: t.timestamp.as_deref().and_then(time::instant),
        ..Doc::default()
    }
}

/// Each turn's segment node, and the other nodes drawn from each turn (`numbers`:
/// node id → number; `position`: turn number → place in the archive, of `n` turns).
fn graph_of(
    doc: &Document,
    numbers: &HashMap<&str, u32>,
    position: &HashMap<u64, usize>,
    n: usize,
) -> (Vec<Option<u32>>, HashMap<usize, Vec<u32>>) {
    let mut segment_of = vec![None; n];
    let mut drawn: HashMap<usize, Vec<u32>> = HashMap::new();
    for node in doc
        .semantic_graph
        .iter()
        .flat_map(|g| g.nodes.iter().flatten())
    {
        let Some(&s) = numbers.get(node.id.as_str()) else {
            continue;
        };
        for n in node
            .provenance
            .iter()
            .flatten()
            .flat_map(|p| p.turns.iter().flatten())
        {
            let Some(&i) = position.get(&(*n).get()) else {
                continue;
            };
            if node.kind == "segment" {
                segment_of[i] = Some(s);
            } else {
                let list = drawn.entry(i).or_default();
                if !list.contains(&s) {
                    list.push(s);
                }
            }
        }
    }
    (segment_of, drawn)
}

/// The number of `key`, giving it the next one when new.
fn number<K: std::hash::Hash + Eq>(numbers: &mut HashMap<K, u32>, key: K) -> u32 {
    let next = numbers.len() as u32;
    *numbers.entry(key).or_insert(next)
}

impl Retriever {
    /// Read `doc`'s archive (every block) and index its turns (kept without their
    /// source records).
    pub fn new(doc: &Document, limits: &Limits) -> Result<Self> {
        let (turns, block_sizes) = load_turns(doc, limits)?;
        Retriever::index(doc, turns, block_sizes, None)
    }

    /// [`Retriever::new`] of a memory changed since `previous` was made of it (a
    /// stored index, [`Retriever::open_packed`]): the turns `previous` indexed keep
    /// their index and frames, any new turns join them as a segment of their own, and
    /// what the graph tells of each turn is made anew — as [`Retriever::after_ingest`]
    /// adds to it, for a writer that holds no turns (every block is decoded).
    pub fn renewed(doc: &Document, previous: &Retriever, limits: &Limits) -> Result<Self> {
        let (turns, block_sizes) = load_turns(doc, limits)?;
        Retriever::index(doc, turns, block_sizes, Some(previous))
    }

    /// [`Retriever::new`] of a memory an ingest just wrote, from the turns it held
    /// ([`crate::ingest::ingest_keeping_turns`]) rather than from every block decoded
    /// again. `doc` must be the document that ingest wrote; when its archive's blocks
    /// do not hold those turns (the document was changed since: sections sealed
    /// again, turns taken out), it is read as [`Retriever::new`] reads it.
    ///
    /// With `previous`, the retriever of the memory before the ingest (its stored
    /// index, [`Retriever::open_packed`]), an append adds to it: the turns it
    /// indexed keep their index and frames, the new turns join them as a segment of
    /// their own, and only what the graph tells of each turn is made anew. A
    /// `previous` that does not describe the first of the turns, or fewer than
    /// half of them, is not used.
    pub fn after_ingest(
        doc: &Document,
        archived: crate::ingest::Archived,
        previous: Option<&Retriever>,
        limits: &Limits,
    ) -> Result<Self> {
        let turns = archived.into_turns();
        match block_sizes(doc, &turns) {
            Some(sizes) => Retriever::index(doc, turns, sizes, previous),
            None => Retriever::new(doc, limits),
        }
    }

    /// How many of `turns` (all of a memory's, in order) this retriever's indexes
    /// describe, when they describe the first of them and at least half: an index
    /// and frames of fewer are made anew (the frames' dictionary is trained on the
    /// turns it first framed). Turns are known by their numbers, and a few of them,
    /// spread over the archive, by every field: an ingest never changes a turn it
    /// archived, so only the index of another memory could differ.
    fn continued_by(&self, turns: &[Turn]) -> Option<usize> {
        let k = self.ix.index.len();
        let fits = k <= turns.len()
            && k * 2 >= turns.len()
            && self.turns.len() == k
            && self.ix.placed.len() == k
            && self.ix.digest == stored::digest(&turns[..k]);
        let mut checked: Vec<usize> = (0..SPOT_CHECKS).map(|j| j * k / SPOT_CHECKS).collect();
        checked.push(k.saturating_sub(1));
        checked.dedup();
        let same = |checked: &[usize]| {
            let read = self.turns.get_many(checked).ok()?;
            let same = read.iter().zip(checked).all(|(t, &i)| {
                let mut held = turns[i].clone();
                held.extra = Default::default();
                **t == held
            });
            same.then_some(())
        };
        (fits && (k == 0 || same(&checked).is_some())).then_some(k)
    }

    /// Index `turns`, the archive of `doc` (blocks of `block_sizes` turns), and
    /// `doc`'s graph; adding to the indexes of `previous` when it describes the
    /// first of the turns ([`Retriever::continued_by`]).
    fn index(
        doc: &Document,
        turns: Vec<Turn>,
        block_sizes: Vec<u32>,
        previous: Option<&Retriever>,
    ) -> Result<Self> {
        let position: HashMap<u64, usize> = turns
            .iter()
            .enumerate()
            .map(|(i, t)| (t.turn.get(), i))
            .collect();
        // The nodes' numbers by id, for the turns' place in the graph and the nodes'
        // vectors.
        let node_numbers = nodes::numbers(doc);
        let (segment_of, drawn) = graph_of(doc, &node_numbers, &position, turns.len());
        let mut sessions = HashMap::new();
        let mut names = HashMap::new();
        let mut numbered = Vec::with_capacity(turns.len());
        for t in &turns {
            let key = (t.conversation_id.as_deref(), t.session_id.as_deref());
            let session = number(&mut sessions, key);
            numbered.push((session, number(&mut names, t.speaker.as_deref())));
        }
        let mut speakers = vec![Vec::new(); names.len()];
        for (name, n) in names {
            speakers[n as usize] = name.map(tokens).unwrap_or_default();
        }
        let previous = previous.and_then(|p| Some((p, p.continued_by(&turns)?)));
        let index = match previous {
            Some((p, k)) => {
                p.ix.index
                    .appended(turn_docs(&turns[k..], &numbered[k..]))?
            }
            None => FullText::build(turn_docs(&turns, &numbered))?,
        };
        let placed = placed::Placed::build(&segment_of, &drawn)?;
        let nodes = nodes::Nodes::new(doc, index.latest())?;
        let vectors = vectors::Vectors::new(doc, &position, &node_numbers);
        let digest = stored::digest(&turns);
        let turns = match previous {
            Some((p, _)) => p.turns.appended(turns)?,
            None => turns::TurnStore::Loaded(turns),
        };
        Ok(Retriever {
            ix: Indexes {
                memory: prompt::PromptMemory::of(doc),
                block_sizes,
                digest,
                nodes,
                vectors,
                speakers,
                index,
                placed,
            },
            turns,
            stored: false,
            tokens: Tokens::Chars,
            tuning: Tuning::default(),
        })
    }

    /// Count a context's tokens with `tokens` (characters / 4 until set).
    pub fn set_tokens(&mut self, tokens: Tokens) {
        self.tokens = tokens;
    }

    /// How a context's tokens are counted.
    pub fn tokens(&self) -> &Tokens {
        &self.tokens
    }

    /// Join meaning to words as `tuning` says ([`Tuning::default`] until set): what
    /// `smg bench locomo --leave-one-out` tries.
    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.tuning = tuning;
    }

    /// Turn `i`'s instant (ms), [`time::NONE`] for a turn without one.
    fn when(&self, i: usize) -> i64 {
        self.ix.index.time(i as u32).unwrap_or(time::NONE)
    }

    /// Turn `i`'s number in column `c` of the index.
    fn value(&self, c: Column64, i: usize) -> Option<u64> {
        self.ix.index.number(c, i as u32)
    }

    /// Turn `i`'s session (conversation and session), numbered from 0.
    fn session(&self, i: usize) -> Option<u64> {
        self.value(Column64::Session, i)
    }

    /// The segment node turn `i` belongs to (its number among the nodes).
    fn segment_number(&self, i: usize) -> Option<u32> {
        self.ix.placed.segment(i)
    }

    /// The nodes drawn from turn `i` other than its segment (memories, decisions…),
    /// by their numbers among the nodes, in number order.
    fn drawn(&self, i: usize) -> Vec<u32> {
        let mut nodes: Vec<u32> = self.ix.placed.drawn(i);
        nodes.retain(|&n| (n as usize) < self.ix.nodes.len());
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// The id of node `n`.
    fn node_id(&self, n: u32) -> Result<String> {
        Ok(self.ix.nodes.entry(n)?.id)
    }

    /// The id of the segment node turn `i` belongs to.
    fn segment(&self, i: usize) -> Result<Option<String>> {
        self.segment_number(i).map(|s| self.node_id(s)).transpose()
    }

    /// The memory's latest instant (ms), of its turns and its nodes: the "now" of
    /// relative time words and of decay.
    fn now(&self) -> Option<i64> {
        self.ix.nodes.now()
    }

    /// What a prompt takes from the memory besides its turns.
    pub(crate) fn prompt_memory(&self) -> &prompt::PromptMemory {
        &self.ix.memory
    }

    /// How many graph nodes retrieval knows.
    pub fn node_count(&self) -> usize {
        self.ix.nodes.len()
    }

    /// How many turns the archive holds.
    pub fn turn_count(&self) -> usize {
        self.turns.len()
    }

    /// The archived turn at position `i` (in archive order, below
    /// [`Retriever::turn_count`]), without its source record (`extra`; read those
    /// with [`smg_format::archive::read_archive`]). From a packed file this reads its block.
    pub fn turn(&self, i: usize) -> Result<Cow<'_, Turn>> {
        self.turns.get(i)
    }

    /// The original turns of segment `id`, in order; an unknown id is `SMG-E201`.
    pub fn expand(&self, id: &str) -> Result<Vec<Turn>> {
        let s = self
            .ix
            .nodes
            .find(id)?
            .filter(|&s| self.ix.nodes.is_segment(s))
            .ok_or_else(|| crate::Error::UnknownNode(id.to_string()))?;
        let turns = self.ix.placed.turns_of(s);
        let turns: Vec<usize> = turns.into_iter().map(|i| i as usize).collect();
        let read = self.turns.get_many(&turns)?;
        Ok(read.into_iter().map(Cow::into_owned).collect())
    }

    /// The `k` best turns for `query`, best first (what a context is made of; a
    /// [`Retriever::search`] finds memory nodes as well).
    pub fn search_turns(&self, query: &str, k: usize) -> Result<Vec<Hit>> {
        self.scored(query, None, &Period::ALL)?
            .map_or_else(Vec::new, |s| s.top(k))
            .into_iter()
            .map(|(i, score)| {
                Ok(Hit::new(
                    self.turns.get(i)?.into_owned(),
                    score,
                    self.segment(i)?,
                ))
            })
            .collect()
    }

    /// The matching turns (the 2,000 best matches and the turns around them), as
    /// (position, see [`Retriever::turn`], score), best first; ties go to the earlier
    /// turn. With `vector`, the query's embedding by the file's model, the turns most
    /// like it in meaning join the words' matches (a query vector of another model or
    /// size is `SMG-E230`; a file without embeddings is searched by words alone).
    /// Only turns whose time falls in `period` are ranked.
    pub fn rank(
        &self,
        query: &str,
        vector: Option<&QueryVector>,
        period: &Period,
    ) -> Result<Vec<(usize, f64)>> {
        Ok(self
            .scored(query, vector, period)?
            .map_or_else(Vec::new, |s| s.ranked()))
    }

    /// The scores behind [`Retriever::rank`]; `None` when nothing can match.
    pub(crate) fn scored(
        &self,
        query: &str,
        vector: Option<&QueryVector>,
        period: &Period,
    ) -> Result<Option<Scores>> {
        let terms = query_terms(query);
        if !self.can_match(&terms, vector) {
            return Ok(None);
        }
        let first = self
            .ix
            .index
            .top(&terms, FEEDBACK_TURNS, period.range().as_ref())?;
        let more = self.feedback(&terms, &first)?;
        let widened = [terms.as_slice(), more.as_slice()].concat();
        self.scored_widened(query, &terms, &widened, vector, period)
    }

    /// Whether a query of `terms` (and `vector`) can match anything here.
    pub(crate) fn can_match(&self, terms: &[(String, f64)], vector: Option<&QueryVector>) -> bool {
        let meaning = self.ix.vectors.is_some() && vector.is_some();
        (!terms.is_empty() || meaning) && self.turns.len() > 0
    }

    /// [`Retriever::scored`] of the query `raw` (whose terms are `terms`) once
    /// widened by feedback to `widened`.
    fn scored_widened(
        &self,
        raw: &str,
        terms: &[(String, f64)],
        widened: &[(String, f64)],
        vector: Option<&QueryVector>,
        period: &Period,
    ) -> Result<Option<Scores>> {
        if !self.can_match(terms, vector) {
            return Ok(None);
        }
        let best = self.candidates(widened, vector, period, None)?;
        Ok(Some(self.ruled(best, raw, terms, period)))
    }

    /// The [`CANDIDATES`] best matches of the widened query `widened` (and the
    /// turns most like `vector` in meaning), each term weighed by `stats` (a
    /// network's) when given; ascending by turn unless `vector` joins them.
    pub(crate) fn candidates(
        &self,
        widened: &[(String, f64)],
        vector: Option<&QueryVector>,
        period: &Period,
        stats: Option<&fulltext::Stats>,
    ) -> Result<Vec<(u32, f64)>> {
        let within = period.range();
        let mut best = self
            .ix
            .index
            .candidates(widened, CANDIDATES, within.as_ref(), stats)?;
        if let Some((vectors, v)) = self.ix.vectors.as_ref().zip(vector) {
            let inside = self.inside(period);
            let similar = vectors.turn_similarities(v, CANDIDATES, inside.as_ref())?;
            best = tuning::blend(best, similar, &self.tuning, CANDIDATES);
        }
        Ok(best)
    }

    /// The scores of the candidate matches `best` of the query `raw` (whose terms
    /// are `terms`) once the turn rules have run on them, in `period`.
    pub(crate) fn ruled(
        &self,
        mut best: Vec<(u32, f64)>,
        raw: &str,
        terms: &[(String, f64)],
        period: &Period,
    ) -> Scores {
        // In turn order, so that what is summed later is summed the same way in every run.
        best.sort_unstable_by_key(|&(d, _)| d);
        let mut scores = Scores::new(best);
        self.apply_rules(&mut scores, raw, terms);
        // The rules lend to a hit's neighbours, which may lie outside.
        if !period.is_all() {
            scores.retain(|d| self.in_period(d as usize, period));
        }
        scores
    }

    /// The turns and nodes whose time falls in `period`, from the indexes' time
    /// columns (the sets their searches of words in `period` use); `None` for the
    /// whole of time.
    fn inside(&self, period: &Period) -> Option<period::Inside> {
        let range = period.range()?;
        let (turns, nodes) = rayon::join(
            || self.ix.index.inside(&range),
            || self.ix.nodes.index.inside(&range),
        );
        Some(period::Inside { turns, nodes })
    }

    /// Whether turn `i`'s time falls in `period`.
    fn in_period(&self, i: usize, period: &Period) -> bool {
        period.is_all() || period.contains_ms(self.ix.index.time(i as u32))
    }

    /// The words (not in the query) that best distinguish its first few hits, weighted.
    fn feedback(
        &self,
        query: &[(String, f64)],
        first: &[(u32, f64)],
    ) -> Result<Vec<(String, f64)>> {
        let positions: Vec<usize> = first
            .iter()
            .take(FEEDBACK_TURNS)
            .map(|&(i, _)| i as usize)
            .collect();
        let texts: Vec<String> = self
            .turns
            .get_many(&positions)?
            .iter()
            .map(|t| display(t))
            .collect();
        let index = &self.ix.index;
        Ok(widen(query, &texts, |t| index.df(t), index.len()))
    }
}

/// A query's terms, each of weight 1.
pub(crate) fn query_terms(query: &str) -> Vec<(String, f64)> {
    tokens(query).into_iter().map(|t| (t, 1.0)).collect()
}

/// The words of `texts` (the first hits of `query`, at most [`FEEDBACK_TURNS`]) that
/// best tell them apart, weighted, to widen the query by: words of `total` documents
/// in which `df` finds them.
pub(crate) fn widen(
    query: &[(String, f64)],
    texts: &[String],
    df: impl Fn(&str) -> usize,
    total: usize,
) -> Vec<(String, f64)> {
    let mut weight: HashMap<String, (f64, usize)> = HashMap::new();
    for text in texts.iter().take(FEEDBACK_TURNS) {
        for t in tokens(text) {
            let n = df(&t);
            if n > 1 && n as f64 <= FEEDBACK_MOST_SHARE * total as f64 {
                weight.entry(t).or_insert((0.0, n)).0 += 1.0;
            }
        }
    }
    let idf = |n: usize| ((total as f64 - n as f64 + 0.5) / (n as f64 + 0.5) + 1.0).ln();
    let mut extra: Vec<(String, f64)> = weight
        .into_iter()
        .filter(|(t, _)| !query.iter().any(|q| &q.0 == t))
        .map(|(t, (count, n))| (t, count * idf(n)))
        .collect();
    extra.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let top = extra.first().map_or(1.0, |e| e.1).max(f64::MIN_POSITIVE);
    extra
        .into_iter()
        .take(FEEDBACK_TERMS)
        .map(|(t, w)| (t, FEEDBACK_WEIGHT * w / top))
        .collect()
}

/// The index terms of a text (content words, stemmed).
pub(crate) fn index_terms(text: &str) -> Vec<String> {
    tokens(text)
}

/// A turn as a context shows it: `speaker: content`.
pub fn display(t: &Turn) -> String {
    let who = t.speaker.as_deref().unwrap_or(&t.role);
    format!("{who}: {}", t.content)
}

#[cfg(test)]
mod appended;
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ingest::{ingest, IngestOptions, Silent};

    /// A memory ingested from `(speaker, text)` lines: the first four in session s1.
    pub(crate) fn document(lines: &[(&str, &str)]) -> Document {
        let jsonl: String = lines
            .iter()
            .enumerate()
            .map(|(i, (who, text))| {
                format!(
                    "{}\n",
                    serde_json::json!({"conversation_id": "c", "message_id": i.to_string(), "speaker": who, "content": text, "session_id": if i < 4 { "s1" } else { "s2" }})
                )
            })
            .collect();
        ingested(jsonl)
    }

    /// A memory ingested from JSON Lines (spec §16).
    pub(crate) fn ingested(jsonl: String) -> Document {
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "1970-01-01T00:00:00Z",
        ));
        let input = crate::ingest::testing::jsonl(jsonl.into_bytes());
        ingest(&mut doc, vec![input], &IngestOptions::default(), &Silent).unwrap();
        doc
    }

    /// `doc` with an embedding of model `toy` for each of its turns 1, 2, … in turn.
    pub(crate) fn with_turn_vectors(doc: &mut Document, vectors: Vec<Vec<f64>>) {
        use smg_format::model::{Embedding, Ordinal, Vector, VectorIndex};
        let dimensions = vectors.first().map_or(1, Vec::len) as u64;
        let embeddings = (1..).zip(vectors).map(|(t, v)| Embedding {
            turn: Some(Ordinal::new(t).unwrap()),
            vector: Vector::new(v).unwrap(),
            ..Embedding::default()
        });
        doc.deep_archive.as_mut().unwrap().vector_index = Some(VectorIndex {
            enabled: true,
            model: Some("toy".into()),
            dimensions: Some(Ordinal::new(dimensions).unwrap()),
            embeddings: Some(embeddings.collect()),
            ..VectorIndex::default()
        });
    }

    pub(super) fn memory(lines: &[(&str, &str)]) -> Retriever {
        Retriever::new(&document(lines), &Limits::default()).unwrap()
    }

    #[test]
    fn turns_are_kept_without_their_source_records() {
        let r = memory(CHAT);
        assert_eq!(r.turn_count(), CHAT.len());
        assert!((0..CHAT.len()).all(|i| r.turn(i).unwrap().extra.is_empty()));
        assert_eq!(r.turn(2).unwrap().content, CHAT[2].1);
        let seg = r.segment(2).unwrap().unwrap();
        let turns = r.expand(&seg).unwrap();
        assert!(turns.iter().any(|t| t.content == CHAT[2].1));
        assert!(turns.windows(2).all(|w| w[0].turn < w[1].turn));
        assert_eq!(r.expand("seg-999").unwrap_err().code(), "SMG-E201");
        let fact = (0..r.node_count() as u32)
            .find(|&n| !r.ix.nodes.is_segment(n))
            .unwrap();
        let fact = r.ix.nodes.entry(fact).unwrap().id;
        assert_eq!(
            r.expand(&fact).unwrap_err().code(),
            "SMG-E201",
            "not a segment"
        );
        assert_eq!(
            r.segment(0).unwrap(),
            r.search_turns("weekend", 1).unwrap()[0].segment
        );
    }

    #[test]
    fn an_ingest_hands_over_the_turns_its_archive_holds() {
        use crate::ingest::ingest_keeping_turns;
        let sample = |name: &str| {
            crate::ingest::testing::jsonl(
                std::fs::read(
                    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("../fixtures/ingest")
                        .join(name),
                )
                .unwrap(),
            )
        };
        let limits = Limits::default();
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "1970-01-01T00:00:00Z",
        ));
        // Some turns keep their source record in working memory, most do not.
        let mut archive = smg_format::archive::ArchiveOptions::default();
        archive.max_turns = 4;
        let options = IngestOptions {
            recent_turns: 3,
            archive,
            ..Default::default()
        };
        for (file, more) in [
            ("sample-chat.jsonl", None),
            ("sample-chat.jsonl", Some(CHAT)),
        ] {
            let mut inputs = vec![sample(file)];
            if let Some(lines) = more {
                inputs.push(crate::ingest::testing::jsonl(
                    lines
                        .iter()
                        .enumerate()
                        .map(|(i, (who, text))| {
                            format!(
                                "{}\n",
                                serde_json::json!({"conversation_id": "more",
                                "message_id": i.to_string(), "speaker": who, "content": text})
                            )
                        })
                        .collect::<String>()
                        .into_bytes(),
                ));
            }
            let (_, archived) = ingest_keeping_turns(&mut doc, inputs, &options, &Silent).unwrap();
            let turns = archived.into_turns();
            let (read, sizes) = load_turns(&doc, &limits).unwrap();
            assert!(sizes.len() > 2, "several blocks: {sizes:?}");
            assert_eq!(turns, read, "the turns, as every block decoded gives them");
            assert_eq!(block_sizes(&doc, &turns), Some(sizes));
        }
        // Turns a block does not hold are not taken for its own.
        let (turns, _) = load_turns(&doc, &limits).unwrap();
        assert_eq!(block_sizes(&doc, &turns[1..]), None);
        assert_eq!(block_sizes(&doc, &turns[..turns.len() - 1]), None);
    }

    pub(super) const CHAT: &[(&str, &str)] = &[
        ("Ann", "Guess where I went last weekend?"),
        ("Bob", "No idea, tell me!"),
        (
            "Ann",
            "I went hiking in the Rocky Mountains with my sister.",
        ),
        ("Bob", "Sounds amazing, was it cold?"),
        ("Ann", "My new job at the bakery starts on Monday."),
        ("Bob", "Congrats on the bakery job!"),
    ];

    #[test]
    fn a_word_in_most_turns_does_not_widen_a_query() {
        let mut lines: Vec<(String, String)> = (0..40)
            .map(|i| ("Ann".to_string(), format!("coffee talk number{i} today")))
            .collect();
        lines.push(("Bob".into(), "espresso with coffee and croissant".into()));
        lines.push(("Bob".into(), "a croissant again, espresso too".into()));
        let lines: Vec<(&str, &str)> = lines
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let r = memory(&lines);
        let query = vec![("espresso".to_string(), 1.0)];
        let first = r.ix.index.top(&query, FEEDBACK_TURNS, None).unwrap();
        let more: Vec<String> = r
            .feedback(&query, &first)
            .unwrap()
            .into_iter()
            .map(|t| t.0)
            .collect();
        assert!(more.iter().any(|t| t.starts_with("croissant")), "{more:?}");
        assert!(
            !more.iter().any(|t| t == "coffe" || t == "coffee"),
            "{more:?}"
        );
    }

    #[test]
    fn the_matching_turn_ranks_first_and_its_neighbours_follow() {
        let r = memory(CHAT);
        let hits = r.search_turns("Where did Ann go hiking?", 3).unwrap();
        assert_eq!(hits[0].turn.turn, 3);
        // The turns around it, in its session, follow: here the question before it.
        assert!(
            hits[1..]
                .iter()
                .any(|h| [1, 2, 4].contains(&h.turn.turn.get())),
            "{hits:?}"
        );
        assert!(hits[0].segment.is_some());
        assert!(r.search_turns("", 5).unwrap().is_empty());
        assert!(r.search_turns("the of and", 5).unwrap().is_empty());
        let long = "bakery ".repeat(15_000);
        assert!(r.search_turns(&long, 1).unwrap()[0]
            .turn
            .content
            .contains("bakery"));
    }

    #[test]
    fn time_questions_and_named_speakers() {
        assert!(time::is_when_question("When did Ann move?"));
        assert!(time::is_when_question("How long has Bob been painting?"));
        assert!(!time::is_when_question("What did Ann paint?"));
        assert!(time::places_in_time("I went there last week"));
        assert!(time::places_in_time("Back in 2019 I lived in Oslo"));
        assert!(!time::places_in_time("I may go, who knows"));
        let r = memory(&[
            ("Ann", "I love my new bike"),
            ("Bob", "I love my new bike too"),
            ("Ann", "The bike came yesterday"),
            ("Bob", "Nice"),
        ]);
        // Both say it; the one the question names comes first.
        assert_eq!(
            r.search_turns("Does Bob love the bike?", 1).unwrap()[0]
                .turn
                .speaker
                .as_deref(),
            Some("Bob")
        );
        assert_eq!(
            r.search_turns("When did Ann get the bike?", 1).unwrap()[0]
                .turn
                .turn,
            3
        );
    }

    #[test]
    fn context_fits_the_budget_and_names_what_is_left_out() {
        let r = memory(CHAT);
        let none = r.context("bakery job", None, 0, &Period::ALL).unwrap();
        assert!(none.items.is_empty() && none.text.is_empty());
        let all = r
            .context("bakery job", None, 1_000_000_000, &Period::ALL)
            .unwrap();
        assert!(all.items.iter().any(|h| h.turn.turn == 5));
        let small = r
            .context("hiking mountains sister bakery", None, 20, &Period::ALL)
            .unwrap();
        assert!(small.tokens <= 20, "{small:?}");
        assert!(!small.items.is_empty());
        assert_eq!(
            crate::text::tokens(&small.text),
            small.text.chars().count().div_ceil(4)
        );
    }
}

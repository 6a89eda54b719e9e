//! Answers that fit a context window (issue 77): a read of the knowledge graph gives
//! at most a page of entities — the most relevant first when not all fit — and at
//! most so many characters, and says how many matched and where the next page starts.

use serde::Serialize;

use super::{KnowledgeGraph, Relation, View};
use crate::fast::FastSet;

/// How much one answer may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// The first entity of the ranking to give.
    pub offset: usize,
    /// At most this many entities.
    pub limit: usize,
    /// At most this many characters of the answer as the tools print it (pretty JSON).
    pub max_chars: usize,
}

impl Page {
    /// Entities per answer unless a client asks for another `limit`.
    pub const LIMIT: usize = 50;
    /// Characters per answer.
    pub const MAX_CHARS: usize = 64_000;

    /// The first page: [`Page::LIMIT`] entities, [`Page::MAX_CHARS`] characters.
    pub fn first() -> Page {
        Page {
            offset: 0,
            limit: Page::LIMIT,
            max_chars: Page::MAX_CHARS,
        }
    }
}

/// One page of a read: the reference server's shape, and — only when the page does
/// not hold everything that matched — how many entities matched in all and where the
/// next page starts, so that an answer that fits is the reference server's own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Paged {
    /// The entities of this page and the relations that touch them.
    #[serde(flatten)]
    pub graph: KnowledgeGraph,
    /// Entities that matched in all, when this page does not hold them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<usize>,
    /// The `offset` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Relations that touch this page's entities in all, when not all of them fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relations_matched: Option<usize>,
}

impl View {
    /// [`View::search`] a page at a time: the entities that match `query`, the best
    /// first (the query as the entity's whole name, then in its name, its type, then
    /// in the most observations; graph order between equals).
    pub fn search_page(&self, query: &str, page: &Page) -> Paged {
        let q = query.to_lowercase();
        let mut hits: Vec<(usize, u32)> = self
            .matching(&q)
            .map(|k| (k, self.relevance(k, &q)))
            .collect();
        hits.sort_by_key(|&(k, score)| (std::cmp::Reverse(score), k));
        self.page(hits.into_iter().map(|(k, _)| k).collect(), page)
    }

    /// [`View::open`] a page at a time, the entities in the order asked for.
    pub fn open_page(&self, names: &[String], page: &Page) -> Paged {
        let mut seen = FastSet::default();
        let at = names
            .iter()
            .filter_map(|n| self.entity_at.get(n).copied())
            .filter(|k| seen.insert(*k))
            .collect();
        self.page(at, page)
    }

    /// The whole graph a page at a time, the most important entities first.
    pub fn graph_page(&self, page: &Page) -> Paged {
        let mut at: Vec<usize> = (0..self.graph.entities.len()).collect();
        at.sort_by(|&a, &b| {
            self.importance[b]
                .total_cmp(&self.importance[a])
                .then(a.cmp(&b))
        });
        self.page(at, page)
    }

    /// The page of `ranked` (entity positions, best first) that `page` asks for. When
    /// everything matched fits, it is given in graph order, as the reference server
    /// gives it.
    fn page(&self, ranked: Vec<usize>, page: &Page) -> Paged {
        let matched = ranked.len();
        if page.offset == 0 && matched <= page.limit {
            let mut whole = ranked.clone();
            whole.sort_unstable();
            let all = self.around(whole.iter().map(|&k| &self.graph.entities[k]));
            if chars(&all) <= page.max_chars {
                return Paged::whole(all);
            }
        }
        let rest = ranked.get(page.offset..).unwrap_or_default();
        let take = &rest[..rest.len().min(page.limit)];
        let graph_of = |n: usize| self.around(take[..n].iter().map(|&k| &self.graph.entities[k]));
        let fit = most_that_fit(take.len(), |n| chars(&graph_of(n)) <= page.max_chars);
        let mut graph = graph_of(fit.max(1).min(take.len()));
        let relations_matched = fit_relations(&mut graph, page.max_chars);
        let given = graph.entities.len();
        let next = page.offset + given;
        Paged {
            graph,
            matched: Some(matched),
            next_offset: (next < matched).then_some(next),
            relations_matched,
        }
    }

    /// A score of entity `k` for the lower-cased query `q` it matches.
    fn relevance(&self, k: usize, q: &str) -> u32 {
        let e = &self.graph.entities[k];
        let name = e.name.to_lowercase();
        let in_observations = e
            .observations
            .iter()
            .filter(|o| o.to_lowercase().contains(q))
            .count()
            .min(9) as u32;
        u32::from(name == q) * 1000
            + u32::from(name.contains(q)) * 100
            + u32::from(e.entity_type.to_lowercase().contains(q)) * 10
            + in_observations
    }
}

impl Paged {
    fn whole(graph: KnowledgeGraph) -> Paged {
        Paged {
            graph,
            matched: None,
            next_offset: None,
            relations_matched: None,
        }
    }
}

/// The characters of `g` as the tools print it.
fn chars(g: &impl Serialize) -> usize {
    serde_json::to_string_pretty(g).map_or(usize::MAX, |s| s.chars().count())
}

/// `g`'s relations cut to the most that fit `max_chars` with its entities; how many
/// there were when some were cut.
fn fit_relations(g: &mut KnowledgeGraph, max_chars: usize) -> Option<usize> {
    if chars(g) <= max_chars {
        return None;
    }
    let all: Vec<Relation> = std::mem::take(&mut g.relations);
    let fit = most_that_fit(all.len(), |n| {
        g.relations = all[..n].to_vec();
        chars(g) <= max_chars
    });
    g.relations = all[..fit].to_vec();
    Some(all.len())
}

/// The largest `n` ≤ `up_to` for which `fits(n)` holds, `fits` holding for every `n`
/// below one it holds for (an answer only grows with what it holds): by halving.
fn most_that_fit(up_to: usize, mut fits: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, up_to);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

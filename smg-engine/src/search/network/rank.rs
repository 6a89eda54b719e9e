//! One ranking over a network's files. Turns: each file's BM25 weighs the query's
//! terms by the statistics of all the files (as one index of them all would), the
//! query is widened by the words of the network's best first hits, the network's
//! best candidates are kept as one file's would be, each file's turn rules run on
//! its own of them, and the scores, in one scale, are merged. Nodes: each
//! list (by text, drawn from the best turns, by the graph, by meaning) is merged over
//! the files by its scores, then the lists are fused by reciprocal rank as one
//! file's are. The same turn held by two files is kept once, where it ranks best.

use std::collections::HashMap;

use rayon::prelude::*;
use smg_format::model::Turn;

use super::super::context::{needed, pack};
use super::super::fulltext::Stats;
use super::super::hybrid::{diversify, fused, LIST};
use super::super::prompt::{compose, Prompt};
use super::super::{
    display, query_terms, widen, Column64, Found, Item, Key, Period, QueryVector, Retriever,
    SearchOptions, SearchResults, CANDIDATES, FEEDBACK_TURNS,
};
use super::{FileRef, Network};
use crate::error::Result;

/// A turn of a network: (file, position in its archive, score).
type Ranked = (usize, usize, f64);

impl Network {
    /// The best turns and memory nodes of every file for `query`, `k` of each, in
    /// one ranking ([`super::super::Retriever::search`] of one file); with more than
    /// one file each found says which holds it, and the warnings name the links not
    /// followed.
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<SearchResults> {
        // One file alone answers as it always has: no file to name.
        let mut out = if self.members.len() == 1 {
            self.root().search(query, options)?
        } else {
            self.search_all(query, options)?
        };
        let links = self.warnings.iter().map(ToString::to_string);
        out.warnings.splice(0..0, links);
        Ok(out)
    }

    /// The context for `query` within `budget` tokens ([`super::super::prompt()`]): the
    /// file asked's working memory and artifacts, and the best turns of every file
    /// in the one budget, each group of them under a date line that names its file.
    pub fn prompt(
        &self,
        query: &str,
        vector: Option<&QueryVector>,
        budget: usize,
        period: &Period,
    ) -> Result<Prompt> {
        let root = self.root();
        let mut p = compose(root.prompt_memory(), root.tokens(), budget, |room| {
            let ranked = self.rank(query, vector, period, needed(room))?;
            let members: Vec<(&Retriever, Option<&FileRef>)> =
                self.members.iter().map(|(f, r)| (r, Some(f))).collect();
            pack(&members, &ranked, room, root.tokens())
        })?;
        let links = self.warnings.iter().map(ToString::to_string);
        p.warnings.splice(0..0, links);
        Ok(p)
    }

    /// The `n` best turns of the network for `query`, best first, each once.
    pub(super) fn rank(
        &self,
        query: &str,
        vector: Option<&QueryVector>,
        period: &Period,
        n: usize,
    ) -> Result<Vec<Ranked>> {
        let terms = query_terms(query);
        if !self
            .members
            .iter()
            .any(|(_, r)| r.can_match(&terms, vector))
        {
            return Ok(Vec::new());
        }
        let within = period.range();
        let words: Vec<&str> = terms.iter().map(|t| t.0.as_str()).collect();
        let of_query = self.stats(&words);
        let first: Vec<Vec<Ranked>> = self
            .members
            .par_iter()
            .enumerate()
            .map(|(m, (_, r))| {
                let top = r.ix.index.top_with(
                    &terms,
                    FEEDBACK_TURNS,
                    within.as_ref(),
                    Some(&of_query),
                )?;
                Ok(top.into_iter().map(|(i, s)| (m, i as usize, s)).collect())
            })
            .collect::<Result<_>>()?;
        let first = best_first(first.concat(), FEEDBACK_TURNS);
        let texts: Vec<String> = first
            .iter()
            .map(|&(m, i, _)| Ok(display(&*self.members[m].1.turns.get(i)?)))
            .collect::<Result<_>>()?;
        let mut counted: Vec<String> = texts
            .iter()
            .flat_map(|t| super::super::index_terms(t))
            .collect();
        counted.extend(words.iter().map(|w| w.to_string()));
        counted.sort_unstable();
        counted.dedup();
        let stats = self.stats(&counted.iter().map(String::as_str).collect::<Vec<_>>());
        let more = widen(&terms, &texts, |t| stats.df(t), stats.docs());
        let widened = [terms.as_slice(), more.as_slice()].concat();
        let found: Vec<Vec<(u32, f64)>> = self
            .members
            .par_iter()
            .map(|(_, r)| match r.can_match(&terms, vector) {
                true => r.candidates(&widened, vector, period, Some(&stats)),
                false => Ok(Vec::new()),
            })
            .collect::<Result<_>>()?;
        // The network's best candidates, as one file of all the turns would keep
        // them: the rules run on those alone, each file's on its own.
        let mut shares: Vec<Vec<(u32, f64)>> = vec![Vec::new(); self.members.len()];
        let all = found
            .into_iter()
            .enumerate()
            .flat_map(|(m, list)| list.into_iter().map(move |(i, s)| (m, i as usize, s)));
        for (m, i, s) in best_first(all.collect(), CANDIDATES) {
            shares[m].push((i as u32, s));
        }
        let each: Vec<Vec<Ranked>> = self
            .members
            .par_iter()
            .zip(shares)
            .enumerate()
            .map(|(m, ((_, r), share))| {
                if share.is_empty() {
                    return Vec::new();
                }
                let top = r.ruled(share, query, &terms, period).top(n);
                top.into_iter().map(|(i, s)| (m, i, s)).collect()
            })
            .collect();
        // Each file gives its best `n`: the network's best `n` are among the best
        // of their union, those a turn held twice leaves out made up from the next.
        let all = each.concat();
        let mut take = n.saturating_mul(2);
        loop {
            let once = self.once(best_first(all.clone(), take), n)?;
            if once.len() >= n || take >= all.len() {
                return Ok(once);
            }
            take = take.saturating_mul(2);
        }
    }

    /// The statistics of `terms` over every file.
    fn stats(&self, terms: &[&str]) -> Stats {
        let mut stats = Stats::default();
        for (_, r) in &self.members {
            stats.add(&r.ix.index, terms.iter().copied());
        }
        stats
    }

    /// The first `n` of `ranked` with each turn that another file holds too, ranked
    /// higher, left out.
    /// Two turns are the same when they say the same at the same time, in the same
    /// role, of the same conversation and message: compared first by what the
    /// indexes keep (time, length, sketch of the words), then, for the few alike so
    /// far, by reading both.
    fn once(&self, ranked: Vec<Ranked>, n: usize) -> Result<Vec<Ranked>> {
        let mut kept: Vec<Ranked> = Vec::with_capacity(n.min(ranked.len()));
        let mut by_print: HashMap<(i64, Option<u64>, Option<u64>), Vec<usize>> = HashMap::new();
        for (m, i, s) in ranked {
            let r = &self.members[m].1;
            let print = (
                r.when(i),
                r.value(Column64::Chars, i),
                r.value(Column64::Sketch, i),
            );
            let alike = by_print.entry(print).or_default();
            let mut held = false;
            for &k in alike.iter() {
                let (km, ki, _) = kept[k];
                if km != m && same_turn(&*self.members[km].1.turns.get(ki)?, &*r.turns.get(i)?) {
                    held = true;
                    break;
                }
            }
            if !held {
                alike.push(kept.len());
                kept.push((m, i, s));
                if kept.len() == n {
                    break;
                }
            }
        }
        Ok(kept)
    }

    /// [`Network::search`] over more than one file.
    fn search_all(&self, query: &str, options: &SearchOptions) -> Result<SearchResults> {
        let n = options.k.max(LIST);
        let period = &options.period;
        let turns = self.rank(query, options.vector.as_ref(), period, n)?;
        // Node texts, too, weighed by the statistics of every file's nodes.
        let words = super::super::words::tokens(query);
        let mut node_stats = Stats::default();
        for (_, r) in &self.members {
            node_stats.add(&r.ix.nodes.index, words.iter().map(String::as_str));
        }
        let each: Vec<_> = self
            .members
            .par_iter()
            .enumerate()
            .map(|(m, (_, r))| {
                let own: Vec<(usize, f64)> = turns
                    .iter()
                    .filter(|t| t.0 == m)
                    .map(|&(_, i, s)| (i, s))
                    .collect();
                let by_text = r.nodes_by_text(query, n, period, Some(&node_stats))?;
                r.ranked_nodes(query, options, &own, by_text)
            })
            .collect::<Result<_>>()?;
        let mut warnings: Vec<String> = Vec::new();
        let mut sources: Vec<(&'static str, Vec<Ranked>)> = Vec::new();
        for (m, (lists, said)) in each.into_iter().enumerate() {
            for w in said {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            for (source, list) in lists {
                let at = match sources.iter().position(|s| s.0 == source) {
                    Some(at) => at,
                    None => {
                        sources.push((source, Vec::new()));
                        sources.len() - 1
                    }
                };
                sources[at]
                    .1
                    .extend(list.into_iter().map(|(i, s)| (m, i as usize, s)));
            }
        }
        let node_lists: Vec<(&'static str, Vec<(usize, Key)>)> = sources
            .into_iter()
            .map(|(source, list)| {
                let list = best_first(list, n);
                (
                    source,
                    list.into_iter()
                        .map(|(m, i, _)| (m, Key::Node(i as u32)))
                        .collect(),
                )
            })
            .collect();
        let turn_list = [(
            "turns",
            turns
                .iter()
                .map(|&(m, i, _)| (m, Key::Turn(i as u32)))
                .collect(),
        )];
        let (turns, nodes) = rayon::join(
            || self.fuse(&turn_list, options.k),
            || self.fuse(&node_lists, options.k),
        );
        Ok(SearchResults {
            turns: turns?,
            nodes: nodes?,
            warnings,
        })
    }

    /// Reciprocal rank fusion of `lists` over the files, the first places chosen by
    /// MMR (near-duplicates across files too); `k` at most, each read from its file.
    fn fuse(&self, lists: &[(&'static str, Vec<(usize, Key)>)], k: usize) -> Result<Vec<Found>> {
        let fused = fused(lists);
        let chosen = diversify(&fused, k, |(m, key)| self.members[m].1.sketch(key));
        chosen
            .into_iter()
            .map(|at| {
                let ((m, key), score, sources) = fused[at].clone();
                let (file, r) = &self.members[m];
                let item = match key {
                    Key::Turn(t) => Item::Turn {
                        turn: r.turns.get(t as usize)?.into_owned(),
                        segment: r.segment(t as usize)?,
                    },
                    Key::Node(i) => r.node_item(i)?,
                };
                Ok(Found {
                    score,
                    sources,
                    item,
                    file: Some(file.clone()),
                })
            })
            .collect()
    }
}

/// The `n` best of `ranked`, best first; ties to the earlier file, then turn.
fn best_first(mut ranked: Vec<Ranked>, n: usize) -> Vec<Ranked> {
    let by = |a: &Ranked, b: &Ranked| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1));
    if n == 0 {
        return Vec::new();
    }
    if n < ranked.len() {
        ranked.select_nth_unstable_by(n - 1, by);
        ranked.truncate(n);
    }
    ranked.sort_unstable_by(by);
    ranked
}

/// Whether two files' turns are one turn: the same words, said at the same time in
/// the same role by the same speaker, of the same conversation and message.
fn same_turn(a: &Turn, b: &Turn) -> bool {
    a.content == b.content
        && a.timestamp == b.timestamp
        && a.role == b.role
        && a.speaker == b.speaker
        && a.conversation_id == b.conversation_id
        && a.message_id == b.message_id
}

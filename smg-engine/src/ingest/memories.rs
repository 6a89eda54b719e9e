//! Typed memories (memgraph): one per sentence that says a fact, preference, project,
//! relationship, constraint or event. A near-duplicate (term cosine ≥ 0.70) merges into
//! the earlier memory (+0.05 confidence, its provenance added); 0.65–0.70 links them
//! `related_to`.

use crate::fast::FastMap;

use smg_format::model::{Node, NonEmpty, ShortText, Turn, Unit};

use super::graph::{provenance, round, Graph, CREATED_BY};
use super::named::Named;
use super::names::names;
use super::MemoryType;
use crate::text::{self, clip};

/// Similarity at which two memories are the same memory.
const MERGE_THRESHOLD: f64 = 0.70;
/// Similarity at which two memories are related.
const RELATED_THRESHOLD: f64 = 0.65;
/// Terms used by more memories than this are too common to find near-duplicates by.
const MAX_POSTINGS: usize = 64;

struct Item {
    id: String,
    terms: Vec<String>,
}

/// The memories made so far, indexed by term to find near-duplicates.
#[derive(Default)]
pub(crate) struct Memories {
    items: Vec<Item>,
    postings: FastMap<String, Vec<usize>>,
    per_turn: (u64, usize),
    sentences: Vec<(String, String)>,
}

impl Memories {
    /// Add the memory `sentence` said in turn `t`, inside segment `segment`.
    pub(crate) fn add(
        &mut self,
        g: &mut Graph,
        kind: MemoryType,
        sentence: &str,
        t: &Turn,
        segment: &str,
    ) {
        let mut terms: Vec<String> = text::terms(sentence).collect();
        terms.sort_unstable();
        terms.dedup();
        let best = self.most_similar(&terms);
        if let Some((i, sim)) = best.filter(|b| b.1 >= MERGE_THRESHOLD) {
            let id = self.items[i].id.clone();
            if let Some(node) = g.get_mut(&id) {
                node.confidence = Some(Unit::clamped(round(
                    (node.confidence.map_or(0.6, f64::from) + 0.05).min(1.0),
                )));
                node.last_mentioned = node.last_mentioned.max(Some(t.turn.get()));
                node.provenance
                    .get_or_insert_with(Vec::new)
                    .push(provenance(std::iter::once(t)));
            }
            g.link(&id, segment, "part_of", round(sim));
            return;
        }
        self.per_turn = if t.turn == self.per_turn.0 {
            (t.turn.get(), self.per_turn.1 + 1)
        } else {
            (t.turn.get(), 1)
        };
        let id = NonEmpty::joined(
            &NonEmpty::from_static("mem-"),
            format_args!("{}-{}", super::graph::turn_ref(t), self.per_turn.1),
        );
        g.add(Node {
            memory_type: Some(kind.name().into()),
            label: Some(clip(sentence, 80)),
            content: Some(sentence.to_string()),
            confidence: Some(Unit::clamped(0.6)),
            first_mentioned: Some(t.turn.get()),
            last_mentioned: Some(t.turn.get()),
            timestamp: t.timestamp.clone(),
            keywords: Some(terms.iter().take(8).map(Into::into).collect())
                .filter(|k: &Vec<ShortText>| !k.is_empty()),
            provenance: Some(vec![provenance(std::iter::once(t))]),
            created_by: Some(CREATED_BY.into()),
            ..Node::new(id.clone(), NonEmpty::from_static("memory"))
        });
        g.link(&id, segment, "part_of", 1.0);
        if let Some((i, sim)) = best.filter(|b| b.1 >= RELATED_THRESHOLD) {
            g.link(&id, &self.items[i].id, "related_to", sim);
        }
        let at = self.items.len();
        for term in &terms {
            self.postings.entry(term.clone()).or_default().push(at);
        }
        self.sentences.push((id.to_string(), sentence.to_string()));
        self.items.push(Item {
            id: id.into_string(),
            terms,
        });
    }

    /// The earlier memory most like `terms` (cosine of term sets), if any shares a term.
    fn most_similar(&self, terms: &[String]) -> Option<(usize, f64)> {
        if terms.len() < 2 {
            return None;
        }
        let mut shared: FastMap<usize, usize> = FastMap::default();
        for t in terms {
            if let Some(list) = self.postings.get(t).filter(|l| l.len() <= MAX_POSTINGS) {
                for &i in list {
                    *shared.entry(i).or_default() += 1;
                }
            }
        }
        shared
            .into_iter()
            .map(|(i, n)| {
                (
                    i,
                    n as f64 / ((terms.len() * self.items[i].terms.len()) as f64).sqrt(),
                )
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    }

    /// Link every memory to the entities and concepts its sentence names (they exist
    /// only once every turn has been counted).
    pub(crate) fn finish(&self, g: &mut Graph, named: &Named) {
        for (id, sentence) in &self.sentences {
            for (name, _) in names(sentence) {
                if let Some(target) = named.id(&name.to_lowercase()) {
                    g.link(id, target, "mentions", 0.8);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: u64) -> Turn {
        Turn::new(
            smg_format::model::Ordinal::new(n).unwrap(),
            smg_format::model::role::USER,
            String::new(),
        )
    }

    #[test]
    fn near_duplicates_merge_and_similar_ones_relate() {
        let mut g = Graph::default();
        let mut m = Memories::default();
        m.add(
            &mut g,
            MemoryType::Preference,
            "I love hiking in the mountains with friends",
            &turn(1),
            "s1",
        );
        m.add(
            &mut g,
            MemoryType::Preference,
            "I love hiking in the mountains with my friends",
            &turn(5),
            "s2",
        );
        m.add(
            &mut g,
            MemoryType::Preference,
            "I love hiking mountains, rivers, lakes",
            &turn(6),
            "s2",
        );
        m.add(
            &mut g,
            MemoryType::Fact,
            "I work as a nurse in Boston",
            &turn(7),
            "s3",
        );
        let memories: Vec<&Node> = g
            .nodes
            .iter()
            .map(|n| &**n)
            .filter(|n| n.kind == "memory")
            .collect();
        assert_eq!(
            memories.len(),
            3,
            "{:?}",
            memories.iter().map(|n| &n.id).collect::<Vec<_>>()
        );
        assert_eq!(memories[0].confidence.map(f64::from), Some(0.65));
        assert_eq!(memories[0].last_mentioned, Some(5));
        assert_eq!(memories[0].provenance.as_ref().unwrap().len(), 2);
        let related: Vec<_> = g
            .edges
            .iter()
            .filter(|e| e.relation == "related_to")
            .collect();
        assert_eq!(related.len(), 1);
        assert_eq!(
            (related[0].from.as_str(), related[0].to.as_str()),
            ("mem-6-1", "mem-1-1")
        );
    }
}

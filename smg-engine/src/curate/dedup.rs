//! Near-duplicate nodes found lexically (spec §18.7): the cosine of two nodes' sets of
//! content words, the rule ingest uses for memories. Without embeddings this is what
//! "similar" means; 0.70 and over merges, 0.65 to 0.70 relates (memgraph's thresholds).

use smg_format::model::Node;

use crate::fast::FastMap;
use crate::text::terms;

/// Similarity from which two nodes are one (memgraph).
pub(crate) const MERGE: f64 = 0.70;
/// Similarity from which two nodes are related (memgraph).
pub(crate) const RELATE: f64 = 0.65;
/// Words in more nodes than this say nothing about which nodes repeat each other
/// (ingest's memories use the same cut).
const MAX_POSTINGS: usize = 64;

/// For each eligible node, the earlier eligible node of the same type and scope it is
/// most like, when that is [`RELATE`] or more: `(node, earlier, similarity)`.
pub(crate) fn similar(nodes: &[Node], eligible: &[bool]) -> Vec<(usize, usize, f64)> {
    let mut groups: FastMap<(&str, Option<&str>), u32> = FastMap::default();
    let mut postings: Vec<FastMap<String, Vec<usize>>> = Vec::new();
    let mut sizes = vec![0usize; nodes.len()];
    let mut shared = vec![0u32; nodes.len()];
    let mut seen: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if !eligible[i] {
            continue;
        }
        let mut words: Vec<String> = [&n.label, &n.description, &n.content]
            .into_iter()
            .flatten()
            .flat_map(|t| terms(t))
            .collect();
        words.sort_unstable();
        words.dedup();
        if words.len() < 2 {
            continue;
        }
        let next = groups.len() as u32;
        let group = *groups
            .entry((n.kind.as_str(), n.scope.map(|s| s.name())))
            .or_insert(next) as usize;
        if group == postings.len() {
            postings.push(FastMap::default());
        }
        // Counts in a dense array, cleared through the list of nodes they touched:
        // no hashing in the innermost loop.
        for w in &words {
            if let Some(list) = postings[group].get(w.as_str()) {
                if list.len() <= MAX_POSTINGS {
                    for &j in list {
                        if shared[j] == 0 {
                            seen.push(j);
                        }
                        shared[j] += 1;
                    }
                }
            }
        }
        let best = seen
            .drain(..)
            .map(|j| {
                let k = std::mem::take(&mut shared[j]);
                (j, k as f64 / ((words.len() * sizes[j]) as f64).sqrt())
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        if let Some((j, s)) = best.filter(|b| b.1 >= RELATE) {
            out.push((i, j, s));
        }
        sizes[i] = words.len();
        for w in words {
            postings[group].entry(w).or_default().push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: &str, text: &str) -> Node {
        Node {
            id: id.into(),
            kind: "memory".into(),
            content: Some(text.into()),
            ..Node::default()
        }
    }

    #[test]
    fn repeats_pair_with_their_earlier_copy_and_other_types_never_do() {
        let mut nodes = vec![
            memory("a", "the user prefers postgres for billing data"),
            memory("b", "unrelated remark about hiking trips"),
            memory("c", "the user prefers postgres for the billing data"),
            memory("d", "the user prefers postgres for billing data"),
        ];
        nodes[3].kind = "decision".into();
        let pairs = similar(&nodes, &[true; 4]);
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].0, pairs[0].1), (2, 0));
        assert!(pairs[0].2 >= MERGE);
        assert!(similar(&nodes, &[false, true, true, true]).is_empty());
    }
}

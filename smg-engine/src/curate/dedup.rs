//! Near-duplicate nodes (spec §18.7). Two nodes that both have an embedding in the
//! file's vector index are compared by the cosine of their vectors; otherwise by the
//! cosine of their sets of content words, the rule ingest uses for memories. 0.70 and
//! over merges, 0.65 to 0.70 relates (memgraph's thresholds, which are for embeddings).

use smg_format::model::Node;
use smg_format::Document;

use crate::fast::FastMap;
use crate::text::terms;

/// Similarity from which two nodes are one (memgraph).
pub(crate) const MERGE: f64 = 0.70;
/// Similarity from which two nodes are related (memgraph).
pub(crate) const RELATE: f64 = 0.65;
/// Words in more nodes than this say nothing about which nodes repeat each other
/// (ingest's memories use the same cut).
const MAX_POSTINGS: usize = 64;

/// Nodes of one type and scope with vectors compared with every earlier one at most:
/// past this, only those that share a word are (an exhaustive pass would be quadratic).
const EXHAUSTIVE: usize = 4096;

/// The unit vectors of the nodes the file's vector index embeds, by node id.
pub(crate) fn node_vectors(doc: &Document) -> FastMap<String, Vec<f32>> {
    let index = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.vector_index.as_ref());
    let Some(list) = index
        .filter(|v| v.enabled)
        .and_then(|v| v.embeddings.as_ref())
    else {
        return FastMap::default();
    };
    list.iter()
        .filter_map(|e| {
            let norm = e.vector.iter().map(|x| x * x).sum::<f64>().sqrt();
            let id = e.node_id.clone()?;
            (norm > 0.0).then(|| (id, e.vector.iter().map(|x| (x / norm) as f32).collect()))
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum()
}

/// For each eligible node, the earlier eligible node of the same type and scope it is
/// most like, when that is [`RELATE`] or more: `(node, earlier, similarity)`.
pub(crate) fn similar(
    nodes: &[Node],
    eligible: &[bool],
    vectors: &FastMap<String, Vec<f32>>,
) -> Vec<(usize, usize, f64)> {
    let vector = |i: usize| {
        vectors
            .get(nodes[i].id.as_str())
            .map(Vec::as_slice)
            .filter(|v| !v.is_empty())
    };
    let mut embedded: Vec<Vec<usize>> = Vec::new();
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
        let mine = vector(i);
        if words.len() < 2 && mine.is_none() {
            continue;
        }
        let next = groups.len() as u32;
        let group = *groups
            .entry((n.kind.as_str(), n.scope.map(|s| s.name())))
            .or_insert(next) as usize;
        if group == postings.len() {
            postings.push(FastMap::default());
            embedded.push(Vec::new());
        }
        if mine.is_some() && embedded[group].len() <= EXHAUSTIVE {
            for &j in &embedded[group] {
                if shared[j] == 0 {
                    seen.push(j);
                }
                // Marked as met; the count is not what scores a pair of vectors.
                shared[j] = shared[j].max(1);
            }
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
                let score = match (mine, vector(j)) {
                    (Some(a), Some(b)) if a.len() == b.len() => cosine(a, b),
                    _ if sizes[j] == 0 || words.is_empty() => 0.0,
                    _ => k as f64 / ((words.len() * sizes[j]) as f64).sqrt(),
                };
                (j, score)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        if let Some((j, s)) = best.filter(|b| b.1 >= RELATE) {
            out.push((i, j, s));
        }
        sizes[i] = words.len();
        if mine.is_some() {
            embedded[group].push(i);
        }
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
            content: Some(text.into()),
            ..Node::new(
                smg_format::model::NonEmpty::new(id).unwrap(),
                smg_format::model::NonEmpty::from_static("memory"),
            )
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
        nodes[3].kind = smg_format::model::NonEmpty::from_static("decision");
        let none = FastMap::default();
        let pairs = similar(&nodes, &[true; 4], &none);
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].0, pairs[0].1), (2, 0));
        assert!(pairs[0].2 >= MERGE);
        assert!(similar(&nodes, &[false, true, true, true], &none).is_empty());
    }

    #[test]
    fn embeddings_decide_where_both_nodes_have_one() {
        let nodes = vec![
            memory("a", "the user likes espresso in the morning"),
            memory("b", "mornings start with a strong coffee for them"),
            memory("c", "the user likes espresso in the evening"),
        ];
        let vectors: FastMap<String, Vec<f32>> = [
            ("a".to_string(), vec![1.0, 0.0]),
            ("b".to_string(), vec![0.96, 0.28]),
            ("c".to_string(), vec![0.0, 1.0]),
        ]
        .into_iter()
        .collect();
        let pairs = similar(&nodes, &[true; 3], &vectors);
        // b shares no content word with a, but its vector is a's (cosine 0.96); c shares
        // most of a's words, but its vector is orthogonal to both.
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        assert_eq!((pairs[0].0, pairs[0].1), (1, 0));
        assert!((pairs[0].2 - 0.96).abs() < 1e-6);
    }
}

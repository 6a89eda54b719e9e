//! Importance by SMG §9.1:
//! `0.3 × recency + 0.4 × decision density + 0.2 × artifact presence + 0.1 × centrality`,
//! with recency = 1 / (1 + age in turns), decision density = decision cues / words,
//! artifact presence = 1 when the node is or holds an artifact, and centrality =
//! out-degree / the graph's largest out-degree.

use crate::fast::FastMap;

use rayon::prelude::*;

use super::TurnView;

use super::graph::{round, Graph, Rest};

/// Set `importance` on every node of `g`; `total` is the last turn number.
pub(crate) fn score(g: &mut Graph, turns: &[TurnView<'_>], facts: &[Rest], total: u64) {
    let mut degree: FastMap<&str, usize> = FastMap::default();
    for e in &g.edges {
        *degree.entry(e.from.as_str()).or_default() += 1;
    }
    let max_degree = degree.values().copied().max().unwrap_or(0).max(1) as f64;
    let index: FastMap<u64, usize> = turns
        .iter()
        .enumerate()
        .map(|(i, t)| (t.turn.turn.get(), i))
        .collect();
    // Each node's score reads only the turns and the degrees: scored side by side.
    g.nodes.par_iter_mut().for_each(|node| {
        let age = total.saturating_sub(node.last_mentioned.unwrap_or(total));
        let recency = 1.0 / (1.0 + age as f64);
        let own: Vec<usize> = node
            .provenance
            .iter()
            .flatten()
            .flat_map(|p| p.turns.iter().flatten())
            .filter_map(|n| index.get(&(*n).get()).copied())
            .collect();
        let (cues, words) = own.iter().fold((0, 0), |(c, w), &i| {
            (
                c + u64::from(facts[i].decision_cues),
                w + u64::from(facts[i].words),
            )
        });
        let density = if words == 0 {
            0.0
        } else {
            (cues as f64 / words as f64).min(1.0)
        };
        let artifact =
            node.kind == "artifact" || own.iter().any(|&i| !turns[i].artifacts.is_empty());
        let centrality = degree.get(node.id.as_str()).copied().unwrap_or(0) as f64 / max_degree;
        let importance =
            0.3 * recency + 0.4 * density + 0.2 * f64::from(u8::from(artifact)) + 0.1 * centrality;
        node.importance = Some(smg_format::model::Unit::clamped(round(
            importance.clamp(0.0, 1.0),
        )));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::analyze::analyze;
    use crate::ingest::graph::TurnInfo;
    use smg_format::model::{Node, Provenance, Turn};

    #[test]
    fn the_formula_of_smg_9_1() {
        let turn = |n: u64, content: &str| {
            Turn::new(
                smg_format::model::Ordinal::new(n).unwrap(),
                smg_format::model::role::USER,
                content,
            )
        };
        let owned = [
            turn(1, "We decided to use Rust because it is fast"),
            turn(2, "fine"),
        ];
        let artifacts = [("a".to_string(), 1)];
        let turns = [
            TurnView {
                turn: &owned[0],
                artifacts: &artifacts,
            },
            TurnView {
                turn: &owned[1],
                artifacts: &[],
            },
        ];
        let facts: Vec<Rest> = turns
            .iter()
            .map(|t| {
                let facts = analyze(&t.turn.content, false);
                let info = TurnInfo {
                    facts,
                    memorable: true,
                    segment: 0,
                };
                info.into_rest()
            })
            .collect();
        let mut g = Graph::default();
        let prov = |n: u64| {
            Some(vec![Provenance {
                turns: Some(vec![smg_format::model::Ordinal::new(n).unwrap()]),
                ..Provenance::default()
            }])
        };
        g.add(Node {
            last_mentioned: Some(1),
            provenance: prov(1),
            ..Node::new(
                smg_format::model::NonEmpty::from_static("d"),
                smg_format::model::NonEmpty::from_static("decision"),
            )
        });
        g.add(Node {
            last_mentioned: Some(2),
            ..Node::new(
                smg_format::model::NonEmpty::from_static("x"),
                smg_format::model::NonEmpty::from_static("concept"),
            )
        });
        g.link("d", "x", "mentions", 1.0);
        score(&mut g, &turns, &facts, 2);
        // d: recency 1/2, density 2 cues / 9 words, artifact 1, centrality 1.
        let expected = 0.3 * 0.5 + 0.4 * (2.0 / 9.0) + 0.2 + 0.1;
        assert_eq!(g.nodes[0].importance.map(f64::from), Some(round(expected)));
        assert_eq!(g.nodes[1].importance.map(f64::from), Some(0.3));
    }
}

//! The edges between what the graph builder made: mentions, supersedes,
//! resulted_in, implements and requires.

use crate::fast::FastMap;

use rayon::prelude::*;

use smg_format::model::{ArtifactVault, Node, NonEmpty, Ordinal, Turn, Unit};

use super::graph::{Graph, Rest, CREATED_BY};
use super::named::{entity_id, Named};
use super::TurnView;

/// `mentions` from each segment (and the decisions and memories in it) to the
/// entities and concepts its turns name, and from segments to their speakers.
pub(super) fn link_mentions(
    g: &mut Graph,
    turns: &[&Turn],
    info: &[Rest],
    segments: &[String],
    named: &Named,
) {
    // A few speakers say every turn: each one's id is hashed once.
    let mut speakers: FastMap<&str, String> = FastMap::default();
    for s in turns.iter().filter_map(|t| t.speaker.as_deref()) {
        speakers
            .entry(s)
            .or_insert_with(|| entity_id(s).into_string());
    }
    // What each turn names is found side by side, a slice of turns at a time (a
    // large archive has hundreds of thousands); the edges are added in order.
    for (turns, info) in turns
        .chunks(MENTIONS_TOGETHER)
        .zip(info.chunks(MENTIONS_TOGETHER))
    {
        let targets: Vec<Vec<&str>> = turns
            .par_iter()
            .zip(info)
            .map(|(t, inf)| mentioned(t, inf, named, &speakers))
            .collect();
        for ((t, inf), targets) in turns.iter().zip(info).zip(targets) {
            let seg = &segments[inf.segment];
            for target in targets {
                if g.has(target) {
                    g.link(seg, target, "mentions", 0.8);
                    for k in 1..=inf.decisions as usize {
                        g.link(&super::graph::decision_id(t, k), target, "mentions", 0.8);
                    }
                }
            }
        }
    }
}

/// Turns whose mentions are found as one piece of parallel work.
const MENTIONS_TOGETHER: usize = 4096;

/// The ids of the speaker, entities and concepts a turn names.
fn mentioned<'a>(
    t: &Turn,
    inf: &Rest,
    named: &'a Named,
    speakers: &'a FastMap<&str, String>,
) -> Vec<&'a str> {
    let mut targets: Vec<&str> = Vec::new();
    if let Some(s) = t.speaker.as_deref().and_then(|s| speakers.get(s)) {
        targets.push(s);
    }
    if inf.memorable {
        for (name, _) in &inf.names {
            targets.extend(named.id(&name.to_lowercase()).map(String::as_str));
        }
        targets.extend(
            inf.technical
                .iter()
                .filter_map(|t| named.concept(&t.to_lowercase()).map(String::as_str)),
        );
    }
    targets
}

/// A decision that says it changes course supersedes the latest earlier decision of
/// the same conversation on the same subject (sharing an outcome word), or else the
/// latest one within the ten turns before it.
pub(super) fn supersede(
    g: &mut Graph,
    turns: &[&Turn],
    decisions: &[(usize, String, bool, Vec<String>)],
) {
    for (k, (i, id, changes, words)) in decisions.iter().enumerate() {
        if !changes {
            continue;
        }
        let conv = &turns[*i].conversation_id;
        let earlier = decisions[..k]
            .iter()
            .rev()
            .filter(|d| &turns[d.0].conversation_id == conv);
        let same_subject = earlier
            .clone()
            .find(|d| d.3.iter().any(|w| words.contains(w)));
        let recent = earlier
            .clone()
            .find(|d| turns[*i].turn.get() - turns[d.0].turn.get() <= 10);
        if let Some(old) = same_subject.or(recent) {
            g.link(id, &old.1, "supersedes", 0.9);
        }
    }
}

/// What an artifact's node shows of it: its file name, and its type as a tag.
pub(crate) struct ArtifactLabel {
    filename: Option<String>,
    kind: String,
}

/// The [`ArtifactLabel`] of each artifact of a vault, by artifact id: all the graph
/// reads of the vault, so that the vault can be written out while the graph is built.
pub(crate) type ArtifactLabels = FastMap<String, ArtifactLabel>;

/// The labels of the artifacts in `vault`.
pub(crate) fn artifact_labels(vault: Option<&ArtifactVault>) -> ArtifactLabels {
    let artifacts = vault.and_then(|v| v.artifacts.as_ref());
    artifacts
        .into_iter()
        .flatten()
        .map(|(id, a)| {
            let label = ArtifactLabel {
                filename: a.filename.clone(),
                kind: a.kind.to_string(),
            };
            (id.clone(), label)
        })
        .collect()
}

/// Artifact nodes for the vault's artifacts that turns hold; segments mention them,
/// a decision made up to two turns before an artifact's version `resulted_in` it,
/// and an artifact `implements` the concepts named in the turns that carry it.
pub(super) fn artifacts(
    g: &mut Graph,
    turns: &[TurnView<'_>],
    info: &[Rest],
    segments: &[String],
    labels: &ArtifactLabels,
    decisions: &[(usize, String, bool, Vec<String>)],
    concepts: &FastMap<String, String>,
) {
    for (i, (t, inf)) in turns.iter().zip(info).enumerate() {
        for (art, version) in t.artifacts {
            let id = NonEmpty::joined(&NonEmpty::from_static("artifact-"), art);
            let n = t.turn.turn;
            match g.get_mut(&id) {
                Some(node) => {
                    node.last_mentioned = Some(n.get());
                    node.version = node.version.max(Ordinal::new(*version).ok());
                }
                None => {
                    let a = labels.get(art);
                    g.add(Node {
                        label: Some(
                            a.and_then(|a| a.filename.clone())
                                .unwrap_or_else(|| art.clone()),
                        ),
                        artifact_ref: Some(art.clone()),
                        version: Ordinal::new(*version).ok(),
                        confidence: Some(Unit::clamped(1.0)),
                        first_mentioned: Some(n.get()),
                        last_mentioned: Some(n.get()),
                        tags: a.map(|a| vec![a.kind.as_str().into()]),
                        created_by: Some(CREATED_BY.into()),
                        ..Node::new(id.clone(), NonEmpty::from_static("artifact"))
                    });
                }
            }
            g.link(&segments[inf.segment], &id, "mentions", 0.8);
            // Decisions are in turn order: those of the two turns before are found by
            // bisection, not by reading them all for every artifact.
            let from = decisions.partition_point(|d| d.0 + 2 < i);
            for d in decisions[from..].iter().take_while(|d| d.0 <= i) {
                if turns[d.0].turn.conversation_id == t.turn.conversation_id {
                    g.link(&d.1, &id, "resulted_in", 0.8);
                }
            }
            for term in &inf.technical {
                if let Some(c) = concepts.get(&term.to_lowercase()) {
                    g.link(&id, c, "implements", 0.6);
                }
            }
        }
    }
}

/// "A requires B" between two concepts.
pub(super) fn requirements(g: &mut Graph, info: &[Rest], concepts: &FastMap<String, String>) {
    for inf in info.iter().filter(|i| i.memorable) {
        for (a, b) in &inf.requires {
            if let (Some(a), Some(b)) = (
                concepts.get(&a.to_lowercase()),
                concepts.get(&b.to_lowercase()),
            ) {
                g.link(a, b, "requires", 0.7);
            }
        }
    }
}

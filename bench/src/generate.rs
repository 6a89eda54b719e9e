//! Deterministic synthetic memory documents of a chosen size.

use serde_json::json;
use smg_format::{
    archive::encode_turns,
    model::{
        Artifact, ArtifactVault, ArtifactVersion, Block, DeepArchive, Edge, Graph, Node,
        Provenance, Turn,
    },
    Document,
};

/// xorshift64*: fast, deterministic, good enough for synthetic text.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A vocabulary of pseudo-words with a Zipf-like draw, so text compresses like prose.
pub(crate) struct Words {
    words: Vec<String>,
}

impl Words {
    pub(crate) fn new(rng: &mut Rng, n: usize) -> Self {
        const SYL: &[&str] = &[
            "ka", "lo", "mi", "ser", "ta", "ven", "dor", "pi", "qua", "rel", "sto", "ne", "bri",
            "ux", "gal", "fen",
        ];
        let words = (0..n)
            .map(|_| {
                (0..1 + rng.below(3))
                    .map(|_| SYL[rng.below(SYL.len() as u64) as usize])
                    .collect()
            })
            .collect();
        Words { words }
    }

    pub(crate) fn sentence(&self, rng: &mut Rng, len: usize) -> String {
        let mut s = String::with_capacity(len * 7);
        for i in 0..len {
            // Squaring a uniform draw favours the first words, roughly like Zipf.
            let u = rng.below(1 << 20) as f64 / f64::from(1 << 20);
            let w = &self.words[((u * u) * self.words.len() as f64) as usize];
            if i > 0 {
                s.push(' ');
            }
            s.push_str(w);
        }
        s
    }
}

fn timestamp(turn: u64) -> String {
    let day = 1 + (turn / 2000) % 28;
    let secs = (turn * 37) % 86_400;
    format!(
        "2025-03-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

/// Build a document whose canonical JSON is about `target_bytes` long: graph nodes and
/// edges, artifacts with delta versions, and archive blocks of 50 turns.
pub(crate) fn document(target_bytes: usize, seed: u64) -> Document {
    grown(seed, |bytes, _| bytes >= target_bytes)
}

/// [`document`] of `nodes` graph nodes (rounded up to ten), five turns archived for
/// each node.
pub(crate) fn document_of_nodes(nodes: usize, seed: u64) -> Document {
    grown(seed, |_, n| n >= nodes)
}

/// Units of ten nodes, fifty turns and now and then an artifact, until `done(bytes,
/// nodes)`.
fn grown(seed: u64, done: impl Fn(usize, usize) -> bool) -> Document {
    let mut rng = Rng::new(seed);
    let words = Words::new(&mut rng, 4000);
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-03-01T00:00:00Z",
    ));
    let (mut nodes, mut edges, mut blocks) = (Vec::new(), Vec::new(), Vec::new());
    let mut artifacts = std::collections::BTreeMap::new();
    let (mut bytes, mut turn_no, mut unit) = (0usize, 1u64, 0u64);
    while !done(bytes, nodes.len()) {
        for k in 0..10 {
            let id = format!("n{unit}_{k}");
            let len = 15 + rng.below(25) as usize;
            let description = words.sentence(&mut rng, len);
            bytes += description.len() + 260;
            nodes.push(Node {
                label: Some(words.sentence(&mut rng, 3)),
                description: Some(description),
                importance: Some(smg_format::model::Unit::clamped(
                    rng.below(1000) as f64 / 1000.0,
                )),
                first_mentioned: Some(turn_no),
                provenance: Some(vec![Provenance {
                    conversation_id: Some(format!("c{}", unit / 20).into()),
                    turns: Some(vec![smg_format::model::Ordinal::new(turn_no).unwrap()]),
                    ..Provenance::default()
                }]),
                ..Node::new(
                    smg_format::model::NonEmpty::new(id.clone()).unwrap(),
                    smg_format::model::NonEmpty::from_static(
                        ["concept", "decision", "memory", "entity"][k % 4],
                    ),
                )
            });
            if k > 0 {
                edges.push(Edge {
                    strength: Some(smg_format::model::Unit::clamped(0.5)),
                    ..Edge::new(
                        smg_format::model::NonEmpty::new(id).unwrap(),
                        smg_format::model::NonEmpty::from_static("related_to"),
                        smg_format::model::NonEmpty::new(format!("n{unit}_{}", k - 1)).unwrap(),
                    )
                });
            }
        }
        let turns: Vec<Turn> = (0..50)
            .map(|i| {
                let len = 20 + rng.below(180) as usize;
                let t = Turn {
                    timestamp: Some(
                        smg_format::model::Timestamp::new(timestamp(turn_no + i)).unwrap(),
                    ),
                    ..Turn::new(
                        smg_format::model::Ordinal::new(turn_no + i).unwrap(),
                        if i % 2 == 0 {
                            smg_format::model::role::USER
                        } else {
                            smg_format::model::role::ASSISTANT
                        },
                        words.sentence(&mut rng, len),
                    )
                };
                bytes += t.content.len() * 2 / 5;
                t
            })
            .collect();
        blocks.push(Block {
            summary: Some(words.sentence(&mut rng, 12)),
            ..Block::new(
                unit,
                smg_format::model::TurnRange::span(turn_no, turn_no + 49),
                encode_turns(&turns, 5).expect("encode"),
            )
        });
        turn_no += 50;
        if unit % 20 == 0 {
            bytes += add_artifact(&mut artifacts, &mut rng, &words, unit);
        }
        unit += 1;
    }
    doc.semantic_graph = Some(Graph {
        nodes: Some(nodes),
        edges: Some(edges),
        ..Graph::default()
    });
    doc.artifact_vault = Some(ArtifactVault {
        artifacts: Some(artifacts),
        ..ArtifactVault::default()
    });
    doc.deep_archive = Some(DeepArchive {
        blocks: Some(blocks),
        ..DeepArchive::default()
    });
    doc.metadata.total_exchanges = Some(turn_no - 1);
    doc.extra
        .insert("x-generator".into(), json!({"seed": seed, "units": unit}));
    doc
}

/// An artifact of ten versions, each a small edit of the last, stored as unified diffs.
fn add_artifact(
    out: &mut std::collections::BTreeMap<String, Artifact>,
    rng: &mut Rng,
    words: &Words,
    unit: u64,
) -> usize {
    let mut lines: Vec<String> = (0..120)
        .map(|i| format!("    let v{i} = \"{}\";", words.sentence(rng, 4)))
        .collect();
    let mut prev = lines.join("\n") + "\n";
    let mut versions = smg_format::model::Versions::one(ArtifactVersion {
        content: Some(prev.clone()),
        ..ArtifactVersion::new(smg_format::model::Ordinal::FIRST)
    });
    let mut bytes = prev.len();
    for v in 2..=10 {
        let at = rng.below(lines.len() as u64) as usize;
        lines[at] = format!("    let changed{v} = \"{}\";", words.sentence(rng, 5));
        let next = lines.join("\n") + "\n";
        let delta = smg_format::vault::unified_diff(&prev, &next, "f");
        bytes += delta.len();
        versions.push(ArtifactVersion {
            v: smg_format::model::Ordinal::new(v).unwrap(),
            delta: Some(delta),
            ..ArtifactVersion::default()
        });
        prev = next;
    }
    out.insert(
        format!("art_{unit}"),
        Artifact {
            language: Some("rust".into()),
            filename: Some(format!("src/mod{unit}.rs")),
            ..Artifact::new(
                smg_format::model::NonEmpty::from_static("code"),
                smg_format::model::Sha256Ref::of(prev.as_bytes()),
                versions,
            )
        },
    );
    bytes
}

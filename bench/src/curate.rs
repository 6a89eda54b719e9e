//! `smg-bench curate [DAYS] [NODES]`: 90 days of generated agent activity (beliefs,
//! tasks, notifications, sessions, reflections, analyses, repeated facts) curated once
//! a day, beside the same run without curation; then one cycle on a graph of NODES
//! nodes (default 100,000), timed.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use smg_engine::curate::{curate, protected, record_access, tier_tokens, CurateOptions};
use smg_format::model::{Edge, Graph, LifecycleTier, Node, NonEmpty, Severity, Timestamp, Unit};
use smg_format::{Document, Encoding, WriteOptions};

use crate::generate::{Rng, Words};
use crate::kb;

const AGENTS: [&str; 6] = ["kublai", "mongke", "chagatai", "temujin", "jochi", "ogedei"];

fn at(day: u64, hour: u64) -> Timestamp {
    let t = 1_735_689_600 + day * 86_400 + hour * 3_600; // 2025-01-01T00:00:00Z
    Timestamp::new(chrono_free(t)).expect("the civil calendar writes RFC 3339")
}

/// RFC 3339 of Unix seconds without a date library (days from 1970 by the civil
/// calendar algorithm).
fn chrono_free(t: u64) -> String {
    let (days, secs) = ((t / 86_400) as i64, t % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

struct World {
    rng: Rng,
    words: Words,
    facts: Vec<String>,
    next: u64,
    /// Record retrievals (a large graph's old days are made without: recording one
    /// reads every node).
    accesses: bool,
}

impl World {
    fn node(&mut self, kind: &str, day: u64, words: usize) -> Node {
        self.next += 1;
        let hour = self.rng.below(24);
        Node {
            content: Some(self.words.sentence(&mut self.rng, words)),
            created: Some(at(day, hour)),
            created_by: Some(AGENTS[self.rng.below(6) as usize].into()),
            tier: Some(LifecycleTier::Hot),
            ..Node::new(
                NonEmpty::new(format!("{kind}-{}", self.next)).unwrap(),
                NonEmpty::new(kind).unwrap(),
            )
        }
    }

    /// One day of activity: new nodes, state changes, retrievals.
    fn day(&mut self, doc: &mut Document, day: u64) {
        let g = doc.semantic_graph.get_or_insert_with(Graph::default);
        let nodes = g.nodes.get_or_insert_with(Vec::new);
        let mut new = Vec::new();
        for _ in 0..5 {
            let mut n = self.node("belief", day, 20);
            n.confidence = Some(Unit::clamped(0.2 + self.rng.below(80) as f64 / 100.0));
            new.push(n);
        }
        for _ in 0..8 {
            let mut n = self.node("task", day, 15);
            n.status = Some(NonEmpty::from_static("pending"));
            new.push(n);
        }
        for _ in 0..20 {
            let mut n = self.node("notification", day, 10);
            n.status = Some(NonEmpty::from_static("unread"));
            new.push(n);
        }
        for _ in 0..3 {
            let mut n = self.node("session", day, 30);
            n.status = Some(NonEmpty::from_static("active"));
            new.push(n);
        }
        for _ in 0..2 {
            new.push(self.node("reflection", day, 60));
            let mut a = self.node("analysis", day, 80);
            a.severity = Some([Severity::Low, Severity::High][self.rng.below(2) as usize]);
            new.push(a);
        }
        for _ in 0..20 {
            let mut n = self.node("memory_entry", day, 40);
            // A third of the facts are said again in other words.
            if !self.facts.is_empty() && self.rng.below(3) == 0 {
                let old = &self.facts[self.rng.below(self.facts.len() as u64) as usize];
                n.content = Some(format!("{old} {}", self.words.sentence(&mut self.rng, 1)));
            } else if let Some(c) = &n.content {
                self.facts.push(c.clone());
            }
            new.push(n);
        }
        for n in nodes.iter_mut().filter(|n| n.tombstone.is_none()) {
            let roll = self.rng.below(100);
            match (n.kind.as_str(), n.status.as_deref()) {
                ("task", Some("pending")) if roll < 50 => {
                    n.status = Some(NonEmpty::from_static("in_progress"))
                }
                ("task", Some("in_progress")) if roll < 40 => {
                    let s = if roll < 35 { "completed" } else { "failed" };
                    n.status = Some(NonEmpty::from_static(s));
                    n.updated = Some(at(day, 12));
                }
                ("notification", Some("unread")) if roll < 60 => {
                    n.status = Some(NonEmpty::from_static("read"));
                    n.updated = Some(at(day, 9));
                }
                ("session", Some("active")) => {
                    n.status = Some(NonEmpty::from_static("inactive"));
                    n.updated = Some(at(day, 1));
                }
                ("reflection", None) if roll < 20 => {
                    n.status = Some(NonEmpty::from_static("consolidated"))
                }
                _ => {}
            }
        }
        nodes.extend(new);
        let ids: Vec<String> = nodes
            .iter()
            .filter(|n| n.tombstone.is_none())
            .map(|n| n.id.to_string())
            .collect();
        let edges = g.edges.get_or_insert_with(Vec::new);
        for _ in 0..20 {
            let (a, b) = (self.pick(&ids), self.pick(&ids));
            if a != b {
                edges.push(Edge::new(
                    NonEmpty::new(a).unwrap(),
                    NonEmpty::from_static("related_to"),
                    NonEmpty::new(b).unwrap(),
                ));
            }
        }
        let mut seen = BTreeSet::new();
        edges.retain(|e| seen.insert((e.from.clone(), e.to.clone())));
        let accesses = if self.accesses { 0..40 } else { 0..0 };
        for k in accesses {
            let id = self.pick(&ids);
            let by = AGENTS[self.rng.below(6) as usize];
            let when = at(day, 8 + k % 12);
            record_access(doc, &[&id], &when, Some(by)).expect("a valid time");
        }
    }

    fn pick(&mut self, ids: &[String]) -> String {
        // Recent nodes are used more: squaring a uniform draw favours the end.
        let u = self.rng.below(1 << 20) as f64 / f64::from(1 << 20);
        let i = ((1.0 - u * u) * ids.len() as f64) as usize;
        ids[i.min(ids.len() - 1)].clone()
    }
}

fn base() -> Document {
    let mut doc = Document::new(at(0, 0));
    let mut nodes: Vec<Node> = AGENTS
        .iter()
        .map(|a| Node {
            label: Some((*a).into()),
            created: Some(at(0, 0)),
            ..Node::new(
                NonEmpty::new(format!("agent-{a}")).unwrap(),
                NonEmpty::from_static("agent"),
            )
        })
        .collect();
    for kind in ["system_config", "migration", "agent_key"] {
        nodes.push(Node {
            created: Some(at(0, 0)),
            ..Node::new(NonEmpty::new(kind).unwrap(), NonEmpty::new(kind).unwrap())
        });
    }
    doc.semantic_graph = Some(Graph {
        nodes: Some(nodes),
        ..Graph::default()
    });
    doc
}

/// The most tokens (characters / 4) one class holds in HOT.
fn hot_tokens(doc: &Document) -> u64 {
    tier_tokens(doc)
        .into_iter()
        .filter(|t| t.1 == LifecycleTier::Hot)
        .map(|t| t.2)
        .max()
        .unwrap_or(0)
}

/// The file's size without its audit log (what the graph itself takes).
fn size_without_audit(doc: &Document) -> usize {
    let mut d = doc.clone();
    if let Some(c) = d.curation.as_mut() {
        c.audit = None;
    }
    size(&d)
}

fn size(doc: &Document) -> usize {
    smg_format::to_bytes(doc, &WriteOptions::new(Encoding::Brotli))
        .expect("writes")
        .len()
}

fn world() -> World {
    let mut rng = Rng::new(27);
    let words = Words::new(&mut rng, 3000);
    World {
        rng,
        words,
        facts: Vec::new(),
        next: 0,
        accesses: true,
    }
}

pub(crate) fn run(days: u64, nodes: usize, smg: &Path, dir: &Path) {
    let (mut plain, mut kept) = (base(), base());
    let (mut w1, mut w2) = (world(), world());
    println!("| day | nodes without curation | size | nodes curated (live) | size (without audit log) | HOT tokens of the largest type, before → after the cycle | actions | cycle time |");
    println!("|---|---|---|---|---|---|---|---|");
    let (mut worst_hot, mut rail_breaks, mut total_actions) = (0u64, 0usize, 0usize);
    let mut worst_before = 0u64;
    let mut slowest = 0.0f64;
    for day in 0..days {
        w1.day(&mut plain, day);
        w2.day(&mut kept, day);
        let now = at(day, 23);
        let guarded: BTreeSet<String> = protected(&kept, &now)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let hot_before = hot_tokens(&kept);
        worst_before = worst_before.max(hot_before);
        let start = Instant::now();
        let report = curate(&mut kept, &CurateOptions::at(now.clone())).expect("curates");
        let took = start.elapsed().as_secs_f64();
        slowest = slowest.max(took);
        total_actions += report.actions.len();
        rail_breaks += report
            .actions
            .iter()
            .filter(|a| matches!(a.action.name(), "tombstone" | "purge" | "merge"))
            .filter(|a| guarded.contains(&a.node))
            .count();
        let hot = hot_tokens(&kept);
        worst_hot = worst_hot.max(hot);
        if day % 10 == 9 || day + 1 == days {
            let count = |d: &Document| d.semantic_graph.as_ref().map_or(0, |g| g.nodes().len());
            let live = kept.semantic_graph.as_ref().map_or(0, |g| {
                g.nodes().iter().filter(|n| n.tombstone.is_none()).count()
            });
            println!(
                "| {} | {} | {} | {} ({live}) | {} ({}) | {hot_before} → {hot} | {} | {:.0} ms |",
                day + 1,
                count(&plain),
                kb(size(&plain)),
                count(&kept),
                kb(size(&kept)),
                kb(size_without_audit(&kept)),
                report.actions.len(),
                took * 1e3
            );
        }
    }
    println!();
    println!("Over {days} daily cycles: {total_actions} actions; HOT tokens of the largest class after each cycle at most {worst_hot} (budget 1600; before the cycles up to {worst_before}); rail-protected nodes pruned or merged: {rail_breaks}; slowest cycle {:.0} ms.", slowest * 1e3);
    large(nodes, smg, dir);
}

/// One cycle over a generated graph of `n` nodes (the simulation's mix, a year old).
fn large(n: usize, smg: &Path, dir: &Path) {
    let mut w = world();
    let mut doc = base();
    let days = (n as u64).div_ceil(60);
    for day in 0..days {
        w.accesses = day + 30 >= days;
        w.day(&mut doc, day);
    }
    let day = days;
    std::fs::create_dir_all(dir).expect("bench dir");
    let file = dir.join("large.smg");
    smg_format::write_file(&file, &doc, &WriteOptions::new(Encoding::Brotli)).expect("writes");
    let count = doc.semantic_graph.as_ref().map_or(0, |g| g.nodes().len());
    let edges = doc.semantic_graph.as_ref().map_or(0, |g| g.edges().len());
    let now = at(day + 30, 0);
    // Median of three runs of each cycle, each on its own copy of the graph.
    let cycle = |doc: &Document, at: &Timestamp| {
        let mut runs: Vec<(f64, Document, usize)> = (0..3)
            .map(|_| {
                let mut copy = doc.clone();
                let start = Instant::now();
                let r = curate(&mut copy, &CurateOptions::at(at.clone())).expect("curates");
                (start.elapsed().as_secs_f64(), copy, r.actions.len())
            })
            .collect();
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        runs.swap_remove(1)
    };
    let (t1, doc, first) = cycle(&doc, &now);
    let (t2, _, second) = cycle(&doc, &at(day + 31, 0));
    let words = ["curate", "large.smg", "--now", now.as_str()];
    let args: Vec<&std::ffi::OsStr> = words.iter().map(std::ffi::OsStr::new).collect();
    let (wall, rss, _) = crate::timed(smg, dir, &args);
    println!();
    println!("| graph | first cycle (median of 3) | actions | next day's cycle (median of 3) | actions | `smg curate` (read, curate, write) |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| {count} nodes, {edges} edges ({day} days of activity), {} | {:.2} s | {} | {:.2} s | {} | {:.2} s, {} MB max RSS |",
        kb(std::fs::metadata(&file).map_or(0, |m| m.len() as usize)),
        t1,
        first,
        t2,
        second,
        wall.as_secs_f64(),
        rss / 1024
    );
}

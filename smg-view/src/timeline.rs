//! The timeline: sessions, decisions and artifact versions in time order.

use crate::archive::Archive;
use crate::graph::ViewGraph;
use crate::vault::ArtifactView;
use serde::Serialize;

/// `[time, kind, label, a, b]`: a session's first turn (`a` conversation, `b`
/// position), a decision (`a` node position), an artifact version (`a` artifact
/// position, `b` version).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Event(
    pub(crate) String,
    pub(crate) &'static str,
    pub(crate) String,
    pub(crate) usize,
    pub(crate) u64,
);

/// Every dated session, decision and version; undated ones are left out. Those of
/// a linked file name it (`names[file]`; the file asked's is never used).
pub(crate) fn build(
    graph: &ViewGraph,
    archive: &Archive,
    vault: &[ArtifactView],
    names: &[&str],
) -> Vec<Event> {
    let named = |file: usize, label: String| match names.get(file).filter(|_| file > 0) {
        Some(name) => format!("{label} [{name}]"),
        None => label,
    };
    let mut out = Vec::new();
    for (c, conv) in archive.conversations.iter().enumerate() {
        let mut start = 0;
        for k in 1..=conv.turns.len() {
            if k < conv.turns.len() && conv.turns[k].4 == conv.turns[start].4 {
                continue;
            }
            let run = &conv.turns[start..k];
            if let Some(t) = run.iter().find_map(|t| t.3.clone()) {
                let session = run[0].4.as_deref().unwrap_or("");
                let name = match (conv.id.as_str(), session) {
                    ("", "") => "turns".to_owned(),
                    (c, "") => format!("conversation {c}"),
                    ("", s) => format!("session {s}"),
                    (c, s) => format!("{c} · session {s}"),
                };
                out.push(Event(
                    t,
                    "session",
                    named(conv.file, format!("{name} ({} turns)", run.len())),
                    c,
                    start as u64,
                ));
            }
            start = k;
        }
    }
    for (k, t) in &graph.decisions {
        out.push(Event(
            t.clone(),
            "decision",
            named(graph.files[*k], graph.nodes[*k].2.clone()),
            *k,
            0,
        ));
    }
    for (k, a) in vault.iter().enumerate() {
        for v in &a.versions {
            if let Some(t) = &v.timestamp {
                out.push(Event(
                    t.clone(),
                    "version",
                    named(a.file, format!("{} v{}", a.name, v.v)),
                    k,
                    v.v,
                ));
            }
        }
    }
    out.sort_by_cached_key(|e| (instant(&e.0), e.0.clone(), e.1, e.3, e.4));
    out
}

/// Milliseconds since 1970 for RFC 3339 times (so that offsets compare right);
/// other forms sort after them, as text.
fn instant(t: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(t).map_or(i64::MAX, |d| d.timestamp_millis())
}

//! A memory as one readable Markdown document: the summary and goals, decisions with
//! their rationale, memories by kind, entities, concepts, every artifact's latest
//! version, and a timeline of what is dated. The archive's turns are not copied (they
//! stay in the file: `smg archive show`); tombstoned and restricted nodes are left out.

use std::fmt::Write as _;

use smg_format::model::{Node, Scope};
use smg_format::Document;

use super::Export;
use crate::graph::node_texts;

/// Text on one line: Markdown's line breaks and table bars would break the layout.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn day(n: &Node) -> Option<&str> {
    let t = n.timestamp.as_deref().or(n.created.as_deref())?;
    Some(&t[..t.len().min(10)])
}

fn title(n: &Node) -> String {
    flat(n.label.as_deref().or(n.content.as_deref()).unwrap_or(&n.id))
}

/// A code fence longer than any run of backticks in `content`.
fn fence(content: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

/// The memory as Markdown.
pub fn markdown(doc: &Document) -> Export {
    let mut out = Export::default();
    let m = &doc.metadata;
    let name = m.project_name.as_deref().unwrap_or("Memory");
    let mut md = format!("# {}\n\n", flat(name));
    if let Some(d) = &m.project_description {
        let _ = writeln!(md, "{}\n", flat(d));
    }
    let _ = writeln!(
        md,
        "Created {}; last changed {}.\n",
        m.created,
        m.modified.as_deref().unwrap_or(&m.created)
    );
    if let Some(w) = &doc.working_memory {
        if let Some(s) = &w.summary {
            let _ = writeln!(md, "## Summary\n\n{}\n", flat(s));
        }
        let goals = w.current_goals.as_deref().unwrap_or_default();
        if !goals.is_empty() {
            md.push_str("## Goals\n\n");
            for g in goals {
                let _ = writeln!(md, "- {}", flat(g));
            }
            md.push('\n');
        }
    }
    let nodes: Vec<&Node> = doc
        .semantic_graph
        .iter()
        .flat_map(|g| g.nodes())
        .filter(|n| {
            let why = if n.tombstone == Some(true) {
                Some("tombstoned")
            } else if n.scope == Some(Scope::Restricted) {
                Some("restricted tier")
            } else {
                None
            };
            if let Some(why) = why {
                out.left_out.push((n.id.to_string(), why.into()));
            }
            why.is_none()
        })
        .collect();
    decisions(&nodes, &mut md, &mut out);
    memories(&nodes, &mut md, &mut out);
    named(&nodes, "entity", "Entities", &mut md, &mut out);
    named(&nodes, "concept", "Concepts", &mut md, &mut out);
    artifacts(doc, &mut md, &mut out);
    timeline(&nodes, &mut md);
    let turns = doc.metadata.total_exchanges.unwrap_or(0);
    if turns > 0 {
        out.left_out.push((
            format!("{turns} archived turns"),
            "the archive stays in the file (smg archive show)".into(),
        ));
    }
    out.text = md;
    out
}

fn decisions(nodes: &[&Node], md: &mut String, out: &mut Export) {
    let list: Vec<&&Node> = nodes.iter().filter(|n| n.kind == "decision").collect();
    if list.is_empty() {
        return;
    }
    md.push_str("## Decisions\n\n");
    for n in list {
        let _ = write!(md, "- **{}**", title(n));
        if let Some(o) = &n.outcome {
            let _ = write!(md, ": {}", flat(o));
        }
        if let Some(r) = &n.rationale {
            let _ = write!(md, " — why: {}", flat(r));
        }
        if let Some(d) = day(n) {
            let _ = write!(md, " ({d})");
        }
        md.push('\n');
        out.entities += 1;
    }
    md.push('\n');
}

fn memories(nodes: &[&Node], md: &mut String, out: &mut Export) {
    let mut list: Vec<&&Node> = nodes.iter().filter(|n| n.kind == "memory").collect();
    if list.is_empty() {
        return;
    }
    list.sort_by_key(|n| n.memory_type.clone().unwrap_or_default());
    md.push_str("## Memories\n");
    let mut kind = None;
    for n in list {
        if kind != Some(n.memory_type.as_deref()) {
            kind = Some(n.memory_type.as_deref());
            let _ = writeln!(
                md,
                "\n### {}\n",
                n.memory_type.as_deref().unwrap_or("other")
            );
        }
        let text = n.content.as_deref().or(n.label.as_deref()).unwrap_or(&n.id);
        let _ = write!(md, "- {}", flat(text));
        if let Some(d) = day(n) {
            let _ = write!(md, " ({d})");
        }
        md.push('\n');
        out.entities += 1;
    }
    md.push('\n');
}

fn named(nodes: &[&Node], kind: &str, heading: &str, md: &mut String, out: &mut Export) {
    let list: Vec<&&Node> = nodes.iter().filter(|n| n.kind == kind).collect();
    if list.is_empty() {
        return;
    }
    let _ = writeln!(md, "## {heading}\n");
    for n in list {
        let _ = write!(md, "- **{}**", title(n));
        if let Some(t) = n.tags.as_ref().and_then(|t| t.first()) {
            let _ = write!(md, " ({})", flat(t));
        }
        let label = n.label.as_deref();
        let more: Vec<String> = node_texts(n)
            .filter(|t| Some(*t) != label)
            .map(flat)
            .collect();
        if !more.is_empty() {
            let _ = write!(md, ": {}", more.join("; "));
        }
        md.push('\n');
        out.entities += 1;
    }
    md.push('\n');
}

fn artifacts(doc: &Document, md: &mut String, out: &mut Export) {
    let list = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref());
    let Some(list) = list.filter(|l| !l.is_empty()) else {
        return;
    };
    md.push_str("## Artifacts\n\n");
    for (id, a) in list {
        let v = a.versions.len() as u64;
        let content = match smg_format::vault::rebuild_version(id, a, v) {
            Ok(c) => c,
            Err(e) => {
                out.left_out
                    .push((id.clone(), format!("does not rebuild: {e}")));
                continue;
            }
        };
        let name = a.filename.as_deref().unwrap_or(id);
        let _ = writeln!(md, "### {} (version {v} of {v})\n", flat(name));
        let f = fence(&content);
        let lang = a.language.as_deref().unwrap_or("");
        let _ = writeln!(md, "{f}{lang}\n{}\n{f}\n", content.trim_end_matches('\n'));
        out.entities += 1;
    }
}

fn timeline(nodes: &[&Node], md: &mut String) {
    let mut dated: Vec<(&str, &str, String)> = nodes
        .iter()
        .filter(|n| {
            matches!(
                n.kind.as_str(),
                "decision" | "memory" | "problem" | "solution"
            )
        })
        .filter_map(|n| Some((day(n)?, n.kind.as_str(), title(n))))
        .collect();
    if dated.is_empty() {
        return;
    }
    dated.sort();
    md.push_str("## Timeline\n\n");
    for (d, kind, text) in dated {
        let _ = writeln!(md, "- {d} — {kind}: {text}");
    }
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_fixture_reads_as_a_document() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/valid/full.smg");
        let (doc, _) =
            smg_format::read_file(path.as_ref(), &smg_format::Limits::default()).unwrap();
        let out = markdown(&doc);
        for heading in [
            "## Decisions",
            "## Memories",
            "## Artifacts",
            "```javascript",
        ] {
            assert!(
                out.text.contains(heading),
                "{heading} missing:\n{}",
                out.text
            );
        }
        assert!(out.text.contains("Use Stripe Checkout vs Elements"));
        assert!(
            !out.text.contains("Payment provider contract renegotiation"),
            "restricted"
        );
        assert!(out.left_out.iter().any(|(_, why)| why == "restricted tier"));
        assert_eq!(fence("a ```` b"), "`````");
    }
}

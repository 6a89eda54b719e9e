//! The HTML: data blocks, the inlined script and styles, and a Content Security
//! Policy that lets the page run its own code and fetch nothing.

use base64::Engine as _;
use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use smg_format::Document;

use crate::archive::Archive;
use crate::graph::ViewGraph;
use crate::index::{Gaps, Index, MAX_WORD};
use crate::timeline::Event;
use crate::vault::ArtifactView;
use crate::Stats;

const CYTOSCAPE: &str = include_str!("../assets/vendor/cytoscape.min.js");
const SCRIPT: &str = include_str!("../assets/view.js");
const STYLE: &str = include_str!("../assets/view.css");
const BODY: &str = include_str!("../assets/body.html");
/// Cytoscape.js adds this stylesheet unless the page has it; the page has it, so the
/// policy can name it by hash and nothing is refused.
const CYTOSCAPE_STYLE: &str = ".__________cytoscape_container { position: relative; }";

/// Turns per data block: the page parses a block when one of its turns is shown, so a
/// conversation of a million turns costs what the turns on screen cost.
const TURN_CHUNK: usize = 1000;

/// Everything the page is made of.
pub(crate) struct Parts<'a> {
    pub(crate) doc: &'a Document,
    pub(crate) title: String,
    pub(crate) at: &'a str,
    pub(crate) shown: usize,
    pub(crate) graph: &'a ViewGraph,
    pub(crate) archive: &'a Archive,
    pub(crate) vault: &'a [ArtifactView],
    pub(crate) timeline: &'a [Event],
    pub(crate) index: &'a Index,
    pub(crate) stats: &'a Stats,
}

/// The whole page, and the bytes of each of its parts.
pub(crate) fn assemble(p: &Parts<'_>) -> (String, crate::Parts) {
    let title = &p.title;
    let mut html = String::with_capacity(CYTOSCAPE.len() + SCRIPT.len() + (1 << 16));
    html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
        policy()
    ));
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    html.push_str(&format!("<title>{} — smg view</title>\n", escape(title)));
    html.push_str(&format!(
        "<style id=\"__________cytoscape_stylesheet\">{CYTOSCAPE_STYLE}</style>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    ));
    html.push_str(BODY);
    let mut sizes = crate::Parts::default();
    part(&mut html, &mut sizes.graph, &|h| {
        data(h, "smg-data", &summary(p, title))
    });
    part(&mut html, &mut sizes.details, &|h| {
        data(h, "smg-details", &p.graph.details)
    });
    let index = json!({"terms": p.index.terms, "postings": Gaps(&p.index.postings)});
    part(&mut html, &mut sizes.index, &|h| {
        data(h, "smg-index", &index)
    });
    part(&mut html, &mut sizes.vault, &|h| {
        data(h, "smg-vault", &p.vault)
    });
    part(&mut html, &mut sizes.archive, &|h| {
        for (k, c) in p.archive.conversations.iter().enumerate() {
            for (j, chunk) in c.turns.chunks(TURN_CHUNK).enumerate() {
                data(h, &format!("smg-turns-{k}-{j}"), chunk);
            }
        }
    });
    html.push_str(&format!(
        "<script>{CYTOSCAPE}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    ));
    sizes.code =
        html.len() - sizes.graph - sizes.details - sizes.index - sizes.vault - sizes.archive;
    (html, sizes)
}

/// What the page reads at once: the graph, the lists and the counts.
fn summary(p: &Parts<'_>, title: &str) -> serde_json::Value {
    let wm = p.doc.working_memory.as_ref();
    let conversations: Vec<_> = p
        .archive
        .conversations
        .iter()
        .map(|c| {
            let (first, last) = c.span();
            json!({"id": c.id, "turns": c.turns.len(), "first": first, "last": last})
        })
        .collect();
    let artifacts: Vec<_> = p
        .vault
        .iter()
        .map(|a| json!({"id": a.id, "name": a.name, "type": a.kind, "language": a.language, "versions": a.versions.len()}))
        .collect();
    json!({
        "title": title,
        "at": p.at,
        "shown": p.shown,
        "maxWord": MAX_WORD,
        "chunk": TURN_CHUNK,
        "stats": p.stats,
        "summary": wm.and_then(|w| w.summary.as_deref()),
        "goals": wm.and_then(|w| w.current_goals.as_deref()),
        "nodes": p.graph.nodes,
        "edges": p.graph.edges,
        "relations": p.graph.relations,
        "sealed": p.graph.sealed,
        "conversations": conversations,
        "artifacts": artifacts,
        "timeline": p.timeline,
    })
}

/// Write a part of the page, counting its bytes.
fn part(html: &mut String, size: &mut usize, write: &dyn Fn(&mut String)) {
    let before = html.len();
    write(html);
    *size += html.len() - before;
}

/// Only the page's own scripts and styles run (by hash); nothing may be fetched,
/// framed, submitted or used as a base.
fn policy() -> String {
    let scripts = [CYTOSCAPE, SCRIPT].map(hash).join(" ");
    let styles = [CYTOSCAPE_STYLE, STYLE].map(hash).join(" ");
    format!(
        "default-src 'none'; script-src {scripts}; style-src {styles}; img-src data: blob:; \
         base-uri 'none'; form-action 'none'"
    )
}

fn hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// A data block: JSON that no text inside can end early (`<` and the like escaped).
fn data<T: Serialize + ?Sized>(html: &mut String, id: &str, value: &T) {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    html.push_str(&format!("<script type=\"application/json\" id=\"{id}\">"));
    for c in text.chars() {
        match c {
            '<' => html.push_str("\\u003c"),
            '>' => html.push_str("\\u003e"),
            '&' => html.push_str("\\u0026"),
            '\u{2028}' => html.push_str("\\u2028"),
            '\u{2029}' => html.push_str("\\u2029"),
            c => html.push(c),
        }
    }
    html.push_str("</script>\n");
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_block() {
        let mut html = String::new();
        data(
            &mut html,
            "x",
            &json!({"t": "</script><script>alert(1)</script> & \u{2028}"}),
        );
        assert_eq!(html.matches("</script>").count(), 1);
        let inner = &html[html.find('>').unwrap() + 1..html.rfind("</script>").unwrap()];
        let back: serde_json::Value = serde_json::from_str(inner).unwrap();
        assert_eq!(back["t"], "</script><script>alert(1)</script> & \u{2028}");
    }

    #[test]
    fn the_policy_names_each_inline_script_and_style() {
        let p = policy();
        assert!(p.starts_with("default-src 'none'; script-src 'sha256-"));
        assert_eq!(p.matches("'sha256-").count(), 4);
        assert!(!p.contains("unsafe"));
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Whatever a memory says, its data block ends where the page ends it and
        /// reads back as the same text.
        #[test]
        fn any_text_survives_its_data_block(t in ".*", u in "[<>&/a-z\u{2028}\u{2029}!-]{0,40}") {
            let said = format!("{t}{u}</script>{u}");
            let mut html = String::new();
            data(&mut html, "b", &json!([said]));
            prop_assert_eq!(html.matches("</").count(), 1);
            let inner = &html[html.find('>').unwrap() + 1..html.rfind("</script>").unwrap()];
            let back: serde_json::Value = serde_json::from_str(inner).unwrap();
            prop_assert_eq!(back[0].as_str(), Some(said.as_str()));
        }
    }
}

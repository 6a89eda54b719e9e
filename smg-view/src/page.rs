//! The HTML: data blocks, the inlined script and styles, and a Content Security
//! Policy that lets the page run its own code and fetch nothing.

use base64::Engine as _;
use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::index::{Gaps, MAX_WORD};
use crate::timeline::Event;
use crate::{Prepared, Stats};

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

/// Write the whole page to `sink`: the bytes written, and those of each of its parts.
pub(crate) fn assemble(
    p: &Prepared<'_>,
    stats: &Stats,
    sink: &mut dyn FnMut(&[u8]) -> smg_format::Result<()>,
) -> smg_format::Result<(usize, crate::Parts)> {
    let title = &p.title;
    let mut html = Html::new(sink);
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
    part(&mut html, &mut sizes.graph, &mut |h| {
        data(h, "smg-data", &summary(p, stats))
    });
    part(&mut html, &mut sizes.details, &mut |h| {
        data(h, "smg-details", &p.graph.details)
    });
    let index = IndexBlock {
        postings: Gaps(&p.index.postings),
        terms: &p.index.terms,
    };
    part(&mut html, &mut sizes.index, &mut |h| {
        data(h, "smg-index", &index)
    });
    part(&mut html, &mut sizes.vault, &mut |h| {
        data(h, "smg-vault", &p.vault)
    });
    part(&mut html, &mut sizes.archive, &mut |h| {
        for (k, c) in p.archive.conversations.iter().enumerate() {
            for (j, chunk) in c.turns.chunks(TURN_CHUNK).enumerate() {
                data(h, &format!("smg-turns-{k}-{j}"), chunk);
            }
        }
    });
    html.push_str(&format!(
        "<script>{CYTOSCAPE}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    ));
    let len = html.finish()?;
    sizes.code = len - sizes.graph - sizes.details - sizes.index - sizes.vault - sizes.archive;
    Ok((len, sizes))
}

/// The search index's block, serialised from the index itself (as a `Value`, a
/// million turns' postings took gigabytes).
#[derive(Serialize)]
struct IndexBlock<'a> {
    // In the order `json!` gave them: the keys sorted.
    postings: Gaps<'a>,
    terms: &'a [String],
}

/// Bytes of the page gathered before they go to the sink.
const FLUSHED_AT: usize = 1 << 20;

/// The page as it is written: a buffer handed to the sink each [`FLUSHED_AT`] bytes,
/// the bytes written so far, and the sink's first error (nothing is written after it).
struct Html<'s> {
    buffer: String,
    sink: &'s mut dyn FnMut(&[u8]) -> smg_format::Result<()>,
    len: usize,
    failed: Option<smg_format::Error>,
}

impl<'s> Html<'s> {
    fn new(sink: &'s mut dyn FnMut(&[u8]) -> smg_format::Result<()>) -> Self {
        Html {
            buffer: String::with_capacity(FLUSHED_AT + (1 << 16)),
            sink,
            len: 0,
            failed: None,
        }
    }

    fn push_str(&mut self, s: &str) {
        self.buffer.push_str(s);
        self.len += s.len();
        self.flush_if_full();
    }

    fn push(&mut self, c: char) {
        self.buffer.push(c);
        self.len += c.len_utf8();
        self.flush_if_full();
    }

    fn flush_if_full(&mut self) {
        if self.buffer.len() >= FLUSHED_AT {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.failed.is_none() && !self.buffer.is_empty() {
            self.failed = (self.sink)(self.buffer.as_bytes()).err();
        }
        self.buffer.clear();
    }

    /// The bytes written, once the last are handed on; or the sink's error.
    fn finish(mut self) -> smg_format::Result<usize> {
        self.flush();
        match self.failed {
            Some(e) => Err(e),
            None => Ok(self.len),
        }
    }
}

/// What the page reads at once: the graph, the lists and the counts.
fn summary<'a>(p: &'a Prepared<'_>, stats: &Stats) -> Summary<'a> {
    let wm = p.doc.working_memory.as_ref();
    let conversations: Vec<_> = p
        .archive
        .conversations
        .iter()
        .map(|c| {
            let (first, last) = c.span();
            let mut v = json!({"id": c.id, "turns": c.turns.len(), "first": first, "last": last});
            if c.file > 0 {
                v["file"] = json!(c.file);
            }
            v
        })
        .collect();
    let artifacts: Vec<_> = p
        .vault
        .iter()
        .map(|a| {
            let mut v = json!({"id": a.id, "name": a.name, "type": a.kind, "language": a.language, "versions": a.versions.len()});
            if a.file > 0 {
                v["file"] = json!(a.file);
            }
            v
        })
        .collect();
    // A page of one file says nothing of files, as before links were.
    let linked = !p.linked.is_empty();
    let files = linked.then(|| {
        std::iter::once(json!({"name": null, "path": null}))
            .chain(
                p.linked
                    .iter()
                    .map(|f| json!({"name": f.label(), "path": f.path})),
            )
            .collect()
    });
    Summary {
        artifacts,
        at: p.at.as_str(),
        chunk: TURN_CHUNK,
        conversations,
        edges: &p.graph.edges,
        files,
        goals: wm.and_then(|w| w.current_goals.as_deref()),
        max_word: MAX_WORD,
        node_files: linked.then_some(p.graph.files.as_slice()),
        nodes: &p.graph.nodes,
        relations: &p.graph.relations,
        sealed: json!(p.graph.sealed),
        shown: p.shown,
        stats: json!(stats),
        summary: wm.and_then(|w| w.summary.as_deref()),
        timeline: &p.timeline,
        title: &p.title,
    }
}

/// What the page reads at once, serialised from the page's lists themselves (as one
/// `Value`, a million turns' graph took a gigabyte). The keys are in the order a
/// `Value` gives them (sorted), and the small objects (`sealed`, `stats`) are
/// `Value`s for the same reason: the same memory gives the same page as before.
#[derive(Serialize)]
struct Summary<'a> {
    artifacts: Vec<serde_json::Value>,
    at: &'a str,
    chunk: usize,
    conversations: Vec<serde_json::Value>,
    edges: &'a [(usize, usize, usize)],
    /// A network's files: the file asked first (no name), then each linked one.
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Vec<serde_json::Value>>,
    goals: Option<&'a [String]>,
    #[serde(rename = "maxWord")]
    max_word: usize,
    /// In a network, the file of each node (its place in `files`).
    #[serde(rename = "nodeFiles", skip_serializing_if = "Option::is_none")]
    node_files: Option<&'a [usize]>,
    nodes: &'a [crate::graph::ViewNode],
    relations: &'a [String],
    sealed: serde_json::Value,
    shown: usize,
    stats: serde_json::Value,
    summary: Option<&'a str>,
    timeline: &'a [Event],
    title: &'a str,
}

/// Write a part of the page, counting its bytes.
fn part(html: &mut Html<'_>, size: &mut usize, write: &mut dyn FnMut(&mut Html<'_>)) {
    let before = html.len;
    write(html);
    *size += html.len - before;
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
fn data<T: Serialize + ?Sized>(html: &mut Html<'_>, id: &str, value: &T) {
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

    /// A data block alone, as the page writes it.
    pub(super) fn block(id: &str, value: &serde_json::Value) -> String {
        let mut out = Vec::new();
        {
            let mut sink = |piece: &[u8]| {
                out.extend_from_slice(piece);
                Ok(())
            };
            let mut html = Html::new(&mut sink);
            data(&mut html, id, value);
            html.finish().unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn data_cannot_close_its_block() {
        let html = block(
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
            let html = super::tests::block("b", &json!([said]));
            prop_assert_eq!(html.matches("</").count(), 1);
            let inner = &html[html.find('>').unwrap() + 1..html.rfind("</script>").unwrap()];
            let back: serde_json::Value = serde_json::from_str(inner).unwrap();
            prop_assert_eq!(back[0].as_str(), Some(said.as_str()));
        }
    }
}

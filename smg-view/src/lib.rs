//! The HTML view of a memory: one self-contained page of its graph, timeline, vault
//! and archive that works offline (`smg view`).
//!
//! Everything the page shows is built here, once, into JSON blocks inside the page:
//! the graph's nodes ordered by importance with their freshness (the curation score's
//! recency, spec §18.3), the edges, a search index over nodes and turns, the vault's
//! versions with side-by-side diffs, the archive one block per conversation (parsed
//! only when opened), the timeline and the sealed sections (id, tier, size: never
//! their content). A page of a network ([`prepare_network`]) holds every linked
//! file's graph, turns and vault beside the file asked's, each marked with its file,
//! and its search reaches them all. The page's script and the vendored graph library
//! (Cytoscape.js) are inlined, and a Content Security Policy allows nothing else: no
//! request leaves the page.
//!
//! ```
//! use smg_format::model::{Document, Graph, Node, NonEmpty};
//! use smg_view::{render, ViewOptions};
//!
//! let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
//! let node = Node {
//!     label: Some("Use Postgres".into()),
//!     ..Node::new(NonEmpty::from_static("dec-1"), NonEmpty::from_static("decision"))
//! };
//! doc.semantic_graph = Some(Graph { nodes: Some(vec![node]), ..Graph::default() });
//! let page = render(&doc, &ViewOptions::default()).unwrap();
//! assert!(page.html.starts_with("<!DOCTYPE html>"));
//! assert!(page.html.contains("Use Postgres"));
//! assert_eq!(page.stats.nodes, 1);
//! ```

#![forbid(unsafe_code)]

mod archive;
mod graph;
mod index;
mod page;
mod timeline;
mod vault;

use serde::Serialize;
use smg_engine::search::FileRef;
use smg_format::model::Timestamp;
use smg_format::{limits::Limits, Document};

/// How the page is built.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ViewOptions {
    /// The time freshness is measured to; default: the memory's own last
    /// change (`metadata.modified`, else `created`), so that the same file gives the
    /// same page.
    pub at: Option<Timestamp>,
    /// How many nodes, the most important first, the graph shows at first; the page
    /// adds as many again on each "show more".
    pub shown: usize,
    /// Limits for decoding archive blocks and rebuilding artifact versions.
    pub limits: Limits,
    /// The page's title when the memory names no project and has no id (the CLI
    /// gives the file's name).
    pub title: Option<String>,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            at: None,
            shown: DEFAULT_SHOWN,
            limits: Limits::default(),
            title: None,
        }
    }
}

impl ViewOptions {
    /// Options measuring freshness at `at`.
    pub fn at(mut self, at: Timestamp) -> Self {
        self.at = Some(at);
        self
    }

    /// Options showing the `n` most important nodes at first.
    pub fn shown(mut self, n: usize) -> Self {
        self.shown = n.max(1);
        self
    }

    /// Options titling the page `title` when the memory names itself nothing.
    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_owned());
        self
    }

    /// Options decoding under `limits`.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// The graph shows this many nodes at first: a few hundred lay out in well under a
/// second and stay readable; the rest are a click ("show more") or a search away.
pub const DEFAULT_SHOWN: usize = 300;

/// A page and what it holds.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Page {
    /// The whole HTML document.
    pub html: String,
    /// Counts, for reports.
    pub stats: Stats,
}

/// What a page holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Stats {
    /// Graph nodes (every graph, and sealed nodes' placeholders).
    pub nodes: usize,
    /// Nodes the graph shows at first.
    pub shown: usize,
    /// Edges between known nodes.
    pub edges: usize,
    /// Edges left out because an end is in no graph.
    pub dangling_edges: usize,
    /// Archived turns.
    pub turns: usize,
    /// Conversations in the archive.
    pub conversations: usize,
    /// Artifacts in the vault.
    pub artifacts: usize,
    /// Sealed sections (shown by id, tier and size only).
    pub sealed: usize,
    /// Timeline entries (sessions, decisions, artifact versions).
    pub timeline: usize,
    /// Linked files whose memory the page holds beside the file asked's.
    pub linked_files: usize,
    /// Distinct terms in the search index.
    pub terms: usize,
    /// Bytes of the page.
    pub bytes: usize,
    /// Bytes of each part of the page.
    pub parts: Parts,
}

/// Bytes of each part of a page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Parts {
    /// The graph, lists and counts the page reads at once.
    pub graph: usize,
    /// Every node's fields, read on the first click.
    pub details: usize,
    /// The search index, read on the first search.
    pub index: usize,
    /// The vault's versions and diffs, read when the vault opens.
    pub vault: usize,
    /// The archive's turns, read a block of 1,000 at a time.
    pub archive: usize,
    /// The page's own script and styles and Cytoscape.js.
    pub code: usize,
}

/// The memory's name: its project, else its id, else the caller's.
fn title(doc: &Document, options: &ViewOptions) -> String {
    let m = &doc.metadata;
    [&m.project_name, &m.id, &options.title]
        .into_iter()
        .flatten()
        .find(|t| !t.trim().is_empty())
        .map_or_else(|| "memory".into(), Clone::clone)
}

/// Build the page of `doc`.
///
/// Reads the whole archive and rebuilds every artifact version; a block or version
/// that cannot be decoded is an error (the file is broken), never a silently shorter
/// page. Sealed sections are never opened. [`prepare`] and [`Prepared::write_to`]
/// give the same page without holding it (a million turns make a page of 400 MB).
pub fn render(doc: &Document, options: &ViewOptions) -> smg_engine::Result<Page> {
    let mut html = Vec::new();
    let stats = prepare(doc, options)?.write_to(&mut |piece| {
        html.extend_from_slice(piece);
        Ok(())
    })?;
    // The page is made of `str` pieces only.
    let html = String::from_utf8(html)
        .map_err(|e| smg_format::Error::InvalidArgument(format!("the page is not UTF-8: {e}")))?;
    Ok(Page { html, stats })
}

/// Everything `doc`'s page shows, built and ready to be written ([`Prepared::write_to`]).
///
/// Reads the whole archive and rebuilds every artifact version, as [`render`] does;
/// every error a page can meet is met here, before a byte is written.
pub fn prepare<'a>(doc: &'a Document, options: &ViewOptions) -> smg_engine::Result<Prepared<'a>> {
    build(doc, &[], options)
}

/// Everything the page of a network of linked memories shows: `files[0]` is the
/// file asked (its working memory and title head the page), the others the files its
/// links reach (as [`smg_engine::search::linked_documents`] gives them). Each
/// linked file's nodes, conversations, artifacts, sealed sections and timeline
/// entries are marked with its link's name; edges and provenance stay within a file
/// (node ids of two files may be the same). One file alone gives [`prepare`]'s page.
pub fn prepare_network<'a>(
    files: &'a [(FileRef, Document)],
    options: &ViewOptions,
) -> smg_engine::Result<Prepared<'a>> {
    match files {
        [] => Err(smg_format::Error::InvalidArgument("a page needs a file".into()).into()),
        [(_, doc)] => prepare(doc, options),
        [(_, doc), linked @ ..] => build(doc, linked, options),
    }
}

/// The page of `doc` and of the `linked` files.
fn build<'a>(
    doc: &'a Document,
    linked: &[(FileRef, Document)],
    options: &ViewOptions,
) -> smg_engine::Result<Prepared<'a>> {
    let at = match &options.at {
        Some(t) => t.clone(),
        None => doc
            .metadata
            .modified
            .clone()
            .unwrap_or_else(|| doc.metadata.created.clone()),
    };
    let docs: Vec<&Document> = std::iter::once(doc)
        .chain(linked.iter().map(|(_, d)| d))
        .collect();
    let archive = archive::build(&docs, &options.limits)?;
    let graph = graph::build(&docs, &at, &archive)?;
    let vault = vault::build(&docs)?;
    let files: Vec<FileRef> = linked.iter().map(|(f, _)| f.clone()).collect();
    let names: Vec<&str> = std::iter::once("")
        .chain(files.iter().map(FileRef::label))
        .collect();
    let timeline = timeline::build(&graph, &archive, &vault, &names);
    let index = index::build(&graph, &archive);
    Ok(Prepared {
        doc,
        title: title(doc, options),
        at,
        shown: options.shown,
        linked: files,
        graph,
        archive,
        vault,
        timeline,
        index,
    })
}

/// A page built by [`prepare`], not yet written: everything it is made of.
#[derive(Debug)]
pub struct Prepared<'a> {
    doc: &'a Document,
    title: String,
    at: Timestamp,
    shown: usize,
    /// The linked files, in the page's file order after the file asked.
    linked: Vec<FileRef>,
    graph: graph::ViewGraph,
    archive: archive::Archive,
    vault: Vec<vault::ArtifactView>,
    timeline: Vec<timeline::Event>,
    index: index::Index,
}

impl Prepared<'_> {
    /// Write the page's HTML to `sink` in pieces as it is made; what it holds, with
    /// the bytes written. The first error `sink` gives ends the page and is returned.
    pub fn write_to(
        &self,
        sink: &mut dyn FnMut(&[u8]) -> smg_format::Result<()>,
    ) -> smg_format::Result<Stats> {
        let mut stats = Stats {
            nodes: self.graph.nodes.len(),
            shown: self.shown.min(self.graph.nodes.len()),
            edges: self.graph.edges.len(),
            dangling_edges: self.graph.dangling,
            turns: self.archive.turns(),
            conversations: self.archive.conversations.len(),
            artifacts: self.vault.len(),
            sealed: self.graph.sealed.len(),
            timeline: self.timeline.len(),
            linked_files: self.linked.len(),
            terms: self.index.terms.len(),
            bytes: 0,
            parts: Parts::default(),
        };
        let (bytes, parts) = page::assemble(self, &stats, sink)?;
        stats.bytes = bytes;
        stats.parts = parts;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use smg_format::archive::{append_turns, ArchiveOptions};
    use smg_format::model::{NonEmpty, Ordinal, Turn};

    use super::*;

    /// A memory whose page is several megabytes: many flushes to the sink.
    fn large() -> Document {
        let mut doc = Document::new(Timestamp::from_static("2025-01-01T00:00:00Z"));
        let turns: Vec<Turn> = (1..=3000u64)
            .map(|n| Turn {
                conversation_id: Some(format!("c{}", n % 7).into()),
                ..Turn::new(
                    Ordinal::new(n).unwrap(),
                    NonEmpty::from_static("user"),
                    format!("turn {n}: {}", "words of the memory ".repeat(40)),
                )
            })
            .collect();
        append_turns(&mut doc, &turns, &ArchiveOptions::default()).unwrap();
        doc
    }

    #[test]
    fn a_page_written_in_pieces_is_the_page_rendered() {
        let doc = large();
        let page = render(&doc, &ViewOptions::default()).unwrap();
        let (mut pieces, mut out) = (0, Vec::new());
        let stats = prepare(&doc, &ViewOptions::default())
            .unwrap()
            .write_to(&mut |piece| {
                pieces += 1;
                out.extend_from_slice(piece);
                Ok(())
            })
            .unwrap();
        assert!(pieces > 2, "{pieces} pieces");
        assert!(out == page.html.as_bytes());
        assert_eq!(stats, page.stats);
        assert_eq!(stats.bytes, out.len());
        assert_eq!(stats.turns, 3000);
    }

    /// A memory of one conversation `c` ("said in {c}" twice) whose graph has
    /// nodes `a` (drawn from turn 2) and `b`, joined by an edge.
    fn small(c: &str, importance: f64) -> Document {
        use smg_format::model::{Edge, Graph, Node, Provenance};
        let mut doc = Document::new(Timestamp::from_static("2025-01-01T00:00:00Z"));
        let turns: Vec<Turn> = (1..=2u64)
            .map(|n| Turn {
                conversation_id: Some(c.to_owned().into()),
                ..Turn::new(
                    Ordinal::new(n).unwrap(),
                    NonEmpty::from_static("user"),
                    format!("said in {c}, turn {n}"),
                )
            })
            .collect();
        append_turns(&mut doc, &turns, &ArchiveOptions::default()).unwrap();
        let node = |id: &'static str| Node {
            label: Some(format!("{id} of {c}")),
            importance: Some(importance.try_into().unwrap()),
            provenance: Some(vec![Provenance {
                turns: Some(vec![Ordinal::new(2).unwrap()]),
                ..Provenance::default()
            }]),
            ..Node::new(NonEmpty::from_static(id), NonEmpty::from_static("concept"))
        };
        let edge = Edge::new(
            NonEmpty::from_static("a"),
            NonEmpty::from_static("related_to"),
            NonEmpty::from_static("b"),
        );
        doc.semantic_graph = Some(Graph {
            nodes: Some(vec![node("a"), node("b")]),
            edges: Some(vec![edge]),
            ..Graph::default()
        });
        doc
    }

    #[test]
    fn a_network_page_holds_each_file_marked_and_apart() {
        let files = vec![
            (FileRef::new(None, "mine.smg"), small("mine", 0.2)),
            (
                FileRef::new(Some("team".into()), "team.smg"),
                small("team", 0.9),
            ),
        ];
        let p = prepare_network(&files, &ViewOptions::default()).unwrap();
        // The same ids in two files are two nodes; the linked file's, more
        // important, come first.
        let ids: Vec<(&str, usize)> = p
            .graph
            .nodes
            .iter()
            .zip(&p.graph.files)
            .map(|(n, f)| (n.0.as_str(), *f))
            .collect();
        assert_eq!(ids, [("a", 1), ("b", 1), ("a", 0), ("b", 0)]);
        // Each edge joins nodes of its own file.
        let mut edges = p.graph.edges.clone();
        edges.sort_unstable();
        assert_eq!(edges, [(0, 1, 0), (2, 3, 0)]);
        // Provenance reaches each file's own turn.
        let turn = |k: usize| {
            let at = &p.graph.details[k]["turns"][0];
            let (c, t) = (at[0].as_u64().unwrap(), at[1].as_u64().unwrap());
            p.archive.conversations[c as usize].turns[t as usize]
                .5
                .clone()
        };
        assert_eq!(turn(0), "said in team, turn 2");
        assert_eq!(turn(2), "said in mine, turn 2");
        let convs: Vec<(&str, usize)> = p
            .archive
            .conversations
            .iter()
            .map(|c| (c.id.as_str(), c.file))
            .collect();
        assert_eq!(convs, [("mine", 0), ("team", 1)]);
        let mut html = Vec::new();
        let stats = p
            .write_to(&mut |b| {
                html.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
        assert_eq!((stats.linked_files, stats.nodes, stats.turns), (1, 4, 4));
        let html = String::from_utf8(html).unwrap();
        assert!(html
            .contains(r#""files":[{"name":null,"path":null},{"name":"team","path":"team.smg"}]"#));
        assert!(html.contains(r#""nodeFiles":[1,1,0,0]"#));
        // One file alone: the page of `prepare`, which says nothing of files.
        let alone = prepare_network(&files[..1], &ViewOptions::default()).unwrap();
        let one = render(&files[0].1, &ViewOptions::default()).unwrap();
        let mut again = Vec::new();
        alone
            .write_to(&mut |b| {
                again.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
        assert!(again == one.html.as_bytes());
        assert!(!one.html.contains(r#""nodeFiles":"#) && !one.html.contains(r#""files":"#));
    }

    #[test]
    fn the_sinks_first_error_ends_the_page() {
        let doc = large();
        let mut calls = 0;
        let got = prepare(&doc, &ViewOptions::default())
            .unwrap()
            .write_to(&mut |_| {
                calls += 1;
                Err(smg_format::Error::InvalidArgument(format!(
                    "disk full at {calls}"
                )))
            });
        assert!(matches!(got, Err(smg_format::Error::InvalidArgument(m)) if m == "disk full at 1"));
        assert_eq!(calls, 1);
    }
}

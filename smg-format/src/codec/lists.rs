//! A document's canonical JSON written a list item at a time: the large lists (the
//! graphs' nodes and edges, the archive's blocks) are taken out, the rest is written
//! whole (it is small), and each list's items are written into their place one after
//! another and freed as they go. What is held beside the document is a buffer, not
//! the document's text (`smg convert` of a million-turn memory held both).

use std::borrow::Cow;

use serde::Serialize;

use crate::canonical::{append, to_vec, with_entries, Pieces};
use crate::error::Result;
use crate::model::{Block, DeepArchive, Document, Edge, Graph, Node};

/// Text written to the sink at a time, at most (and one item's text, at least).
const BUFFERED: usize = 1 << 20;

/// A large list taken out of the document.
enum List {
    Nodes(Vec<Node>),
    Edges(Vec<Edge>),
    Blocks(Vec<Block>),
}

/// Where each [`List`] goes among the pieces of the JSON without them: canonical JSON
/// never holds a NUL byte, so no piece of it is one of these.
const MARKERS: [&[u8]; 5] = [b"\0 0", b"\0 1", b"\0 2", b"\0 3", b"\0 4"];

/// Write `doc`'s canonical JSON (the bytes of [`crate::codec::to_canonical_json`])
/// to `sink` in pieces, each list item freed once written.
pub(crate) fn write_document(
    mut doc: Document,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    crate::archive::settle(&mut doc)?;
    if !apart(&doc) {
        return sink(&to_vec(&doc)?);
    }
    let taken = Taken::out(&mut doc)?;
    let rest = to_vec(&doc)?;
    drop(doc);
    taken.write_into(&rest, sink)
}

/// Write the canonical JSON of an object of which `archive` is the member
/// `deepArchive` (`rest` is the object's canonical JSON without it) to `sink` in
/// pieces, the archive's blocks freed once written. The archive must bear no unknown
/// member named `blocks`.
pub(crate) fn write_with_archive(
    rest: &[u8],
    archive: DeepArchive,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut taken = Taken::default();
    taken.archive(archive)?;
    taken.write_into(rest, sink)
}

/// A section whose lists were taken out: its key, its text without them, and each
/// list's key and number.
struct Section {
    key: &'static str,
    text: Vec<u8>,
    places: Vec<(&'static str, usize)>,
}

/// The sections with large lists (the graphs, the archive), taken out of a document.
#[derive(Default)]
struct Taken {
    sections: Vec<Section>,
    lists: Vec<List>,
}

impl Taken {
    fn out(doc: &mut Document) -> Result<Taken> {
        let mut taken = Taken::default();
        for (key, graph) in [
            ("semanticGraph", doc.semantic_graph.take()),
            ("sharedGraph", doc.shared_graph.take()),
        ] {
            if let Some(mut g) = graph {
                let places = [
                    g.edges.take().map(|e| taken.list("edges", List::Edges(e))),
                    g.nodes.take().map(|n| taken.list("nodes", List::Nodes(n))),
                ];
                taken.section(key, &g, places.into_iter().flatten().collect())?;
            }
        }
        if let Some(archive) = doc.deep_archive.take() {
            taken.archive(archive)?;
        }
        Ok(taken)
    }

    fn archive(&mut self, mut archive: DeepArchive) -> Result<()> {
        let places = archive
            .blocks
            .take()
            .map(|b| self.list("blocks", List::Blocks(b)));
        self.section("deepArchive", &archive, places.into_iter().collect())
    }

    /// The text of the object `rest` (the JSON without the sections taken) with the
    /// sections and their lists in their places, to `sink`, each item freed once
    /// written.
    fn write_into(self, rest: &[u8], sink: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let mut entries = Vec::new();
        for section in &self.sections {
            let marked = section
                .places
                .iter()
                .map(|&(name, list)| (name, vec![Cow::Borrowed(MARKERS[list])]))
                .collect();
            entries.push((section.key, with_entries(&section.text, marked)?));
        }
        let pieces: Pieces<'_> = with_entries(rest, entries)?;
        let mut lists: Vec<Option<List>> = self.lists.into_iter().map(Some).collect();
        let mut out = Writer {
            buffer: Vec::with_capacity(BUFFERED + BUFFERED / 4),
            sink,
        };
        for piece in &pieces {
            let list = MARKERS.iter().position(|m| piece[..] == **m);
            match list.and_then(|i| lists[i].take()) {
                Some(List::Nodes(items)) => out.items(items)?,
                Some(List::Edges(items)) => out.items(items)?,
                Some(List::Blocks(items)) => out.items(items)?,
                None => out.write(piece)?,
            }
        }
        out.flush()
    }

    fn list(&mut self, name: &'static str, list: List) -> (&'static str, usize) {
        self.lists.push(list);
        (name, self.lists.len() - 1)
    }

    fn section<T: Serialize>(
        &mut self,
        key: &'static str,
        without_lists: &T,
        places: Vec<(&'static str, usize)>,
    ) -> Result<()> {
        self.sections.push(Section {
            key,
            text: to_vec(without_lists)?,
            places,
        });
        Ok(())
    }
}

/// Whether the lists can be put back by key: no unknown member of the document, a
/// graph or the archive bears a list's or a section's name (the whole text would
/// hold that member instead).
fn apart(doc: &Document) -> bool {
    let sections = ["semanticGraph", "sharedGraph", "deepArchive"];
    let graph_apart = |g: &Option<Graph>| {
        g.as_ref()
            .is_none_or(|g| !g.extra.contains_key("nodes") && !g.extra.contains_key("edges"))
    };
    let archive_apart =
        |a: &Option<DeepArchive>| a.as_ref().is_none_or(|a| !a.extra.contains_key("blocks"));
    sections.iter().all(|k| !doc.extra.contains_key(*k))
        && graph_apart(&doc.semantic_graph)
        && graph_apart(&doc.shared_graph)
        && archive_apart(&doc.deep_archive)
}

/// Text gathered into a buffer and handed to the sink when it is full.
struct Writer<'s> {
    buffer: Vec<u8>,
    sink: &'s mut dyn FnMut(&[u8]) -> Result<()>,
}

impl Writer<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.buffer.extend_from_slice(bytes);
        self.flush_when_full()
    }

    /// `items` as a JSON array, each freed once written.
    fn items<T: Serialize>(&mut self, items: Vec<T>) -> Result<()> {
        self.buffer.push(b'[');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.buffer.push(b',');
            }
            append(&item, &mut self.buffer)?;
            self.flush_when_full()?;
        }
        self.write(b"]")
    }

    fn flush_when_full(&mut self) -> Result<()> {
        if self.buffer.len() >= BUFFERED {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.buffer.is_empty() {
            (self.sink)(&self.buffer)?;
            self.buffer.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(doc: &Document) -> Vec<u8> {
        let mut out = Vec::new();
        let mut calls = 0;
        write_document(doc.clone(), &mut |b| {
            out.extend_from_slice(b);
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert!(calls >= 1);
        out
    }

    #[test]
    fn every_fixture_is_written_as_its_whole_text() {
        let mut read = 0;
        for path in crate::test_support::fixture_files() {
            let Ok((doc, _)) = crate::file::read_file(&path, &crate::Limits::default()) else {
                continue;
            };
            let whole = to_vec(&doc).unwrap();
            assert!(written(&doc) == whole, "{}", path.display());
            read += 1;
        }
        assert!(read > 30, "only {read} fixtures read");
    }

    /// `full.smg` with `count` copies of each node, edge and block, in both graphs.
    fn large(count: usize) -> Document {
        let mut doc = crate::test_support::full_fixture();
        let grow = |g: &mut Graph| {
            let nodes = g.nodes().to_vec();
            let edges = g.edges().to_vec();
            g.nodes = Some(nodes.iter().cycle().take(count).cloned().collect());
            g.edges = Some(edges.iter().cycle().take(count).cloned().collect());
        };
        grow(doc.semantic_graph.get_or_insert_with(Default::default));
        doc.shared_graph = doc.semantic_graph.clone();
        let archive = doc.deep_archive.get_or_insert_with(Default::default);
        let blocks = archive.blocks().to_vec();
        archive.blocks = Some(blocks.iter().cycle().take(count).cloned().collect());
        doc
    }

    #[test]
    fn lists_over_many_buffers_are_written_in_their_places() {
        let doc = large(20_000);
        let whole = to_vec(&doc).unwrap();
        assert!(whole.len() > 4 * BUFFERED, "{} bytes", whole.len());
        assert!(written(&doc) == whole);
    }

    #[test]
    fn empty_lists_and_members_named_as_lists_keep_the_whole_text() {
        let mut doc = large(3);
        doc.semantic_graph.as_mut().unwrap().nodes = Some(Vec::new());
        doc.deep_archive.as_mut().unwrap().blocks = None;
        assert!(written(&doc) == to_vec(&doc).unwrap());
        let named: [fn(&mut Document); 3] = [
            |d| {
                d.extra.insert("deepArchive".into(), 1.into());
            },
            |d| {
                let g = d.shared_graph.as_mut().unwrap();
                g.extra.insert("edges".into(), "unknown".into());
            },
            |d| {
                let a = d.deep_archive.as_mut().unwrap();
                a.extra.insert("blocks".into(), "unknown".into());
            },
        ];
        for name in named {
            let mut doc = large(3);
            name(&mut doc);
            assert!(written(&doc) == to_vec(&doc).unwrap());
        }
    }
}

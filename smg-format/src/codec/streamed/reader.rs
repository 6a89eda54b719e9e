//! The reader of [`super`]: a document's text taken a piece at a time, its large
//! lists parsed an item at a time as each item's text is complete.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use super::DEEPEST;
use crate::merge::LeanLists;
use crate::model::{Artifact, Block, Document, Edge, Node};

/// What becomes of the semantic graph's nodes and edges as they are read.
#[derive(Default)]
pub(super) enum Mode {
    /// Each kept.
    #[default]
    Whole,
    /// The derived ones left out ([`crate::merge::Lean`]).
    Lean(LeanLists),
    /// Each parsed and dropped; how many nodes and edges so far.
    Counted(u64, u64),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Graph,
    Archive,
    Vault,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    Nodes,
    Edges,
    Blocks,
    Artifacts,
}

/// An open object or array.
struct Frame {
    object: bool,
    /// In an object: whether the next string is a key.
    want_key: bool,
    section: Option<Section>,
    list: Option<List>,
}

/// Where the bytes being read go.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Sink {
    #[default]
    Skeleton,
    /// The text of the list item being read.
    Item,
    /// An artifact's id (its JSON string).
    Id,
    /// Between a list's items: separators and white space.
    Drop,
}

#[derive(Default)]
struct Lists {
    nodes: Option<Vec<Node>>,
    edges: Option<Vec<Edge>>,
    blocks: Option<Vec<Block>>,
    artifacts: Option<BTreeMap<String, Artifact>>,
}

/// What has been read of a document so far.
#[derive(Default)]
pub(super) struct Reader {
    skeleton: Vec<u8>,
    item: Vec<u8>,
    id: Vec<u8>,
    /// The last key read in the root object or in a section, as written.
    key: Vec<u8>,
    /// Whether the string being read is such a key.
    keyed: bool,
    /// How deep in the item being read.
    depth: usize,
    stack: Vec<Frame>,
    in_string: bool,
    escaped: bool,
    sink: Sink,
    lists: Lists,
    mode: Mode,
}

/// Keys longer than this name no section or list.
const LONGEST_KEY: usize = 16;

impl Reader {
    pub(super) fn new(mode: Mode) -> Reader {
        Reader {
            mode,
            ..Reader::default()
        }
    }

    pub(super) fn push(&mut self, mut text: &[u8]) -> Option<()> {
        while let Some(&b) = text.first() {
            if self.sink == Sink::Item {
                let n = self.item_text(text)?;
                text = &text[n..];
                continue;
            }
            if self.in_string {
                let n = self.string(text);
                text = &text[n..];
                continue;
            }
            match b {
                b'"' => self.open_string()?,
                b'{' | b'[' => {
                    if !self.open(b)? {
                        continue;
                    }
                }
                b'}' | b']' => self.close(b)?,
                b':' => {
                    self.top()?.want_key = false;
                    self.emit(&[b]);
                }
                b',' => {
                    if let Some(top) = self.stack.last_mut().filter(|f| f.object) {
                        top.want_key = true;
                    }
                    self.emit(&[b]);
                }
                b' ' | b'\n' | b'\r' | b'\t' => self.emit(&[b]),
                // A literal or a number: never a list's item.
                _ if self.sink == Sink::Drop => return None,
                _ => self.emit(&[b]),
            }
            text = &text[1..];
        }
        Some(())
    }

    /// Read string bytes from `text`, up to and including the closing quote; how
    /// many were read.
    fn string(&mut self, text: &[u8]) -> usize {
        if self.escaped {
            self.escaped = false;
            self.emit_string(&text[..1]);
            return 1;
        }
        let Some(at) = memchr::memchr2(b'"', b'\\', text) else {
            self.emit_string(text);
            return text.len();
        };
        self.emit_string(&text[..at]);
        self.emit(&text[at..=at]);
        if text[at] == b'\\' {
            self.escaped = true;
            if self.keyed {
                // An escaped key is not matched: it is read whole, in the skeleton.
                self.key.push(b'\\');
            }
        } else {
            self.in_string = false;
            self.keyed = false;
            if self.sink == Sink::Id {
                self.sink = Sink::Drop;
            }
        }
        at + 1
    }

    fn open_string(&mut self) -> Option<()> {
        let top = self.stack.last()?;
        if self.sink == Sink::Drop {
            // In a list: only an artifact's id, the key of an entry of the vault.
            if top.list != Some(List::Artifacts) || !top.want_key {
                return None;
            }
            self.sink = Sink::Id;
            self.id.clear();
        } else if top.object && top.want_key {
            let depth = self.stack.len();
            self.keyed = depth == 1 || (depth == 2 && top.section.is_some());
            self.key.clear();
        }
        self.in_string = true;
        self.emit(b"\"");
        Some(())
    }

    /// Open an object or array; `false` when it begins a list's item, left unread.
    fn open(&mut self, b: u8) -> Option<bool> {
        let depth = self.stack.len();
        if depth >= DEEPEST {
            return None;
        }
        let mut frame = Frame {
            object: b == b'{',
            want_key: b == b'{',
            section: None,
            list: None,
        };
        if self.sink == Sink::Drop {
            // A list's item begins (for the vault, once its id and colon are read),
            // read from this byte on by `item_text`.
            if self.stack.last()?.want_key {
                return None;
            }
            self.sink = Sink::Item;
            return Some(false);
        }
        if depth == 1 && b == b'{' {
            frame.section = self.section();
        } else if depth == 2 {
            let section = self.stack[1].section;
            frame.list = section.and_then(|s| self.list(s, b));
        }
        self.emit(&[b]);
        if let Some(list) = frame.list {
            self.start(list);
            self.sink = Sink::Drop;
        }
        self.stack.push(frame);
        Some(true)
    }

    fn close(&mut self, b: u8) -> Option<()> {
        let frame = self.stack.pop()?;
        if frame.object != (b == b'}') {
            return None;
        }
        if frame.list.is_some() {
            self.sink = Sink::Skeleton;
        }
        self.emit(&[b]);
        Some(())
    }

    /// Read an item's text from `text` (which begins it, or goes on with it): only
    /// its end is looked for, and its text is parsed where it lies unless it began in
    /// an earlier piece. How many bytes were read.
    fn item_text(&mut self, text: &[u8]) -> Option<usize> {
        let mut i = 0;
        while i < text.len() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                let Some(at) = memchr::memchr2(b'"', b'\\', &text[i..]) else {
                    break;
                };
                i += at;
                self.escaped = text[i] == b'\\';
                self.in_string = self.escaped;
            } else {
                match text[i] {
                    b'"' => self.in_string = true,
                    b'{' | b'[' if self.depth + 3 >= DEEPEST => return None,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth = self.depth.checked_sub(1)?;
                        if self.depth == 0 {
                            self.item_read(&text[..=i])?;
                            self.sink = Sink::Drop;
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        self.item.extend_from_slice(text);
        Some(text.len())
    }

    fn section(&self) -> Option<Section> {
        Some(match &self.key[..] {
            b"semanticGraph" => Section::Graph,
            b"deepArchive" => Section::Archive,
            b"artifactVault" => Section::Vault,
            _ => return None,
        })
    }

    fn list(&self, section: Section, b: u8) -> Option<List> {
        Some(match (section, &self.key[..], b) {
            (Section::Graph, b"nodes", b'[') => List::Nodes,
            (Section::Graph, b"edges", b'[') => List::Edges,
            (Section::Archive, b"blocks", b'[') => List::Blocks,
            (Section::Vault, b"artifacts", b'{') => List::Artifacts,
            _ => return None,
        })
    }

    /// A list begins. One met twice leaves its key twice in the skeleton, which its
    /// parse refuses (a duplicate field), as a whole parse does.
    fn start(&mut self, list: List) {
        let l = &mut self.lists;
        match list {
            List::Nodes => {
                l.nodes.get_or_insert_default();
            }
            List::Edges => {
                l.edges.get_or_insert_default();
            }
            List::Blocks => {
                l.blocks.get_or_insert_default();
            }
            List::Artifacts => {
                l.artifacts.get_or_insert_default();
            }
        }
    }

    /// The item whose text ends with `last`, parsed into its list.
    fn item_read(&mut self, last: &[u8]) -> Option<()> {
        let text = if self.item.is_empty() {
            last
        } else {
            self.item.extend_from_slice(last);
            &self.item
        };
        let l = &mut self.lists;
        match (self.stack.last()?.list?, &mut self.mode) {
            (List::Nodes, Mode::Lean(lean)) => l.nodes.as_mut()?.extend(lean.node(text).ok()?),
            (List::Edges, Mode::Lean(lean)) => lean.edge(text),
            (List::Nodes, Mode::Counted(nodes, _)) => {
                parse::<Node>(text)?;
                *nodes += 1;
            }
            (List::Edges, Mode::Counted(_, edges)) => {
                parse::<Edge>(text)?;
                *edges += 1;
            }
            (List::Nodes, Mode::Whole) => l.nodes.as_mut()?.push(parse(text)?),
            (List::Edges, Mode::Whole) => l.edges.as_mut()?.push(parse(text)?),
            (List::Blocks, _) => l.blocks.as_mut()?.push(parse(text)?),
            (List::Artifacts, _) => {
                let id = parse(&self.id)?;
                // A later entry with the same id takes its place, as in a whole parse.
                l.artifacts.as_mut()?.insert(id, parse(text)?);
            }
        }
        self.item.clear();
        Some(())
    }

    fn top(&mut self) -> Option<&mut Frame> {
        self.stack.last_mut()
    }

    fn emit(&mut self, bytes: &[u8]) {
        match self.sink {
            Sink::Skeleton => self.skeleton.extend_from_slice(bytes),
            Sink::Id => self.id.extend_from_slice(bytes),
            Sink::Item | Sink::Drop => {}
        }
    }

    fn emit_string(&mut self, bytes: &[u8]) {
        self.emit(bytes);
        if self.keyed && self.key.len() <= LONGEST_KEY {
            self.key.extend_from_slice(bytes);
        }
    }

    /// The document: the skeleton parsed, and the lists read put in their places;
    /// the mode, with what a lean read left out or a counted one counted.
    pub(super) fn finish(mut self) -> Option<(Document, Mode)> {
        if !self.stack.is_empty() || self.in_string {
            return None;
        }
        let mut doc: Document = parse(&self.skeleton)?;
        self.skeleton = Vec::new();
        let mut l = self.lists;
        if let Mode::Lean(lean) = &mut self.mode {
            if lean.has_edges() {
                *l.edges.as_mut()? = lean.edges().ok()?;
            }
        }
        if let Some(nodes) = l.nodes {
            *empty(&mut doc.semantic_graph.as_mut()?.nodes)? = nodes;
        }
        if let Some(edges) = l.edges {
            *empty(&mut doc.semantic_graph.as_mut()?.edges)? = edges;
        }
        if let Some(blocks) = l.blocks {
            *empty(&mut doc.deep_archive.as_mut()?.blocks)? = blocks;
        }
        if let Some(artifacts) = l.artifacts {
            let vault = doc.artifact_vault.as_mut()?;
            let place = vault.artifacts.as_mut().filter(|a| a.is_empty())?;
            *place = artifacts;
        }
        Some((doc, self.mode))
    }
}

/// The list the skeleton left empty.
fn empty<T>(list: &mut Option<Vec<T>>) -> Option<&mut Vec<T>> {
    list.as_mut().filter(|l| l.is_empty())
}

fn parse<T: DeserializeOwned>(text: &[u8]) -> Option<T> {
    serde_json::from_slice(text).ok()
}

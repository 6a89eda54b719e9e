//! The archive as the page reads it: every turn, by conversation (the page holds
//! them in blocks of a thousand turns, each parsed only when one of its turns shows),
//! the file asked's conversations first, then each linked file's.

use std::collections::HashMap;

use serde::Serialize;
use smg_format::archive::{no_source, read_archive_with};
use smg_format::limits::Limits;
use smg_format::model::Timestamp;
use smg_format::Document;

/// A turn as shown: `[turn, role, speaker, time, session, content, artifacts]`, the
/// content byte for byte as archived, artifacts as `[id, version]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ViewTurn(
    pub(crate) u64,
    pub(crate) String,
    pub(crate) Option<String>,
    pub(crate) Option<String>,
    pub(crate) Option<String>,
    pub(crate) String,
    pub(crate) Vec<(String, u64)>,
);

/// One conversation's turns, in archive order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Conversation {
    /// The conversation id; empty for turns that have none.
    pub(crate) id: String,
    /// The file that holds it: 0 the file asked, else a linked file's place.
    pub(crate) file: usize,
    pub(crate) turns: Vec<ViewTurn>,
}

impl Conversation {
    /// The first and last times its turns carry.
    pub(crate) fn span(&self) -> (Option<&str>, Option<&str>) {
        let mut times = self.turns.iter().filter_map(|t| t.3.as_deref());
        let first = times.next();
        (first, times.next_back().or(first))
    }
}

/// The whole archive of every file, by file and, in each, by conversation in the
/// order each first speaks.
#[derive(Debug, Default)]
pub(crate) struct Archive {
    pub(crate) conversations: Vec<Conversation>,
    /// Each file's turns by number: `(conversation, position)`.
    at: Vec<HashMap<u64, (usize, usize)>>,
}

impl Archive {
    /// Where turn `n` of file `file` is: `(conversation, position)`.
    pub(crate) fn locate(&self, file: usize, n: u64) -> Option<(usize, usize)> {
        self.at.get(file)?.get(&n).copied()
    }

    /// Turns in all.
    pub(crate) fn turns(&self) -> usize {
        self.at.iter().map(HashMap::len).sum()
    }
}

/// Read every block of each of `docs`' archives.
pub(crate) fn build(docs: &[&Document], limits: &Limits) -> smg_engine::Result<Archive> {
    let mut out = Archive::default();
    for (file, doc) in docs.iter().enumerate() {
        add(&mut out, file, doc, limits)?;
    }
    Ok(out)
}

/// Add the turns of `doc`, the `file`th of the page, to `out`.
fn add(out: &mut Archive, file: usize, doc: &Document, limits: &Limits) -> smg_engine::Result<()> {
    let mut at = HashMap::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    // The page shows what was said, never the records it was imported from.
    for a in read_archive_with(doc, limits, &no_source)? {
        let t = a.turn;
        let id = t
            .conversation_id
            .clone()
            .map(String::from)
            .unwrap_or_default();
        let next = out.conversations.len();
        let c = *by_id.entry(id.clone()).or_insert_with(|| {
            out.conversations.push(Conversation {
                id,
                file,
                turns: Vec::new(),
            });
            next
        });
        let turns = &mut out.conversations[c].turns;
        at.insert(t.turn.get(), (c, turns.len()));
        turns.push(ViewTurn(
            t.turn.get(),
            t.role.into_string(),
            t.speaker.map(String::from),
            t.timestamp.map(Timestamp::into_string),
            t.session_id.map(String::from),
            t.content,
            a.artifacts,
        ));
    }
    out.at.push(at);
    Ok(())
}

//! Every reader of an outside format, for the smg toolkit: chat exports (ChatGPT,
//! Claude, LoCoMo, JSON Lines), other memories (a Letta Agent File, the MCP memory
//! server's file), a git repository's history and a folder of Markdown documents.
//!
//! Each format is an [`Importer`]: it reads one [`Input`] into an
//! [`smg_engine::ingest::Imported`] — conversations of messages that keep their
//! original records, and what else the input brings (entities and relations, memory
//! blocks, file versions for the vault). The rules that build memory from those
//! turns are the engine's ([`smg_engine::ingest::ingest`]).
//!
//! ```
//! use smg_engine::ingest::{ingest, IngestOptions, Silent};
//! use smg_import::{read, Format, Input};
//!
//! let line = r#"{"conversation_id":"c1","message_id":"m1","role":"user","content":"We chose Postgres."}"#;
//! let input = Input::bytes("chat.jsonl", format!("{line}\n").into_bytes());
//! let got = read(input, Format::Auto, false).unwrap();
//! assert_eq!(got.format, "jsonl");
//! let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static(
//!     "2025-01-01T00:00:00Z",
//! ));
//! let report = ingest(&mut doc, vec![got], &IngestOptions::default(), &Silent).unwrap();
//! assert_eq!(report.turns_added, 1);
//! ```

/// An [`Importer`] of an export of conversations (`$format`), each read by `$read`
/// (see `records::export`).
macro_rules! export_importer {
    ($(#[$doc:meta])* $name:ident, $format:literal, $read:path) => {
        $(#[$doc])*
        pub(crate) struct $name;

        impl $crate::Importer for $name {
            fn name(&self) -> &'static str {
                $format
            }

            fn read(
                &self,
                input: &$crate::Input,
                records: &mut $crate::Records<'_>,
            ) -> smg_engine::Result<smg_engine::ingest::Imported> {
                $crate::records::export(self, input, records, $read)
            }
        }
    };
}

mod chatgpt;
mod claude;
mod detect;
mod files;
mod folder;
mod git;
mod jsonl;
mod letta;
mod locomo;
mod mcp_memory;
mod records;

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use smg_engine::ingest::{Imported, Progress};
use smg_engine::Result;

pub use files::MAX_FILE_BYTES;
pub use records::Records;

/// A reader of one outside format.
pub trait Importer: Sync {
    /// The format's name: what `smg ingest --from` takes and each turn's
    /// `source.format` says.
    fn name(&self) -> &'static str;

    /// Read `input`; a malformed record is named in `records` (or fails the read
    /// when `records` is strict).
    fn read(&self, input: &Input, records: &mut Records<'_>) -> Result<Imported>;
}

/// One input: a file's bytes, or a repository or folder to read from disk.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file's content; its name (or `-`) is for messages and ids.
    Bytes {
        /// File name or `-`.
        name: String,
        /// The content.
        bytes: Vec<u8>,
    },
    /// A directory: a git repository or a folder of documents.
    Path(PathBuf),
}

impl Input {
    /// A file's content under `name`.
    pub fn bytes(name: impl Into<String>, bytes: Vec<u8>) -> Self {
        Input::Bytes {
            name: name.into(),
            bytes,
        }
    }

    /// The name messages give the input.
    pub fn name(&self) -> String {
        match self {
            Input::Bytes { name, .. } => name.clone(),
            Input::Path(p) => p.display().to_string(),
        }
    }

    /// The bytes of a file input (none for a directory).
    fn content(&self) -> &[u8] {
        match self {
            Input::Bytes { bytes, .. } => bytes,
            Input::Path(_) => &[],
        }
    }
}

/// The formats smg reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Decide from the content of a file.
    Auto,
    /// One message per line (spec §16).
    Jsonl,
    /// ChatGPT data export (`conversations.json`).
    Chatgpt,
    /// Claude.ai data export (`conversations.json`).
    Claude,
    /// A LoCoMo conversation file.
    Locomo,
    /// The MCP memory server's JSON Lines: entities and relations, into the graph.
    McpMemory,
    /// A Letta Agent File (`.af`): agents, their messages, core memory, tools.
    Letta,
    /// A git repository's history (a directory).
    Git,
    /// A folder of Markdown documents (a directory).
    Markdown,
}

impl Format {
    /// The name used on the command line and in each turn's `source.format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            f => f.importer().name(),
        }
    }

    /// The reader of this format; `Auto` is JSON Lines' until [`read`] detects it.
    pub fn importer(self) -> &'static dyn Importer {
        match self {
            Format::Auto | Format::Jsonl => &jsonl::Jsonl,
            Format::Chatgpt => &chatgpt::Chatgpt,
            Format::Claude => &claude::Claude,
            Format::Locomo => &locomo::Locomo,
            Format::McpMemory => &mcp_memory::McpMemory,
            Format::Letta => &letta::Letta,
            Format::Git => &git::Git,
            Format::Markdown => &folder::Markdown,
        }
    }
}

/// Read `input` as `format` (detected from a file's content under `Auto`); with
/// `strict`, the first malformed record fails the read instead of being skipped.
pub fn read(input: Input, format: Format, strict: bool) -> Result<Imported> {
    let format = match (format, &input) {
        (Format::Auto, Input::Bytes { name, bytes }) => detect::detect(name, bytes)?,
        (Format::Auto, Input::Path(p)) => directory_format(p),
        (f, _) => f,
    };
    read_with(format.importer(), &input, strict)
}

/// Read `input` with `importer` (one of [`Format::importer`]'s, or a reader of one's
/// own): what it gives, with the records it skipped and the bytes it read.
///
/// ```
/// use smg_engine::ingest::{Conversation, Imported, Message};
/// use smg_import::{read_with, Importer, Input, Records};
///
/// /// One message per line of plain text.
/// struct Lines;
///
/// impl Importer for Lines {
///     fn name(&self) -> &'static str {
///         "lines"
///     }
///     fn read(&self, input: &Input, records: &mut Records<'_>) -> smg_engine::Result<Imported> {
///         let Input::Bytes { bytes, .. } = input else {
///             return Err(records.fail("start", "a file, please"));
///         };
///         let text = std::str::from_utf8(bytes).map_err(|_| records.fail("start", "not UTF-8"))?;
///         let messages = text.lines().enumerate().map(|(i, line)| Message {
///             message_id: i.to_string(),
///             session_id: None,
///             role: smg_format::model::role::USER,
///             speaker: None,
///             content: line.to_string(),
///             timestamp: None,
///             record: smg_engine::ingest::compact_record(&line.into(), line, None),
///             scope: None,
///         });
///         let conversation = Conversation {
///             id: records.stem().to_string(),
///             messages: messages.collect(),
///             ..Conversation::default()
///         };
///         Ok(Imported { format: self.name(), conversations: vec![conversation], ..Imported::default() })
///     }
/// }
///
/// let got = read_with(&Lines, &Input::bytes("notes.txt", b"one\ntwo\n".to_vec()), false).unwrap();
/// assert_eq!(got.conversations[0].messages.len(), 2);
/// assert_eq!(got.bytes, 8);
/// ```
pub fn read_with(importer: &dyn Importer, input: &Input, strict: bool) -> Result<Imported> {
    let name = input.name();
    let mut records = Records::new(&name, strict);
    let mut got = importer.read(input, &mut records)?;
    got.bytes = input.content().len() as u64;
    got.skipped = records.skipped;
    Ok(got)
}

/// [`read`] of every input, side by side, with progress in bytes (`reading`); each
/// input's bytes are dropped as soon as it is read.
pub fn read_all(
    inputs: Vec<Input>,
    format: Format,
    strict: bool,
    progress: &dyn Progress,
) -> Result<Vec<Imported>> {
    let total = inputs.iter().map(|i| i.content().len() as u64).sum();
    progress.start("reading", total);
    inputs
        .into_par_iter()
        .map(|input| {
            let size = input.content().len() as u64;
            let got = read(input, format, strict)?;
            progress.advance(size);
            Ok(got)
        })
        .collect()
}

/// A directory read under `Auto`: a repository if it holds `.git` (or is one), else
/// a folder of documents.
fn directory_format(p: &Path) -> Format {
    let bare = p.join("HEAD").is_file() && p.join("objects").is_dir();
    if p.join(".git").exists() || bare {
        Format::Git
    } else {
        Format::Markdown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: [Format; 8] = [
        Format::Jsonl,
        Format::Chatgpt,
        Format::Claude,
        Format::Locomo,
        Format::McpMemory,
        Format::Letta,
        Format::Git,
        Format::Markdown,
    ];

    #[test]
    fn each_format_has_its_own_reader_and_name() {
        let names: std::collections::BTreeSet<&str> = FORMATS.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), FORMATS.len());
        assert_eq!(Format::McpMemory.name(), "mcp-memory");
        assert_eq!(Format::Auto.name(), "auto");
    }

    #[test]
    fn a_file_format_refuses_a_directory_and_a_directory_format_a_file() {
        let dir = tempfile::tempdir().unwrap();
        for f in FORMATS {
            let input = match f {
                Format::Git | Format::Markdown => Input::bytes("x.json", b"{}".to_vec()),
                _ => Input::Path(dir.path().to_path_buf()),
            };
            let err = read(input, f, false).unwrap_err();
            assert_eq!(err.code(), "SMG-E210", "{f:?}: {err}");
        }
    }

    #[test]
    fn a_directory_is_a_repository_when_it_holds_git_else_documents() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(directory_format(dir.path()), Format::Markdown);
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert_eq!(directory_format(dir.path()), Format::Git);
    }
}

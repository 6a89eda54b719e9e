//! Sources that are not one file: a git repository's history ([`git`]) and a folder
//! of Markdown documents ([`folder`]).
//!
//! Each is read into a [`Source`]: the generic JSON Lines transcript that
//! `smg_engine::ingest` reads (one message per commit or document, each keeping its
//! whole record), the file versions for the vault, and what working memory should
//! say about the repository. [`Source::apply`] puts the versions and the working
//! memory into a document; ingest then archives the messages and builds the graph.

pub mod folder;
pub mod git;

use serde_json::Value;
use smg_engine::ingest::Input;
use smg_format::model::{Timestamp, WorkingMemory};
use smg_format::vault::{NewContent, VaultWriter};
use smg_format::Document;

/// What a source gives: messages for ingest, versions for the vault.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Source {
    /// One message per commit or document, as JSON Lines (spec §16).
    pub input: Option<Input>,
    /// File versions, oldest first.
    pub versions: Vec<Version>,
    /// Working memory's `repository` member (spec §5), for a repository.
    pub repository: Option<Value>,
    /// Files not stored, with the reason (binary, too large, not UTF-8).
    pub skipped: Vec<(String, String)>,
}

/// One version of a file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Version {
    /// The path in the repository or folder, `/`-separated: the artifact's file name.
    pub path: String,
    /// The text.
    pub content: String,
    /// When it was written (RFC 3339).
    pub time: Option<Timestamp>,
}

/// Files larger than this are not put into the vault.
pub const MAX_FILE_BYTES: usize = 1 << 20;

impl Source {
    /// Put the versions into `doc`'s vault (each path one artifact, its changes as
    /// diffs; content already there is referenced, not stored again) and the
    /// repository into working memory. Returns the versions added.
    pub fn apply(&self, doc: &mut Document) -> smg_engine::Result<usize> {
        if let Some(repo) = &self.repository {
            let wm = doc
                .working_memory
                .get_or_insert_with(WorkingMemory::default);
            wm.extra.insert("repository".into(), repo.clone());
        }
        if self.versions.is_empty() {
            return Ok(0);
        }
        let vault = doc.artifact_vault.get_or_insert_with(Default::default);
        let mut writer = VaultWriter::new(vault);
        let mut added = 0;
        for v in &self.versions {
            let language = smg_format::vault::language_of(&v.path);
            let meta = NewContent {
                name: Some(&v.path),
                language,
                kind: Some(kind(&v.path, language)),
                timestamp: v.time.as_ref(),
                ..NewContent::default()
            };
            added += usize::from(writer.add(&v.content, &meta)?.added);
        }
        Ok(added)
    }
}

/// `document` for prose, `code` for the rest.
fn kind(path: &str, language: Option<&str>) -> &'static str {
    let prose = matches!(
        language,
        Some("markdown" | "plaintext" | "text" | "rst" | "asciidoc")
    ) || [".md", ".markdown", ".txt", ".rst", ".adoc"]
        .iter()
        .any(|e| path.to_ascii_lowercase().ends_with(e));
    if prose {
        "document"
    } else {
        "code"
    }
}

/// A file's bytes as text for the vault, or why not.
fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} bytes, over the {MAX_FILE_BYTES}-byte limit",
            bytes.len()
        ));
    }
    if bytes.contains(&0) {
        return Err("binary".into());
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())
}

/// JSON Lines from records.
fn jsonl(name: String, records: &[Value]) -> Option<Input> {
    if records.is_empty() {
        return None;
    }
    let mut bytes = Vec::new();
    for r in records {
        bytes.extend_from_slice(r.to_string().as_bytes());
        bytes.push(b'\n');
    }
    Some(Input { name, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_within_the_limit_goes_to_the_vault() {
        assert_eq!(
            text_of(b"fn main() {}\n".to_vec()).unwrap(),
            "fn main() {}\n"
        );
        assert_eq!(text_of(vec![b'a', 0, b'b']).unwrap_err(), "binary");
        assert_eq!(text_of(vec![0xff, 0xfe]).unwrap_err(), "not UTF-8");
        assert!(text_of(vec![b'a'; MAX_FILE_BYTES + 1])
            .unwrap_err()
            .contains("limit"));
    }

    #[test]
    fn prose_is_a_document_and_the_rest_code() {
        assert_eq!(kind("docs/adr/0001.md", Some("markdown")), "document");
        assert_eq!(kind("NOTES.TXT", None), "document");
        assert_eq!(kind("src/app.py", Some("python")), "code");
    }

    #[test]
    fn versions_of_one_path_become_one_artifact_with_diffs() {
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-03-01T00:00:00Z",
        ));
        let v = |content: &str| Version {
            path: "src/app.py".into(),
            content: content.into(),
            time: Some(Timestamp::from_static("2025-03-01T10:00:00Z")),
        };
        let source = Source {
            versions: vec![v("a = 1\n"), v("a = 2\n"), v("a = 2\n")],
            repository: Some(serde_json::json!({"name": "x"})),
            ..Source::default()
        };
        assert_eq!(source.apply(&mut doc).unwrap(), 2);
        let arts = doc
            .artifact_vault
            .as_ref()
            .unwrap()
            .artifacts
            .as_ref()
            .unwrap();
        let art = arts.values().next().unwrap();
        assert_eq!((arts.len(), art.versions.len()), (1, 2));
        assert_eq!(art.language.as_deref(), Some("python"));
        assert_eq!(doc.working_memory.unwrap().extra["repository"]["name"], "x");
        // Applied again, nothing is added.
        let mut again = Document::new(smg_format::model::Timestamp::from_static(
            "2025-03-01T00:00:00Z",
        ));
        source.apply(&mut again).unwrap();
        assert_eq!(source.apply(&mut again).unwrap(), 0);
    }
}

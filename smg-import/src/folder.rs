//! A folder of Markdown documents (ADRs, incident reports, design notes): each
//! document a message, so that ingest finds its decisions and search reaches it, and
//! a vault document, so that its versions are kept.
//!
//! Documents are read in path order; a document's time is its front matter's `date`,
//! else the date its name or first heading begins with (`2025-03-01-…`), else none.

use std::path::{Path, PathBuf};

use serde_json::json;
use smg_engine::ingest::{Imported, Version};
use smg_engine::Error;
use smg_format::model::Timestamp;

use crate::files::{conversations, text_of};
use crate::{Importer, Input, Records};

/// Extensions read as Markdown.
const MARKDOWN: &[&str] = &["md", "markdown", "mdx"];

/// A folder of Markdown documents.
pub(crate) struct Markdown;

impl Importer for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn read(&self, input: &Input, records: &mut Records<'_>) -> smg_engine::Result<Imported> {
        read(
            crate::records::directory(input, records, self.name())?,
            records,
        )
    }
}

/// Read every Markdown document under `dir` (hidden folders skipped).
fn read(dir: &Path, messages: &mut Records<'_>) -> smg_engine::Result<Imported> {
    let fail = |detail: String| Error::Import {
        file: dir.display().to_string(),
        position: "folder".into(),
        detail,
    };
    let mut files = Vec::new();
    walk(dir, &mut files).map_err(|e| fail(e.to_string()))?;
    files.sort();
    let name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "documents".into());
    let conversation = format!("docs:{name}");
    let mut out = Imported {
        format: Markdown.name(),
        ..Imported::default()
    };
    let mut records = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(dir)
            .unwrap_or(&file)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let bytes = std::fs::read(&file).map_err(|e| fail(format!("{rel}: {e}")))?;
        let text = match text_of(bytes) {
            Ok(t) => t,
            Err(why) => {
                out.not_stored.push((rel, why));
                continue;
            }
        };
        if text.trim().is_empty() {
            out.not_stored.push((rel, "empty".into()));
            continue;
        }
        let time = date_of(&rel, &text);
        records.push(json!({
            "conversation_id": conversation,
            "message_id": rel,
            "role": "user",
            "speaker": "document",
            "content": text,
            "timestamp": time,
            "document": {"path": rel, "title": title_of(&text)},
        }));
        out.versions.push(Version {
            path: rel,
            content: text,
            time,
            language: None,
        });
    }
    if records.is_empty() {
        return Err(fail(
            "no Markdown documents (.md, .markdown, .mdx) in it".into(),
        ));
    }
    out.conversations = conversations(&records, messages)?;
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        let kind = entry.file_type()?;
        if kind.is_dir() && !hidden {
            walk(&path, out)?;
        } else if kind.is_file()
            && path.extension().is_some_and(|e| {
                MARKDOWN.contains(&e.to_string_lossy().to_ascii_lowercase().as_str())
            })
        {
            out.push(path);
        }
    }
    Ok(())
}

/// The first heading, without its `#`s.
fn title_of(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
}

/// The document's date as an RFC 3339 date-time (midnight UTC for a bare date).
fn date_of(path: &str, text: &str) -> Option<Timestamp> {
    let front = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---").map(|(f, _)| f));
    let from_front = front.into_iter().flat_map(str::lines).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == "date").then(|| v.trim().trim_matches(['"', '\'']).to_string())
    });
    // Nygard's ADRs say `Date: 2025-03-01` under the title.
    let stated = text.lines().take(20).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("date")
            .then(|| v.trim().to_string())
    });
    let file = path.rsplit('/').next().unwrap_or(path);
    let candidates = from_front
        .into_iter()
        .chain(stated)
        .chain([file.to_string()])
        .chain(title_of(text));
    candidates.into_iter().find_map(|c| parse_date(&c))
}

fn parse_date(s: &str) -> Option<Timestamp> {
    let utc =
        |t: chrono::DateTime<chrono::Utc>| Timestamp::from_utc(&t, chrono::SecondsFormat::Secs);
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return utc(t.with_timezone(&chrono::Utc)).ok();
    }
    let day = s.get(..10)?;
    let d = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()?;
    utc(d.and_time(chrono::NaiveTime::MIN).and_utc()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_dated_by_front_matter_then_a_date_line_then_its_name() {
        let front = "---\ndate: '2025-03-08'\n---\n# X\nDate: 2024-01-01\n";
        assert_eq!(
            date_of("a.md", front).as_deref(),
            Some("2025-03-08T00:00:00Z")
        );
        let line = "# 1. Record decisions\n\nDate: 2025-03-01\n";
        assert_eq!(
            date_of("0001-x.md", line).as_deref(),
            Some("2025-03-01T00:00:00Z")
        );
        let named = "# Outage\n";
        assert_eq!(
            date_of("incidents/2025-04-02-outage.md", named).as_deref(),
            Some("2025-04-02T00:00:00Z")
        );
        let exact = "---\ndate: 2025-03-08T10:00:00+02:00\n---\n";
        assert_eq!(
            date_of("a.md", exact).as_deref(),
            Some("2025-03-08T08:00:00Z")
        );
        assert_eq!(date_of("notes.md", "# Notes\nDate: soon\n"), None);
    }

    #[test]
    fn the_title_is_the_first_heading() {
        assert_eq!(title_of("intro\n## Two\n# One").as_deref(), Some("Two"));
        assert_eq!(title_of("no heading"), None);
    }
}

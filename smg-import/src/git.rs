//! A git repository's history: each commit a message (author, time, message, the
//! files it changed), each changed text file's content a vault version, the branch
//! and the latest commits as working memory (the Luminescent seed's session tier).
//!
//! Read with gitoxide, in process: the object database only (no `git` binary, no
//! network, no worktree). History is the first-parent line of `HEAD`, oldest first;
//! a merge commit's changes are those against its first parent.

use std::path::Path;

use gix::bstr::ByteSlice;
use gix::object::tree::diff::ChangeDetached as Change;
use serde_json::{json, Value};
use smg_engine::ingest::{Imported, Version};
use smg_engine::Error;
use smg_format::model::Timestamp;

use crate::files::{conversations, text_of};
use crate::{Importer, Input, Records};

/// Latest commits working memory lists.
const RECENT: usize = 10;
/// Changed paths a commit's turn names before "and N more".
const NAMED_PATHS: usize = 40;

/// A git repository's history.
pub(crate) struct Git;

impl Importer for Git {
    fn name(&self) -> &'static str {
        "git"
    }

    fn read(&self, input: &Input, records: &mut Records<'_>) -> smg_engine::Result<Imported> {
        read(
            crate::records::directory(input, records, self.name())?,
            records,
        )
    }
}

/// Read the repository at `path` (its work tree or its `.git` folder).
fn read(path: &Path, messages: &mut Records<'_>) -> smg_engine::Result<Imported> {
    let fail = |detail: String| Error::Import {
        file: path.display().to_string(),
        position: "repository".into(),
        detail,
    };
    let repo = gix::open(path).map_err(|e| fail(format!("not a git repository: {e}")))?;
    let name = repo_name(path);
    let branch = repo
        .head_name()
        .ok()
        .flatten()
        .map(|n| n.shorten().to_str_lossy().into_owned());
    let Ok(head) = repo.head_id() else {
        return Ok(Imported {
            format: Git.name(),
            repository: Some(json!({"name": name, "branch": branch, "commits": 0})),
            ..Imported::default()
        });
    };
    let ids: Vec<gix::ObjectId> = repo
        .rev_walk([head.detach()])
        .first_parent_only()
        .all()
        .map_err(|e| fail(e.to_string()))?
        .map(|info| info.map(|i| i.id))
        .collect::<Result<_, _>>()
        .map_err(|e| fail(format!("history: {e}")))?;
    let conversation = format!("git:{name}");
    let mut out = Imported {
        format: Git.name(),
        ..Imported::default()
    };
    let mut records = Vec::with_capacity(ids.len());
    for id in ids.iter().rev() {
        let at = |e: gix::Error| fail(format!("commit {id}: {e}"));
        let commit = repo
            .find_commit(*id)
            .map_err(|e| fail(format!("commit {id}: {e}")))?;
        let changes = changes(&repo, &commit).map_err(at)?;
        let record = record(&commit, &changes, &conversation).map_err(at)?;
        let time = record["timestamp"]
            .as_str()
            .and_then(|t| Timestamp::new(t).ok());
        for c in &changes {
            versions(&repo, c, time.as_ref(), &mut out);
        }
        records.push(record);
    }
    out.repository = Some(working(&name, branch, head.to_string(), &records));
    out.conversations = conversations(&records, messages)?;
    Ok(out)
}

/// The folder's name: the repository's name (`.git` and a trailing `/` ignored).
fn repo_name(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let path = if path.file_name().is_some_and(|n| n == ".git") {
        path.parent().map(Path::to_path_buf).unwrap_or(path)
    } else {
        path
    };
    path.file_name()
        .map_or_else(|| "repository".into(), |n| n.to_string_lossy().into_owned())
}

/// What `commit` changed against its first parent (everything, for a root commit).
fn changes(repo: &gix::Repository, commit: &gix::Commit<'_>) -> gix::Result<Vec<Change>> {
    let tree = commit.tree()?;
    let parent = match commit.parent_ids().next() {
        Some(p) => Some(p.object()?.into_commit().tree()?),
        None => None,
    };
    repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
}

/// A commit as a message of the generic JSON Lines: its text is the message and the
/// files it changed; its `git` member keeps the commit whole.
fn record(commit: &gix::Commit<'_>, changes: &[Change], conversation: &str) -> gix::Result<Value> {
    let author = commit.author()?;
    let committer = commit.committer()?;
    let time = |t: &str| {
        gix::date::parse_header(t)
            .and_then(|t| chrono::DateTime::from_timestamp(t.seconds, 0))
            .and_then(|t| Timestamp::from_utc(&t, chrono::SecondsFormat::Secs).ok())
    };
    let message = commit
        .message_raw_sloppy()
        .to_str_lossy()
        .trim_end()
        .to_string();
    let files: Vec<Value> = changes.iter().filter_map(change_json).collect();
    let mut text = message.clone();
    if !files.is_empty() {
        let named: Vec<String> = files
            .iter()
            .take(NAMED_PATHS)
            .map(|f| {
                format!(
                    "{} ({})",
                    f["path"].as_str().unwrap_or(""),
                    f["change"].as_str().unwrap_or("")
                )
            })
            .collect();
        text.push_str(&format!("\n\nChanged: {}", named.join(", ")));
        if files.len() > NAMED_PATHS {
            text.push_str(&format!(" and {} more", files.len() - NAMED_PATHS));
        }
    }
    let person = |s: &gix::actor::SignatureRef<'_>| json!({"name": s.name.to_str_lossy().trim(), "email": s.email.to_str_lossy().trim(), "time": s.time});
    let parents: Vec<String> = commit.parent_ids().map(|p| p.to_string()).collect();
    Ok(json!({
        "conversation_id": conversation,
        "message_id": commit.id().to_string(),
        "role": "user",
        "speaker": author.name.to_str_lossy().trim(),
        "content": if text.trim().is_empty() { "(no message)".to_string() } else { text },
        "timestamp": time(author.time),
        "git": {
            "commit": commit.id().to_string(),
            "parents": parents,
            "author": person(&author),
            "committer": person(&committer),
            "message": message,
            "changes": files,
        },
    }))
}

/// One change of a file as `{change, path, from}`; `None` for trees and submodules.
fn change_json(c: &Change) -> Option<Value> {
    if !c.entry_mode().is_blob() {
        return None;
    }
    let path = c.location().to_str_lossy().into_owned();
    Some(match c {
        Change::Addition { .. } => json!({"change": "added", "path": path}),
        Change::Deletion { .. } => json!({"change": "deleted", "path": path}),
        Change::Modification { .. } => json!({"change": "modified", "path": path}),
        Change::Rewrite {
            source_location,
            copy,
            ..
        } => json!({
            "change": if *copy { "copied" } else { "renamed" },
            "path": path,
            "from": source_location.to_str_lossy(),
        }),
    })
}

/// The new content of a changed text file, as a version.
fn versions(repo: &gix::Repository, c: &Change, time: Option<&Timestamp>, out: &mut Imported) {
    if matches!(c, Change::Deletion { .. }) || !c.entry_mode().is_blob() {
        return;
    }
    let path = c.location().to_str_lossy().into_owned();
    let (_, id) = c.entry_mode_and_id();
    let bytes = match repo.find_object(id) {
        Ok(object) => object.detach().data,
        Err(e) => {
            out.not_stored.push((path, e.to_string()));
            return;
        }
    };
    match text_of(bytes) {
        Ok(content) => out.versions.push(Version {
            path,
            content,
            time: time.cloned(),
            language: None,
        }),
        Err(why) => out.not_stored.push((path, why)),
    }
}

/// Working memory's `repository`: name, branch, head and the latest commits.
fn working(name: &str, branch: Option<String>, head: String, records: &[Value]) -> Value {
    let recent: Vec<Value> = records
        .iter()
        .rev()
        .take(RECENT)
        .map(|r| {
            let git = &r["git"];
            let subject = git["message"]
                .as_str()
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("");
            let files: Vec<&Value> = git["changes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| &c["path"])
                .collect();
            json!({
                "commit": git["commit"], "time": r["timestamp"], "author": r["speaker"],
                "subject": subject, "files": files,
            })
        })
        .collect();
    json!({
        "name": name,
        "branch": branch,
        "head": head,
        "commits": records.len(),
        "recentCommits": recent,
    })
}

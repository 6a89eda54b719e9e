//! Links (spec §4.1): other memory files a memory reaches, recorded in its metadata by
//! name — the other file's path relative to this one, its id and its bytes' hash when
//! linked — and what became of each since.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{Document, Extra, Link, NonEmpty, Sha256Hex, Timestamp};

/// What a link's file is now, beside what was recorded when it was linked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// The file is there, its bytes as when linked.
    Same,
    /// The file is there, its bytes changed since (`SMG-W031`): it is read as it is now.
    Changed {
        /// SHA-256 of its bytes now.
        sha256: String,
    },
    /// No file at the link's path (`SMG-W030`): moved or deleted.
    Missing,
    /// A file that cannot be read (`SMG-W032`): why.
    Unreadable(String),
}

impl Status {
    /// The warning's stable code; `None` when the file is as linked.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            Status::Same => None,
            Status::Changed { .. } => Some("SMG-W031"),
            Status::Missing => Some("SMG-W030"),
            Status::Unreadable(_) => Some("SMG-W032"),
        }
    }

    /// One word for listings: `ok`, `changed`, `missing`, `unreadable`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Same => "ok",
            Status::Changed { .. } => "changed",
            Status::Missing => "missing",
            Status::Unreadable(_) => "unreadable",
        }
    }
}

/// The link named `name` to the file `other` (whose bytes are `bytes` and whose
/// memory's id is `id`), from the file `from`: the path is written relative to `from`'s
/// folder, with `/` between its parts, so that the two files can move together.
pub fn new_link(
    from: &Path,
    other: &Path,
    name: &str,
    bytes: &[u8],
    id: Option<String>,
    at: &Timestamp,
) -> Result<Link> {
    let bad = |why: &str| Error::InvalidArgument(format!("link name {name:?} {why}"));
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(bad("must be non-empty and hold no control characters"));
    }
    let path = relative(from, other)?;
    Ok(Link {
        name: NonEmpty::new(name).map_err(|_| bad("is not allowed"))?,
        path: NonEmpty::new(&path).map_err(|_| bad("has an empty path"))?,
        id,
        sha256: Sha256Hex::of(bytes),
        bytes: Some(bytes.len() as u64),
        linked_at: at.clone(),
        read_only: None,
        extra: Extra::new(),
    })
}

/// Record `link` in `doc`; a name already linked is refused (remove it first).
pub fn add(doc: &mut Document, link: Link) -> Result<()> {
    let links = doc.metadata.links.get_or_insert_with(Vec::new);
    if links.iter().any(|l| l.name == link.name) {
        return Err(Error::InvalidArgument(format!(
            "a link named {:?} exists already: remove it first (`smg link remove`)",
            link.name.as_str()
        )));
    }
    links.push(link);
    links.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    Ok(())
}

/// Remove the link named `name` from `doc`, giving it back; an unknown name is refused.
pub fn remove(doc: &mut Document, name: &str) -> Result<Link> {
    let links = doc.metadata.links.get_or_insert_with(Vec::new);
    let Some(at) = links.iter().position(|l| l.name.as_str() == name) else {
        let known: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
        return Err(Error::InvalidArgument(format!(
            "no link named {name:?} (links: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    };
    let link = links.remove(at);
    if links.is_empty() {
        doc.metadata.links = None;
    }
    Ok(link)
}

/// Where `link`, recorded in the file `from`, points.
pub fn resolve(from: &Path, link: &Link) -> PathBuf {
    let folder = from.parent().unwrap_or(Path::new(""));
    link.path
        .as_str()
        .split('/')
        .fold(folder.to_path_buf(), |p, part| p.join(part))
}

/// What became of `link`'s file (recorded in the file `from`) since it was linked.
pub fn status(from: &Path, link: &Link) -> Status {
    let path = resolve(from, link);
    match std::fs::read(&path) {
        Ok(bytes) => {
            let now = Sha256Hex::of(&bytes);
            if now == link.sha256 {
                Status::Same
            } else {
                Status::Changed {
                    sha256: now.as_str().to_string(),
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Status::Missing,
        Err(e) => Status::Unreadable(format!("{}: {e}", path.display())),
    }
}

/// `to`'s path relative to the folder of `from`, `/` between its parts. Both are made
/// absolute first (`from` need not exist yet; `to` must).
fn relative(from: &Path, to: &Path) -> Result<String> {
    let io = |p: &Path, e: std::io::Error| Error::InvalidArgument(format!("{}: {e}", p.display()));
    let to = to.canonicalize().map_err(|e| io(to, e))?;
    let folder = match from.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.canonicalize().map_err(|e| io(p, e))?,
        None => std::env::current_dir().map_err(|e| io(Path::new("."), e))?,
    };
    let a: Vec<Component> = folder.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    for c in &b[common..] {
        let part = c.as_os_str().to_str().ok_or_else(|| {
            Error::InvalidArgument(format!("{} is not a UTF-8 path", to.display()))
        })?;
        parts.push(part.to_string());
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Timestamp {
        Timestamp::from_static("2025-12-04T10:30:00Z")
    }

    #[test]
    fn a_link_is_relative_resolves_back_and_tells_what_became_of_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let team = dir.path().join("team");
        std::fs::create_dir(&team).unwrap();
        let me = dir.path().join("me").join("mine.smg");
        std::fs::create_dir(me.parent().unwrap()).unwrap();
        let other = team.join("decisions.smg");
        std::fs::write(&other, b"first").unwrap();
        let link = new_link(&me, &other, "team", b"first", None, &at()).unwrap();
        assert_eq!(link.path.as_str(), "../team/decisions.smg");
        assert_eq!(
            resolve(&me, &link).canonicalize().unwrap(),
            other.canonicalize().unwrap()
        );
        assert_eq!(status(&me, &link), Status::Same);
        std::fs::write(&other, b"second").unwrap();
        let changed = status(&me, &link);
        assert_eq!(changed.code(), Some("SMG-W031"));
        std::fs::remove_file(&other).unwrap();
        assert_eq!(status(&me, &link), Status::Missing);
        assert_eq!(Status::Missing.code(), Some("SMG-W030"));
    }

    #[test]
    fn names_are_unique_and_removing_an_unknown_one_says_which_exist() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("b.smg");
        std::fs::write(&other, b"x").unwrap();
        let me = dir.path().join("a.smg");
        let mut doc = Document::new(at());
        let link = new_link(&me, &other, "b", b"x", Some("id-b".into()), &at()).unwrap();
        assert_eq!(link.path.as_str(), "b.smg");
        add(&mut doc, link.clone()).unwrap();
        assert!(add(&mut doc, link).is_err());
        let err = remove(&mut doc, "c").unwrap_err().to_string();
        assert!(err.contains("links: b"), "{err}");
        assert_eq!(remove(&mut doc, "b").unwrap().id.as_deref(), Some("id-b"));
        assert!(doc.metadata.links.is_none());
        assert!(new_link(&me, &other, " ", b"x", None, &at()).is_err());
    }
}

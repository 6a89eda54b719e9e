//! A network of linked memories (spec §4.1): the file asked and every file its links
//! reach, each opened once however the links loop, searched as one memory — one
//! ranking over all their turns (BM25 weighed by the statistics of all of them), one
//! budget for a context, the same turn held by two files shown once, and every hit
//! saying which file it came from. A linked file that is missing, changed or cannot
//! be opened is a warning with its own code, never a failure.

mod rank;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use smg_format::model::Turn;
use smg_format::Document;

pub use super::file_ref::FileRef;
use super::prompt::Linked;
use super::Retriever;
use crate::error::Result;

/// A linked file not followed as recorded: what became of it, by its stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LinkWarning {
    /// `SMG-W030` (no file there), `SMG-W031` (changed since linked: read as it is
    /// now) or `SMG-W032` (cannot be opened: left out).
    pub code: &'static str,
    /// The link's name.
    pub name: String,
    /// Where the link points.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for LinkWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: link `{}` ({}): {}",
            self.code, self.name, self.path, self.message
        )
    }
}

impl LinkWarning {
    /// The warning as JSON: code, link name, path and message.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"code": self.code, "name": self.name, "path": self.path, "message": self.message})
    }
}

/// How a network opens a linked file: its path and its link's name (whose
/// passphrase an encrypted one takes) give its retriever.
pub type Opener<'a> = dyn Fn(&Path, &str) -> Result<Retriever> + 'a;

/// The memory file at `path` for retrieval, as a network's member: a packed file with
/// a stored search index by the index alone, any other read whole (an encrypted one
/// with `passphrase`; without one it is `SMG-E140`).
pub fn open_file(
    path: &Path,
    limits: &smg_format::Limits,
    passphrase: Option<&[u8]>,
) -> Result<Retriever> {
    if let Some(r) = Retriever::open_packed(path, limits)? {
        return Ok(r);
    }
    let bytes = std::fs::read(path).map_err(|source| smg_format::Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let (doc, _) = smg_format::codec::from_bytes_with(&bytes, limits, passphrase)?;
    if smg_format::crypto::is_encrypted(&bytes) {
        // The index an encrypted file stores is inside it, with the rest.
        return Retriever::new(&doc, limits);
    }
    Retriever::open(&bytes, &doc, limits)
}

/// The file asked and the files its links reach, each a retriever.
#[derive(Debug)]
pub struct Network {
    members: Vec<(FileRef, Retriever)>,
    warnings: Vec<LinkWarning>,
}

impl Network {
    /// The memory at `path` alone, its links not followed.
    pub fn single(path: &Path, root: Retriever) -> Self {
        let file = FileRef {
            name: None,
            path: path.display().to_string(),
        };
        Network {
            members: vec![(file, root)],
            warnings: Vec::new(),
        }
    }

    /// The memory at `path` (opened as `root`) and every file its links reach,
    /// breadth first, each opened once by `open`; a link to a file already in the
    /// network (a cycle, or two links to one file) adds nothing. What cannot be
    /// followed is a warning ([`Network::warnings`]).
    pub fn open(path: &Path, root: Retriever, open: &Opener<'_>) -> Self {
        let links = |r: &Retriever| r.prompt_memory().links.clone();
        let (members, warnings) = walk(path, root, &links, open);
        Network { members, warnings }
    }

    /// The file asked's retriever.
    pub fn root(&self) -> &Retriever {
        &self.members[0].1
    }

    /// The files of the network, the file asked first, each with its retriever.
    pub fn members(&self) -> impl Iterator<Item = (&FileRef, &Retriever)> {
        self.members.iter().map(|(f, r)| (f, r))
    }

    /// How many files the network holds.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether it holds no file; never (it holds at least the file asked).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The links that could not be followed as recorded.
    pub fn warnings(&self) -> &[LinkWarning] {
        &self.warnings
    }

    /// Count every file's context budget with `tokens`.
    pub fn set_tokens(&mut self, tokens: super::Tokens) {
        for (_, r) in &mut self.members {
            r.set_tokens(tokens.clone());
        }
    }

    /// The original turns of segment `id` and the file that holds it: in the file
    /// the link named `link` reaches when given, else the first file of the network
    /// (the file asked first) that has such a segment. An id no such file has is
    /// `SMG-E201`; a link the network did not follow, `SMG-E020`.
    pub fn expand(&self, id: &str, link: Option<&str>) -> Result<(FileRef, Vec<Turn>)> {
        if let Some(name) = link {
            let Some((file, r)) = self
                .members
                .iter()
                .find(|(f, _)| f.name.as_deref() == Some(name))
            else {
                let names: Vec<&str> = self
                    .members
                    .iter()
                    .filter_map(|(f, _)| f.name.as_deref())
                    .collect();
                let why = format!(
                    "no linked file named {name:?} was followed (followed: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                );
                return Err(smg_format::Error::InvalidArgument(why).into());
            };
            return Ok((file.clone(), r.expand(id)?));
        }
        for (file, r) in &self.members {
            match r.expand(id) {
                Ok(turns) => return Ok((file.clone(), turns)),
                Err(crate::Error::UnknownNode(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(crate::Error::UnknownNode(id.to_string()))
    }
}

/// The files linked from the document read from `path` (`root`), as
/// [`Network::open`] reaches them, each read by `open` (from its path and its link's
/// name): the file asked first, each with its document; and the links not followed
/// as recorded. What a query of every node of a network (`smg query`) reads.
///
/// `D` is a [`Document`] or what holds one (`Arc<Document>`, to share the file
/// asked's).
pub fn linked_documents<D: std::borrow::Borrow<Document>>(
    path: &Path,
    root: D,
    open: &dyn Fn(&Path, &str) -> Result<D>,
) -> (Vec<(FileRef, D)>, Vec<LinkWarning>) {
    walk(path, root, &|d: &D| Linked::of(d.borrow()), open)
}

/// The files reached from the one at `path` (opened as `root`) by their links,
/// breadth first, each opened once by `open`, the file asked first; and the links
/// not followed as recorded.
fn walk<T>(
    path: &Path,
    root: T,
    links: &dyn Fn(&T) -> Vec<Linked>,
    open: &dyn Fn(&Path, &str) -> Result<T>,
) -> (Vec<(FileRef, T)>, Vec<LinkWarning>) {
    let file = FileRef::new(None, path.display().to_string());
    let mut members = vec![(file, root)];
    let mut warnings = Vec::new();
    let mut seen: HashSet<PathBuf> = path.canonicalize().into_iter().collect();
    let mut next = 0;
    while next < members.len() {
        let from = PathBuf::from(&members[next].0.path);
        for link in links(&members[next].1) {
            let (opened, said) = follow(&from, &link, &mut seen, open);
            members.extend(opened);
            warnings.extend(said);
        }
        next += 1;
    }
    (members, warnings)
}

/// Follow `link` of the file at `from`: the file opened unless it is in `seen`
/// already or cannot be, and what to warn of (a changed file is read all the same).
fn follow<T>(
    from: &Path,
    link: &Linked,
    seen: &mut HashSet<PathBuf>,
    open: &dyn Fn(&Path, &str) -> Result<T>,
) -> (Option<(FileRef, T)>, Vec<LinkWarning>) {
    let path = joined(from, &link.path);
    let shown = path.display().to_string();
    let warn = |code, message: String| LinkWarning {
        code,
        name: link.name.clone(),
        path: shown.clone(),
        message,
    };
    let canonical = match path.canonicalize() {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let why = "no file there (moved or deleted): left out".to_string();
            return (None, vec![warn("SMG-W030", why)]);
        }
        Err(e) => return (None, vec![warn("SMG-W032", format!("{e}: left out"))]),
    };
    if !seen.insert(canonical) {
        return (None, Vec::new());
    }
    let mut warnings = Vec::new();
    if let (Some(now), Some(then)) = (std::fs::metadata(&path).map(|m| m.len()).ok(), link.bytes) {
        if now != then {
            let why =
                format!("changed since linked ({then} bytes then, {now} now): read as it is now");
            warnings.push(warn("SMG-W031", why));
        }
    }
    match open(&path, &link.name) {
        Ok(t) => (
            Some((FileRef::new(Some(link.name.clone()), shown), t)),
            warnings,
        ),
        Err(e) => {
            warnings.push(warn("SMG-W032", format!("{}: {e}: left out", e.code())));
            (None, warnings)
        }
    }
}

/// `rel` (parts separated by `/`) resolved against the folder of `from`, `..` taking
/// a part off where there is one to take: a path a person can read.
fn joined(from: &Path, rel: &str) -> PathBuf {
    let mut out = from.parent().map(Path::to_path_buf).unwrap_or_default();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                let last = out.components().next_back();
                if matches!(last, Some(std::path::Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            p => out.push(p),
        }
    }
    out
}

#[cfg(test)]
mod tests;

//! The artifact vault's operations: store content once by SHA-256, store each new
//! version of an artifact as a unified diff, and rebuild any version.
//!
//! Like git's delta chains, rebuild cost is bounded: a version is stored in full when
//! the chain of diffs since the last full version reaches [`VaultWriter::MAX_CHAIN`],
//! or when its diff would not be smaller than its content.

mod lines;

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::model::{
    Artifact, ArtifactVault, ArtifactVersion, NonEmpty, Ordinal, Sha256Ref, Timestamp, Versions,
};
use lines::LineIndex;
use rayon::prelude::*;

/// The language a file name's extension says (`src/app.py` → `python`), as the vault
/// records it.
///
/// ```
/// assert_eq!(smg_format::vault::language_of("src/app.py"), Some("python"));
/// assert_eq!(smg_format::vault::language_of("README"), None);
/// ```
pub fn language_of(name: &str) -> Option<&'static str> {
    crate::languages::language_of(name)
}

/// `sha256:` + lowercase hex SHA-256 of `content`, the form of every vault hash.
///
/// ```
/// assert_eq!(
///     smg_format::vault::content_hash(""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn content_hash(content: &str) -> String {
    Sha256Ref::of(content.as_bytes()).into_string()
}

/// Rebuild the full content of every version of an artifact, oldest first.
///
/// A version with `content` is taken as is; otherwise its `delta` (a unified diff)
/// is applied to the previous version. Version numbers must run 1, 2, 3…; each
/// version's own `hash`, where present, is checked.
pub fn rebuild_versions(id: &str, artifact: &Artifact) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::with_capacity(artifact.versions.len());
    for (i, version) in artifact.versions.iter().enumerate() {
        check_number(id, version, i)?;
        let content = step(id, version, out.last().map(String::as_str))?;
        out.push(content);
    }
    Ok(out)
}

/// Rebuild one version (numbered from 1), starting from the nearest full version at or
/// before it, so the cost is bounded by the chain length, not by the history.
pub fn rebuild_version(id: &str, artifact: &Artifact, version: u64) -> Result<String> {
    let n = usize::try_from(version).unwrap_or(usize::MAX);
    if n == 0 || n > artifact.versions.len() {
        return Err(Error::Artifact {
            artifact: id.to_string(),
            version,
            detail: format!(
                "does not exist (the artifact has {} versions)",
                artifact.versions.len()
            ),
        });
    }
    let start = artifact.versions[..n]
        .iter()
        .rposition(|v| v.content.is_some())
        .unwrap_or(0);
    let mut current: Option<String> = None;
    for (i, v) in artifact.versions[..n].iter().enumerate().skip(start) {
        check_number(id, v, i)?;
        current = Some(step(id, v, current.as_deref())?);
    }
    Ok(current.unwrap_or_default())
}

fn check_number(id: &str, version: &ArtifactVersion, index: usize) -> Result<()> {
    if version.v == index as u64 + 1 {
        return Ok(());
    }
    Err(Error::Artifact {
        artifact: id.to_string(),
        version: version.v.get(),
        detail: format!(
            "is at position {}; versions must be numbered 1, 2, 3…",
            index + 1
        ),
    })
}

/// One version's full content, given the previous version's.
fn step(id: &str, version: &ArtifactVersion, prev: Option<&str>) -> Result<String> {
    let fail = |detail: String| Error::Artifact {
        artifact: id.to_string(),
        version: version.v.get(),
        detail,
    };
    let content = match (&version.content, &version.delta, prev) {
        (Some(c), _, _) => c.clone(),
        (None, Some(delta), Some(prev)) => apply_unified_diff(prev, delta).map_err(fail)?,
        (None, Some(_), None) => return Err(fail("the first version needs full `content`".into())),
        (None, None, _) => return Err(fail("has neither `content` nor `delta`".into())),
    };
    if let Some(h) = &version.hash {
        let actual = content_hash(&content);
        if h.as_str() != actual {
            return Err(fail(format!(
                "hash is {h} but the content hashes to {actual}"
            )));
        }
    }
    Ok(content)
}

/// Apply a unified diff to `base`, failing if any hunk does not match.
pub(crate) fn apply_unified_diff(base: &str, delta: &str) -> Result<String, String> {
    let patch =
        diffy::Patch::from_str(delta).map_err(|e| format!("delta is not a unified diff: {e}"))?;
    diffy::apply(base, &patch)
        .map_err(|e| format!("delta does not apply to the previous version: {e}"))
}

/// A unified diff from `old` to `new` that GNU `patch` and [`rebuild_version`] apply.
///
/// ```
/// let d = smg_format::vault::unified_diff("a\nb\n", "a\nc\n", "x.txt");
/// assert!(d.starts_with("--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@"));
/// ```
pub fn unified_diff(old: &str, new: &str, name: &str) -> String {
    diff_with_context(old, new, name, 3)
}

/// A unified diff with `context` lines around each change. Stored deltas use none: they
/// are only ever applied to the exact version they were made from (each version's hash
/// is stored and checked), and context lines would cost more than the change itself.
fn diff_with_context(old: &str, new: &str, name: &str, context: usize) -> String {
    // diffy rather than `similar`: similar 2.x can emit a hunk whose header does not
    // match its lines (e.g. " \n\n" → "\n\n" gives "@@ -1 +2 @@"), which GNU patch
    // rejects; the property tests in tests/patch_compat.rs hold diffy to it.
    diffy::DiffOptions::new()
        .set_context_len(context)
        .set_original_filename(format!("a/{name}"))
        .set_modified_filename(format!("b/{name}"))
        .create_patch(old, new)
        .to_string()
}

/// The artifact with this id, or else the first (by id) with this file name.
///
/// A lookup that rebuilds nothing: reading one version costs only that version's chain.
pub fn find_artifact<'a>(
    vault: Option<&'a ArtifactVault>,
    id_or_name: &str,
) -> Result<(&'a str, &'a Artifact)> {
    let arts = vault.and_then(|v| v.artifacts.as_ref());
    arts.and_then(|a| a.get_key_value(id_or_name))
        .or_else(|| {
            arts?
                .iter()
                .find(|(_, a)| a.filename.as_deref() == Some(id_or_name))
        })
        .map(|(id, a)| (id.as_str(), a))
        .ok_or_else(|| {
            Error::InvalidArgument(format!("no artifact with id or name `{id_or_name}`"))
        })
}

/// Where to write an artifact named `name` (untrusted) inside `dir`: never outside it.
///
/// The name's folders are kept; absolute paths, `..`, drive prefixes and empty names
/// are refused, and so is a path that leaves `dir` through a symbolic link.
///
/// ```
/// let dir = &std::env::temp_dir();
/// assert_eq!(smg_format::vault::export_path(dir, "src/a.rs").unwrap(), dir.join("src").join("a.rs"));
/// assert!(smg_format::vault::export_path(dir, "../etc/passwd").is_err());
/// assert!(smg_format::vault::export_path(dir, "/etc/passwd").is_err());
/// ```
pub fn export_path(dir: &std::path::Path, name: &str) -> Result<std::path::PathBuf> {
    let refuse = |why: &str| {
        Err(Error::InvalidArgument(format!(
            "artifact name `{name}` {why}; refusing to export it"
        )))
    };
    let parts: Vec<&str> = name.split(['/', '\\']).collect();
    if name.is_empty() || name.starts_with(['/', '\\']) || name.contains(':') || name.contains('\0')
    {
        return refuse("is empty, absolute, or names a drive");
    }
    if parts
        .iter()
        .any(|p| *p == ".." || p.is_empty() || *p == ".")
    {
        return refuse("has an empty, `.` or `..` component");
    }
    let path = parts.iter().fold(dir.to_path_buf(), |p, c| p.join(c));
    // A folder inside `dir` may be a link to elsewhere: check the deepest existing one.
    let base = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
    let mut probe = path.parent().map(std::path::Path::to_path_buf);
    while let Some(p) = probe {
        if let Ok(real) = std::fs::canonicalize(&p) {
            if !real.starts_with(&base) {
                return refuse("leads outside the export folder through a link");
            }
            break;
        }
        probe = p.parent().map(std::path::Path::to_path_buf);
    }
    Ok(path)
}

/// Where some content ended up in the vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The artifact's id.
    pub artifact: String,
    /// The version holding the content.
    pub version: Ordinal,
    /// False when identical content was already in the vault and is referenced instead.
    pub added: bool,
}

/// What is known about content being added.
#[derive(Debug, Clone, Default)]
pub struct NewContent<'a> {
    /// File name; content under a name the vault knows becomes that artifact's next version.
    pub name: Option<&'a str>,
    /// Artifact type (`code`, `document`…); `code` when absent.
    pub kind: Option<&'a str>,
    /// Programming language.
    pub language: Option<&'a str>,
    /// When the content was made.
    pub timestamp: Option<&'a Timestamp>,
    /// An existing artifact to add a version to, overriding the name lookup.
    pub artifact: Option<&'a str>,
}

impl NewContent<'_> {
    /// The artifact's type, once what is given is known to validate.
    fn check(&self) -> Result<NonEmpty> {
        let empty = || {
            Error::InvalidArgument(
                "an artifact's type must not be empty (code, document, canvas, data…)".into(),
            )
        };
        let kind = match self.kind {
            None => NonEmpty::from_static("code"),
            Some(k) if k.trim().is_empty() => return Err(empty()),
            Some(k) => NonEmpty::new(k).map_err(|_| empty())?,
        };
        Ok(kind)
    }
}

/// What [`VaultWriter::new`] learns of one artifact: the hash of each version, and
/// its newest content with that content's significant lines.
struct Indexed {
    hashes: Vec<String>,
    last: Option<(String, Vec<u64>)>,
}

impl Indexed {
    /// `None` when the artifact's versions do not rebuild: it is not indexed.
    fn of(id: &str, art: &Artifact) -> Option<Self> {
        let mut all = rebuild_versions(id, art).ok()?;
        let hashes = all.iter().map(|c| content_hash(c)).collect();
        let last = all.pop().map(|last| {
            let significant = lines::significant_lines(&last);
            (last, significant)
        });
        Some(Indexed { hashes, last })
    }
}

/// Adds content to a vault, with indexes built once so that adding many pieces of
/// content stays linear.
///
/// ```
/// use smg_format::{model::ArtifactVault, vault::{NewContent, VaultWriter}};
/// let mut vault = ArtifactVault::default();
/// let mut w = VaultWriter::new(&mut vault);
/// let named = NewContent { name: Some("a.py"), ..NewContent::default() };
/// let first = w.add("print(1)\n", &named).unwrap();
/// let second = w.add("print(2)\n", &named).unwrap();
/// let again = w.add("print(1)\n", &NewContent::default()).unwrap();
/// assert_eq!((first.version.get(), second.version.get()), (1, 2));
/// assert_eq!(second.artifact, first.artifact);
/// assert!(!again.added);
/// assert_eq!(w.content(&first.artifact, 1).unwrap(), "print(1)\n");
/// ```
#[derive(Debug)]
pub struct VaultWriter<'v> {
    vault: &'v mut ArtifactVault,
    by_hash: HashMap<String, (String, Ordinal)>,
    by_name: HashMap<String, String>,
    latest: HashMap<String, String>,
    lines: LineIndex,
}

impl<'v> VaultWriter<'v> {
    /// The longest run of diffs between two full versions.
    pub const MAX_CHAIN: usize = 32;

    /// Index an existing vault (every version is rebuilt once to learn its hash).
    pub fn new(vault: &'v mut ArtifactVault) -> Self {
        let mut w = VaultWriter {
            by_hash: HashMap::new(),
            by_name: HashMap::new(),
            latest: HashMap::new(),
            lines: LineIndex::default(),
            vault,
        };
        // Rebuilding, hashing and reading the lines of every version is nearly all of
        // the work, and each artifact's is its own: done side by side, then indexed in
        // the vault's order, so the first holder of a hash is the same as one by one.
        let read: Vec<(&String, &Artifact, Option<Indexed>)> = {
            let all: Vec<(&String, &Artifact)> = w.vault.artifacts.iter().flatten().collect();
            all.into_par_iter()
                .map(|(id, art)| (id, art, Indexed::of(id, art)))
                .collect()
        };
        for (id, art, indexed) in read {
            if let Some(name) = &art.filename {
                w.by_name.entry(name.clone()).or_insert_with(|| id.clone());
            }
            let Some(indexed) = indexed else { continue };
            for (i, hash) in indexed.hashes.into_iter().enumerate() {
                w.by_hash
                    .entry(hash)
                    .or_insert_with(|| (id.clone(), Ordinal::after(i as u64)));
            }
            if let Some((last, significant)) = indexed.last {
                w.lines.add_lines(id, significant);
                w.latest.insert(id.clone(), last);
            }
        }
        w
    }

    /// Resolve an artifact given by id or by file name.
    pub fn resolve(&self, id_or_name: &str) -> Option<String> {
        let arts = self.vault.artifacts.as_ref()?;
        if arts.contains_key(id_or_name) {
            return Some(id_or_name.to_string());
        }
        self.by_name.get(id_or_name).cloned()
    }

    /// Give an unnamed artifact a file name (a later paste named the file).
    pub fn name_artifact(&mut self, id: &str, name: &str) {
        if let Some(art) = self.vault.artifacts.as_mut().and_then(|a| a.get_mut(id)) {
            if art.filename.is_none() {
                art.filename = Some(name.to_string());
                self.by_name.insert(name.to_string(), id.to_string());
            }
        }
    }

    /// The file name of an artifact, if it has one.
    pub fn filename(&self, id: &str) -> Option<&str> {
        self.vault.artifacts.as_ref()?.get(id)?.filename.as_deref()
    }

    /// The newest content of an artifact.
    pub fn latest(&self, id: &str) -> Option<&str> {
        self.latest.get(id).map(String::as_str)
    }

    /// The artifact `content` is most likely a revision of: the one whose newest
    /// version shares the most significant lines with it, if they share at least half
    /// of the larger of the two line sets.
    pub fn similar(&self, content: &str) -> Option<String> {
        self.lines.similar(content)
    }

    /// Full content of one version.
    pub fn content(&self, id: &str, version: u64) -> Result<String> {
        let art = self.vault.artifacts.as_ref().and_then(|a| a.get(id));
        let art =
            art.ok_or_else(|| Error::InvalidArgument(format!("no artifact `{id}` in the vault")))?;
        rebuild_version(id, art, version)
    }

    /// Store `content`: referenced if identical content exists, a new version of the
    /// artifact named by `meta`, or a new artifact. An empty type is refused
    /// (`SMG-E020`): the vault would not validate.
    pub fn add(&mut self, content: &str, meta: &NewContent<'_>) -> Result<Stored> {
        let kind = meta.check()?;
        let hash = Sha256Ref::of(content.as_bytes());
        let target = match meta.artifact {
            Some(a) => Some(self.resolve(a).ok_or_else(|| {
                Error::InvalidArgument(format!("no artifact `{a}` in the vault"))
            })?),
            None => meta.name.and_then(|n| self.by_name.get(n).cloned()),
        };
        if let Some((id, v)) = self.by_hash.get(hash.as_str()) {
            if target.as_ref().is_none_or(|t| t == id) {
                return Ok(Stored {
                    artifact: id.clone(),
                    version: *v,
                    added: false,
                });
            }
        }
        let id = match target {
            Some(id) => {
                self.push_version(&id, content, &hash, meta.timestamp);
                id
            }
            None => self.new_artifact(content, &hash, kind, meta),
        };
        let version = self
            .vault
            .artifacts
            .as_ref()
            .and_then(|a| a.get(&id))
            .and_then(|a| Ordinal::new(a.versions.len() as u64).ok())
            .unwrap_or(Ordinal::FIRST);
        self.by_hash
            .entry(hash.into())
            .or_insert_with(|| (id.clone(), version));
        self.lines.add(&id, content);
        self.latest.insert(id.clone(), content.to_string());
        Ok(Stored {
            artifact: id,
            version,
            added: true,
        })
    }

    fn new_artifact(
        &mut self,
        content: &str,
        hash: &Sha256Ref,
        kind: NonEmpty,
        meta: &NewContent<'_>,
    ) -> String {
        let seed = match meta.name {
            Some(n) => content_hash(&format!("name:{n}")),
            None => hash.to_string(),
        };
        let arts = self.vault.artifacts.get_or_insert_with(Default::default);
        let base = format!("art_{}", &seed["sha256:".len().."sha256:".len() + 12]);
        let mut id = base.clone();
        let mut n = 2;
        while arts.contains_key(&id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        arts.insert(
            id.clone(),
            Artifact {
                language: meta.language.map(str::to_string),
                filename: meta.name.map(str::to_string),
                ..Artifact::new(
                    kind,
                    hash.clone(),
                    Versions::one(ArtifactVersion {
                        timestamp: meta.timestamp.cloned(),
                        content: Some(content.to_string()),
                        hash: Some(hash.clone()),
                        ..ArtifactVersion::new(Ordinal::FIRST)
                    }),
                )
            },
        );
        if let Some(name) = meta.name {
            self.by_name.insert(name.to_string(), id.clone());
        }
        id
    }

    fn push_version(
        &mut self,
        id: &str,
        content: &str,
        hash: &Sha256Ref,
        timestamp: Option<&Timestamp>,
    ) {
        let prev = self.latest.get(id).cloned().unwrap_or_default();
        let Some(art) = self.vault.artifacts.as_mut().and_then(|a| a.get_mut(id)) else {
            return;
        };
        let name = art.filename.as_deref().unwrap_or(id);
        let version = ArtifactVersion {
            hash: Some(hash.clone()),
            ..next_version(name, &art.versions, &prev, content, timestamp)
        };
        art.versions.push(version);
        art.hash = hash.clone();
    }
}

/// The version that follows the last of `versions` (whose content is `prev`) with
/// `content`: a diff against it (its file called `name`), or the full content when
/// there is no version yet, the diff is no smaller or the run of diffs since the last
/// full version is [`VaultWriter::MAX_CHAIN`] long. The caller, which knows the
/// content's hash, sets `hash`.
pub(crate) fn next_version(
    name: &str,
    versions: &[ArtifactVersion],
    prev: &str,
    content: &str,
    timestamp: Option<&Timestamp>,
) -> ArtifactVersion {
    let chain = versions
        .iter()
        .rev()
        .take_while(|v| v.content.is_none())
        .count();
    let delta = diff_with_context(prev, content, name, 0);
    let full =
        versions.is_empty() || chain >= VaultWriter::MAX_CHAIN || delta.len() >= content.len();
    ArtifactVersion {
        timestamp: timestamp.cloned(),
        content: full.then(|| content.to_string()),
        delta: (!full).then_some(delta),
        ..ArtifactVersion::new(Ordinal::after(versions.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(v: u64, content: Option<&str>, delta: Option<String>) -> ArtifactVersion {
        ArtifactVersion {
            v: Ordinal::new(v).unwrap(),
            content: content.map(str::to_string),
            delta,
            ..ArtifactVersion::default()
        }
    }

    #[test]
    fn rebuilds_a_delta_chain() {
        let v1 = "a\nb\nc\n";
        let v2 = "a\nB\nc\nd\n";
        let art = Artifact::new(
            crate::model::NonEmpty::from_static("code"),
            crate::model::Sha256Ref::of(v2.as_bytes()),
            Versions::new(vec![
                version(1, Some(v1), None),
                version(2, None, Some(unified_diff(v1, v2, "f"))),
            ])
            .unwrap(),
        );
        assert_eq!(rebuild_versions("a1", &art).unwrap(), vec![v1, v2]);
        assert_eq!(rebuild_version("a1", &art, 2).unwrap(), v2);
        assert_eq!(
            rebuild_version("a1", &art, 3).unwrap_err().code(),
            "SMG-E116"
        );
    }

    #[test]
    fn a_delta_that_does_not_apply_names_artifact_and_version() {
        let art = Artifact::new(
            crate::model::NonEmpty::from_static("code"),
            crate::model::Sha256Ref::of(b""),
            Versions::new(vec![
                version(1, Some("q\n"), None),
                version(2, None, Some(unified_diff("x\ny\n", "x\nz\n", "f"))),
            ])
            .unwrap(),
        );
        let err = rebuild_versions("art_9", &art).unwrap_err();
        assert_eq!(err.code(), "SMG-E116");
        assert!(
            err.to_string().starts_with("artifact art_9 version 2"),
            "{err}"
        );
    }

    #[test]
    fn long_histories_are_bounded_by_snapshots() {
        let mut vault = ArtifactVault::default();
        let mut w = VaultWriter::new(&mut vault);
        let meta = NewContent {
            name: Some("log.md"),
            ..NewContent::default()
        };
        let mut text = String::new();
        for i in 0..100 {
            text.push_str(&format!(
                "line {i} of a growing file that is long enough to diff\n"
            ));
            w.add(&text, &meta).unwrap();
        }
        let art = &vault
            .artifacts
            .as_ref()
            .unwrap()
            .values()
            .next()
            .unwrap()
            .clone();
        let fulls: Vec<u64> = art
            .versions
            .iter()
            .filter(|v| v.content.is_some())
            .map(|v| v.v.get())
            .collect();
        let longest_run = fulls
            .windows(2)
            .map(|w| w[1] - w[0] - 1)
            .chain([100 - fulls[fulls.len() - 1]])
            .max();
        assert_eq!(
            longest_run,
            Some(VaultWriter::MAX_CHAIN as u64),
            "{fulls:?}"
        );
        assert!(fulls.len() <= 8, "{fulls:?}");
        assert_eq!(rebuild_version("x", art, 100).unwrap(), text);
        let all = rebuild_versions("x", art).unwrap();
        assert_eq!(all.len(), 100);
        for (v, content) in art.versions.iter().zip(&all) {
            assert_eq!(v.hash.as_deref(), Some(content_hash(content).as_str()));
        }
        let mut tampered = art.clone();
        tampered.versions[40].hash = Some(crate::model::Sha256Ref::of(b"something else"));
        let err = rebuild_version("x", &tampered, 45).unwrap_err();
        assert!(
            err.code() == "SMG-E116" && err.to_string().contains("41"),
            "{err}"
        );
        assert_eq!(rebuild_version("x", &tampered, 40).unwrap(), all[39]);
    }

    #[test]
    fn reopening_a_vault_keeps_dedup_and_names() {
        let mut vault = ArtifactVault::default();
        let a = VaultWriter::new(&mut vault)
            .add(
                "x = 1\n",
                &NewContent {
                    name: Some("a.py"),
                    ..NewContent::default()
                },
            )
            .unwrap();
        let mut w = VaultWriter::new(&mut vault);
        assert_eq!(w.resolve("a.py"), Some(a.artifact.clone()));
        let same = w.add("x = 1\n", &NewContent::default()).unwrap();
        assert_eq!(
            (same.artifact.as_str(), same.version.get(), same.added),
            (a.artifact.as_str(), 1, false)
        );
        let next = w
            .add(
                "x = 2\n",
                &NewContent {
                    name: Some("a.py"),
                    ..NewContent::default()
                },
            )
            .unwrap();
        assert_eq!((next.version.get(), next.added), (2, true));
    }
}

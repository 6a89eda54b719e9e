//! Rebuilding artifact versions from full contents and unified diffs.

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::model::Artifact;

/// `sha256:` + lowercase hex SHA-256 of `content`, the form of every vault hash.
///
/// ```
/// assert_eq!(
///     smg_format::content_hash(""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn content_hash(content: &str) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(content.as_bytes())))
}

/// Rebuild the full content of every version of an artifact, oldest first.
///
/// A version with `content` is taken as is; otherwise its `delta` (a unified diff)
/// is applied to the previous version. Version numbers must run 1, 2, 3…; each
/// version's own `hash`, where present, is checked.
pub fn rebuild_versions(id: &str, artifact: &Artifact) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::with_capacity(artifact.versions.len());
    for (i, version) in artifact.versions.iter().enumerate() {
        let fail = |detail: String| Error::Artifact {
            artifact: id.to_string(),
            version: version.v,
            detail,
        };
        if version.v != i as u64 + 1 {
            return Err(fail(format!(
                "is at position {}; versions must be numbered 1, 2, 3…",
                i + 1
            )));
        }
        let content = match (&version.content, &version.delta, out.last()) {
            (Some(c), _, _) => c.clone(),
            (None, Some(delta), Some(prev)) => apply_unified_diff(prev, delta).map_err(fail)?,
            (None, Some(_), None) => {
                return Err(fail("the first version needs full `content`".into()))
            }
            (None, None, _) => return Err(fail("has neither `content` nor `delta`".into())),
        };
        if let Some(h) = &version.hash {
            let actual = content_hash(&content);
            if *h != actual {
                return Err(fail(format!(
                    "hash is {h} but the content hashes to {actual}"
                )));
            }
        }
        out.push(content);
    }
    Ok(out)
}

/// Apply a unified diff to `base`, failing if any hunk does not match.
pub(crate) fn apply_unified_diff(base: &str, delta: &str) -> Result<String, String> {
    let patch =
        diffy::Patch::from_str(delta).map_err(|e| format!("delta is not a unified diff: {e}"))?;
    diffy::apply(base, &patch)
        .map_err(|e| format!("delta does not apply to the previous version: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ArtifactVersion;

    fn version(v: u64, content: Option<&str>, delta: Option<String>) -> ArtifactVersion {
        ArtifactVersion {
            v,
            content: content.map(str::to_string),
            delta,
            ..ArtifactVersion::default()
        }
    }

    #[test]
    fn rebuilds_a_delta_chain() {
        let v1 = "a\nb\nc\n";
        let v2 = "a\nB\nc\nd\n";
        let diff = diffy::create_patch(v1, v2).to_string();
        let art = Artifact {
            kind: "code".into(),
            hash: content_hash(v2),
            versions: vec![version(1, Some(v1), None), version(2, None, Some(diff))],
            ..Artifact::default()
        };
        assert_eq!(rebuild_versions("a1", &art).unwrap(), vec![v1, v2]);
    }

    #[test]
    fn a_delta_that_does_not_apply_names_artifact_and_version() {
        let diff = diffy::create_patch("x\ny\n", "x\nz\n").to_string();
        let art = Artifact {
            kind: "code".into(),
            hash: String::new(),
            versions: vec![version(1, Some("q\n"), None), version(2, None, Some(diff))],
            ..Artifact::default()
        };
        let err = rebuild_versions("art_9", &art).unwrap_err();
        assert_eq!(err.code(), "SMG-E116");
        assert!(
            err.to_string().starts_with("artifact art_9 version 2"),
            "{err}"
        );
    }
}

//! How a memory opened from a file follows its links (spec §4.1): the options of
//! `smg_memory_open_with`, the network they make, and what is said of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use smg_engine::search::{open_file, Network, Retriever};
use smg_format::Limits;

use crate::SmgStatus;

/// Where a memory was opened from and how its links are followed.
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    pub(crate) path: PathBuf,
    /// Follow the links (`"links": false` does not).
    follow: bool,
    /// Each encrypted linked file's passphrase, by link name.
    passphrases: BTreeMap<String, Vec<u8>>,
}

impl Origin {
    /// `path`, its links followed as the options (JSON, or none for the defaults) say:
    /// `{"links": true|false, "linkPassphrases": {"NAME": "passphrase", …}}`. Anything
    /// else is `InvalidArgument`.
    pub(crate) fn new(path: &str, options: Option<&str>) -> Result<Self, (SmgStatus, String)> {
        let mut origin = Origin {
            path: PathBuf::from(path),
            follow: true,
            passphrases: BTreeMap::new(),
        };
        let Some(options) = options else {
            return Ok(origin);
        };
        let bad = |why: String| {
            (
                SmgStatus::InvalidArgument,
                format!("error[SMG-E020]: {why}"),
            )
        };
        let value: Value = serde_json::from_str(options)
            .map_err(|e| bad(format!("open options are not JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(bad("open options must be a JSON object".into()));
        };
        for (key, v) in map {
            match (key.as_str(), v) {
                ("links", Value::Bool(b)) => origin.follow = b,
                ("linkPassphrases", Value::Object(names)) => {
                    for (name, pass) in names {
                        let Value::String(pass) = pass else {
                            return Err(bad(format!("linkPassphrases.{name} must be a string")));
                        };
                        origin.passphrases.insert(name, pass.into_bytes());
                    }
                }
                (key, _) => {
                    let why = format!(
                        "open option `{key}` is unknown or of the wrong type \
                         (links: boolean, linkPassphrases: object of strings)"
                    );
                    return Err(bad(why));
                }
            }
        }
        Ok(origin)
    }
}

/// The memory `root` with the files its links reach, as `origin` says; a memory
/// opened from bytes alone.
pub(crate) fn network(root: Retriever, origin: Option<&Origin>) -> Network {
    let Some(origin) = origin else {
        return Network::single(Path::new("-"), root);
    };
    if !origin.follow {
        return Network::single(&origin.path, root);
    }
    let limits = Limits::default();
    let open = |path: &Path, name: &str| {
        let pass = origin.passphrases.get(name).map(Vec::as_slice);
        open_file(path, &limits, pass)
    };
    Network::open(&origin.path, root, &open)
}

/// What `smg_memory_info` says of the links: each file they reach with its link
/// name, path and turns, and the links not followed as recorded.
pub(crate) fn followed(net: &Network) -> Value {
    let files: Vec<Value> = net
        .members()
        .skip(1)
        .map(|(f, r)| json!({"name": f.name, "path": f.path, "turns": r.turn_count()}))
        .collect();
    let warnings: Vec<Value> = net.warnings().iter().map(|w| w.to_json()).collect();
    json!({"files": files, "warnings": warnings})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_strictly() {
        let o = Origin::new("m.smg", None).unwrap();
        assert!(o.follow && o.passphrases.is_empty());
        let given = r#"{"links": false, "linkPassphrases": {"team": "s3cret"}}"#;
        let o = Origin::new("m.smg", Some(given)).unwrap();
        assert!(!o.follow);
        assert_eq!(o.passphrases["team"], b"s3cret");
        for bad in [
            "[]",
            "not json",
            r#"{"link": true}"#,
            r#"{"links": "no"}"#,
            r#"{"linkPassphrases": {"team": 7}}"#,
        ] {
            let (status, why) = Origin::new("m.smg", Some(bad)).unwrap_err();
            assert_eq!(status, SmgStatus::InvalidArgument, "{bad}");
            assert!(why.starts_with("error[SMG-E020]"), "{why}");
        }
    }
}

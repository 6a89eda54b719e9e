//! The Neo4j bridge through the C ABI (spec §19): push a memory file's tiers to a Bolt
//! server, pull them back into a file. Options come as one JSON object, so that the
//! ABI does not grow with every setting.

use std::ffi::c_char;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use smg_format::file::WriteLock;
use smg_format::model::{Scope, Timestamp};
use smg_format::Limits;
use smg_neo4j::bolt::{Auth, Connection, Target, Timeouts};
use smg_neo4j::schema::Dialect;

use crate::memory::{format_error, read, respond, text, WRITE_WAIT};
use crate::SmgStatus;

type Failure = (SmgStatus, String);

fn bridge_error(e: smg_neo4j::Error) -> Failure {
    (
        SmgStatus::of_code(e.code()),
        format!("error[{}]: {e}", e.code()),
    )
}

fn bad(message: String) -> Failure {
    (
        SmgStatus::InvalidArgument,
        format!("error[SMG-E020]: {message}"),
    )
}

/// The options every call shares, read from the JSON object.
struct Options {
    json: Value,
}

impl Options {
    fn parse(s: &str) -> Result<Options, Failure> {
        let json: Value = serde_json::from_str(s).map_err(|e| bad(format!("options: {e}")))?;
        if !json.is_object() {
            return Err(bad("options must be a JSON object".into()));
        }
        Ok(Options { json })
    }

    fn str(&self, key: &str) -> Result<Option<String>, Failure> {
        match self.json.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(bad(format!("options.{key} must be a string, not {other}"))),
        }
    }

    fn seconds(&self, key: &str, default: f64) -> Result<Duration, Failure> {
        let v = match self.json.get(key) {
            None | Some(Value::Null) => default,
            Some(v) => v
                .as_f64()
                .ok_or_else(|| bad(format!("options.{key} must be a number")))?,
        };
        Duration::try_from_secs_f64(v)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                bad(format!(
                    "options.{key} {v} is not a positive number of seconds"
                ))
            })
    }

    fn dialect(&self) -> Result<Dialect, Failure> {
        match self.str("dialect")? {
            None => Ok(Dialect::Neo4j),
            Some(d) => Dialect::parse(&d)
                .ok_or_else(|| bad(format!("options.dialect `{d}`: neo4j or falkordb"))),
        }
    }

    fn tiers(&self) -> Result<Vec<Scope>, Failure> {
        let Some(list) = self.json.get("tiers").filter(|v| !v.is_null()) else {
            return Ok(smg_neo4j::mapping::TIERS.to_vec());
        };
        let names = list
            .as_array()
            .ok_or_else(|| bad("options.tiers must be a list".into()))?;
        names
            .iter()
            .map(|n| {
                let name = n.as_str().unwrap_or("");
                smg_neo4j::mapping::TIERS
                    .into_iter()
                    .find(|t| t.name() == name)
                    .ok_or_else(|| bad(format!("options.tiers: `{n}` is not personal, departmental, global or restricted")))
            })
            .collect()
    }

    fn connect(&self) -> Result<Connection, Failure> {
        let uri = self
            .str("uri")?
            .ok_or_else(|| bad("options.uri is required".into()))?;
        let mut target = Target::parse(&uri).map_err(bridge_error)?;
        if let Some(ca) = self.str("caFile")? {
            target = target.with_ca_file(ca.into());
        }
        let auth = Auth {
            basic: self
                .str("password")?
                .filter(|p| !p.is_empty())
                .map(|p| Ok::<_, Failure>((self.str("user")?.unwrap_or_else(|| "neo4j".into()), p)))
                .transpose()?,
        };
        let timeouts = Timeouts {
            connect: self.seconds("connectTimeout", 10.0)?,
            reply: self.seconds("timeout", 120.0)?,
        };
        Connection::open(&target, &auth, timeouts).map_err(bridge_error)
    }
}

/// Push the memory file `path` to the Bolt server `options` names (spec §19.5):
/// `{"uri", "database"?, "dialect"? ("neo4j" | "falkordb"), "memory"? (default: the
/// file's metadata id, else its file name), "tiers"? (default all four), "user"?,
/// "password"?, "caFile"?, "connectTimeout"?, "timeout"? (seconds), "batch"?}`.
/// `*json_out`: `{"memory", "tiers", "sealed", "nodes": {"written", "unchanged",
/// "removed"}, "edges": {…}, "schema", "batches"}`. An encrypted file is refused
/// (`SMG_NEED_PASSPHRASE`). Server errors give `SMG_CONNECT` … `SMG_NO_MEMORY`.
///
/// # Safety
/// `path` and `options` must be NUL-terminated strings and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_neo4j_push(
    path: *const c_char,
    options: *const c_char,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let path = unsafe { text(path, "path") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let o = Options::parse(unsafe { text(options, "options") }?)?;
        let (doc, _) =
            smg_format::from_bytes(&read(path)?, &Limits::default()).map_err(format_error)?;
        let memory = o
            .str("memory")?
            .or_else(|| smg_neo4j::push::default_memory(&doc, Some(Path::new(path))))
            .unwrap_or_else(|| "memory".into());
        let batch = o.json.get("batch").and_then(Value::as_u64).unwrap_or(1000) as usize;
        let push = smg_neo4j::push::PushOptions {
            memory,
            tiers: o.tiers()?,
            dialect: o.dialect()?,
            database: o.str("database")?,
            batch,
        };
        let mut conn = o.connect()?;
        let report =
            smg_neo4j::push::push(&mut conn, &doc, &push, &mut |_| {}).map_err(bridge_error)?;
        Ok(serde_json::to_value(&report)
            .unwrap_or_default()
            .to_string())
    })
}

/// Pull a memory's tiers from the Bolt server `options` names (as for
/// [`smg_neo4j_push`], plus `"now"?`, the creation time of a new file's metadata) into
/// the memory file `path`: an existing file gets the pulled tiers in place of its own
/// and keeps the rest; otherwise a new file (brotli). `*json_out`: `{"memory",
/// "tiers", "nodes", "edges", "into", "dropped": {"artifact_refs", "related_nodes"}}`.
/// A failed pull leaves the file as it was.
///
/// # Safety
/// `options` and `path` must be NUL-terminated strings and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_neo4j_pull(
    options: *const c_char,
    path: *const c_char,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let o = Options::parse(unsafe { text(options, "options") }?)?;
        // SAFETY: forwarded from the caller's guarantees.
        let path = unsafe { text(path, "path") }?;
        let p = Path::new(path);
        let lock = WriteLock::acquire(p, WRITE_WAIT).map_err(format_error)?;
        let limits = Limits::default();
        let base = if p.exists() {
            Some(smg_format::from_bytes(&read(path)?, &limits).map_err(format_error)?)
        } else {
            None
        };
        let tiers = o.tiers()?;
        let pull = smg_neo4j::pull::PullOptions {
            memory: o.str("memory")?,
            tiers: tiers.clone(),
            database: o.str("database")?,
            now: match o.str("now")? {
                Some(t) => Timestamp::new(t).map_err(|e| bad(format!("options.now: {e}")))?,
                None => Timestamp::now(),
            },
            dialect: o.dialect()?,
        };
        let mut conn = o.connect()?;
        let (pulled, report) = smg_neo4j::pull::pull(&mut conn, &pull).map_err(bridge_error)?;
        let into = base.is_some();
        let encoding = base
            .as_ref()
            .map_or(smg_format::Encoding::Brotli, |(_, e)| e.for_writing());
        let (doc, dropped) = smg_neo4j::pull::into_file(base.map(|(d, _)| d), pulled, &tiers);
        smg_format::validate::ensure_valid(&doc, &limits).map_err(format_error)?;
        let bytes = smg_format::to_bytes(&doc, &smg_format::WriteOptions::new(encoding))
            .map_err(format_error)?;
        lock.write(&bytes).map_err(format_error)?;
        let mut answer = serde_json::to_value(&report).unwrap_or_default();
        answer["into"] = json!(into);
        answer["dropped"] = serde_json::to_value(&dropped).unwrap_or_default();
        Ok(answer.to_string())
    })
}

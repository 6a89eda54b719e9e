//! `smg link add | list | remove`: other memory files a memory reaches (spec §4.1).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;
use smg_format::links::{self, Status};
use smg_format::model::{Link, Timestamp};
use smg_format::Error;

use super::merge::load_indexed;
use crate::cli::{FileJson, LinkCommand};
use crate::io::{is_stdio, load, load_bytes, read_input, save_indexed, write_stdout, Context};
use crate::Outcome;

pub(crate) fn run(cmd: LinkCommand, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    match cmd {
        LinkCommand::Add {
            file,
            other,
            name,
            read_only,
            json,
        } => add(&file, &other, name, read_only, json, ctx)?,
        LinkCommand::List(FileJson { file, json }) => list(&file, json, ctx)?,
        LinkCommand::Remove { file, name } => {
            let (mut loaded, indexed) = load_indexed(&file, ctx)?;
            let link = links::remove(&mut loaded.doc, &name)?;
            loaded.doc.metadata.modified = Some(Timestamp::now());
            save_indexed(&file, loaded, indexed, &ctx.limits)?;
            write_stdout(format!("removed link `{name}` ({})\n", link.path.as_str()).as_bytes())?;
        }
    }
    Ok(Outcome::Success)
}

/// `smg link add`: OTHER must be a memory file (an encrypted one is taken as it is: its
/// id is inside, behind its own passphrase).
fn add(
    file: &Path,
    other: &Path,
    name: Option<String>,
    read_only: bool,
    as_json: bool,
    ctx: &Context,
) -> Result<(), smg_engine::Error> {
    if is_stdio(file) || is_stdio(other) {
        let why = "a link joins two files on disk: give paths, not -";
        return Err(Error::InvalidArgument(why.into()).into());
    }
    let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y);
    if same(file, other) {
        let why = format!("{} would link to itself", file.display());
        return Err(Error::InvalidArgument(why).into());
    }
    let bytes = read_input(other)?;
    let id = if smg_format::crypto::is_encrypted(&bytes) {
        None
    } else {
        load_bytes(&bytes, ctx)?.doc.metadata.id
    };
    let stem = other.file_stem().map(|s| s.to_string_lossy().into_owned());
    let name = name.or(stem).unwrap_or_default();
    let now = Timestamp::now();
    let mut link = links::new_link(file, other, &name, &bytes, id, &now)?;
    link.read_only = read_only.then_some(true);
    let (mut loaded, indexed) = load_indexed(file, ctx)?;
    links::add(&mut loaded.doc, link.clone())?;
    loaded.doc.metadata.modified = Some(now);
    save_indexed(file, loaded, indexed, &ctx.limits)?;
    let out = if as_json {
        format!("{}\n", json!(link))
    } else {
        format!(
            "linked `{}` → {} (sha256 {})\n",
            link.name.as_str(),
            link.path.as_str(),
            &link.sha256.as_str()[..12]
        )
    };
    Ok(write_stdout(out.as_bytes())?)
}

/// `smg link list`: each link with what became of its file.
fn list(file: &Path, as_json: bool, ctx: &Context) -> Result<(), Error> {
    let doc = load(file, ctx)?.doc;
    let all: Vec<Link> = doc.metadata.links.unwrap_or_default();
    let states: Vec<Status> = all.iter().map(|l| links::status(file, l)).collect();
    let out = if as_json {
        let rows: Vec<serde_json::Value> = all
            .iter()
            .zip(&states)
            .map(|(l, s)| {
                let mut v = json!(l);
                v["status"] = json!(s.word());
                v["code"] = json!(s.code());
                v["resolved"] = json!(links::resolve(file, l).display().to_string());
                v
            })
            .collect();
        format!("{}\n", json!(rows))
    } else {
        let mut s = String::new();
        for (l, st) in all.iter().zip(&states) {
            let code = st.code().map(|c| format!(" ({c})")).unwrap_or_default();
            let ro = if l.read_only == Some(true) {
                ", read-only"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "{}  {}  {}{code}{ro}",
                l.name.as_str(),
                l.path.as_str(),
                st.word()
            );
        }
        if all.is_empty() {
            s.push_str("no links\n");
        }
        s
    };
    write_stdout(out.as_bytes())
}

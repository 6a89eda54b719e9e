//! `smg neo4j schema|export|push|pull`: thin over smg-neo4j.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use smg_format::model::Scope;
use smg_format::Error;
use smg_neo4j::bolt::{Auth, Connection, Target, Timeouts};
use smg_neo4j::mapping::TIERS;
use smg_neo4j::schema::{self, Dialect};

use super::checkpoint::report;
use super::working::Working;
use crate::cli::{DialectArg, Neo4jCommand, ServerArgs, SliceArgs};
use crate::io::{is_stdio, load, save_like, write_output, write_stdout, Context};
use crate::{Failure, Outcome};

pub(crate) fn run(cmd: &Neo4jCommand, ctx: &Context, wait: Duration) -> Result<Outcome, Failure> {
    match cmd {
        Neo4jCommand::Schema(a) => {
            let dialect = dialect(a.dialect);
            match &a.uri {
                Some(uri) => {
                    let target = Target::parse(uri)?;
                    let mut conn = Connection::open(&target, &auth(None)?, Timeouts::default())?;
                    let ran =
                        schema::apply(&mut conn, dialect, a.dimensions, a.database.as_deref())?;
                    say(&format!("{} statements run on {target}\n", ran.len()))?;
                }
                None => {
                    let text: String = schema::indexes(a.dimensions)
                        .iter()
                        .filter_map(|i| schema::statement(i, dialect))
                        .map(|s| s + ";\n")
                        .collect();
                    say(&text)?;
                }
            }
        }
        Neo4jCommand::Export(a) => {
            let mut doc = load(&a.file, ctx)?.doc;
            a.sealed.open(&mut doc)?;
            let memory = memory_name(&a.slice, &doc, &a.file)?;
            let script =
                smg_neo4j::export::script(&doc, &memory, &tiers(&a.slice), dialect(a.dialect))?;
            write_output(&a.output, script.as_bytes())?;
        }
        Neo4jCommand::Push(a) => push(a, ctx)?,
        Neo4jCommand::Pull(a) => pull(a, ctx, wait)?,
    }
    Ok(Outcome::Success)
}

fn push(a: &crate::cli::PushArgs, ctx: &Context) -> Result<(), Failure> {
    let mut doc = load(&a.file, ctx)?.doc;
    a.sealed.open(&mut doc)?;
    let options = smg_neo4j::push::PushOptions {
        memory: memory_name(&a.slice, &doc, &a.file)?,
        tiers: tiers(&a.slice),
        dialect: dialect(a.server.dialect),
        database: a.server.database.clone(),
        batch: a.batch,
    };
    let started = Instant::now();
    let (mut conn, target) = connect(&a.server)?;
    let bar = Working::bar();
    let result =
        smg_neo4j::push::push(&mut conn, &doc, &options, &mut |p| bar.set(p.done, p.total));
    drop(bar);
    let r = result?;
    let seconds = started.elapsed().as_secs_f64();
    let text = if a.json {
        let mut v = serde_json::to_value(&r).unwrap_or_default();
        v["server"] = json!(target.to_string());
        v["seconds"] = json!(seconds);
        format!("{v}\n")
    } else {
        format!(
            "pushed memory `{}` to {target} in {seconds:.2} s\n  nodes: {} written, {} unchanged, {} removed\n  relationships: {} written, {} unchanged, {} removed\n{}",
            r.memory, r.nodes.written, r.nodes.unchanged, r.nodes.removed,
            r.edges.written, r.edges.unchanged, r.edges.removed,
            if r.sealed.is_empty() { String::new() } else { format!("  sealed in the file, left as they are: {}\n", r.sealed.join(", ")) }
        ) + &if r.reconnects > 0 {
            format!("  the server dropped the connection {} time(s); those batches were sent again\n", r.reconnects)
        } else {
            String::new()
        }
    };
    Ok(say(&text)?)
}

fn pull(a: &crate::cli::PullArgs, ctx: &Context, wait: Duration) -> Result<(), Failure> {
    let mut tiers = tiers(&a.slice);
    let into = !is_stdio(&a.output) && a.output.exists();
    if into {
        crate::io::lock_for_rewrite(&a.output, wait)?;
    }
    // Read the file first: a pull that then fails leaves it untouched.
    let mut base = if into {
        Some(load(&a.output, ctx)?)
    } else {
        None
    };
    let mut opened = None;
    let mut left_sealed = Vec::new();
    if let Some(loaded) = base.as_mut() {
        opened = a.sealed.open(&mut loaded.doc)?;
        // A tier still sealed stays as it is: pulled, it would be written open.
        let sealed = loaded.doc.sealed_sections.iter().flatten();
        left_sealed = sealed
            .filter_map(|s| s.tier)
            .filter(|t| tiers.contains(t))
            .collect();
        tiers.retain(|t| !left_sealed.contains(t));
        if tiers.is_empty() {
            return Err(Error::Sealed(format!(
                "{}: every tier asked for is sealed in the file; give its passphrase with --seal-passphrase-file",
                a.output.display()
            ))
            .into());
        }
    }
    let (mut conn, target) = connect(&a.server)?;
    let options = smg_neo4j::pull::PullOptions {
        memory: a.slice.memory.clone(),
        tiers: tiers.clone(),
        database: a.server.database.clone(),
        dialect: dialect(a.server.dialect),
        now: super::time_arg("--now", a.now.as_deref())?
            .unwrap_or_else(smg_format::model::Timestamp::now),
    };
    let (pulled, r) = smg_neo4j::pull::pull(&mut conn, &options)?;
    // The base's document becomes the pulled file; `base` keeps how it was read.
    let placeholder = || smg_format::Document::new(smg_format::model::Timestamp::now());
    let base_doc = base
        .as_mut()
        .map(|b| std::mem::replace(&mut b.doc, placeholder()));
    let (mut doc, dropped) = smg_neo4j::pull::into_file(base_doc, pulled, &tiers);
    if let Some((opened, pass)) = &opened {
        opened.seal_again(&mut doc, pass)?;
    }
    match base {
        Some(mut loaded) => {
            loaded.doc = doc;
            save_like(&a.output, loaded)?;
        }
        None => {
            smg_format::validate::ensure_valid(&doc, &ctx.limits)?;
            let options = smg_format::WriteOptions::new(smg_format::Encoding::Brotli);
            write_output(&a.output, &smg_format::to_bytes(&doc, &options)?)?;
        }
    }
    let text = if a.json {
        let mut v = serde_json::to_value(&r).unwrap_or_default();
        v["server"] = json!(target.to_string());
        v["into"] = json!(into);
        v["dropped"] = serde_json::to_value(&dropped).unwrap_or_default();
        v["sealed"] = json!(left_sealed.iter().map(|t| t.name()).collect::<Vec<_>>());
        format!("{v}\n")
    } else {
        let lost = dropped.artifact_refs.len() + dropped.related_nodes.len();
        format!(
            "pulled memory `{}` from {target}: {} nodes, {} relationships{}{}\n",
            r.memory,
            r.nodes,
            r.edges,
            if into { ", into the file" } else { "" },
            if lost > 0 {
                format!("; {lost} reference(s) to what the file lacks dropped (--json lists them)")
            } else {
                String::new()
            }
        ) + &if left_sealed.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = left_sealed.iter().map(|t| t.name()).collect();
            format!(
                "  sealed in the file, left as they are: {}\n",
                names.join(", ")
            )
        }
    };
    report(&a.output, &text).map_err(Failure::from)
}

fn connect(server: &ServerArgs) -> Result<(Connection, Target), Failure> {
    let mut target = Target::parse(&server.uri)?;
    if let Some(ca) = &server.ca_file {
        target = target.with_ca_file(ca.clone());
    }
    let seconds = |s: f64, flag: &str| {
        Duration::try_from_secs_f64(s)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                Error::InvalidArgument(format!("{flag} {s} is not a positive number of seconds"))
            })
    };
    let timeouts = Timeouts {
        connect: seconds(server.connect_timeout, "--connect-timeout")?,
        reply: seconds(server.timeout, "--timeout")?,
    };
    let conn = Connection::open(&target, &auth(server.password_file.as_deref())?, timeouts)?;
    Ok((conn, target))
}

/// Credentials from the environment or a file, never from the command line.
fn auth(password_file: Option<&Path>) -> Result<Auth, Error> {
    let password = match password_file {
        Some(path) => {
            let text = String::from_utf8(smg_format::file::read_bytes(path)?).map_err(|_| {
                Error::InvalidArgument(format!("{} is not UTF-8 text", path.display()))
            })?;
            Some(text.lines().next().unwrap_or("").to_string())
        }
        None => std::env::var("NEO4J_PASSWORD").ok(),
    };
    let user = std::env::var("NEO4J_USERNAME").unwrap_or_else(|_| "neo4j".into());
    Ok(Auth {
        basic: password.filter(|p| !p.is_empty()).map(|p| (user, p)),
    })
}

fn memory_name(
    slice: &SliceArgs,
    doc: &smg_format::Document,
    file: &Path,
) -> Result<String, Error> {
    let file = (!is_stdio(file)).then_some(file);
    slice
        .memory
        .clone()
        .or_else(|| smg_neo4j::push::default_memory(doc, file))
        .ok_or_else(|| Error::InvalidArgument("the memory has no id: name it with --memory".into()))
}

fn tiers(slice: &SliceArgs) -> Vec<Scope> {
    if slice.tiers.is_empty() {
        TIERS.to_vec()
    } else {
        let mut t: Vec<Scope> = slice.tiers.iter().map(|t| t.scope()).collect();
        t.dedup();
        t
    }
}

fn dialect(d: DialectArg) -> Dialect {
    match d {
        DialectArg::Neo4j => Dialect::Neo4j,
        DialectArg::Falkordb => Dialect::FalkorDb,
    }
}

fn say(text: &str) -> Result<(), Error> {
    write_stdout(text.as_bytes())
}

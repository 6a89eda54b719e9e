//! `smg share`: a copy safe to hand out, its report, and `--check` for pipelines.

use std::fmt::Write as _;
use std::path::Path;

use smg_engine::share::{share, Kind, Report, ShareOptions};
use smg_format::model::Timestamp;
use smg_format::Error;

use super::checkpoint::report as say;
use crate::cli::ShareArgs;
use crate::io::{load_bytes, read_input, save_gated, write_stdout, Context};
use crate::Outcome;

pub(crate) fn run(a: &ShareArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let mut options =
        ShareOptions::new(super::time_arg("--at", a.at.as_deref())?.unwrap_or_else(Timestamp::now));
    options.keep = kinds(&a.keep)?;
    options.branch = a.branch.clone();
    options.limits = ctx.limits;
    let bytes = read_input(&a.file)?;
    let mut loaded = load_bytes(&bytes, ctx)?;
    let indexed = loaded.indexed();
    let doc = std::mem::replace(
        &mut loaded.doc,
        smg_format::Document::new(options.at.clone()),
    );
    let working = super::working::Working::new(format!("sharing {}", a.file.display()));
    let shared = share(doc, &bytes, &options);
    drop((working, bytes));
    let (copy, report) = shared?;
    let holds = !report.findings.is_empty() || !report.left_out.is_empty();
    let written = match a.output.as_deref().filter(|_| !a.dry_run && !a.check) {
        Some(output) => {
            loaded.doc = copy;
            loaded.encryption = None;
            save_gated(output, loaded, indexed, &ctx.limits)?;
            Some(output)
        }
        None => None,
    };
    let text = if a.json {
        let mut v = report.to_json();
        v["written"] = serde_json::json!(written.map(|p| p.display().to_string()));
        format!("{v}\n")
    } else {
        summary(&report, written, a.check)
    };
    match written {
        Some(path) => say(path, &text)?,
        None => write_stdout(text.as_bytes())?,
    }
    Ok(if a.check && holds {
        Outcome::Invalid
    } else {
        Outcome::Success
    })
}

/// `--keep`'s kinds, or an error naming every kind there is.
fn kinds(names: &[String]) -> Result<Vec<Kind>, Error> {
    names
        .iter()
        .map(|n| Kind::parse(n).map_err(|why| Error::InvalidArgument(format!("--keep {why}"))))
        .collect()
}

fn summary(r: &Report, written: Option<&Path>, check: bool) -> String {
    let mut s = String::new();
    let distinct: usize = r.distinct.values().sum();
    let _ = writeln!(
        s,
        "{} finding(s) of {} value(s) replaced{}",
        r.findings.len(),
        distinct,
        match (written, check) {
            (Some(p), _) => format!("; the copy is {}", p.display()),
            (None, true) => " in a share (checked; nothing written)".into(),
            (None, false) => " in a share (dry run; nothing written)".into(),
        }
    );
    for (kind, by) in r.counts() {
        let places: Vec<String> = by.iter().map(|(sec, n)| format!("{sec} {n}")).collect();
        let values = r.distinct.get(&kind).copied().unwrap_or(0);
        let _ = writeln!(
            s,
            "  {:<16} {values} value(s): {}",
            kind.name(),
            places.join(", ")
        );
    }
    for what in &r.left_out {
        let _ = writeln!(s, "  left out: {what}");
    }
    if r.signature_removed {
        let _ = writeln!(
            s,
            "  the signature removed (sign the copy anew with smg sign)"
        );
    }
    s
}

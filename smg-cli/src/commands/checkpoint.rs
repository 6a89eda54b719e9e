//! Checkpoints: `smg diff --delta`, `smg apply`, `smg fork`, `smg log` (merges: merge.rs).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;
use smg_format::model::Timestamp;
use smg_format::{delta::DeltaOptions, Error};

use crate::cli::{DiffArgs, FileJson};
use crate::io::Context;
use crate::io::{is_stdio, load, load_bytes, read_input, save_like, write_output, write_stdout};
use crate::Outcome;

use super::working::Working;

/// Delta options, with the passphrase only when some input is encrypted (so that
/// plain files never prompt).
fn delta_options(inputs: &[&[u8]], ctx: &Context) -> Result<DeltaOptions, Error> {
    let options = DeltaOptions::default().with_limits(ctx.limits);
    if inputs.iter().any(|b| smg_format::crypto::is_encrypted(b)) {
        return Ok(options.with_passphrase(&ctx.secrets.get()?));
    }
    Ok(options)
}

/// Say `text` on stdout, or on stderr when stdout carries the output file.
pub(super) fn report(output: &Path, text: &str) -> Result<(), Error> {
    if is_stdio(output) {
        eprint!("{text}");
        Ok(())
    } else {
        write_stdout(text.as_bytes())
    }
}

pub(crate) fn delta(a: &DiffArgs, ctx: &Context) -> Result<Outcome, Error> {
    let output = a.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let (base, target) = (read_input(&a.a)?, read_input(&a.b)?);
    let options = delta_options(&[&base, &target], ctx)?.with_level(a.level);
    let working = Working::new(format!("making the delta of {}", a.b.display()));
    let made = smg_format::delta::make_delta(&base, &target, &options)?;
    drop(working);
    let (delta, header) = (&made.bytes, &made.header);
    write_output(&output, delta)?;
    let share = 100.0 * delta.len() as f64 / target.len().max(1) as f64;
    let text = if a.json {
        format!("{}\n", made.to_json())
    } else {
        format!(
            "delta {} bytes ({share:.2}% of the {}-byte target), {} patch, base sha256 {}\n",
            delta.len(),
            target.len(),
            header.patch.name(),
            &header.base.sha256[..16],
        )
    };
    report(&output, &text)?;
    Ok(Outcome::Success)
}

pub(crate) fn apply(
    base: &Path,
    deltas: &[PathBuf],
    output: &Path,
    ctx: &Context,
) -> Result<Outcome, Error> {
    let mut bytes = read_input(base)?;
    for path in deltas {
        let delta = read_input(path)?;
        let options = delta_options(&[&bytes, &delta], ctx)?;
        let _working = Working::new(format!("applying {}", path.display()));
        bytes = smg_format::delta::apply_delta(&bytes, &delta, &options)
            .inspect_err(|_| eprintln!("smg: applying {}:", path.display()))?;
    }
    write_output(output, &bytes)?;
    Ok(Outcome::Success)
}

pub(crate) fn fork(
    file: &Path,
    output: &Path,
    branch: &str,
    at: Option<&str>,
    ctx: &Context,
) -> Result<Outcome, Error> {
    let at = super::time_arg("--at", at)?.unwrap_or_else(Timestamp::now);
    let bytes = read_input(file)?;
    let mut loaded = load_bytes(&bytes, ctx)?;
    let parent = std::mem::replace(&mut loaded.doc, smg_format::Document::new(at.clone()));
    loaded.doc = smg_format::lineage::fork(parent, &bytes, branch, &at)?;
    drop(bytes);
    let id = loaded.doc.metadata.id.clone().unwrap_or_default();
    save_like(output, loaded)?;
    report(output, &format!("forked onto branch `{branch}` as {id}\n"))?;
    Ok(Outcome::Success)
}

pub(crate) fn log(a: &FileJson, ctx: &Context) -> Result<Outcome, Error> {
    let meta = load(&a.file, ctx)?.doc.metadata;
    let lineage = meta.lineage.clone().unwrap_or_default();
    let out = if a.json {
        let v = json!({ "id": meta.id, "branch": meta.branch, "lineage": lineage });
        format!("{v}\n")
    } else {
        let mut s = format!(
            "{} on branch {}\n",
            meta.id.as_deref().unwrap_or("(no id)"),
            meta.branch.as_deref().unwrap_or("(none)")
        );
        for f in lineage.iter().rev() {
            let shared = f.extra.get("shared") == Some(&serde_json::Value::Bool(true));
            let _ = writeln!(
                s,
                "  {}  {} onto `{}` from {} on {} (sha256 {})",
                f.forked_at,
                if shared { "shared" } else { "forked" },
                f.branch,
                f.parent_id.as_deref().unwrap_or("(no id)"),
                f.parent_branch.as_deref().unwrap_or("(no branch)"),
                &f.parent_sha256[..f.parent_sha256.len().min(16)],
            );
        }
        if lineage.is_empty() {
            s.push_str("  no forks: this memory was not forked from another\n");
        }
        s
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

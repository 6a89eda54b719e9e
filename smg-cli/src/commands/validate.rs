use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde_json::json;
use smg_format::{
    validate::{Finding, Report, Severity, ValidateOptions},
    Error,
};

use crate::cli::ValidateArgs;
use crate::io::Context;
use crate::io::{is_stdio, read_input, write_stdout};
use crate::Outcome;

/// One file's result: a report, or the reason it could not be read.
struct Checked {
    path: PathBuf,
    result: Result<Report, Error>,
}

pub(crate) fn run(args: &ValidateArgs, ctx: &Context) -> Result<Outcome, Error> {
    let mut options = ValidateOptions::default();
    options.limits = ctx.limits;
    options.jsonld = !args.no_jsonld;
    let mut checked = Vec::new();
    for path in expand(&args.files)? {
        let result = if is_stdio(&path) || is_encrypted(&path) {
            read_input(&path).map(|bytes| validate_maybe_encrypted(bytes, &options, ctx))
        } else {
            smg_format::validate::validate_path(&path, &options)
        };
        checked.push(Checked { path, result });
    }
    let out = if args.json {
        as_json(&checked)
    } else {
        as_text(&checked)
    };
    write_stdout(out.as_bytes())?;
    let unreadable = checked.iter().any(|c| c.result.is_err());
    let invalid = checked
        .iter()
        .any(|c| c.result.as_ref().is_ok_and(|r| !r.is_valid()));
    Ok(match (unreadable, invalid) {
        (true, _) => Outcome::Unreadable,
        (false, true) => Outcome::Invalid,
        (false, false) => Outcome::Success,
    })
}

/// Whether the file at `path` starts as an encrypted file does (unreadable: not
/// known here, the read that follows says why).
fn is_encrypted(path: &Path) -> bool {
    let mut head = Vec::with_capacity(8);
    std::fs::File::open(path)
        .and_then(|f| f.take(8).read_to_end(&mut head))
        .is_ok_and(|_| smg_format::crypto::is_encrypted(&head))
}

/// Validate a file; an encrypted one is opened with the passphrase and its content
/// validated (a wrong passphrase or a tampered file is the finding). The bytes are
/// freed once decoded: a large file's are not held through the checks.
fn validate_maybe_encrypted(bytes: Vec<u8>, options: &ValidateOptions, ctx: &Context) -> Report {
    if !smg_format::crypto::is_encrypted(&bytes) {
        return smg_format::validate::validate_owned(bytes, options);
    }
    let inner = ctx
        .secrets
        .get()
        .and_then(|p| smg_format::crypto::decrypt(&bytes, &p, &options.limits));
    drop(bytes);
    match inner {
        Ok(inner) => smg_format::validate::validate(&inner, options),
        Err(e) => Report {
            encoding: Some(smg_format::Encoding::Encrypted),
            findings: vec![Finding {
                code: e.code(),
                severity: Severity::Error,
                pointer: String::new(),
                message: e.to_string(),
            }],
        },
    }
}

/// Files as given; folders become their `*.smg` files, recursively, in sorted order.
fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in inputs {
        if !is_stdio(p) && p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let io_err = |e| Error::Io {
        path: dir.to_path_buf(),
        source: e,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io_err)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io_err)?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "smg") {
            out.push(p);
        }
    }
    Ok(())
}

fn finding_json(f: &Finding) -> serde_json::Value {
    json!({"code": f.code, "severity": f.severity, "pointer": f.pointer, "message": f.message})
}

fn as_json(checked: &[Checked]) -> String {
    let files: Vec<_> = checked
        .iter()
        .map(|c| match &c.result {
            Ok(r) => json!({
                "file": c.path.display().to_string(),
                "status": if r.is_valid() { "valid" } else { "invalid" },
                "encoding": r.encoding.map(|e| e.name()),
                "findings": r.findings.iter().map(finding_json).collect::<Vec<_>>(),
            }),
            Err(e) => json!({
                "file": c.path.display().to_string(),
                "status": "unreadable",
                "findings": [{"code": e.code(), "severity": "error", "pointer": "", "message": e.to_string()}],
            }),
        })
        .collect();
    let (valid, invalid, unreadable) = tally(checked);
    let doc = json!({"files": files, "summary": {"valid": valid, "invalid": invalid, "unreadable": unreadable}});
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}

fn tally(checked: &[Checked]) -> (usize, usize, usize) {
    let valid = checked
        .iter()
        .filter(|c| c.result.as_ref().is_ok_and(Report::is_valid))
        .count();
    let unreadable = checked.iter().filter(|c| c.result.is_err()).count();
    (valid, checked.len() - valid - unreadable, unreadable)
}

fn as_text(checked: &[Checked]) -> String {
    let mut s = String::new();
    for c in checked {
        let name = c.path.display();
        match &c.result {
            Err(e) => {
                let _ = writeln!(s, "{name}: unreadable\n  error {} {e}", e.code());
            }
            Ok(r) => {
                let status = if r.is_valid() { "valid" } else { "invalid" };
                let enc = r.encoding.map(|e| format!(" ({e})")).unwrap_or_default();
                let _ = writeln!(s, "{name}: {status}{enc}");
                for f in &r.findings {
                    let sev = if f.severity == Severity::Error {
                        "error"
                    } else {
                        "warning"
                    };
                    let at = if f.pointer.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", f.pointer)
                    };
                    let _ = writeln!(s, "  {sev} {}{at}: {}", f.code, f.message);
                }
            }
        }
    }
    let (valid, invalid, unreadable) = tally(checked);
    let _ = writeln!(
        s,
        "{} files: {valid} valid, {invalid} invalid, {unreadable} unreadable",
        checked.len()
    );
    s
}

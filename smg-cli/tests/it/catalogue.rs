//! The bad-input catalogue (fixtures/bad-input/CATALOGUE): each command fails with
//! its code and exit status, says so on stderr, does not panic, writes no output and
//! leaves the files it was given as they were.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{fixtures, text};

/// One line of the catalogue.
struct Case {
    line: usize,
    code: String,
    exit: i32,
    args: Vec<String>,
}

/// The command's words: split at white space, `"…"` kept as one word (quotes removed).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => out.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(!quoted, "unbalanced quotes in `{command}`");
    out.extend(word);
    out
}

fn catalogue() -> Vec<Case> {
    let listing = std::fs::read_to_string(fixtures().join("bad-input/CATALOGUE")).unwrap();
    listing
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let mut w = words(l).into_iter();
            let code = w.next().unwrap();
            let exit = w.next().and_then(|e| e.parse().ok()).unwrap();
            Case {
                line: i + 1,
                code,
                exit,
                args: w.collect(),
            }
        })
        .collect()
}

/// Run one case in `scratch`; what went wrong, if anything.
fn check(case: &Case, scratch: &Path) -> Result<(), String> {
    let out_path = scratch.join("out.smg");
    let mut copies: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| match a.strip_prefix("COPY:") {
            Some(src) => {
                let bytes = std::fs::read(fixtures().join("bad-input").join(src)).unwrap();
                let copy = scratch.join(format!("copy-{}", copies.len()));
                std::fs::write(&copy, &bytes).unwrap();
                copies.push((copy.clone(), bytes));
                copy.display().to_string()
            }
            None if a == "OUT" => out_path.display().to_string(),
            None => a.clone(),
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_smg"))
        .args(&args)
        .current_dir(fixtures().join("bad-input"))
        .env_remove("SMG_PASSPHRASE")
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let said = format!("error[{}]", case.code);
    let mut wrong = Vec::new();
    if out.status.code() != Some(case.exit) {
        wrong.push(format!("exit {:?}, not {}", out.status.code(), case.exit));
    }
    if !stderr.contains(&said) {
        wrong.push(format!("stderr lacks {said}"));
    }
    if stderr.contains("panicked") {
        wrong.push("it panicked".into());
    }
    if out_path.exists() {
        wrong.push("it wrote its output".into());
    }
    for (copy, before) in &copies {
        if std::fs::read(copy).unwrap() != *before {
            wrong.push(format!("it changed {}", copy.display()));
        }
    }
    let mut left: Vec<_> = std::fs::read_dir(scratch)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("copy-") && !n.ends_with(".lock"))
        .collect();
    left.sort();
    if !left.is_empty() {
        wrong.push(format!("it left {left:?}"));
    }
    if wrong.is_empty() {
        return Ok(());
    }
    Err(format!(
        "line {} `{}`: {}\n  stderr: {}",
        case.line,
        case.args.join(" "),
        wrong.join("; "),
        stderr.trim()
    ))
}

#[test]
fn every_bad_input_gets_its_code_and_changes_nothing() {
    let cases = catalogue();
    assert!(cases.len() >= 40, "the catalogue has {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let scratch = tempfile::tempdir().unwrap();
            check(case, scratch.path()).err()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_catalogue_covers_every_read_limit_and_most_commands() {
    let cases = catalogue();
    for bound in smg_format::limits::Bound::ALL {
        assert!(
            cases.iter().any(|c| c.code == bound.code()),
            "no case for {}",
            bound.code()
        );
    }
    let mut commands: Vec<&str> = cases.iter().map(|c| c.args[0].as_str()).collect();
    commands.sort();
    commands.dedup();
    assert!(commands.len() >= 15, "{commands:?}");
}

#[test]
fn quoted_words_stay_whole() {
    assert_eq!(
        words(r#"query f.smg "FIND a WHERE" --kind " " x"#),
        ["query", "f.smg", "FIND a WHERE", "--kind", " ", "x"]
    );
    assert_eq!(
        words(r#"fork --branch "" -o OUT"#),
        ["fork", "--branch", "", "-o", "OUT"]
    );
}

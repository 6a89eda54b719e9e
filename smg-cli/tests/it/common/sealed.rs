//! What the sealing tests share: the conversations' secret six-word runs, what a
//! reader without the key gets from a file, and the commands that seal it.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::{ok, smg};

pub(crate) const PASS: &str = "seal passphrase, long enough";
pub(crate) const FILE_PASS: &str = "file passphrase, long enough";

/// Lowercase words (letters and digits).
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

pub(crate) fn grams(text: &str) -> Vec<String> {
    words(text).windows(6).map(|w| w.join(" ")).collect()
}

/// A LoCoMo conversation: every text in its file (turns, observations, summaries,
/// questions and answers), and its questions with the text of the turns that answer
/// them.
pub(crate) struct Talk {
    pub(crate) texts: Vec<String>,
    pub(crate) questions: Vec<(String, Vec<String>)>,
}

pub(crate) fn talk(path: &Path) -> Talk {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut texts = Vec::new();
    strings(&v, &mut texts);
    let mut by_id = std::collections::HashMap::new();
    for (key, session) in v.as_object().unwrap() {
        if key.starts_with("session_") && session.is_array() {
            for t in session.as_array().into_iter().flatten() {
                let text = t["text"].as_str().unwrap_or_default();
                by_id.insert(t["dia_id"].as_str().unwrap_or_default(), text);
            }
        }
    }
    let questions = v["qa"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|q| {
            let evidence: Vec<String> = q["evidence"]
                .as_array()?
                .iter()
                .filter_map(|e| by_id.get(e.as_str()?).map(|t| t.to_string()))
                .collect();
            let question = q["question"].as_str()?.to_string();
            (!evidence.is_empty()).then_some((question, evidence))
        })
        .take(20)
        .collect();
    Talk { texts, questions }
}

/// Six-word runs the restricted conversation's file says and the public one's does
/// not.
pub(crate) fn secrets(public: &Talk, restricted: &Talk) -> HashSet<String> {
    let said: HashSet<String> = public.texts.iter().flat_map(|t| grams(t)).collect();
    restricted
        .texts
        .iter()
        .flat_map(|t| grams(t))
        .filter(|g| !said.contains(g))
        .collect()
}

/// The secret runs found in `text`.
pub(crate) fn leaked<'a>(text: &str, secrets: &'a HashSet<String>) -> Vec<&'a String> {
    grams(text)
        .into_iter()
        .filter_map(|g| secrets.get(&g))
        .collect()
}

/// Every string of a JSON value.
pub(crate) fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Value::Object(o) => o.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings(v, out)
        }),
        _ => {}
    }
}

/// Every text a reader without the seal key gets from the file's bytes: the
/// document's strings, every archived turn decoded, and what stands in the clear in
/// any extension section.
pub(crate) fn readable(path: &Path) -> Vec<String> {
    let raw = std::fs::read(path).unwrap();
    let limits = smg_format::Limits::default();
    let bytes = if smg_format::crypto::is_encrypted(&raw) {
        smg_format::crypto::decrypt(&raw, FILE_PASS.as_bytes(), &limits)
            .unwrap()
            .to_vec()
    } else {
        raw
    };
    let (doc, _) = smg_format::from_bytes(&bytes, &limits).unwrap();
    let json = smg_format::codec::to_canonical_json(&doc).unwrap();
    let mut out = Vec::new();
    strings(&serde_json::from_slice(&json).unwrap(), &mut out);
    for a in smg_format::archive::read_archive(&doc, &limits).unwrap() {
        strings(&serde_json::to_value(&a.turn).unwrap(), &mut out);
    }
    for (name, _, _) in smg_format::packed::list_extensions(&bytes).unwrap_or_default() {
        let data = smg_format::packed::read_extension(&bytes, &name)
            .unwrap()
            .unwrap();
        out.push(String::from_utf8_lossy(data).into_owned());
    }
    out
}

/// The share of `questions` whose `smg context` (1,000 tokens) quotes a turn that
/// answers them, and every context's text.
pub(crate) fn answered(
    file: &str,
    questions: &[(String, Vec<String>)],
    more: &[&str],
    dir: &Path,
) -> (f64, String) {
    let mut hits = 0;
    let mut all = String::new();
    for (q, evidence) in questions {
        let mut args = vec!["context", file, q.as_str(), "--budget", "1000"];
        args.extend_from_slice(more);
        let text = ok(&args, dir);
        hits += usize::from(evidence.iter().any(|e| text.contains(e.as_str())));
        all.push_str(&text);
    }
    (hits as f64 / questions.len() as f64, all)
}

pub(crate) fn canonical(file: &str, dir: &Path, more: &[&str]) -> Vec<u8> {
    let mut args = vec!["convert", "-o", "-", "--encoding", "json", file];
    args.extend_from_slice(more);
    let out = smg(&args, dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Seal the restricted tier of `file` with the passphrase in `seal.txt` (`more`
/// arguments after).
pub(crate) fn seal(dir: &Path, file: &str, more: &[&str]) {
    let args = ["--tier", "restricted", "--seal-passphrase-file", "seal.txt"];
    ok(&[&["seal", file][..], &args, more].concat(), dir);
}

/// Open the restricted tier of `file` with the passphrase in `seal.txt`.
pub(crate) fn unseal(dir: &Path, file: &str, more: &[&str]) {
    let args = ["tier:restricted", "--seal-passphrase-file", "seal.txt"];
    ok(&[&["unseal", file][..], &args, more].concat(), dir);
}

/// Ingest the public conversation, then the restricted one (`--scope restricted`),
/// into `file` with `layout` args.
pub(crate) fn build(dir: &Path, file: &str, layout: &[&str], files: &[std::path::PathBuf]) {
    let (public, restricted) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let mut args = vec!["ingest", "-q", "-o", file];
    args.extend_from_slice(layout);
    args.push(public);
    ok(&args, dir);
    ok(&restricted_append(file, restricted), dir);
}

/// The arguments that append `input` to `file` as restricted talk.
pub(crate) fn restricted_append<'a>(file: &'a str, input: &'a str) -> [&'a str; 7] {
    [
        "ingest",
        "-q",
        "--scope",
        "restricted",
        "--append",
        file,
        input,
    ]
}

/// What each sealing test starts from: a public and a restricted LoCoMo conversation
/// (their files, texts and questions), the runs only the restricted one says, and a
/// folder holding the seal passphrase in `seal.txt`.
pub(crate) struct Sealing {
    pub(crate) files: Vec<std::path::PathBuf>,
    pub(crate) public: Talk,
    pub(crate) restricted: Talk,
    pub(crate) secrets: HashSet<String>,
    pub(crate) dir: tempfile::TempDir,
}

pub(crate) fn sealing() -> Sealing {
    let files = super::locomo_files();
    let (public, restricted) = (talk(&files[0]), talk(&files[1]));
    let secrets = secrets(&public, &restricted);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("seal.txt"), PASS).unwrap();
    Sealing {
        files,
        public,
        restricted,
        secrets,
        dir,
    }
}

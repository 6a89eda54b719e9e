//! `share`: values planted in real exports of every format are gone from every byte
//! of the copy that can be decoded, in every encoding; what must be left out is;
//! ordinary talk stays; the same input gives the same copy.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use smg_engine::ingest::{ingest, IngestOptions, Silent};
use smg_import::Input;

use crate::common::read;
use smg_engine::share::{share, Kind, ShareOptions};
use smg_format::archive::read_archive;
use smg_format::codec::{from_bytes, to_bytes, to_canonical_json};
use smg_format::model::Timestamp;
use smg_format::validate::{validate, Severity, ValidateOptions};
use smg_format::vault::rebuild_versions;
use smg_format::{Document, Encoding, Limits, WriteOptions};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

/// A value of every kind, each said in a sentence.
const PLANTED: &[(Kind, &str)] = &[
    (Kind::AwsKey, "AKIAZ7QWERTYUIOP2345"),
    (
        Kind::OpenaiKey,
        "sk-proj-9fKx2LmQp7RtVwYz3AbCdEfGhIjKlMnOpQrStUv01",
    ),
    (
        Kind::AnthropicKey,
        "sk-ant-api03-Xy7_Zk2-Qw9Er8Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm",
    ),
    (
        Kind::GithubToken,
        "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY",
    ),
    (Kind::GitlabToken, "glpat-Zq8Wm3Xn5Bv7Cx9Lk2Jh"),
    (
        Kind::SlackToken,
        "xoxb-2048204820-4096409640961-QwErTyUiOpAsDfGh",
    ),
    (Kind::StripeKey, "sk_live_51HxQ2eLkJ8mN3pR5tV7wY9zA"),
    (Kind::GoogleKey, "AIzaSyB7-Qx3Lm9Np2Rt5Vw8Yz1Ab4Cd6Ef0GhJ"),
    (
        Kind::Jwt,
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkLXVzZXIifQ.Qm9ndXNTaWduYXR1cmVWYWx1ZQ",
    ),
    (Kind::Password, "Pl4nt3d-Pa55w0rd!"),
    (Kind::UrlCredentials, "dbadmin:Sup3rS3cretDb"),
    (Kind::Email, "grace.hopper.planted@example-mail.com"),
    (Kind::Phone, "+1 415 555 0199"),
    (Kind::Card, "5555 5555 5555 4444"),
    (Kind::Iban, "DE89 3704 0044 0532 0130 00"),
    (Kind::Ip, "203.0.113.77"),
];

const PEM: &str = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n-----END PRIVATE KEY-----";

/// What `kind`'s value looks like when said (a password after `password:`, a URL's
/// credentials inside a URL).
fn said(kind: Kind, value: &str) -> String {
    match kind {
        Kind::Password => format!("the staging password: {value} works"),
        Kind::UrlCredentials => {
            format!("connect to postgres://{value}@db.example.net:5432/app today")
        }
        _ => format!("here it is {value} ok"),
    }
}

/// `text` with every planted value said at its end.
fn plant_all(text: &str) -> String {
    let said: Vec<String> = PLANTED.iter().map(|(k, v)| said(*k, v)).collect();
    format!("{text} {}", said.join(". "))
}

/// The first `n` strings of at least 30 characters under `v`, each with every value
/// planted; returns how many were planted.
fn plant(v: &mut Value, n: &mut usize) {
    match v {
        Value::String(s) if *n > 0 && s.len() >= 30 && !s.starts_with('{') => {
            *s = plant_all(s);
            *n -= 1;
        }
        Value::Array(items) => items.iter_mut().for_each(|i| plant(i, n)),
        Value::Object(map) => map.values_mut().for_each(|i| plant(i, n)),
        _ => {}
    }
}

fn planted_file(path: &Path, strings: usize) -> Vec<u8> {
    let text = std::fs::read_to_string(path).unwrap();
    if path.extension().is_some_and(|e| e == "jsonl") {
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                plant(&mut v, &mut 1);
                if let Some(obs) = v.get_mut("observations").and_then(Value::as_array_mut) {
                    obs.push(json!(plant_all("Planted observation")));
                }
                v.to_string()
            })
            .collect();
        return lines.join("\n").into_bytes();
    }
    let mut v: Value = serde_json::from_str(&text).unwrap();
    if let Value::String(inner) = &v {
        v = serde_json::from_str(inner).unwrap();
    }
    plant(&mut v, &mut strings.clone());
    serde_json::to_vec(&v).unwrap()
}

/// A ChatGPT export with code holding secrets (so that the vault gets them).
fn chatgpt_with_code() -> Vec<u8> {
    let path = data().join("imports/chatgpt/conversations.json");
    let mut v: Value = serde_json::from_slice(&planted_file(&path, 2)).unwrap();
    let code = format!(
        "Here is the client:\n```python\nimport os\nKEY = \"{}\"\nDSN = \"postgres://{}@db.example.net/app\"\nOWNER = \"{}\"\nprint(KEY, DSN, OWNER)\n```\nand the key:\n{PEM}\n",
        PLANTED[6].1, PLANTED[10].1, PLANTED[11].1
    );
    let mut done = false;
    for node in v[0]["mapping"].as_object_mut().unwrap().values_mut() {
        let parts = node
            .pointer_mut("/message/content/parts")
            .and_then(Value::as_array_mut);
        if let Some(parts) = parts.filter(|_| !done) {
            if parts.first().is_some_and(Value::is_string) {
                parts[0] = json!(code);
                done = true;
            }
        }
    }
    assert!(done);
    serde_json::to_vec(&v).unwrap()
}

fn inputs() -> Vec<Input> {
    let file = |p: &str| data().join(p);
    vec![
        Input::bytes("chat.json", chatgpt_with_code()),
        Input::bytes("26.json", planted_file(&file("locomo-dev/26.json"), 3)),
        Input::bytes(
            "agent.af",
            planted_file(&file("imports/letta/outreach_workflow_agent.af"), 2),
        ),
        Input::bytes(
            "memory.jsonl",
            planted_file(&file("imports/mcp-memory/memory.jsonl"), 1),
        ),
    ]
}

fn at() -> Timestamp {
    Timestamp::from_static("2026-01-02T03:04:05Z")
}

fn ingested() -> Document {
    memory_of(inputs())
}

/// A new memory of `inputs`.
fn memory_of(inputs: Vec<Input>) -> Document {
    let mut doc = Document::new(Timestamp::from_static("1970-01-01T00:00:00Z"));
    ingest(&mut doc, read(inputs), &IngestOptions::default(), &Silent).unwrap();
    doc
}

/// Every text a reader can decode from `bytes`: the document's canonical JSON, every
/// archived turn, every version of every artifact.
fn decodable(bytes: &[u8]) -> String {
    let limits = Limits::default();
    let (doc, _) = from_bytes(bytes, &limits).unwrap();
    let mut out = String::from_utf8(to_canonical_json(&doc).unwrap()).unwrap();
    for t in read_archive(&doc, &limits).unwrap() {
        out.push_str(&serde_json::to_string(&t.turn).unwrap());
    }
    let artifacts = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref());
    for (id, a) in artifacts.into_iter().flatten() {
        for version in rebuild_versions(id, a).unwrap() {
            out.push_str(&version);
        }
    }
    out
}

fn valid(bytes: &[u8]) {
    let report = validate(bytes, &ValidateOptions::default());
    let errors: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// The strings that stand for a planted value: itself, and the parts a rule keeps
/// whole (a password's characters after the key, a URL's user and password).
fn needles() -> Vec<String> {
    let mut out: Vec<String> = PLANTED.iter().map(|(_, v)| v.to_string()).collect();
    out.push("Sup3rS3cretDb".into());
    out.push("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj".into());
    out
}

#[test]
fn planted_values_are_gone_from_every_decodable_byte_in_every_encoding() {
    let doc = ingested();
    let before = to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
    let all = decodable(&before);
    for needle in needles() {
        assert!(all.contains(&needle), "the test plants {needle} somewhere");
    }
    assert!(
        doc.artifact_vault
            .as_ref()
            .is_some_and(|v| v.artifacts.is_some()),
        "code reached the vault"
    );
    let (copy, report) = share(doc, &before, &ShareOptions::new(at())).unwrap();
    let kinds: BTreeSet<Kind> = report.findings.iter().map(|f| f.kind).collect();
    for (kind, _) in PLANTED {
        assert!(kinds.contains(kind), "{kind:?} was found");
    }
    assert!(kinds.contains(&Kind::PrivateKey));
    let sections: BTreeSet<&str> = report.findings.iter().map(|f| f.section.as_str()).collect();
    for s in ["deepArchive", "artifactVault", "semanticGraph"] {
        assert!(sections.contains(s), "findings in {s}: {sections:?}");
    }
    for encoding in [
        Encoding::Json,
        Encoding::Brotli,
        Encoding::Zstd,
        Encoding::Packed,
    ] {
        let bytes = to_bytes(&copy, &WriteOptions::new(encoding)).unwrap();
        valid(&bytes);
        let text = decodable(&bytes);
        for needle in needles() {
            assert!(
                !text.contains(&needle),
                "{needle} left in the {encoding:?} copy"
            );
        }
        assert!(text.contains("[EMAIL-1]") && text.contains("[AWS-KEY-1]"));
    }
    let json = report.to_json().to_string();
    for needle in needles() {
        assert!(!json.contains(&needle), "the report never holds a value");
    }
}

#[test]
fn one_value_has_one_placeholder_and_numbers_continue_after_a_second_share() {
    let doc = ingested();
    let bytes = to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
    let (copy, report) = share(doc, &bytes, &ShareOptions::new(at())).unwrap();
    assert_eq!(report.distinct.get(&Kind::AwsKey), Some(&1));
    assert!(
        report
            .findings
            .iter()
            .filter(|f| f.kind == Kind::AwsKey)
            .count()
            > 3
    );
    let text = decodable(&to_bytes(&copy, &WriteOptions::new(Encoding::Json)).unwrap());
    assert!(!text.contains("[AWS-KEY-2]"));
    let mut again = copy.clone();
    let mut wm = again.working_memory.clone().unwrap_or_default();
    wm.summary = Some("new key AKIAQ2W3E4R5T6Y7U2I3 and old [AWS-KEY-1]".into());
    again.working_memory = Some(wm);
    let report = smg_engine::share::redact(
        &mut again,
        &smg_engine::share::Rules::new(&[]),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(report.findings.len(), 1);
    let summary = again.working_memory.unwrap().summary.unwrap();
    assert_eq!(summary, "new key [AWS-KEY-2] and old [AWS-KEY-1]");
}

#[test]
fn the_same_input_gives_the_same_copy_and_the_lineage_names_its_parent() {
    let doc = ingested();
    let bytes = to_bytes(&doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
    let one = share(doc.clone(), &bytes, &ShareOptions::new(at()))
        .unwrap()
        .0;
    let two = share(doc, &bytes, &ShareOptions::new(at())).unwrap().0;
    let write = |d: &Document| to_bytes(d, &WriteOptions::new(Encoding::Brotli)).unwrap();
    assert_eq!(write(&one), write(&two));
    let entry = one
        .metadata
        .lineage
        .as_ref()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        entry.parent_sha256.as_str(),
        smg_format::model::Sha256Hex::of(&bytes).as_str()
    );
    assert_eq!(entry.extra.get("shared"), Some(&json!(true)));
    assert_eq!(one.metadata.branch.as_deref(), Some("shared"));
}

#[test]
fn kept_kinds_stay() {
    let doc = ingested();
    let bytes = to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
    let mut options = ShareOptions::new(at());
    options.keep = vec![Kind::Email, Kind::Ip];
    let (copy, report) = share(doc, &bytes, &options).unwrap();
    assert!(report
        .findings
        .iter()
        .all(|f| f.kind != Kind::Email && f.kind != Kind::Ip));
    let text = decodable(&to_bytes(&copy, &WriteOptions::new(Encoding::Json)).unwrap());
    assert!(text.contains(PLANTED[11].1) && text.contains(PLANTED[15].1));
    assert!(!text.contains(PLANTED[0].1));
}

#[test]
fn restricted_talk_private_contexts_audit_access_and_signature_are_left_out() {
    let restricted = "Zanzibar-merger-codename talk";
    let public = r#"{"conversation_id":"pub","message_id":"p1","role":"user","content":"We chose Postgres for the shop database because of its JSON support.","timestamp":"2025-01-01T10:00:00Z"}"#;
    let secret = format!(
        r#"{{"conversation_id":"board","message_id":"b1","role":"user","content":"The {restricted} about Postgres is confidential; we decided to buy Zanzibar.","timestamp":"2025-01-02T10:00:00Z","scope":"restricted"}}"#
    );
    let input = Input::bytes("talk.jsonl", format!("{public}\n{secret}\n").into_bytes());
    let doc = memory_of(vec![input]);
    let mut v = serde_json::to_value(&doc).unwrap();
    v["collaborators"] = json!([{"id": "ada", "name": "Ada", "role": "lead"}]);
    v["privateContexts"] = json!({"ada": {"notes": ["private note Ada-only-words"]}});
    v["curation"] = json!({"audit": [{"id": "a1", "action": "tombstone", "at": "2025-01-03T00:00:00Z",
        "node": "n", "reason": "stale, by Ada-auditor-name"}]});
    let first = v["semanticGraph"]["nodes"][0].clone();
    v["semanticGraph"]["nodes"][0]["recentAccesses"] =
        json!([{"at": "2025-01-04T00:00:00Z", "by": "agent-Ada-reader"}]);
    let mut doc: Document = serde_json::from_value(v).unwrap();
    let (secret_key, _) = smg_format::sign::generate_key().unwrap();
    smg_format::sign::sign(&mut doc, &secret_key, &at()).unwrap();
    let bytes = to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
    valid(&bytes);
    assert!(decodable(&bytes).contains(restricted));
    let (copy, report) = share(doc, &bytes, &ShareOptions::new(at())).unwrap();
    assert!(report.signature_removed);
    assert!(
        report
            .left_out
            .iter()
            .any(|l| l.contains("restricted tier")),
        "{:?}",
        report.left_out
    );
    assert!(report
        .left_out
        .iter()
        .any(|l| l.contains("private context of ada")));
    assert!(report.left_out.iter().any(|l| l.contains("audit")));
    assert!(report.left_out.iter().any(|l| l.contains("access records")));
    let out = to_bytes(&copy, &WriteOptions::new(Encoding::Json)).unwrap();
    valid(&out);
    let text = decodable(&out);
    for gone in [
        restricted,
        "Ada-only-words",
        "Ada-auditor-name",
        "agent-Ada-reader",
        "\"signature\"",
        "sealedSections",
    ] {
        assert!(!text.contains(gone), "{gone} left in the copy");
    }
    assert!(text.contains("We chose Postgres"), "public talk stays");
    assert!(text.contains(first["id"].as_str().unwrap()));
}

/// Six-word runs of every archived turn's text.
fn runs(doc: &Document) -> Vec<String> {
    let mut out = Vec::new();
    for t in read_archive(doc, &Limits::default()).unwrap() {
        let words: Vec<&str> = t.turn.content.split_whitespace().collect();
        out.extend(words.windows(6).map(|w| w.join(" ")));
    }
    out
}

#[test]
fn ordinary_talk_stays_on_every_dev_file() {
    let mut files = Vec::new();
    for (dir, ext) in [
        ("locomo-dev", "json"),
        ("imports/chatgpt", "json"),
        ("imports/claude", "json"),
        ("imports/letta", "af"),
        ("imports/mcp-memory", "jsonl"),
    ] {
        for e in std::fs::read_dir(data().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == ext) {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 12, "{files:?}");
    for path in files {
        let input = Input::bytes(path.display().to_string(), std::fs::read(&path).unwrap());
        let doc = memory_of(vec![input]);
        let before = runs(&doc);
        let bytes = to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
        let (copy, report) = share(doc, &bytes, &ShareOptions::new(at())).unwrap();
        let after: BTreeSet<String> = runs(&copy).into_iter().collect();
        let kept = before.iter().filter(|r| after.contains(*r)).count();
        let share_kept = if before.is_empty() {
            1.0
        } else {
            kept as f64 / before.len() as f64
        };
        let found: Vec<(&str, &str, &str)> = report
            .findings
            .iter()
            .map(|f| (f.kind.name(), f.section.as_str(), f.place.as_str()))
            .collect();
        eprintln!(
            "{}: {:.4} of {} six-word runs kept; replaced: {found:?}",
            path.display(),
            share_kept,
            before.len()
        );
        assert!(share_kept >= 0.95, "{}: {share_kept}", path.display());
        valid(&to_bytes(&copy, &WriteOptions::new(Encoding::Json)).unwrap());
    }
}

#[test]
fn redact_leaves_sealed_sections_as_they_are_and_they_still_open() {
    let lines = [
        r#"{"conversation_id":"pub","message_id":"p1","role":"user","content":"Mail grace.planted@example.org about Postgres."}"#,
        r#"{"conversation_id":"board","message_id":"b1","role":"user","content":"Board only: AKIAZ7QWERTYUIOP2345 for the merger.","scope":"restricted"}"#,
    ];
    let input = Input::bytes("t.jsonl", lines.join("\n").into_bytes());
    let mut doc = memory_of(vec![input]);
    let target = smg_format::seal::SealTarget::Tier(smg_format::model::Scope::Restricted);
    smg_format::seal::seal(
        &mut doc,
        target,
        b"board key",
        smg_format::crypto::MIN_ITERATIONS,
    )
    .unwrap();
    let sealed = doc.sealed_sections.clone();
    let rules = smg_engine::share::Rules::new(&[]);
    let report = smg_engine::share::redact(&mut doc, &rules, &Limits::default()).unwrap();
    assert_eq!(report.distinct.get(&Kind::Email), Some(&1));
    assert_eq!(doc.sealed_sections, sealed);
    smg_format::seal::unseal_all(&mut doc, b"board key").unwrap();
    let text = decodable(&to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap());
    assert!(
        text.contains("AKIAZ7QWERTYUIOP2345"),
        "the sealed talk is as it was"
    );
    assert!(!text.contains("grace.planted"));
}

#[test]
fn a_copy_that_would_not_validate_is_refused_by_the_writers_gate() {
    let mut doc = ingested();
    let blocks = doc.deep_archive.as_mut().unwrap().blocks.as_mut().unwrap();
    let mut again = blocks[0].clone();
    again.id = blocks.iter().map(|b| b.id).max().unwrap() + 1;
    blocks.push(again);
    let bytes = to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
    let err = share(doc, &bytes, &ShareOptions::new(at())).unwrap_err();
    assert_eq!(err.code(), "SMG-E023", "{err}");
    assert!(err.to_string().contains("archived twice"), "{err}");
}

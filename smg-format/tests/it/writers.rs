//! Every writer of the format, on valid documents and arbitrary arguments (issue 31,
//! item 4): vault add, fork, seal, unseal, sign and merge give an error, or a document that
//! passes the whole validator (JSON-LD included) and reads back the same in every
//! encoding and layout.

use proptest::prelude::*;
use smg_format::lineage::fork;
use smg_format::merge::{merge, MergeOptions};
use smg_format::model::{Scope, Timestamp};
use smg_format::seal::{seal_with, unseal, SealTarget};
use smg_format::sign::{generate_key, sign, verify};
use smg_format::validate::{validate, ValidateOptions};
use smg_format::vault::{NewContent, VaultWriter};
use smg_format::{codec, Document, Encoding, Limits, WriteOptions};

fn fixture(name: &str) -> Document {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/valid")
        .join(name);
    codec::from_bytes(&std::fs::read(path).unwrap(), &Limits::default())
        .unwrap()
        .0
}

/// One writer's call, with arguments as a careless or hostile caller gives them.
#[derive(Debug, Clone)]
enum Op {
    VaultAdd {
        content: String,
        name: Option<String>,
        kind: Option<String>,
        language: Option<String>,
        timestamp: Option<String>,
    },
    Fork {
        branch: String,
        at: String,
    },
    Seal {
        tier: usize,
        passphrase: Vec<u8>,
    },
    Sign {
        signed_at: String,
    },
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" ".to_string()),
        Just("2026-01-02T03:04:05Z".to_string()),
        "[a-z./_-]{1,12}",
        ".{0,16}",
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (
            ".{0,200}",
            proptest::option::of(text()),
            proptest::option::of(text()),
            proptest::option::of(text()),
            proptest::option::of(text())
        )
            .prop_map(|(content, name, kind, language, timestamp)| Op::VaultAdd {
                content,
                name,
                kind,
                language,
                timestamp,
            }),
        (text(), text()).prop_map(|(branch, at)| Op::Fork { branch, at }),
        (0usize..4, proptest::collection::vec(any::<u8>(), 0..8))
            .prop_map(|(tier, passphrase)| Op::Seal { tier, passphrase }),
        text().prop_map(|signed_at| Op::Sign { signed_at }),
    ]
}

/// `doc` after `op`, or `None` when the writer refused.
fn apply(doc: &Document, op: &Op) -> Option<Document> {
    let mut doc = doc.clone();
    match op {
        Op::VaultAdd {
            content,
            name,
            kind,
            language,
            timestamp,
        } => {
            // A time that is not RFC 3339 cannot be given: the type refuses it.
            let timestamp = timestamp.as_ref().map(Timestamp::new).transpose().ok()?;
            let meta = NewContent {
                name: name.as_deref(),
                kind: kind.as_deref(),
                language: language.as_deref(),
                timestamp: timestamp.as_ref(),
                ..NewContent::default()
            };
            let vault = doc.artifact_vault.get_or_insert_with(Default::default);
            VaultWriter::new(vault).add(content, &meta).ok()?;
            Some(doc)
        }
        Op::Fork { branch, at } => {
            let bytes = smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Json)).ok()?;
            fork(doc, &bytes, branch, &Timestamp::new(at).ok()?).ok()
        }
        Op::Seal { tier, passphrase } => {
            let scope = [
                Scope::Personal,
                Scope::Departmental,
                Scope::Global,
                Scope::Restricted,
            ][*tier];
            let (salt, nonce) = ([7u8; 16], [9u8; 12]);
            let target = SealTarget::Tier(scope);
            let id = seal_with(&mut doc, target, passphrase, 1, &salt, &nonce).ok()?;
            let sealed = doc.clone();
            assert_valid(&sealed, "sealed");
            unseal(&mut doc, &id, passphrase).expect("the passphrase that sealed unseals");
            Some(doc)
        }
        Op::Sign { signed_at } => {
            let (secret, public) = generate_key().unwrap();
            sign(&mut doc, &secret, &Timestamp::new(signed_at).ok()?).ok()?;
            verify(&doc, Some(&public)).expect("what was just signed verifies");
            Some(doc)
        }
    }
}

/// The whole validator accepts `doc` in every encoding, and each reads back the same.
fn assert_valid(doc: &Document, what: &str) {
    let canonical = codec::to_canonical_json(doc).unwrap();
    for encoding in [Encoding::Json, Encoding::Brotli, Encoding::Packed] {
        let bytes = smg_format::to_bytes(doc, &WriteOptions::new(encoding)).unwrap();
        let report = validate(&bytes, &ValidateOptions::default());
        assert!(
            report.is_valid(),
            "{what}, {encoding:?}: {:?}",
            report.findings
        );
        let (back, _) = codec::from_bytes(&bytes, &Limits::default()).unwrap();
        assert_eq!(
            codec::to_canonical_json(&back).unwrap(),
            canonical,
            "{what}"
        );
    }
    smg_format::validate::ensure_valid(doc, &Limits::default()).unwrap();
}

/// Cases: 64 in the test suite; `SMG_CASES=N cargo test --release -p smg-format --test
/// writers` runs more.
fn cases() -> u32 {
    std::env::var("SMG_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    /// A valid document stays valid through any sequence of writers' calls, and a
    /// merge of two such branches is valid too.
    #[test]
    fn writers_keep_a_valid_document_valid(
        start in 0usize..3,
        ours in proptest::collection::vec(op(), 1..4),
        theirs in proptest::collection::vec(op(), 0..3),
    ) {
        let base = fixture(["full.smg", "minimal.smg", "code-chat.smg"][start]);
        let mut branches = Vec::new();
        for ops in [&ours, &theirs] {
            let mut doc = base.clone();
            for op in ops {
                if let Some(next) = apply(&doc, op) {
                    assert_valid(&next, &format!("{op:?}"));
                    doc = next;
                }
            }
            branches.push(doc);
        }
        let merged = merge(&base, &branches[0], &branches[1], &MergeOptions::default());
        if let Ok(m) = merged {
            if m.unresolved().next().is_none() {
                assert_valid(&m.document, "merge");
            }
        }
    }
}

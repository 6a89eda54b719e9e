//! The vault's deltas are standard unified diffs: GNU `patch` applies each one to the
//! previous version and gets the next, byte for byte, and so does the vault's rebuild.

use std::process::Command;

use proptest::prelude::*;
use smg_format::{
    model::ArtifactVault,
    vault::{rebuild_version, NewContent, VaultWriter},
};

/// A text as lines, with or without a final newline, LF or CRLF.
fn text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(
            prop_oneof![
                "[a-z ]{0,12}",
                Just("}".to_string()),
                Just(String::new()),
                Just("ünï çødé".to_string())
            ],
            0..30,
        ),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, final_newline, crlf)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut s = lines.join(nl);
            if final_newline && !s.is_empty() {
                s.push_str(nl);
            }
            s
        })
}

/// Apply `diff` to `old` with GNU patch in a temporary folder.
fn gnu_patch(old: &str, diff: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, old).unwrap();
    std::fs::write(dir.path().join("d.patch"), diff).unwrap();
    let out = Command::new("patch")
        .args(["--quiet", "--batch", "--binary", "-p1", "f", "d.patch"])
        .current_dir(dir.path())
        .output()
        .expect("GNU patch must be installed (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "patch failed: {}\n{diff}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(file).unwrap()
}

/// A base text and edited versions of it: each a few line insertions, deletions or
/// replacements away from the one before, as code is revised in a chat.
fn history() -> impl Strategy<Value = Vec<String>> {
    let edit = (any::<prop::sample::Index>(), 0..3u8, "[a-z(){};= ]{0,20}");
    (
        prop::collection::vec("[a-z(){};= ]{4,30}", 60..120),
        prop::collection::vec(prop::collection::vec(edit, 1..4), 1..6),
        any::<bool>(),
    )
        .prop_map(|(mut lines, steps, final_newline)| {
            let render = |lines: &[String]| {
                let mut s = lines.join("\n");
                if final_newline {
                    s.push('\n');
                }
                s
            };
            let mut out = vec![render(&lines)];
            for step in steps {
                for (at, op, line) in step {
                    let i = at.index(lines.len().max(1));
                    match op {
                        0 => lines.insert(i, line),
                        1 if lines.len() > 1 => {
                            lines.remove(i);
                        }
                        _ if !lines.is_empty() => lines[i] = line,
                        _ => lines.push(line),
                    }
                }
                out.push(render(&lines));
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_delta_applies_with_gnu_patch_and_with_the_vault(versions in history()) {
        let mut vault = ArtifactVault::default();
        let mut w = VaultWriter::new(&mut vault);
        let meta = NewContent { name: Some("f"), ..NewContent::default() };
        let mut stored = Vec::new();
        for v in &versions {
            stored.push(w.add(v, &meta).unwrap());
        }
        let (id, art) = vault.artifacts.as_ref().unwrap().iter().next().unwrap();
        for (s, expected) in stored.iter().zip(&versions) {
            prop_assert_eq!(&rebuild_version(id, art, s.version.get()).unwrap(), expected);
        }
        let contents = smg_format::vault::rebuild_versions(id, art).unwrap();
        let mut deltas = 0;
        for (i, v) in art.versions.iter().enumerate().skip(1) {
            if let Some(delta) = &v.delta {
                prop_assert_eq!(&gnu_patch(&contents[i - 1], delta), &contents[i]);
                deltas += 1;
            }
        }
        prop_assert!(deltas > 0 || art.versions.iter().all(|v| v.content.is_some()));
    }

    #[test]
    fn diffs_between_any_two_texts_apply(a in text(), b in text()) {
        let diff = smg_format::vault::unified_diff(&a, &b, "f");
        if a != b {
            prop_assert_eq!(gnu_patch(&a, &diff), b);
        }
    }
}

#[test]
fn a_revised_file_is_stored_as_deltas_that_gnu_patch_applies() {
    let base: Vec<String> = (0..80)
        .map(|i| format!("    let value_{i} = compute({i});"))
        .collect();
    let mut versions = vec![base.join("\n") + "\n"];
    for v in 1..6 {
        let mut lines = base.clone();
        lines[v * 10] = format!("    let value_{v} = changed();");
        lines.insert(v * 7, "    // new line".to_string());
        versions.push(lines.join("\n") + "\n");
    }
    let mut vault = ArtifactVault::default();
    let mut w = VaultWriter::new(&mut vault);
    for v in &versions {
        w.add(
            v,
            &NewContent {
                name: Some("lib.rs"),
                ..NewContent::default()
            },
        )
        .unwrap();
    }
    let (id, art) = vault.artifacts.as_ref().unwrap().iter().next().unwrap();
    let contents = smg_format::vault::rebuild_versions(id, art).unwrap();
    assert_eq!(contents, versions);
    let deltas: Vec<_> = art
        .versions
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.delta.as_ref().map(|d| (i, d)))
        .collect();
    assert_eq!(deltas.len(), 5);
    for (i, d) in deltas {
        assert_eq!(gnu_patch(&contents[i - 1], d), contents[i]);
    }
}
#[test]
fn a_hunk_similar_got_wrong_is_right() {
    assert_eq!(
        gnu_patch(
            " \n\n",
            &smg_format::vault::unified_diff(" \n\n", "\n\n", "f")
        ),
        "\n\n"
    );
}

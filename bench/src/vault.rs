//! Vault benchmark: a file's history of 150+ versions stored in the vault, against the
//! sum of the versions, `git gc --aggressive`'s pack of the same history, and
//! `brotli -q 11` of the versions concatenated.

use std::path::Path;
use std::process::Command;

use smg_format::{
    model::ArtifactVault,
    vault::{NewContent, VaultWriter},
    Document, Encoding, WriteOptions,
};

use crate::generate::{Rng, Words};
use crate::{kb, median, time};

/// A changelog-like history: each version adds an entry at the top and now and then
/// rewords an older line, growing from about 40 KB to about 80 KB.
fn history(versions: usize) -> Vec<String> {
    let mut rng = Rng::new(7);
    let words = Words::new(&mut rng, 3000);
    let mut entries: Vec<String> = (0..230)
        .map(|i| {
            format!(
                "## 0.{i}.0\n\n- {}\n- {}\n",
                words.sentence(&mut rng, 14),
                words.sentence(&mut rng, 18)
            )
        })
        .collect();
    let mut out = Vec::with_capacity(versions);
    for v in 0..versions {
        entries.insert(
            0,
            format!(
                "## 1.{v}.0\n\n- {}\n- {}\n",
                words.sentence(&mut rng, 16),
                words.sentence(&mut rng, 12)
            ),
        );
        if v % 4 == 0 {
            let i = 5 + rng.below(entries.len() as u64 - 5) as usize;
            entries[i] = format!("## revised {v}\n\n- {}\n", words.sentence(&mut rng, 20));
        }
        out.push(format!("# Changelog\n\n{}", entries.join("\n")));
    }
    out
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map(|o| o.status.success());
    assert!(ok.unwrap_or(false), "git {args:?} failed");
}

fn git_pack_bytes(dir: &Path, versions: &[String]) -> u64 {
    git(dir, &["init", "-q"]);
    git(dir, &["config", "user.email", "bench@smg.invalid"]);
    git(dir, &["config", "user.name", "bench"]);
    for (i, v) in versions.iter().enumerate() {
        std::fs::write(dir.join("CHANGELOG.md"), v).expect("write version");
        git(dir, &["add", "CHANGELOG.md"]);
        git(dir, &["commit", "-q", "-m", &format!("v{i}")]);
    }
    git(dir, &["gc", "--aggressive", "--prune=now", "-q"]);
    std::fs::read_dir(dir.join(".git/objects/pack"))
        .expect("pack dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum()
}

fn brotli_cli(input: &[u8], dir: &Path) -> Option<u64> {
    let path = dir.join("concat.txt");
    std::fs::write(&path, input).ok()?;
    let out = Command::new("brotli")
        .args(["-q", "11", "-c"])
        .arg(&path)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout.len() as u64)
}

pub(crate) fn run(versions: usize, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("bench dir");
    let history = history(versions);
    let sum: usize = history.iter().map(String::len).sum();
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    let vault = doc
        .artifact_vault
        .get_or_insert_with(ArtifactVault::default);
    let (_, add) = time(|| {
        let mut w = VaultWriter::new(vault);
        for v in &history {
            w.add(
                v,
                &NewContent {
                    name: Some("CHANGELOG.md"),
                    kind: Some("document"),
                    ..NewContent::default()
                },
            )
            .expect("add");
        }
    });
    let art = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref())
        .and_then(|a| a.values().next())
        .expect("artifact")
        .clone();
    let fulls = art.versions.iter().filter(|v| v.content.is_some()).count();
    let newest = median(21, || {
        smg_format::vault::rebuild_version("a", &art, versions as u64).expect("rebuild")
    });
    let oldest = median(21, || {
        smg_format::vault::rebuild_version("a", &art, 1).expect("rebuild")
    });
    let worst = (1..=versions as u64)
        .map(|v| {
            median(3, || {
                smg_format::vault::rebuild_version("a", &art, v).expect("rebuild")
            })
        })
        .max()
        .unwrap_or_default();
    let sizes: Vec<(String, usize)> = [
        (
            "smg, brotli (default q5)",
            WriteOptions::new(Encoding::Brotli),
        ),
        (
            "smg, brotli q11",
            WriteOptions::new(Encoding::Brotli).with_level(11),
        ),
        (
            "smg, zstd 19",
            WriteOptions::new(Encoding::Zstd).with_level(19),
        ),
        (
            "smg, packed layout",
            WriteOptions::new(Encoding::Packed).with_level(11),
        ),
    ]
    .into_iter()
    .map(|(n, o)| {
        (
            n.to_string(),
            smg_format::to_bytes(&doc, &o).expect("write").len(),
        )
    })
    .collect();
    let git_dir = dir.join("git");
    std::fs::create_dir_all(&git_dir).expect("git dir");
    let (pack, gc) = time(|| git_pack_bytes(&git_dir, &history));
    let concat = brotli_cli(history.concat().as_bytes(), dir);

    println!(
        "History: {versions} versions of a changelog growing from {} to {} (sum of versions {}).",
        kb(history[0].len()),
        kb(history[versions - 1].len()),
        kb(sum)
    );
    println!(
        "Vault: {} full versions and {} diffs; adding all versions took {:.2} s.\n",
        fulls,
        versions - fulls,
        add.as_secs_f64()
    );
    println!("| stored as | bytes | vs git pack |");
    println!("|---|---|---|");
    for (n, b) in &sizes {
        println!("| {n} | {} | {:.2}× |", kb(*b), *b as f64 / pack as f64);
    }
    println!(
        "| `git gc --aggressive` pack (git {:.1} s) | {} | 1.00× |",
        gc.as_secs_f64(),
        kb(pack as usize)
    );
    if let Some(c) = concat {
        println!(
            "| `brotli -q 11` of the versions concatenated | {} | {:.2}× |",
            kb(c as usize),
            c as f64 / pack as f64
        );
    }
    println!(
        "| sum of the versions | {} | {:.0}× |",
        kb(sum),
        sum as f64 / pack as f64
    );
    println!("\nRebuild (median of 21): newest version {:.2} ms, oldest {:.2} ms; slowest of all versions {:.2} ms.",
        newest.as_secs_f64() * 1e3, oldest.as_secs_f64() * 1e3, worst.as_secs_f64() * 1e3);
}

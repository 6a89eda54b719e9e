//! The fuzz corpus replayed on stable: every fixture through every target's check, and
//! each target's kept inputs (`fuzz/replay/TARGET/`: the smallest of its corpus
//! minimized with `cargo fuzz cmin`, and each finding) through its own.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_target_holds_on_the_fixtures_and_the_kept_corpus() {
    let fixtures: Vec<PathBuf> = ["valid", "invalid", "bad-input", "ingest"]
        .iter()
        .flat_map(|d| files_in(&root().join("fixtures").join(d)))
        .collect();
    assert!(fixtures.len() > 100, "{} fixtures", fixtures.len());
    let mut failures = Vec::new();
    let mut runs = 0;
    for target in smg_fuzz_checks::TARGETS {
        let kept = files_in(&root().join("fuzz/replay").join(target));
        for file in fixtures.iter().chain(&kept) {
            let data = std::fs::read(file).unwrap();
            runs += 1;
            if catch_unwind(AssertUnwindSafe(|| smg_fuzz_checks::run(target, &data))).is_err() {
                failures.push(format!("{target}: {}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

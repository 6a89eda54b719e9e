//! Every `sh` example of README.md and docs/*.md runs as shown: each page's blocks in
//! order, as one script (`set -euo pipefail`) with `smg` on the `PATH`, from a fresh
//! folder that sees the repository's `fixtures/`. `text` blocks are synopses; the
//! `python` and `js` blocks of docs/ffi.md run in the Python and Node test suites.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fixtures, text};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md and every page of docs/, by name.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root().join("README.md"));
    pages
}

/// The blocks of `markdown` fenced as `lang`, in order.
fn blocks(markdown: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<String> = None;
    for line in markdown.lines() {
        match open.as_mut() {
            Some(_) if line.starts_with("```") => out.extend(open.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None if line.strip_prefix("```") == Some(lang) => open = Some(String::new()),
            None => {}
        }
    }
    out
}

#[test]
fn blocks_are_found_in_order_and_other_fences_left_out() {
    let md = "a\n```sh\nsmg one\n```\n```text\nsmg FILE\n```\n```sh\nsmg two\nsmg three\n```\n";
    assert_eq!(blocks(md, "sh"), ["smg one\n", "smg two\nsmg three\n"]);
    assert_eq!(blocks(md, "text"), ["smg FILE\n"]);
}

#[test]
fn the_readme_is_short_and_names_the_reference_pages() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 150,
        "README.md has {} lines",
        readme.lines().count()
    );
    for page in ["cli", "formats", "ffi", "neo4j", "curation", "security"] {
        let path = format!("docs/{page}.md");
        assert!(root().join(&path).is_file(), "{path} is missing");
        assert!(readme.contains(&path), "README.md does not link {path}");
    }
}

#[test]
fn every_sh_example_in_the_docs_runs() {
    let smg = PathBuf::from(env!("CARGO_BIN_EXE_smg"));
    let path = std::env::join_paths(std::iter::once(smg.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut ran = 0;
    for page in pages() {
        let markdown = std::fs::read_to_string(&page).unwrap();
        let sh = blocks(&markdown, "sh");
        if sh.is_empty() {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(fixtures(), dir.path().join("fixtures")).unwrap();
        let script = format!("set -euo pipefail\n{}", sh.concat());
        let out = Command::new("bash")
            .args(["-c", &script])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env_remove("SMG_PASSPHRASE")
            .env_remove("SMG_SEAL_PASSPHRASE")
            .env_remove("SMG_MODEL")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: an example failed\n--- stdout\n{}\n--- stderr\n{}",
            page.display(),
            text(&out.stdout),
            text(&out.stderr)
        );
        ran += sh.len();
    }
    assert!(ran >= 10, "only {ran} blocks ran");
}

//! The workspace's own checks, run by `cargo test -p xtask`:
//! - no import circle between the files of any crate (layers go one way);
//! - the public API of each library crate, listed in `public-api.txt` beside its
//!   `Cargo.toml` and compared with the code (`SMG_BLESS=1` rewrites the listing after a
//!   change that is meant, so that the change shows in review).
//!
//! `cargo run -p xtask -- api smg-format` prints a crate's listing;
//! `cargo run -p xtask -- layers smg-engine` its file-to-file dependencies.
#![forbid(unsafe_code)]

pub mod api;
pub mod layers;
pub mod modules;

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::modules::CrateTree;

/// The workspace's root folder.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

/// Reads the crate in folder `dir` of the workspace (`smg-format`), by its library
/// root or, for a binary, its `main.rs`; file names are given relative to the workspace.
pub fn load_crate(dir: &str) -> Result<CrateTree> {
    let root = workspace_root();
    let src = root.join(dir).join("src");
    let file = if src.join("lib.rs").is_file() {
        src.join("lib.rs")
    } else {
        src.join("main.rs")
    };
    CrateTree::load(&dir.replace('-', "_"), &file, &root)
}

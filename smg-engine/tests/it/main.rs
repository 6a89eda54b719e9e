//! smg-engine's integration tests in one binary (one link instead of one per file):
//! `cargo test -p smg-engine --test it MODULE::` runs one module.

mod common;
mod merge;
mod share;
mod writers;

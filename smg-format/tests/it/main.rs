//! smg-format's integration tests in one binary (one link instead of one per file):
//! `cargo test -p smg-format --test it MODULE::` runs one module.

mod checkpoints;
mod conformance;
mod patch_compat;
mod roundtrip;
mod support;
mod writers;

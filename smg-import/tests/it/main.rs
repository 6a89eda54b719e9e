//! smg-import's integration tests in one binary: every reader through the engine's
//! ingest. `cargo test -p smg-import --test it MODULE::` runs one module.

mod common;
mod importers_mutated;
mod ingest;

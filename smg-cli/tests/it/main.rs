//! smg-cli's integration tests: the `smg` binary run as users run it, one module per
//! concern, in one test binary (one link of the whole workspace instead of one per
//! file). `cargo test -p smg-cli --test it MODULE::` runs one module.

mod budget;
mod catalogue;
mod checkpoints;
mod cli;
mod common;
mod concurrency;
mod crash;
mod curate;
mod docs;
mod embed;
mod exchange;
mod gate;
mod hostile;
mod importers;
mod links;
mod merge;
mod neo4j;
mod roundtrip;
mod seal;
mod sealed_access;
mod share;
mod sources;
mod view;

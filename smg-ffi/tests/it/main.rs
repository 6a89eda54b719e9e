//! smg-ffi's integration tests in one binary (one link instead of one per file):
//! `cargo test -p smg-ffi --test it MODULE::` runs one module.

mod header;
mod scenario;
mod writers;

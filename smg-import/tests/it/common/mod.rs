//! What the tests share.

use smg_engine::ingest::Imported;
use smg_import::{read_all, Format, Input};

/// Cases per property: `default` in the test suite; `SMG_CASES=N cargo test --release
/// -p smg-import --test it MODULE::` runs as many as one likes.
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("SMG_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// `inputs` read as `smg ingest` reads them by default: each one's format told from
/// its content, malformed records skipped.
pub(crate) fn read(inputs: Vec<Input>) -> Vec<Imported> {
    read_all(inputs, Format::Auto, false, &smg_engine::ingest::Silent).unwrap()
}

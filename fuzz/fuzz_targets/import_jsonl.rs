#![no_main]

use libfuzzer_sys::fuzz_target;
use smg_engine::ingest::Format;

fuzz_target!(|data: &[u8]| smg_fuzz::ingest_holds(Format::Jsonl, data));

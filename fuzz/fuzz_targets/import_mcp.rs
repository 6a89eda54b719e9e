#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| smg_fuzz_checks::run("import_mcp", data));

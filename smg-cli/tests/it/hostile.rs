//! Hostile files cost what they hold, not what their headers claim: a 98 kB file
//! whose header declares 3 GiB, and a bare Zstandard frame of 3 GiB of zero bytes,
//! fail at once in a few megabytes, even under a 4 GiB limit (issue 24).

use std::process::Command;

use crate::common::{fixtures, text};

/// Exit status, stderr and peak memory (kB) of `smg ARGS` under `/usr/bin/time -v`.
fn measured(args: &[&str]) -> (Option<i32>, String, u64) {
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_smg"))
        .args(args)
        .output()
        .expect("/usr/bin/time (Debian package `time`; scripts/test.sh installs it)");
    let stderr = text(&out.stderr);
    let rss = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .expect("time -v reports the peak");
    (out.status.code(), stderr, rss)
}

#[test]
fn decompression_bombs_fail_at_once_in_little_memory() {
    let dir = fixtures().join("invalid");
    for (file, default_code, trusted_code) in [
        ("zstd-bomb.smg", "SMG-E007", "SMG-E010"),
        ("zstd-bomb-frame.smg", "SMG-E010", "SMG-E010"),
    ] {
        let path = dir.join(file);
        let path = path.to_str().unwrap();
        // By default, and with a limit that trusts the header (4 GiB).
        for (extra, code) in [(None, default_code), (Some("4294967296"), trusted_code)] {
            let mut args = vec!["info", path];
            if let Some(limit) = extra {
                args.extend(["--max-bytes", limit]);
            }
            let (status, stderr, rss) = measured(&args);
            assert_ne!(status, Some(0), "{file}: {stderr}");
            assert!(stderr.contains(code), "{file} {args:?}: {stderr}");
            assert!(rss < 64_000, "{file} {args:?}: peak {rss} kB");
        }
    }
}

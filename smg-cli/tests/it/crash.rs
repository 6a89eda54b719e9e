//! Crash consistency (issue 24): each writing command, killed with SIGKILL at spread
//! points of its run (100 trials each; `SMG_CRASH_TRIALS=N` for more), leaves the old
//! file or a complete new one, never anything else; the temporary file a killed
//! writer leaves is removed by the next writer of that file, and none is left at the
//! end.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{fixtures, smg, text};

fn trials() -> u64 {
    std::env::var("SMG_CRASH_TRIALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
}

/// A writing command: its arguments, the file it writes, and whether that file is
/// encrypted (checked by decrypting it rather than by validating it).
struct Writer {
    args: &'static [&'static str],
    target: &'static str,
    encrypted: bool,
}

/// Encrypt the memory (setup makes `e.smg` so; it is also a writer tried).
const ENCRYPT: &[&str] = &[
    "encrypt",
    "m.smg",
    "-o",
    "e.smg",
    "--passphrase-file",
    "pw.txt",
];

const WRITERS: &[Writer] = &[
    Writer {
        args: &["ingest", "--append", "m.smg", "t.jsonl"],
        target: "m.smg",
        encrypted: false,
    },
    Writer {
        args: &["vault", "add", "m.smg", "note.txt"],
        target: "m.smg",
        encrypted: false,
    },
    Writer {
        args: &["convert", "m.smg", "-o", "out.smg", "--encoding", "zstd"],
        target: "out.smg",
        encrypted: false,
    },
    Writer {
        args: &["index", "p.smg"],
        target: "p.smg",
        encrypted: false,
    },
    Writer {
        args: &[
            "seal",
            "m.smg",
            "--tier",
            "personal",
            "--seal-passphrase-file",
            "pw.txt",
        ],
        target: "m.smg",
        encrypted: false,
    },
    Writer {
        args: &["merge", "m.smg", "m.smg", "m2.smg", "-o", "out.smg"],
        target: "out.smg",
        encrypted: false,
    },
    Writer {
        args: &["apply", "m.smg", "d.smgd", "-o", "out.smg"],
        target: "out.smg",
        encrypted: false,
    },
    Writer {
        args: ENCRYPT,
        target: "e.smg",
        encrypted: true,
    },
    Writer {
        args: &[
            "rekey",
            "e.smg",
            "--passphrase-file",
            "pw.txt",
            "--new-passphrase-file",
            "pw.txt",
        ],
        target: "e.smg",
        encrypted: true,
    },
];

/// A folder with the files every writer reads.
fn setup(d: &Path) {
    let locomo = fixtures().join("ingest/sample-chat.jsonl");
    std::fs::copy(&locomo, d.join("chat.jsonl")).unwrap();
    let more = r#"{"conversation_id":"c9","message_id":"m1","role":"user","content":"we moved to postgres 16","timestamp":"2025-03-01T10:00:00Z"}"#;
    std::fs::write(d.join("t.jsonl"), format!("{more}\n")).unwrap();
    std::fs::write(d.join("note.txt"), "fn main() {}\n").unwrap();
    std::fs::write(d.join("pw.txt"), "correct horse battery staple\n").unwrap();
    // Nodes of every tier (to seal one), then a chat ingested into it.
    std::fs::copy(fixtures().join("valid/full-brotli.smg"), d.join("m.smg")).unwrap();
    let steps: [&[&str]; 7] = [
        &["ingest", "--append", "m.smg", "chat.jsonl"],
        &["convert", "m.smg", "-o", "m2.smg"],
        &["ingest", "--append", "m2.smg", "t.jsonl"],
        &["convert", "m.smg", "-o", "p.smg", "--layout", "packed"],
        &["diff", "--delta", "m.smg", "m2.smg", "-o", "d.smgd"],
        ENCRYPT,
        &["convert", "m.smg", "-o", "out.smg"],
    ];
    for args in steps {
        let out = smg(args, d);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
}

/// Whether `file` is a complete file: it validates, or (encrypted) it decrypts.
fn complete(d: &Path, file: &str, encrypted: bool) -> bool {
    let args: &[&str] = if encrypted {
        &["decrypt", file, "-o", "-", "--passphrase-file", "pw.txt"]
    } else {
        &["validate", file]
    };
    smg(args, d).status.success()
}

fn strays(d: &Path) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".smg-tmp"))
        .collect()
}

#[test]
fn a_killed_writer_leaves_the_old_file_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    for w in WRITERS {
        let target = d.join(w.target);
        let old = std::fs::read(&target).unwrap();
        let start = Instant::now();
        let out = smg(w.args, d);
        let took = start.elapsed();
        assert!(out.status.success(), "{:?}: {}", w.args, text(&out.stderr));
        assert!(
            complete(d, w.target, w.encrypted),
            "{:?}: the new file",
            w.args
        );
        let (mut old_kept, mut new_written, mut temps) = (0, 0, 0);
        for trial in 0..trials() {
            std::fs::write(&target, &old).unwrap();
            // Spread over the run, startup included, with a little past its end.
            let at = took.mul_f64((trial * 7919 % 1100) as f64 / 1000.0);
            let mut child = Command::new(env!("CARGO_BIN_EXE_smg"))
                .args(w.args)
                .current_dir(d)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(at.max(Duration::from_micros(50)));
            let _ = child.kill();
            child.wait().unwrap();
            let now = std::fs::read(&target).unwrap();
            if now == old {
                old_kept += 1;
            } else {
                assert!(
                    complete(d, w.target, w.encrypted),
                    "{:?}, trial {trial}: neither old nor new",
                    w.args
                );
                new_written += 1;
            }
            // At most the one temporary file this kill left: the next writer sweeps it.
            let left = strays(d);
            assert!(left.len() <= 1, "{:?}, trial {trial}: {left:?}", w.args);
            temps += left.len();
        }
        eprintln!(
            "{:?}: {old_kept} old kept, {new_written} new written, \
             {temps} temporary files left by a kill (each removed by the next writer)",
            w.args
        );
        std::fs::write(&target, &old).unwrap();
        assert!(smg(w.args, d).status.success());
        assert_eq!(strays(d), Vec::<String>::new(), "{:?}", w.args);
        std::fs::write(&target, &old).unwrap();
    }
}

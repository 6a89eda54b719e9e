//! The `smg` binary, run as users run it, in temporary directories.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn smg(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smg"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn smg_stdin(args: &[&str], cwd: &Path, input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_smg"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn init_info_cat_convert_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = smg(&["init", "m.smg", "--project", "demo"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let again = smg(&["init", "m.smg"], d);
    assert_eq!(
        again.status.code(),
        Some(1),
        "init must not overwrite without --force"
    );

    let info = smg(&["info", "m.smg", "--json"], d);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["encoding"], "brotli");
    assert_eq!(v["stats"]["version"], "1.0");

    let cat = smg(&["cat", "m.smg"], d);
    for enc in ["json", "zstd", "brotli"] {
        let name = format!("m.{enc}.smg");
        let conv = smg(&["convert", "m.smg", "-o", &name, "--encoding", enc], d);
        assert!(conv.status.success(), "{}", text(&conv.stderr));
        assert_eq!(
            smg(&["cat", &name], d).stdout,
            cat.stdout,
            "{enc} changed the document"
        );
    }
    let piped = smg_stdin(
        &["cat", "-"],
        d,
        &std::fs::read(d.join("m.zstd.smg")).unwrap(),
    );
    assert_eq!(piped.stdout, cat.stdout);
}

#[test]
fn convert_to_stdout_and_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let input = std::fs::read(fixtures().join("valid/full.smg")).unwrap();
    let out = smg_stdin(
        &["convert", "-", "-o", "-", "--encoding", "zstd"],
        dir.path(),
        &input,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(&out.stdout[..4], b"\x89SMG");
}

#[test]
fn validate_exit_codes_and_json_report() {
    let dir = tempfile::tempdir().unwrap();
    let valid = fixtures().join("valid");
    let ok = smg(&["validate", valid.to_str().unwrap()], dir.path());
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stdout));

    let bad = fixtures().join("invalid/dangling-edge.smg");
    let out = smg(&["validate", "--json", bad.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["status"], "invalid");
    assert_eq!(v["files"][0]["findings"][0]["code"], "SMG-E111");
    assert_eq!(
        v["files"][0]["findings"][0]["pointer"],
        "/semanticGraph/edges/0/to"
    );
    assert_eq!(v["summary"]["invalid"], 1);

    let missing = smg(
        &[
            "validate",
            "nope.smg",
            valid.join("full.smg").to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stdout).contains("SMG-E001"));
}

#[test]
fn a_failed_convert_leaves_the_old_file_intact() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("target.smg"), b"precious").unwrap();
    std::fs::write(d.join("broken.smg"), b"{\"truncated\": ").unwrap();
    let out = smg(&["convert", "broken.smg", "-o", "target.smg"], d);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("SMG-E010"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(d.join("target.smg")).unwrap(), b"precious");
    assert_eq!(
        std::fs::read_dir(d).unwrap().count(),
        2,
        "no temp file left behind"
    );
}

#[test]
fn hostile_inputs_get_codes_and_never_crash() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deep = [b"{\"x\":".as_slice(), &vec![b'['; 100_000]].concat();
    for (bytes, code) in [
        (Vec::new(), "SMG-E002"),
        (b"\x89SMG\x01".to_vec(), "SMG-E005"),
        (b"{\"a\":\"\xff\"}".to_vec(), "SMG-E009"),
        (deep, "SMG-E011"),
    ] {
        let out = smg_stdin(&["info", "-"], d, &bytes);
        assert_eq!(out.status.code(), Some(1), "{code}");
        assert!(
            text(&out.stderr).contains(code),
            "{code}: {}",
            text(&out.stderr)
        );
    }
    let bomb = fixtures().join("invalid/brotli-bomb.smg");
    let out = smg(
        &["info", "--max-bytes", "1048576", bomb.to_str().unwrap()],
        d,
    );
    assert!(
        text(&out.stderr).contains("SMG-E007"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn help_lists_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["--help"],
        vec!["validate", "--help"],
        vec!["convert", "--help"],
    ] {
        let out = smg(&args, dir.path());
        assert!(text(&out.stdout).contains("Exit codes:"), "{args:?}");
    }
}

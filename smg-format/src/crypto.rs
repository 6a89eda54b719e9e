//! Whole-file encryption (spec §2.6): AES-256-GCM under a key derived with
//! PBKDF2-HMAC-SHA256, the header authenticated as associated data.
//!
//! The encrypted file wraps a complete `.smg` file of any other encoding. A key check
//! value in the header tells a wrong passphrase from a file altered after writing.
//!
//! ```
//! use smg_format::crypto::{decrypt, encrypt, is_encrypted, MIN_ITERATIONS};
//! use smg_format::{to_bytes, Document, Encoding, Limits, WriteOptions};
//! let doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let inner = to_bytes(&doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
//! let locked = encrypt(&inner, b"correct horse", MIN_ITERATIONS).unwrap();
//! assert!(is_encrypted(&locked));
//! let opened = decrypt(&locked, b"correct horse", &Limits::default()).unwrap();
//! assert_eq!(&opened[..], &inner[..]);
//! assert!(decrypt(&locked, b"wrong", &Limits::default()).is_err());
//! ```

use hmac::{Hmac, Mac};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::envelope::{ENCRYPTED, MAGIC};
use crate::error::{Error, Result};
use crate::limits::Limits;

/// Bytes before the ciphertext: all of them are authenticated.
pub const ENCRYPTED_HEADER_LEN: usize = 72;
const TAG_LEN: usize = 16;
const KDF_PBKDF2_SHA256: u8 = 1;
const CIPHER_AES_256_GCM: u8 = 1;

/// Fewest PBKDF2 iterations a v1 file may use (OWASP's 2023 figure for SHA-256).
pub const MIN_ITERATIONS: u64 = 600_000;
/// Most PBKDF2 iterations a reader accepts: more would let a file stall its reader.
pub const MAX_ITERATIONS: u64 = 10_000_000;

/// Whether `bytes` start with the encrypted envelope.
pub fn is_encrypted(bytes: &[u8]) -> bool {
    bytes.len() > 5 && bytes[..4] == MAGIC && bytes[4] == 1 && bytes[5] == ENCRYPTED
}

/// 64 bytes from PBKDF2: the AES-256 key, then the key-check HMAC key.
pub(crate) fn derive(
    passphrase: &[u8],
    salt: &[u8],
    iterations: u64,
) -> Result<Zeroizing<[u8; 64]>> {
    let rounds = u32::try_from(iterations).map_err(|_| Error::KdfTooCostly { iterations })?;
    let mut out = Zeroizing::new([0u8; 64]);
    pbkdf2::pbkdf2_hmac::<Sha256>(passphrase, salt, rounds, out.as_mut());
    Ok(out)
}

pub(crate) fn key_check(check_key: &[u8], header: &[u8]) -> [u8; 16] {
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(check_key).expect("HMAC takes any key length");
    mac.update(header);
    let full = mac.finalize().into_bytes();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// Encrypt a whole `.smg` file (`inner`, any encoding) with a fresh random salt and nonce.
pub fn encrypt(inner: &[u8], passphrase: &[u8], iterations: u64) -> Result<Vec<u8>> {
    let (salt, nonce) = fresh_salt_and_nonce()?;
    encrypt_with(inner, passphrase, iterations, &salt, &nonce)
}

/// A random salt and nonce from the operating system.
pub(crate) fn fresh_salt_and_nonce() -> Result<([u8; 16], [u8; 12])> {
    let mut salt = [0u8; 16];
    let mut nonce = [0u8; 12];
    getrandom::getrandom(&mut salt)
        .and_then(|_| getrandom::getrandom(&mut nonce))
        .map_err(|e| {
            Error::InvalidArgument(format!("no random numbers from the operating system: {e}"))
        })?;
    Ok((salt, nonce))
}

/// Encrypt with a given salt and nonce. Only for test vectors and for rebuilding a file
/// whose inner bytes are known to be the same: a nonce must never encrypt two different
/// contents under the same key.
pub fn encrypt_with(
    inner: &[u8],
    passphrase: &[u8],
    iterations: u64,
    salt: &[u8; 16],
    nonce: &[u8; 12],
) -> Result<Vec<u8>> {
    check_iterations(iterations)?;
    let keys = derive(passphrase, salt, iterations)?;
    let mut out = Vec::with_capacity(ENCRYPTED_HEADER_LEN + inner.len() + TAG_LEN);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[
        1,
        ENCRYPTED,
        0,
        0,
        KDF_PBKDF2_SHA256,
        CIPHER_AES_256_GCM,
        0,
        0,
    ]);
    out.extend_from_slice(&iterations.to_le_bytes());
    out.extend_from_slice(salt);
    out.extend_from_slice(nonce);
    out.extend_from_slice(&(inner.len() as u64).to_le_bytes());
    let check = key_check(&keys[32..], &out);
    out.extend_from_slice(&check);
    // Encrypt in place after the header: one copy of the content, no second buffer.
    out.extend_from_slice(inner);
    let (aad, body) = out.split_at_mut(ENCRYPTED_HEADER_LEN);
    let tag = cipher(&keys[..32])
        .seal_in_place_separate_tag(
            Nonce::assume_unique_for_key(*nonce),
            Aad::from(&aad[..]),
            body,
        )
        .map_err(|_| Error::InvalidArgument("AES-GCM refused the input (too large)".into()))?;
    out.extend_from_slice(tag.as_ref());
    Ok(out)
}

pub(crate) fn check_iterations(iterations: u64) -> Result<()> {
    // A fuzzer reaches what follows the key derivation only if deriving is cheap:
    // fuzz builds (cargo-fuzz sets `--cfg fuzzing`) take 1 to 1,000 rounds.
    let (min, max) = if cfg!(fuzzing) {
        (1, 1_000)
    } else {
        (MIN_ITERATIONS, MAX_ITERATIONS)
    };
    if iterations < min {
        return Err(Error::WeakKdf { iterations });
    }
    if iterations > max {
        return Err(Error::KdfTooCostly { iterations });
    }
    Ok(())
}

/// The PBKDF2 iteration count of an encrypted file, read from its header.
pub fn encrypted_iterations(bytes: &[u8]) -> Result<u64> {
    header(bytes).map(|h| h.iterations)
}

/// The iteration count, salt and nonce of an encrypted file: with the passphrase and the
/// same inner bytes, [`encrypt_with`] gives the file back byte for byte.
pub(crate) fn params(bytes: &[u8]) -> Result<(u64, [u8; 16], [u8; 12])> {
    let h = header(bytes)?;
    let salt = h.salt.try_into().expect("16-byte salt");
    let nonce = h.nonce.try_into().expect("12-byte nonce");
    Ok((h.iterations, salt, nonce))
}

struct Header<'a> {
    iterations: u64,
    salt: &'a [u8],
    nonce: &'a [u8],
    length: u64,
    check: &'a [u8],
}

fn header(bytes: &[u8]) -> Result<Header<'_>> {
    if bytes.len() < ENCRYPTED_HEADER_LEN + TAG_LEN {
        return Err(Error::Truncated(format!(
            "an encrypted file needs at least {} bytes, this one has {}",
            ENCRYPTED_HEADER_LEN + TAG_LEN,
            bytes.len()
        )));
    }
    let flags = u16::from_le_bytes([bytes[6], bytes[7]]);
    if flags != 0 {
        return Err(Error::UnsupportedFlags(flags));
    }
    if bytes[8] != KDF_PBKDF2_SHA256 || bytes[9] != CIPHER_AES_256_GCM || bytes[10..12] != [0, 0] {
        return Err(Error::UnknownAlgorithm(format!(
            "key derivation {} / cipher {} (v1 defines 1 = PBKDF2-HMAC-SHA256 / 1 = AES-256-GCM)",
            bytes[8], bytes[9]
        )));
    }
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    Ok(Header {
        iterations: u64_at(12),
        salt: &bytes[20..36],
        nonce: &bytes[36..48],
        length: u64_at(48),
        check: &bytes[56..72],
    })
}

/// Decrypt an encrypted file back to the `.smg` file it wraps.
///
/// A wrong passphrase (`SMG-E141`) and an altered file (`SMG-E142`) are told apart;
/// nothing is returned unless the whole file authenticates.
pub fn decrypt(bytes: &[u8], passphrase: &[u8], limits: &Limits) -> Result<Zeroizing<Vec<u8>>> {
    let h = header(bytes)?;
    check_iterations(h.iterations)?;
    if h.length > limits.max_bytes {
        return Err(Error::TooLarge {
            limit: limits.max_bytes,
        });
    }
    let body = &bytes[ENCRYPTED_HEADER_LEN..];
    let expected = h.length.checked_add(TAG_LEN as u64);
    if expected.is_none_or(|e| (body.len() as u64) < e) {
        return Err(Error::Truncated(format!(
            "the header declares {} bytes of content, the file holds {}",
            h.length,
            body.len().saturating_sub(TAG_LEN)
        )));
    }
    let keys = derive(passphrase, h.salt, h.iterations)?;
    if key_check(&keys[32..], &bytes[..56]) != h.check {
        return Err(Error::WrongPassphrase);
    }
    if body.len() as u64 != expected.unwrap_or(0) {
        return Err(Error::Tampered);
    }
    let nonce: [u8; 12] = h.nonce.try_into().expect("12 bytes");
    let mut buf = Zeroizing::new(body.to_vec());
    let plain_len = cipher(&keys[..32])
        .open_in_place(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(&bytes[..ENCRYPTED_HEADER_LEN]),
            &mut buf,
        )
        .map_err(|_| Error::Tampered)?
        .len();
    buf.truncate(plain_len);
    Ok(buf)
}

/// AES-256-GCM from ring, whose assembly runs at OpenSSL's speed (bench/RESULTS.md);
/// the pure-Rust `aes-gcm` crate measured 2.5× slower here.
pub(crate) fn cipher(key: &[u8]) -> LessSafeKey {
    LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).expect("a 32-byte key"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INNER: &[u8] = br#"{"@context":"https://w3id.org/smg/v1","@type":"SemanticMemoryGraph","metadata":{"created":"2025-12-04T10:30:00Z"},"version":"1.0"}"#;

    fn vector() -> Vec<u8> {
        encrypt_with(
            INNER,
            b"correct horse battery staple",
            MIN_ITERATIONS,
            &[0x11; 16],
            &[0x22; 12],
        )
        .unwrap()
    }

    #[test]
    fn round_trips_and_matches_the_published_vector() {
        let bytes = vector();
        assert_eq!(bytes.len(), ENCRYPTED_HEADER_LEN + INNER.len() + TAG_LEN);
        assert_eq!(
            &decrypt(&bytes, b"correct horse battery staple", &Limits::default()).unwrap()[..],
            INNER
        );
        let expected = include_str!("../../spec/vectors/encrypted-v1.hex").trim();
        assert_eq!(
            hex::encode(&bytes),
            expected,
            "spec/vectors/encrypted-v1.hex is the published test vector"
        );
    }

    #[test]
    fn wrong_passphrase_and_tampering_are_told_apart() {
        let bytes = vector();
        let limits = Limits::default();
        assert_eq!(
            decrypt(&bytes, b"wrong", &limits).unwrap_err().code(),
            "SMG-E141"
        );
        for i in [
            ENCRYPTED_HEADER_LEN,
            ENCRYPTED_HEADER_LEN + 40,
            bytes.len() - 1,
        ] {
            let mut t = bytes.clone();
            t[i] ^= 1;
            assert_eq!(
                decrypt(&t, b"correct horse battery staple", &limits)
                    .unwrap_err()
                    .code(),
                "SMG-E142",
                "byte {i}"
            );
        }
        let mut t = bytes.clone();
        t.push(0);
        assert_eq!(
            decrypt(&t, b"correct horse battery staple", &limits)
                .unwrap_err()
                .code(),
            "SMG-E142"
        );
    }

    #[test]
    fn hostile_headers_are_refused_before_any_work() {
        let bytes = vector();
        let limits = Limits::default();
        let pass = b"correct horse battery staple";
        let with_iterations = |n: u64| {
            let mut t = bytes.clone();
            t[12..20].copy_from_slice(&n.to_le_bytes());
            t
        };
        assert_eq!(
            decrypt(&with_iterations(10), pass, &limits)
                .unwrap_err()
                .code(),
            "SMG-E143"
        );
        assert_eq!(
            decrypt(&with_iterations(1 << 40), pass, &limits)
                .unwrap_err()
                .code(),
            "SMG-E144"
        );
        let mut t = bytes.clone();
        t[9] = 7;
        assert_eq!(decrypt(&t, pass, &limits).unwrap_err().code(), "SMG-E145");
        assert_eq!(
            decrypt(&bytes[..50], pass, &limits).unwrap_err().code(),
            "SMG-E005"
        );
        let mut t = bytes.clone();
        t[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decrypt(&t, pass, &limits).unwrap_err().code(), "SMG-E007");
        assert_eq!(encrypt(INNER, pass, 10).unwrap_err().code(), "SMG-E143");
    }
}

#[cfg(test)]
mod flips {
    use super::*;

    /// A flipped bit anywhere is refused with a code, never opened, never a panic.
    #[test]
    fn a_flipped_bit_anywhere_is_refused() {
        let pass = b"pw";
        let bytes = encrypt_with(b"{\"a\":1}", pass, MIN_ITERATIONS, &[7; 16], &[9; 12]).unwrap();
        for i in 0..bytes.len() {
            let mut t = bytes.clone();
            t[i] ^= 0x10;
            let err =
                crate::codec::from_bytes_with(&t, &Limits::default(), Some(pass)).unwrap_err();
            let expected: &[&str] = match i {
                0..=5 => &[
                    "SMG-E003", "SMG-E004", "SMG-E005", "SMG-E010", "SMG-E006", "SMG-E002",
                ],
                6..=7 => &["SMG-E015"],
                8..=11 => &["SMG-E145"],
                12..=19 => &["SMG-E141", "SMG-E143", "SMG-E144"],
                48..=55 => &["SMG-E141", "SMG-E005", "SMG-E007"],
                20..=71 => &["SMG-E141"],
                _ => &["SMG-E142"],
            };
            assert!(
                expected.contains(&err.code()),
                "byte {i}: {} {err}",
                err.code()
            );
        }
    }
}

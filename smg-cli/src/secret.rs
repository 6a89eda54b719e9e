//! Passphrases: from a file, from the environment, or from a prompt without echo —
//! never from a command-line value, which other users can read in the process list.

use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use smg_format::Error;
use zeroize::Zeroizing;

pub(crate) type Secret = Zeroizing<Vec<u8>>;

/// The passphrase of the files being read, asked for at most once.
pub(crate) struct Secrets {
    file: Option<PathBuf>,
    cached: RefCell<Option<Secret>>,
}

impl Secrets {
    pub(crate) fn new(file: Option<PathBuf>) -> Self {
        Secrets {
            file,
            cached: RefCell::new(None),
        }
    }

    /// The passphrase: `--passphrase-file`, else `SMG_PASSPHRASE`, else a prompt.
    pub(crate) fn get(&self) -> Result<Secret, Error> {
        if let Some(s) = self.cached.borrow().as_ref() {
            return Ok(s.clone());
        }
        let s = match (&self.file, std::env::var_os("SMG_PASSPHRASE")) {
            (Some(path), _) => from_file(path)?,
            (None, Some(v)) => Zeroizing::new(v.into_encoded_bytes()),
            // An encrypted file to read and no one to ask: the spec's own code.
            (None, None) if !std::io::stdin().is_terminal() => return Err(Error::NeedPassphrase),
            (None, None) => prompt("Passphrase: ", "SMG_PASSPHRASE")?,
        };
        *self.cached.borrow_mut() = Some(s.clone());
        Ok(s)
    }

    /// A passphrase for new encryption; a prompt asks twice.
    pub(crate) fn get_new(&self) -> Result<Secret, Error> {
        if self.file.is_some() || std::env::var_os("SMG_PASSPHRASE").is_some() {
            return self.get();
        }
        confirmed_prompt("SMG_PASSPHRASE")
    }
}

/// A passphrase other than the file's own (a new one for `smg rekey`, a section's for
/// `smg seal`): `file`, else the environment variable `env`, else a prompt (asked twice
/// when `confirm`).
pub(crate) fn other_passphrase(
    file: Option<&Path>,
    env: &str,
    confirm: bool,
) -> Result<Secret, Error> {
    match (file, std::env::var_os(env)) {
        (Some(path), _) => from_file(path),
        (None, Some(v)) => Ok(Zeroizing::new(v.into_encoded_bytes())),
        (None, None) if confirm => confirmed_prompt(env),
        (None, None) => prompt("Section passphrase: ", env),
    }
}

/// The passphrase of the encrypted file a link named `name` reaches: the file
/// `--link-passphrase-file NAME=FILE` gives for it (`given`), else the environment
/// variable [`link_env`] names; `None` when neither is (a link is never prompted for).
pub(crate) fn link_passphrase(given: &[String], name: &str) -> Result<Option<Secret>, Error> {
    for pair in given {
        let Some((n, path)) = pair.split_once('=') else {
            let why = format!("--link-passphrase-file {pair:?}: give NAME=FILE");
            return Err(Error::InvalidArgument(why));
        };
        if n == name {
            return from_file(Path::new(path)).map(Some);
        }
    }
    let env = std::env::var_os(link_env(name));
    Ok(env.map(|v| Zeroizing::new(v.into_encoded_bytes())))
}

/// `SMG_LINK_PASSPHRASE_<NAME>`: the link's name in capitals, each character other
/// than a letter or digit as `_`.
pub(crate) fn link_env(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("SMG_LINK_PASSPHRASE_{name}")
}

fn from_file(path: &Path) -> Result<Secret, Error> {
    let text = Zeroizing::new(std::fs::read(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?);
    let line = text.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{}: the passphrase file's first line is empty",
            path.display()
        )));
    }
    Ok(Zeroizing::new(line.to_vec()))
}

/// Ask for the passphrase that the environment variable `env` (or its flag) gives.
fn prompt(label: &str, env: &str) -> Result<Secret, Error> {
    let what = match env {
        "SMG_PASSPHRASE" => "the file's passphrase",
        "SMG_NEW_PASSPHRASE" => "the new passphrase",
        _ => "the section's passphrase",
    };
    // `SMG_SEAL_PASSPHRASE` is `--seal-passphrase-file`.
    let flag = format!(
        "--{}-file",
        env.trim_start_matches("SMG_")
            .to_lowercase()
            .replace('_', "-")
    );
    // Scripts and CI have no one to answer: fail at once rather than wait on the terminal.
    if !std::io::stdin().is_terminal() {
        return Err(Error::InvalidArgument(format!(
            "{what} is needed and there is no terminal to ask on: set {env} or pass {flag}"
        )));
    }
    rpassword::prompt_password(label)
        .map(|s| Zeroizing::new(s.into_bytes()))
        .map_err(|e| {
            Error::InvalidArgument(format!(
                "cannot ask for {what} ({e}); set {env} or pass {flag}"
            ))
        })
}

fn confirmed_prompt(env: &str) -> Result<Secret, Error> {
    let first = prompt("New passphrase: ", env)?;
    let again = prompt("Repeat it: ", env)?;
    if first != again {
        return Err(Error::InvalidArgument("the two passphrases differ".into()));
    }
    if first.is_empty() {
        return Err(Error::InvalidArgument(
            "an empty passphrase protects nothing".into(),
        ));
    }
    Ok(first)
}

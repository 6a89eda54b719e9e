//! How the server follows its memory's links (spec §4.1): the passphrases of
//! encrypted linked files, asked for by link name when a link is followed.

use std::path::Path;
use std::sync::Arc;

use smg_engine::search::{linked_documents, open_file, FileRef, LinkWarning, Network, Retriever};
use smg_format::limits::Limits;
use smg_format::Document;
use zeroize::Zeroizing;

/// What a [`LinkPassphrases`] calls.
type Lookup = dyn Fn(&str) -> smg_engine::Result<Option<Zeroizing<Vec<u8>>>> + Send + Sync;

/// The passphrase of the encrypted file a link reaches, by the link's name: none
/// leaves that file out with a warning (`SMG-W032`).
#[derive(Clone)]
pub struct LinkPassphrases(Arc<Lookup>);

impl LinkPassphrases {
    /// Passphrases given by `lookup` (the link's name to its file's passphrase).
    pub fn new(
        lookup: impl Fn(&str) -> smg_engine::Result<Option<Zeroizing<Vec<u8>>>> + Send + Sync + 'static,
    ) -> Self {
        LinkPassphrases(Arc::new(lookup))
    }
}

impl std::fmt::Debug for LinkPassphrases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LinkPassphrases")
    }
}

/// The documents of the memory at `path` (`root`) and of the files its links reach,
/// encrypted ones opened by `passphrases`; and the links not followed as recorded.
pub(crate) fn documents(
    path: &Path,
    root: Arc<Document>,
    passphrases: Option<&LinkPassphrases>,
    limits: &Limits,
) -> (Vec<(FileRef, Arc<Document>)>, Vec<LinkWarning>) {
    let open = |p: &Path, name: &str| -> smg_engine::Result<Arc<Document>> {
        let pass = match passphrases {
            Some(lookup) => (lookup.0)(name)?,
            None => None,
        };
        let bytes = std::fs::read(p).map_err(|source| smg_format::Error::Io {
            path: p.to_path_buf(),
            source,
        })?;
        let secret = pass.as_deref().map(Vec::as_slice);
        let (doc, _) = smg_format::codec::from_bytes_with(&bytes, limits, secret)?;
        Ok(Arc::new(doc))
    };
    linked_documents(path, root, &open)
}

/// The memory at `path` (its retriever `root`) with the files its links reach,
/// encrypted ones opened by `passphrases`.
pub(crate) fn network(
    path: &Path,
    root: Retriever,
    passphrases: Option<&LinkPassphrases>,
    limits: &Limits,
) -> Network {
    let open = |p: &Path, name: &str| {
        let pass = match passphrases {
            Some(lookup) => (lookup.0)(name)?,
            None => None,
        };
        open_file(p, limits, pass.as_deref().map(Vec::as_slice))
    };
    Network::open(path, root, &open)
}

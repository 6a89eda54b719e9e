//! The memory file behind the server: read once, read again when another writer
//! changed it, written back as it was read (encoding, encryption, stored search
//! index) under the file's write lock, durable before the tool replies.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use smg_engine::mcp::View;
use smg_engine::search::{
    has_search_index, read_packed, FileRef, LinkWarning, Network, QueryVector, Retriever, EXTENSION,
};
use smg_format::file::WriteLock;
use smg_format::seal::Opened;
use smg_format::{Document, Encoding, WriteOptions};

use crate::{Error, Options};

/// What tells one version of the file from the next without reading it.
type Stamp = (u64, Option<SystemTime>);

fn stamp(path: &Path) -> Result<Stamp, Error> {
    let meta = std::fs::metadata(path).map_err(|e| smg_format::Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    Ok((meta.len(), meta.modified().ok()))
}

struct State {
    doc: Arc<Document>,
    encoding: Encoding,
    /// PBKDF2 iterations of an encrypted file.
    iterations: Option<u64>,
    /// Whether the file stores a search index (a rewrite stores a fresh one).
    indexed: bool,
    /// The sealed sections opened in memory, sealed again in every write.
    opened: Option<Opened>,
    stamp: Stamp,
    view: Option<Arc<View>>,
    /// The memory indexed for retrieval, with the files its links reach.
    network: Option<Arc<Network>>,
    /// The index the last write stored, to serve the next search.
    written: Option<Retriever>,
    /// The documents of the memory and of the files its links reach.
    documents: Option<Arc<Documents>>,
}

/// The documents a FIND query reads, the memory's first, and the links not followed.
pub(crate) type Documents = (Vec<(FileRef, Arc<Document>)>, Vec<LinkWarning>);

/// The memory a server serves.
pub(crate) struct Store {
    options: Options,
    state: Mutex<State>,
}

impl Store {
    /// Read the memory at `options.path`.
    /// Whether reads are answered whole ([`Options::unbounded`]).
    pub(crate) fn unbounded(&self) -> bool {
        self.options.unbounded
    }

    pub(crate) fn open(options: Options) -> Result<Store, Error> {
        let state = read(&options)?;
        Ok(Store {
            options,
            state: Mutex::new(state),
        })
    }

    /// The state, read again first if the file changed since.
    fn fresh(&self) -> Result<MutexGuard<'_, State>, Error> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if stamp(&self.options.path)? != state.stamp {
            *state = read(&self.options)?;
        }
        Ok(state)
    }

    /// The document as it is now.
    pub(crate) fn doc(&self) -> Result<Arc<Document>, Error> {
        Ok(self.fresh()?.doc.clone())
    }

    /// The knowledge graph of the document, made once per version of the file.
    pub(crate) fn view(&self) -> Result<Arc<View>, Error> {
        let mut state = self.fresh()?;
        if state.view.is_none() {
            state.view = Some(Arc::new(View::new(&state.doc)));
        }
        Ok(state.view.clone().unwrap_or_default())
    }

    /// The documents of the memory and, unless links are off, of the files its links
    /// reach: read once per version of the file.
    pub(crate) fn documents(&self) -> Result<Arc<Documents>, Error> {
        let mut state = self.fresh()?;
        if let Some(d) = &state.documents {
            return Ok(d.clone());
        }
        let o = &self.options;
        let root = state.doc.clone();
        let docs = if o.follow_links {
            let pass = o.link_passphrases.as_ref();
            crate::links::documents(&o.path, root, pass, &o.limits)
        } else {
            let file = FileRef::new(None, o.path.display().to_string());
            (vec![(file, root)], Vec::new())
        };
        let docs = Arc::new(docs);
        state.documents = Some(docs.clone());
        Ok(docs)
    }

    /// The document indexed for retrieval, with the files its links reach unless
    /// links are off: made once per version of the file.
    pub(crate) fn network(&self) -> Result<Arc<Network>, Error> {
        let mut state = self.fresh()?;
        if let Some(n) = &state.network {
            return Ok(n.clone());
        }
        let root = match state.written.take() {
            Some(r) => r,
            None => match self.stored_index(&state)? {
                Some(r) => r,
                None => Retriever::new(&state.doc, &self.options.limits)?,
            },
        };
        let o = &self.options;
        let mut net = if o.follow_links {
            let pass = o.link_passphrases.as_ref();
            crate::links::network(&o.path, root, pass, &o.limits)
        } else {
            Network::single(&o.path, root)
        };
        net.set_tokens(o.tokens.clone());
        let net = Arc::new(net);
        state.network = Some(net.clone());
        Ok(net)
    }

    /// The search index the file stores, read in place, when it serves the document
    /// as the server holds it: the file is packed, plain, unchanged since it was read,
    /// and no sealed section was opened (the stored index holds nothing sealed).
    fn stored_index(&self, state: &State) -> Result<Option<Retriever>, Error> {
        if !state.indexed || state.iterations.is_some() || state.opened.is_some() {
            return Ok(None);
        }
        let path = &self.options.path;
        let r = Retriever::open_packed(path, &self.options.limits)
            .ok()
            .flatten();
        Ok(r.filter(|_| stamp(path).is_ok_and(|s| s == state.stamp)))
    }

    /// `query` embedded by the server's model, if it has one.
    pub(crate) fn vector(&self, query: &str) -> Result<Option<QueryVector>, Error> {
        let embedder = self.options.embedder.as_ref();
        Ok(embedder.map(|e| e.embed(query)).transpose()?)
    }

    /// Change the memory with `change` and write it back before returning: on a copy,
    /// so that a refused change or a failed write leaves the memory as it was.
    pub(crate) fn write<T>(
        &self,
        tool: &str,
        change: impl FnOnce(&mut Document) -> smg_engine::Result<T>,
    ) -> Result<T, Error> {
        if self.options.read_only {
            return Err(Error::ReadOnly(tool.to_string()));
        }
        let path = &self.options.path;
        let lock = WriteLock::acquire(path, self.options.wait)?;
        let mut state = self.fresh()?;
        let mut next = Document::clone(&state.doc);
        let out = change(&mut next)?;
        // What goes to disk: with the opened sections sealed again.
        let mut sealed = None;
        if let (Some(opened), Some(pass)) = (&state.opened, &self.options.seal_passphrase) {
            let mut doc = next.clone();
            opened.seal_again(&mut doc, pass)?;
            sealed = Some(doc);
        }
        let disk = sealed.as_ref().unwrap_or(&next);
        smg_format::validate::ensure_valid(disk, &self.options.limits)?;
        let stored = if state.indexed && state.iterations.is_none() {
            // The file's index, added to: only what changed is indexed.
            let limits = &self.options.limits;
            let previous = Retriever::open_packed(path, limits).ok().flatten();
            Some(match &previous {
                Some(p) => Retriever::renewed(disk, p, limits)?,
                None => Retriever::new(disk, limits)?,
            })
        } else {
            None
        };
        let options = WriteOptions::new(state.encoding.for_writing());
        let mut bytes = smg_format::to_bytes(disk, &options)?;
        if let Some(r) = &stored {
            bytes = smg_format::packed::with_extension(&bytes, EXTENSION, &r.index_bytes()?)?;
        }
        if let (Some(pass), Some(iterations)) = (&self.options.passphrase, state.iterations) {
            bytes = smg_format::crypto::encrypt(&bytes, pass, iterations)?;
        }
        lock.write(&bytes)?;
        state.stamp = stamp(path)?;
        state.doc = Arc::new(next);
        state.view = None;
        // The index stored holds nothing sealed; the one that serves reads holds all.
        state.network = None;
        state.documents = None;
        state.written = stored.filter(|_| sealed.is_none());
        Ok(out)
    }
}

fn read(options: &Options) -> Result<State, Error> {
    let path = &options.path;
    let before = stamp(path)?;
    let (mut doc, encoding, iterations, indexed) = decode(options)?;
    let opened = match &options.seal_passphrase {
        Some(p) => Some(smg_format::seal::unseal_all(&mut doc, p)?),
        None => None,
    };
    Ok(State {
        doc: Arc::new(doc),
        encoding,
        iterations,
        indexed,
        opened,
        stamp: before,
        view: None,
        network: None,
        written: None,
        documents: None,
    })
}

/// The file's document, encoding, iterations when encrypted, and whether it stores a
/// search index. A packed file is read section by section: its stored index is read
/// in place when a search needs it, never held whole.
fn decode(options: &Options) -> Result<(Document, Encoding, Option<u64>, bool), Error> {
    let path = &options.path;
    if let Some((doc, indexed)) = read_packed(path, &options.limits)? {
        return Ok((doc, Encoding::Packed, None, indexed));
    }
    if let Some((doc, encoding, _)) = smg_format::file::read_streamed(path, &options.limits)? {
        return Ok((doc, encoding, None, false));
    }
    let bytes = smg_format::file::read_bytes(path)?;
    let iterations = if smg_format::crypto::is_encrypted(&bytes) {
        Some(smg_format::crypto::encrypted_iterations(&bytes)?)
    } else {
        None
    };
    let pass = options.passphrase.as_ref().map(|p| p.as_slice());
    let (doc, encoding) = smg_format::codec::from_bytes_with(&bytes, &options.limits, pass)?;
    let indexed = iterations.is_none() && encoding == Encoding::Packed && has_search_index(&bytes);
    Ok((doc, encoding, iterations, indexed))
}

#[cfg(test)]
mod tests {
    use smg_engine::mcp::{create_entities, Entity};
    use smg_format::limits::Limits;

    use super::*;

    fn ada() -> Vec<Entity> {
        vec![Entity {
            name: "Ada".into(),
            entity_type: "person".into(),
            observations: vec!["likes tea".into()],
        }]
    }

    fn memory(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("m.smg");
        let doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        smg_format::write_file(&path, &doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
        path
    }

    #[test]
    fn a_write_is_on_disk_before_it_returns_and_a_refusal_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = memory(dir.path());
        let store = Store::open(Options::new(&path)).unwrap();
        store
            .write("create_entities", |d| create_entities(d, ada()))
            .unwrap();
        let (on_disk, encoding) = smg_format::read_file(&path, &Limits::default()).unwrap();
        assert_eq!(encoding, Encoding::Brotli, "written back as it was read");
        assert_eq!(on_disk.semantic_graph.unwrap().nodes().len(), 1);
        let before = std::fs::read(&path).unwrap();
        let refused = store.write("create_entities", |d| {
            create_entities(d, ada())?;
            Err::<(), _>(smg_engine::Error::UnknownEntity("x".into()))
        });
        assert_eq!(refused.unwrap_err().code(), "SMG-E202");
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(store.view().unwrap().graph().entities.len(), 1);
    }

    /// A packed memory of `n` turns with its search index stored.
    fn indexed(dir: &Path, n: usize) -> std::path::PathBuf {
        use smg_engine::ingest::{ingest, IngestOptions, Silent};
        use smg_import::{read_all, Format, Input};
        let path = dir.join("p.smg");
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let lines: String = (0..n)
            .map(|i| {
                let text = format!("Ada planted {} roses in bed {i}.", i % 7);
                let record = serde_json::json!({"conversation_id": "c", "message_id": i.to_string(),
                    "speaker": if i % 2 == 0 { "Ada" } else { "Bo" }, "content": text});
                format!("{record}\n")
            })
            .collect();
        let input = Input::bytes("t.jsonl", lines.into_bytes());
        ingest(
            &mut doc,
            read_all(vec![input], Format::Auto, false, &Silent).expect("read"),
            &IngestOptions::default(),
            &Silent,
        )
        .unwrap();
        let options = WriteOptions::new(Encoding::Packed);
        let limits = Limits::default();
        let bytes = smg_engine::search::encode_with_search_index(doc, &options, &limits).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_stored_index_serves_reads_and_a_write_adds_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = indexed(dir.path(), 80);
        let limits = Limits::default();
        let store = Store::open(Options::new(&path)).unwrap();
        let net = store.network().unwrap();
        let read = net.root();
        assert!(read.used_stored_index(), "read in place from the file");
        let q = "roses in bed 12";
        let found = read.search_turns(q, 3).unwrap();
        assert!(found[0].turn.content.contains("bed 12"), "{found:?}");
        store
            .write("create_entities", |d| create_entities(d, ada()))
            .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(has_search_index(&bytes), "written back with its index");
        let (doc, _) = smg_format::from_bytes(&bytes, &limits).unwrap();
        let anew = Retriever::new(&doc, &limits).unwrap();
        let stored = Retriever::open_packed(&path, &limits).unwrap().unwrap();
        for q in [q, "Ada", "Bo roses"] {
            let want = anew.search_turns(q, 5).unwrap();
            assert_eq!(stored.search_turns(q, 5).unwrap(), want, "{q}");
            let served = store.network().unwrap();
            assert_eq!(served.root().search_turns(q, 5).unwrap(), want);
        }
        assert_eq!(stored.node_count(), anew.node_count());
    }

    #[test]
    fn read_only_refuses_and_another_writer_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = memory(dir.path());
        let store = Store::open(Options::new(&path).read_only(true)).unwrap();
        let refused = store.write("create_entities", |d| create_entities(d, ada()));
        assert_eq!(refused.unwrap_err().code(), "SMG-E321");
        assert!(store.view().unwrap().graph().entities.is_empty());
        let other = Store::open(Options::new(&path)).unwrap();
        other
            .write("create_entities", |d| create_entities(d, ada()))
            .unwrap();
        assert_eq!(store.view().unwrap().graph().entities[0].name, "Ada");
    }
}

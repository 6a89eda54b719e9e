//! A document's leading members compressed ahead of the rest.
//!
//! In canonical JSON the vault and the deep archive come before `metadata`. A program
//! that builds a large document (ingest) has them final well before the rest, and
//! their Brotli cuts can be compressed then, by a core that would otherwise wait.
//! The members are taken out of the document first, so that nothing can change them
//! between their compression and the writing of the rest.

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::canonical::{to_vec, KeyOrder};
use crate::codec::lists::write_with_archive;
use crate::envelope::{CutWriter, Ready, WriteOptions};
use crate::error::{Error, Result};
use crate::model::{
    ArtifactVault, Collaborator, Context, DeepArchive, Document, DocumentKind, Extra,
};

/// The first members of a document's JSON — the vault, the deep archive, the
/// collaborators and unknown members whose keys sort before `metadata` — taken out of
/// the document and compressed (their whole Brotli cuts) ahead of the rest: a program
/// that builds a large document has them final well before the rest, and a core that
/// would wait compresses them meanwhile. Give the head to
/// [`crate::codec::into_bytes_with_head`] with the rest of the document; the bytes are
/// those [`crate::codec::into_bytes`] gives of the whole.
///
/// ```
/// use smg_format::codec::{into_bytes, into_bytes_with_head, Head};
/// use smg_format::{Document, Encoding, WriteOptions};
///
/// let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
/// doc.artifact_vault = Some(Default::default());
/// let options = WriteOptions::new(Encoding::Brotli);
/// let expected = into_bytes(doc.clone(), &options).unwrap();
///
/// let head = Head::compress(&mut doc, &options).unwrap();
/// assert!(doc.artifact_vault.is_none());
/// // ... the rest of the document is built here, beside the compression ...
/// assert_eq!(into_bytes_with_head(doc, &options, head).unwrap(), expected);
/// ```
#[derive(Debug)]
pub struct Head(pub(crate) CompressedHead);

impl Head {
    /// Take the leading members out of `doc` and compress them as `options` would
    /// write a large document (nothing is compressed ahead in another encoding). The
    /// members are freed once written.
    pub fn compress(doc: &mut Document, options: &WriteOptions) -> Result<Head> {
        Ok(Head(LeadingMembers::take(doc)?.compress(options)?))
    }
}

/// The first member every document has after its leading members.
const METADATA: &str = "metadata";

/// A document's leading members, taken out of it: `artifactVault`, `collaborators`,
/// `deepArchive` and unknown members whose keys sort before `metadata`. (`@context`
/// and `@type` stay in the document.)
#[derive(Debug)]
pub(crate) struct LeadingMembers {
    context: Context,
    kind: DocumentKind,
    vault: Option<ArtifactVault>,
    collaborators: Option<Vec<Collaborator>>,
    archive: Option<DeepArchive>,
    extra: Extra,
    /// The leading members the document keeps, as canonical JSON (an object).
    kept: Vec<u8>,
}

impl LeadingMembers {
    /// Take the leading members out of `doc`.
    pub(crate) fn take(doc: &mut Document) -> Result<LeadingMembers> {
        let leading: Vec<String> = doc
            .extra
            .keys()
            .filter(|k| KeyOrder::cmp(k, METADATA).is_lt())
            .cloned()
            .collect();
        let extra = leading
            .iter()
            .filter_map(|k| doc.extra.remove_entry(k))
            .collect();
        Ok(LeadingMembers {
            context: doc.context.clone(),
            kind: doc.kind,
            vault: doc.artifact_vault.take(),
            collaborators: doc.collaborators.take(),
            archive: doc.deep_archive.take(),
            extra,
            kept: to_vec(&Leading::of(doc))?,
        })
    }

    /// The artifact vault taken.
    #[cfg(test)]
    fn vault(&self) -> Option<&ArtifactVault> {
        self.vault.as_ref()
    }

    /// The members' canonical JSON, with the whole Brotli cuts of it compressed as
    /// `options` would write a large document (none in another encoding). The text
    /// is compressed as it is written, the archive's blocks freed once written, and
    /// only the JSON after those cuts is kept: the members' text is never held whole.
    pub(crate) fn compress(mut self, options: &WriteOptions) -> Result<CompressedHead> {
        let mut writer = CutWriter::for_options(options, Ready::default(), Vec::new())?;
        // An unknown member named as the archive or its blocks has the whole text
        // written at once, as `codec::lists` does.
        let apart = !self.extra.contains_key("deepArchive")
            && (self.archive.as_ref()).is_some_and(|a| !a.extra.contains_key("blocks"));
        let archive = if apart { self.archive.take() } else { None };
        let rest = to_vec(&Leading {
            context: &self.context,
            kind: self.kind,
            vault: self.vault.as_ref(),
            collaborators: self.collaborators.as_ref(),
            archive: self.archive.as_ref(),
            extra: &self.extra,
        })?;
        drop((self.vault, self.archive, self.collaborators, self.extra));
        // The object is left open (`metadata` and more members follow it): its last
        // byte is held back from each piece until the next comes.
        let mut last = None;
        let mut sink = |piece: &[u8]| -> Result<()> {
            if let Some((&end, body)) = piece.split_last() {
                if let Some(b) = last.replace(end) {
                    writer.write(&[b])?;
                }
                writer.write(body)?;
            }
            Ok(())
        };
        match archive {
            Some(archive) => write_with_archive(&rest, archive, &mut sink)?,
            None => sink(&rest)?,
        }
        if last != Some(b'}') {
            return Err(Error::InvalidArgument(
                "the leading members did not serialise as an object".into(),
            ));
        }
        writer.write(b",")?;
        let (ready, tail) = writer.into_whole_parts()?;
        Ok(CompressedHead {
            options: *options,
            ready,
            tail,
            kept: self.kept,
        })
    }
}

/// The canonical JSON of a document's [`LeadingMembers`] and its whole Brotli cuts,
/// compressed.
#[derive(Debug)]
pub(crate) struct CompressedHead {
    options: WriteOptions,
    /// The JSON's whole cuts: `{`, then each leading member and a `,`, make the JSON.
    ready: Ready,
    /// The JSON after them.
    tail: Vec<u8>,
    /// What the document kept of its leading members, as canonical JSON.
    kept: Vec<u8>,
}

impl CompressedHead {
    /// The head's compressed cuts, its text after them, and the length of the text
    /// of the leading members the document kept (which the head's text holds).
    pub(crate) fn into_parts(self) -> (Ready, Vec<u8>, usize) {
        (self.ready, self.tail, self.kept.len())
    }

    /// An error unless `doc` still holds exactly the leading members it kept when
    /// the head was taken, and `options` are those the head was compressed with.
    pub(crate) fn check(&self, doc: &Document, options: &WriteOptions) -> Result<()> {
        if *options != self.options {
            return Err(Error::InvalidArgument(format!(
                "the head was compressed for {:?}, not {options:?}",
                self.options
            )));
        }
        if to_vec(&Leading::of(doc))? != self.kept {
            return Err(Error::InvalidArgument(
                "the document's leading members changed after they were taken to be compressed ahead".into(),
            ));
        }
        Ok(())
    }
}

/// The members of a document that sort before `metadata`, serialised as an object.
struct Leading<'a> {
    context: &'a Context,
    kind: DocumentKind,
    vault: Option<&'a ArtifactVault>,
    collaborators: Option<&'a Vec<Collaborator>>,
    archive: Option<&'a DeepArchive>,
    extra: &'a Extra,
}

impl<'a> Leading<'a> {
    fn of(doc: &'a Document) -> Self {
        Leading {
            context: &doc.context,
            kind: doc.kind,
            vault: doc.artifact_vault.as_ref(),
            collaborators: doc.collaborators.as_ref(),
            archive: doc.deep_archive.as_ref(),
            extra: &doc.extra,
        }
    }
}

impl Serialize for Leading<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("@context", self.context)?;
        map.serialize_entry("@type", &self.kind)?;
        if let Some(v) = self.vault {
            map.serialize_entry("artifactVault", v)?;
        }
        if let Some(c) = self.collaborators {
            map.serialize_entry("collaborators", c)?;
        }
        if let Some(a) = self.archive {
            map.serialize_entry("deepArchive", a)?;
        }
        for (k, v) in self.extra {
            if KeyOrder::cmp(k, METADATA).is_lt() {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{from_json_slice, into_bytes, into_bytes_with_head};
    use crate::envelope::Encoding;
    use crate::model::{Artifact, Node};

    /// Text of `len` bytes that compresses like prose.
    fn prose(len: usize, seed: u64) -> String {
        let vocab = [
            "turn", "memory", "graph", "vault", "brotli", "cut", "node", "42",
        ];
        let mut state = seed;
        let mut out = String::with_capacity(len + 8);
        while out.len() < len {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            out.push_str(vocab[(state >> 60) as usize % vocab.len()]);
            out.push(' ');
        }
        out
    }

    /// A document whose leading members (with unknown ones before, between and after
    /// the known ones) hold `leading` bytes of text, and that has more after them.
    fn document(leading: usize) -> Document {
        let json = format!(
            r#"{{"@context":"https://w3id.org/smg/v1","@type":"SemanticMemoryGraph","version":"1.0","metadata":{{"created":"2025-12-04T10:30:00Z"}},"!first":{first:?},"archiveNotes":{notes:?},"b":[1,2],"zLast":"after metadata","artifactVault":{{}},"deepArchive":{{}}}}"#,
            first = prose(leading / 2, 3),
            notes = prose(leading / 2, 5),
        );
        let mut doc = from_json_slice(json.as_bytes()).unwrap();
        let vault = doc.artifact_vault.as_mut().unwrap();
        let artifact = Artifact::new(
            crate::model::NonEmpty::from_static("code"),
            crate::model::Sha256Ref::of(b"00"),
            crate::model::Versions::one(crate::model::ArtifactVersion::new(
                crate::model::Ordinal::FIRST,
            )),
        );
        vault.artifacts = Some([("a1".to_string(), artifact)].into());
        doc
    }

    /// Change what follows the leading members, as a program building the rest would.
    fn build_rest(doc: &mut Document) {
        doc.metadata.extra.insert("later".into(), "yes".into());
        doc.semantic_graph
            .get_or_insert_with(Default::default)
            .nodes = Some(vec![Node::new(
            crate::model::NonEmpty::from_static("n1"),
            crate::model::NonEmpty::from_static("concept"),
        )]);
    }

    fn options() -> Vec<WriteOptions> {
        vec![
            WriteOptions::new(Encoding::Brotli),
            WriteOptions::new(Encoding::Brotli).with_level(4),
            WriteOptions::new(Encoding::Zstd),
            WriteOptions::new(Encoding::Json),
            WriteOptions::new(Encoding::Packed),
        ]
    }

    #[test]
    fn a_head_compressed_ahead_gives_the_bytes_of_the_whole_document() {
        // No whole cut, one, and several (4 MiB each).
        for leading in [1_000, 5 << 20, 9 << 20] {
            for options in options() {
                let mut whole = document(leading);
                let mut rest = whole.clone();
                let taken = LeadingMembers::take(&mut rest).unwrap();
                assert!(rest.artifact_vault.is_none() && rest.deep_archive.is_none());
                assert_eq!(taken.vault(), whole.artifact_vault.as_ref());
                let head = taken.compress(&options).unwrap();
                let brotli = options.encoding == Encoding::Brotli;
                assert_eq!(
                    head.ready.cuts.len(),
                    if brotli { leading >> 22 } else { 0 }
                );
                build_rest(&mut whole);
                build_rest(&mut rest);
                let expected = into_bytes(whole, &options).unwrap();
                let got = into_bytes_with_head(rest, &options, Head(head)).unwrap();
                assert!(got == expected, "{leading} bytes, {options:?}");
            }
        }
    }

    #[test]
    fn an_archive_of_many_blocks_is_written_in_its_place_a_block_at_a_time() {
        let mut large = crate::test_support::full_fixture();
        let archive = large.deep_archive.get_or_insert_with(Default::default);
        let blocks = archive.blocks().to_vec();
        assert!(!blocks.is_empty());
        let mut count = blocks.len();
        while to_vec(&large).unwrap().len() < 9 << 20 {
            count *= 2;
            let archive = large.deep_archive.as_mut().unwrap();
            archive.blocks = Some(blocks.iter().cycle().take(count).cloned().collect());
        }
        // And an unknown member named as the list: the whole text is written at once.
        let mut named = large.clone();
        let archive = named.deep_archive.as_mut().unwrap();
        archive.extra.insert("blocks".into(), "unknown".into());
        // (A packed file is made from the typed document, which cannot hold both.)
        let packed = |o: &WriteOptions| o.encoding == Encoding::Packed;
        for (whole, named) in [(large, false), (named, true)] {
            for options in options().into_iter().filter(|o| !(named && packed(o))) {
                let mut whole = whole.clone();
                let mut rest = whole.clone();
                let head = LeadingMembers::take(&mut rest)
                    .unwrap()
                    .compress(&options)
                    .unwrap();
                build_rest(&mut whole);
                build_rest(&mut rest);
                let expected = into_bytes(whole, &options).unwrap();
                let got = into_bytes_with_head(rest, &options, Head(head)).unwrap();
                assert!(got == expected, "{options:?}");
            }
        }
    }

    #[test]
    fn a_document_that_changed_its_leading_members_is_refused() {
        let changes: [fn(&mut Document); 4] = [
            |d| d.context = Context::new("https://example.org/other".into()).unwrap(),
            |d| d.artifact_vault = Some(Default::default()),
            |d| {
                d.extra.insert("archiveNotes".into(), "again".into());
            },
            |d| {
                d.extra.insert("aNew".into(), 1.into());
            },
        ];
        let options = WriteOptions::new(Encoding::Brotli);
        for change in changes {
            let mut doc = document(1_000);
            let head = LeadingMembers::take(&mut doc)
                .unwrap()
                .compress(&options)
                .unwrap();
            change(&mut doc);
            let err = into_bytes_with_head(doc, &options, Head(head)).unwrap_err();
            assert_eq!(err.code(), "SMG-E020", "{err}");
        }
        // A member after `metadata` may change: it is not part of the head.
        let mut doc = document(1_000);
        let head = LeadingMembers::take(&mut doc)
            .unwrap()
            .compress(&options)
            .unwrap();
        doc.extra.insert("zLast".into(), "changed".into());
        assert!(into_bytes_with_head(doc, &options, Head(head)).is_ok());
    }

    #[test]
    fn a_head_is_written_only_with_the_options_it_was_compressed_for() {
        let mut doc = document(5 << 20);
        let brotli = WriteOptions::new(Encoding::Brotli);
        let head = LeadingMembers::take(&mut doc)
            .unwrap()
            .compress(&brotli)
            .unwrap();
        let err = into_bytes_with_head(doc, &brotli.with_level(3), Head(head)).unwrap_err();
        assert!(err.to_string().contains("compressed for"), "{err}");
    }

    #[test]
    fn a_bad_quality_is_refused_before_any_work() {
        let taken = LeadingMembers::take(&mut document(1_000)).unwrap();
        let options = WriteOptions::new(Encoding::Brotli).with_level(12);
        assert!(taken.compress(&options).is_err());
    }
}

//! What an index keeps of each document besides its terms: numbers in fast fields
//! (columns, bit-packed) and a record in the document store (compressed blocks),
//! read in place — opening an index reads none of them. Read by the document's
//! number in [`super::reads`].

use std::ops::{Range, RangeInclusive};

use tantivy::columnar::Column;
use tantivy::schema::{Field, Schema, Value as _, FAST, STORED, STRING};
use tantivy::{DocAddress, DocId, Searcher, SegmentReader, TantivyDocument};

/// A number kept per document, read by [`super::FullText::value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Column64 {
    /// A turn's session (conversation and session), numbered from 0.
    Session,
    /// A turn's speaker, numbered from 0.
    Speaker,
    /// The characters of a turn as a context shows it.
    Chars,
    /// A sketch of the document's words ([`crate::search::sketch`]).
    Sketch,
    /// Yes-or-no facts, a bit each ([`FLAG_TIMED`], [`FLAG_HIT`]).
    Flags,
}

/// A turn's text places something in time.
pub(crate) const FLAG_TIMED: u64 = 1;
/// A node can be a hit (it is no segment).
pub(crate) const FLAG_HIT: u64 = 2;

impl Column64 {
    const ALL: [Column64; 5] = [
        Column64::Session,
        Column64::Speaker,
        Column64::Chars,
        Column64::Sketch,
        Column64::Flags,
    ];

    fn name(self) -> &'static str {
        match self {
            Column64::Session => "session",
            Column64::Speaker => "speaker",
            Column64::Chars => "chars",
            Column64::Sketch => "sketch",
            Column64::Flags => "flags",
        }
    }
}

/// The field of a document's instant (ms).
const TIME: &str = "time";
/// The field of a document's weight.
const WEIGHT: &str = "weight";
/// The field of a document's record.
const RECORD: &str = "record";
/// The field of a document's links (several values each).
const LINKS: &str = "links";
/// The field of a document's key (a node's id), indexed whole to find it by.
const KEY: &str = "key";

/// A document to index: its terms and what is kept beside them.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Doc {
    pub(crate) terms: Vec<String>,
    pub(crate) numbers: Vec<(Column64, u64)>,
    pub(crate) time: Option<i64>,
    pub(crate) weight: Option<f64>,
    /// Kept in the document store when not empty.
    pub(crate) record: Vec<u8>,
    /// What it is linked to, with the link's strength: a node's neighbours, by their
    /// numbers in the same index.
    pub(crate) links: Vec<(u32, f32)>,
    /// What it is found by ([`super::FullText::find`]).
    pub(crate) key: Option<String>,
}

/// A link as the links column keeps it: the other document above, the strength's
/// bits below (a document's values may come back in any order).
fn link(to: u32, strength: f32) -> u64 {
    (u64::from(to) << 32) | u64::from(strength.to_bits())
}

impl From<Vec<String>> for Doc {
    fn from(terms: Vec<String>) -> Self {
        Doc {
            terms,
            ..Doc::default()
        }
    }
}

/// Adds the fields of [`Doc`]'s values to a schema.
pub(super) fn add_fields(b: &mut tantivy::schema::SchemaBuilder) {
    for c in Column64::ALL {
        b.add_u64_field(c.name(), FAST);
    }
    b.add_i64_field(TIME, FAST);
    b.add_f64_field(WEIGHT, FAST);
    b.add_bytes_field(RECORD, STORED);
    b.add_u64_field(LINKS, FAST);
    b.add_text_field(KEY, STRING);
}

/// The fields of the values, when `schema` has them all.
#[derive(Clone)]
pub(super) struct Fields {
    numbers: Vec<Field>,
    time: Field,
    weight: Field,
    record: Field,
    links: Field,
    pub(super) key: Field,
}

impl Fields {
    pub(super) fn of(schema: &Schema) -> Option<Self> {
        let numbers = Column64::ALL
            .iter()
            .map(|c| schema.get_field(c.name()).ok())
            .collect::<Option<_>>()?;
        Some(Fields {
            numbers,
            time: schema.get_field(TIME).ok()?,
            weight: schema.get_field(WEIGHT).ok()?,
            record: schema.get_field(RECORD).ok()?,
            links: schema.get_field(LINKS).ok()?,
            key: schema.get_field(KEY).ok()?,
        })
    }

    /// `doc`'s values added to the tantivy document `to`.
    pub(super) fn add(&self, doc: &Doc, to: &mut TantivyDocument) {
        for &(c, v) in &doc.numbers {
            to.add_u64(self.numbers[c as usize], v);
        }
        if let Some(t) = doc.time {
            to.add_i64(self.time, t);
        }
        if let Some(w) = doc.weight {
            to.add_f64(self.weight, w);
        }
        if !doc.record.is_empty() {
            to.add_bytes(self.record, &doc.record);
        }
        for &(other, strength) in &doc.links {
            to.add_u64(self.links, link(other, strength));
        }
        if let Some(key) = &doc.key {
            to.add_text(self.key, key);
        }
    }
}

/// The values of one segment's documents, opened once (opening a column costs more
/// than reading thousands of values).
#[derive(Clone)]
pub(super) struct Values {
    numbers: Vec<Option<Column<u64>>>,
    time: Option<Column<i64>>,
    weight: Option<Column<f64>>,
    links: Option<Column<u64>>,
    record: Field,
}

impl Values {
    pub(super) fn open(reader: &SegmentReader, fields: &Fields) -> tantivy::Result<Self> {
        let fast = reader.fast_fields();
        Ok(Values {
            numbers: Column64::ALL
                .iter()
                .map(|c| fast.column_opt(c.name()))
                .collect::<tantivy::Result<_>>()?,
            time: fast.column_opt(TIME)?,
            weight: fast.column_opt(WEIGHT)?,
            links: fast.column_opt(LINKS)?,
            record: fields.record,
        })
    }

    pub(super) fn number(&self, c: Column64, doc: DocId) -> Option<u64> {
        self.numbers[c as usize].as_ref()?.first(doc)
    }

    /// Column `c` of the documents `docs` (below the documents' count), in one pass.
    pub(super) fn numbers(&self, c: Column64, docs: &[DocId]) -> Vec<Option<u64>> {
        let mut out = vec![None; docs.len()];
        if let Some(column) = &self.numbers[c as usize] {
            column.first_vals(docs, &mut out);
        }
        out
    }

    pub(super) fn time(&self, doc: DocId) -> Option<i64> {
        self.time.as_ref()?.first(doc)
    }

    pub(super) fn weight(&self, doc: DocId) -> Option<f64> {
        self.weight.as_ref()?.first(doc)
    }

    pub(super) fn links(&self, doc: DocId) -> Vec<(u32, f64)> {
        let Some(c) = &self.links else {
            return Vec::new();
        };
        c.values_for_doc(doc)
            .map(|v| ((v >> 32) as u32, f64::from(f32::from_bits(v as u32))))
            .collect()
    }

    pub(super) fn link_count(&self, doc: DocId) -> usize {
        self.links
            .as_ref()
            .map_or(0, |c| c.index.value_row_ids(doc).len())
    }

    /// The set of the documents below `max_doc` whose instant is in `within`.
    pub(super) fn inside(&self, within: &Range<i64>, max_doc: DocId) -> tantivy::BitSet {
        let mut set = tantivy::BitSet::with_max_value(max_doc);
        if within.start < within.end {
            let values = within.start..=within.end - 1;
            for doc in in_range(self.time.as_ref(), values, 0..max_doc) {
                set.insert(doc);
            }
        }
        set
    }

    /// The latest instant of the documents.
    pub(super) fn latest(&self) -> Option<i64> {
        let c = self.time.as_ref()?;
        (c.values.num_vals() > 0).then(|| c.max_value())
    }

    /// The documents whose instant is in `within`, in order.
    pub(super) fn timed_within(&self, within: Range<i64>, docs: Range<DocId>) -> Vec<DocId> {
        if within.start >= within.end {
            return Vec::new();
        }
        in_range(self.time.as_ref(), within.start..=within.end - 1, docs)
    }

    /// The record of the document at `at`.
    pub(super) fn record(&self, searcher: &Searcher, at: DocAddress) -> tantivy::Result<Vec<u8>> {
        let d: TantivyDocument = searcher.doc(at)?;
        Ok(d.get_first(self.record)
            .and_then(|v| v.as_bytes())
            .map(<[u8]>::to_vec)
            .unwrap_or_default())
    }
}

/// The documents among `docs` whose value in `column` is in `values`, in order.
pub(crate) fn in_range<T>(
    column: Option<&Column<T>>,
    values: RangeInclusive<T>,
    docs: Range<DocId>,
) -> Vec<DocId>
where
    T: PartialOrd + Copy + std::fmt::Debug + Send + Sync + 'static,
{
    let mut out = Vec::new();
    let Some(column) = column else {
        return out;
    };
    // The column reads a range as it stores its values, from its least: a range past
    // either end would be read as its nearest end, so it is cut to the column's values
    // first (or is none of them).
    let (least, most) = (column.min_value(), column.max_value());
    let (&from, &to) = (values.start(), values.end());
    if from > most || to < least || from > to {
        return out;
    }
    let from = if from < least { least } else { from };
    let to = if to > most { most } else { to };
    column.get_docids_for_value_range(from..=to, docs, &mut out);
    out
}

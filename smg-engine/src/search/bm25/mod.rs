//! Okapi BM25 over short texts, with English stopwords and Snowball stemming
//! (rust-stemmers): a compact index (term → postings) that scores a query in time
//! proportional to the postings of its terms.

use std::collections::HashMap;
use std::sync::{LazyLock, OnceLock};

mod top;

use rust_stemmers::{Algorithm, Stemmer};

use crate::text;

/// Term-frequency saturation.
const K1: f64 = 1.2;
/// Length normalisation.
const B: f64 = 0.75;
/// Postings in a skip block: a query jumps over whole blocks, and one whose best
/// posting cannot lift a document into the results is never decoded.
pub(crate) const BLOCK: usize = 128;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Index terms of a text: content words, stemmed.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    text::terms(text)
        .map(|w| STEMMER.stem(&w).into_owned())
        .collect()
}

/// Most words a [`tokens_cached`] cache holds before it starts over.
const STEM_CACHE: usize = 1 << 16;

/// [`tokens`], remembering stems: stemming is most of the cost of indexing, and a
/// text repeats its words.
pub(crate) fn tokens_cached(text: &str, stems: &mut HashMap<String, String>) -> Vec<String> {
    text::terms(text)
        .map(|w| {
            if let Some(s) = stems.get(&w) {
                return s.clone();
            }
            if stems.len() >= STEM_CACHE {
                stems.clear();
            }
            let s = STEMMER.stem(&w).into_owned();
            stems.insert(w, s.clone());
            s
        })
        .collect()
}

/// A BM25 index over documents numbered from 0.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Bm25 {
    /// Every term, sorted.
    terms: Vec<String>,
    /// Where each term's postings begin in `postings`, and where the last ends.
    starts: Vec<usize>,
    /// How many documents hold each term.
    counts: Vec<u32>,
    /// Each term's documents, ascending, as [`put_posting`] writes them. Kept encoded
    /// (a million turns' take about 1.5 bytes each), decoded as a query reads them.
    #[serde(with = "blob")]
    postings: Vec<u8>,
    /// Each document's length in tokens (a longer one counts as 65,535, where BM25
    /// makes a term in it worth next to nothing anyway): two bytes, so that the
    /// lengths a query reads stay in the cache.
    lengths: Vec<u16>,
    average: f64,
    /// Where each term's skip blocks begin in the three lists below, and where the
    /// last ends. A term's postings are cut into blocks of [`BLOCK`].
    block_starts: Vec<usize>,
    /// Per block: its last document.
    block_last: Vec<u32>,
    /// Per block: where it ends in `postings`.
    block_end: Vec<usize>,
    /// Per block: the highest [`Bm25::norm`] of its postings, rounded up.
    block_max: Vec<f32>,
    #[serde(skip)]
    norms_once: NormsOnce,
}

/// [`Bm25::norm`] of a term a document holds once, by the document's length, made on
/// first use: most postings are such, and a lookup spares a query's innermost loop a
/// division.
#[derive(Default)]
struct NormsOnce(OnceLock<Box<[f64]>>);

impl std::fmt::Debug for NormsOnce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NormsOnce")
    }
}

/// Bytes as one blob (postcard copies them at once, where a sequence is read a byte
/// at a time).
pub(crate) mod blob {
    use serde::{de, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Blob;
        impl<'de> de::Visitor<'de> for Blob {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        d.deserialize_byte_buf(Blob)
    }
}

/// `x` (not negative) as an `f32` no smaller than it: a bound rounded down would not
/// be one.
fn round_up(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x {
        // The next f32 up: for a positive float, the next bit pattern.
        f32::from_bits(f.to_bits() + 1)
    } else {
        f
    }
}

fn put(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The next LEB128 number of `bytes` from `at`, or `None` past the end or on a number
/// too long (a damaged index reads as fewer postings, never as a panic).
fn take(bytes: &[u8], at: &mut usize) -> Option<u64> {
    // Most numbers are one byte: those go straight through.
    let first = *bytes.get(*at)?;
    if first < 0x80 {
        *at += 1;
        return Some(u64::from(first));
    }
    let mut n = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        n |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b < 0x80 {
            return Some(n);
        }
    }
    None
}

/// Append a posting: the gap from the document before, shifted left one bit, the
/// bit set when the term is in the document once (most postings: one byte, where
/// the gap and the frequency took two), else followed by how often.
fn put_posting(out: &mut Vec<u8>, gap: u32, tf: u32) {
    let once = tf == 1;
    put(out, u64::from(gap) << 1 | u64::from(once));
    if !once {
        put(out, u64::from(tf));
    }
}

/// The next posting of `bytes` from `at`: (gap, how often).
fn take_posting(bytes: &[u8], at: &mut usize) -> Option<(u32, u32)> {
    let v = take(bytes, at)?;
    let gap = u32::try_from(v >> 1).ok()?;
    let tf = if v & 1 == 1 {
        1
    } else {
        u32::try_from(take(bytes, at)?).ok()?
    };
    Some((gap, tf))
}

impl Bm25 {
    /// Index `docs`, each already split into tokens.
    pub(crate) fn new(docs: impl IntoIterator<Item = Vec<String>>) -> Self {
        let mut postings: HashMap<String, Vec<(u32, u16)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (d, mut tokens) in docs.into_iter().enumerate() {
            lengths.push(u16::try_from(tokens.len()).unwrap_or(u16::MAX));
            // Equal tokens side by side: each run is one term and its frequency.
            tokens.sort_unstable();
            let mut rest = tokens.as_slice();
            while let Some(first) = rest.first() {
                let n = rest.iter().take_while(|t| *t == first).count();
                let tf = u16::try_from(n).unwrap_or(u16::MAX);
                match postings.get_mut(first) {
                    Some(list) => list.push((d as u32, tf)),
                    None => {
                        postings.insert(first.clone(), vec![(d as u32, tf)]);
                    }
                }
                rest = &rest[n..];
            }
        }
        let mut terms: Vec<(String, Vec<(u32, u16)>)> = postings.into_iter().collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let sum: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let mut index = Bm25 {
            average: sum as f64 / lengths.len().max(1) as f64,
            lengths,
            ..Bm25::default()
        };
        for (term, list) in terms {
            index.starts.push(index.postings.len());
            index.block_starts.push(index.block_last.len());
            index.counts.push(list.len() as u32);
            index.terms.push(term);
            let mut last = 0;
            for block in list.chunks(BLOCK) {
                let mut max = 0.0f64;
                for &(d, tf) in block {
                    put_posting(&mut index.postings, d - last, u32::from(tf));
                    last = d;
                    let dl = index.lengths[d as usize];
                    max = max.max(index.norm(u32::from(tf), u32::from(dl)));
                }
                index.block_last.push(last);
                index.block_end.push(index.postings.len());
                index.block_max.push(round_up(max));
            }
        }
        index.starts.push(index.postings.len());
        index.block_starts.push(index.block_last.len());
        index.postings.shrink_to_fit();
        index
    }

    /// How much `tf` occurrences of a term in a document of `dl` tokens count, before
    /// the term's weight: BM25's saturated, length-normalised term frequency.
    pub(crate) fn norm(&self, tf: u32, dl: u32) -> f64 {
        let (tf, dl) = (f64::from(tf), f64::from(dl));
        tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / self.average.max(1.0)))
    }

    /// [`Bm25::norm`] as a query reads it from a posting, the same to the last bit.
    fn posting_norm(&self, tf: u32, dl: u16) -> f64 {
        if tf == 1 {
            let once = self.norms_once.0.get_or_init(|| {
                (0..=u16::MAX)
                    .map(|dl| self.norm(1, u32::from(dl)))
                    .collect()
            });
            once[usize::from(dl)]
        } else {
            self.norm(tf, u32::from(dl))
        }
    }

    fn term(&self, term: &str) -> Option<usize> {
        self.terms.binary_search_by(|t| t.as_str().cmp(term)).ok()
    }

    /// The documents that hold `term`, ascending, and how often each does.
    #[cfg(test)]
    fn postings(&self, term: &str) -> impl Iterator<Item = (u32, u32)> + '_ {
        let (mut at, end) = self
            .term(term)
            .and_then(|i| Some((*self.starts.get(i)?, *self.starts.get(i + 1)?)))
            .unwrap_or((0, 0));
        let bytes = self.postings.get(..end).unwrap_or_default();
        let mut doc = 0u32;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let (gap, tf) = take_posting(bytes, &mut at)?;
            doc = doc.wrapping_add(gap);
            Some((doc, tf))
        })
    }

    /// Whether a stored index holds together: one start per term and one more, in
    /// order and inside the postings.
    pub(crate) fn holds_together(&self) -> bool {
        self.starts.len() == self.terms.len() + 1
            && self.counts.len() == self.terms.len()
            && self.starts.windows(2).all(|w| w[0] <= w[1])
            && self
                .starts
                .last()
                .is_some_and(|&e| e == self.postings.len())
            && self.block_starts.len() == self.starts.len()
            && self.block_starts.windows(2).all(|w| w[0] <= w[1])
            && self.block_starts.last() == Some(&self.block_last.len())
            && self.block_end.len() == self.block_last.len()
            && self.block_max.len() == self.block_last.len()
    }

    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Inverse document frequency (the non-negative form of Lucene).
    pub(crate) fn idf(&self, term: &str) -> f64 {
        let n = self.df(term) as f64;
        let total = self.len() as f64;
        ((total - n + 0.5) / (n + 0.5) + 1.0).ln()
    }

    /// How many documents hold `term`.
    pub(crate) fn df(&self, term: &str) -> usize {
        self.term(term).map_or(0, |i| self.counts[i] as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tokens_are_the_same_tokens() {
        let mut stems = HashMap::new();
        for text in [
            "Running runners ran",
            "the running of the runners",
            "Ünïcode Wörds",
        ] {
            assert_eq!(tokens_cached(text, &mut stems), tokens(text));
        }
        assert!(stems.contains_key("running"));
    }

    #[test]
    fn stems_and_ranks_the_matching_document_first() {
        assert_eq!(tokens("The painters were painting"), ["painter", "paint"]);
        let docs = [
            "I painted a sunrise over the lake",
            "We went camping in the mountains",
            "Painting is my way to relax",
        ];
        let index = Bm25::new(docs.iter().map(|d| tokens(d)));
        let q: Vec<(String, f64)> = tokens("when did she paint the lake")
            .into_iter()
            .map(|t| (t, 1.0))
            .collect();
        let scores = index.top(&q, 10, |_, s| s, 1.0);
        assert_eq!(scores[0].0, 0);
        assert_eq!(scores.len(), 2);
        assert!(scores.iter().all(|&(d, _)| d != 1));
        assert!(index.idf("lake") > index.idf("paint"));
    }
}

//! Sections that hold Brotli-compressed JSON: parsed whole, or only the entry a
//! reader needs.

use serde::Deserialize;

use crate::envelope::read_bounded;
use crate::error::{Error, Result};
use crate::limits::Limits;

/// A section's Brotli-compressed JSON, parsed; `what` names the section in errors.
pub(super) fn brotli_json<T: serde::de::DeserializeOwned>(
    data: &[u8],
    limits: &Limits,
    what: &dyn Fn() -> String,
) -> Result<T> {
    brotli_json_seed(data, limits, what, std::marker::PhantomData)
}

/// A compressed head from this size on is parsed as it decompresses: its JSON text
/// (a hundred MiB for a million turns) is then never held beside the document.
const STREAMED_FROM: usize = 512 << 10;

/// [`brotli_json`] of a document (a packed file's head): a large one parsed in
/// pieces as it decompresses ([`crate::codec::streamed::from_brotli`]), read whole
/// when that gives up, so that an error is the whole read's.
pub(super) fn brotli_document(
    data: &[u8],
    limits: &Limits,
    what: &dyn Fn() -> String,
) -> Result<crate::Document> {
    brotli_document_from(data, limits, what, STREAMED_FROM)
}

fn brotli_document_from(
    data: &[u8],
    limits: &Limits,
    what: &dyn Fn() -> String,
    streamed_from: usize,
) -> Result<crate::Document> {
    let max = limits.for_input(data.len() as u64);
    let streamed = (data.len() >= streamed_from)
        .then(|| crate::codec::streamed::from_brotli(data, max, crate::envelope::stream::SIZES.1))
        .flatten();
    match streamed {
        Some(doc) => Ok(doc),
        None => brotli_json(data, limits, what),
    }
}

/// [`brotli_document`] without the semantic graph's nodes and edges, each parsed and
/// dropped ([`crate::codec::streamed::counted_from_brotli`]), and how many there
/// were; a head read whole keeps them (and counts none).
pub(super) fn brotli_document_counted(
    data: &[u8],
    limits: &Limits,
    what: &dyn Fn() -> String,
) -> Result<(crate::Document, (u64, u64))> {
    let max = limits.for_input(data.len() as u64);
    let piece = crate::envelope::stream::SIZES.1;
    let counted = (data.len() >= STREAMED_FROM)
        .then(|| crate::codec::streamed::counted_from_brotli(data, max, piece))
        .flatten();
    match counted {
        Some(read) => Ok(read),
        None => Ok((brotli_json(data, limits, what)?, (0, 0))),
    }
}

/// [`brotli_json`] through a seed, so a caller can parse only part of the JSON.
pub(super) fn brotli_json_seed<T>(
    data: &[u8],
    limits: &Limits,
    what: &dyn Fn() -> String,
    seed: impl for<'de> serde::de::DeserializeSeed<'de, Value = T>,
) -> Result<T> {
    let json = read_bounded(
        brotli::Decompressor::new(data, 1 << 16),
        limits.for_input(data.len() as u64),
        "brotli",
        0,
    )
    .map_err(|e| Error::Decompress {
        encoding: "packed",
        detail: format!("{}: {e}", what()),
    })?;
    let shape = |e: serde_json::Error| Error::Shape {
        pointer: String::new(),
        detail: format!("{}: {e}", what()),
    };
    let mut de = serde_json::Deserializer::from_slice(&json);
    let value = seed.deserialize(&mut de).map_err(shape)?;
    de.end().map_err(shape)?;
    Ok(value)
}

/// Parses the value under one key of a JSON object and skips the others unparsed: a
/// single-turn read needs one artifact of a section that groups several.
pub(super) struct Entry<'k, T>(pub(super) &'k str, pub(super) std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> serde::de::DeserializeSeed<'de> for Entry<'_, T> {
    type Value = Option<T>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Entry<'_, T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if found.is_none() && key == self.0 {
                found = Some(map.next_value()?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeSeed;

    use super::*;

    fn pick(json: &str, key: &str) -> serde_json::Result<Option<Vec<u32>>> {
        Entry(key, std::marker::PhantomData)
            .deserialize(&mut serde_json::Deserializer::from_str(json))
    }

    /// A head parsed as it decompresses is the head read whole, or gives the whole
    /// read's error.
    fn compressed(json: &[u8]) -> Vec<u8> {
        let mut data = Vec::new();
        crate::envelope::brotli_compress(json, 5, &mut data).unwrap();
        data
    }

    fn alike(json: &[u8]) {
        let data = compressed(json);
        let what = || "the head".to_string();
        let limits = Limits::default();
        let whole = brotli_json::<crate::Document>(&data, &limits, &what);
        let streamed = brotli_document_from(&data, &limits, &what, 0);
        match (whole, streamed) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("{a:?} against {b:?}"),
        }
    }

    #[test]
    fn a_head_read_in_pieces_is_the_head_read_whole() {
        let mut read = 0;
        for path in crate::test_support::fixture_files() {
            let bytes = std::fs::read(&path).unwrap();
            let Ok((_, json)) = crate::envelope::decode(&bytes, &Limits::default()) else {
                continue;
            };
            alike(&json);
            alike(&json[..json.len() / 2]);
            read += 1;
        }
        assert!(read >= 40, "{read} fixtures");
        let large = crate::canonical::to_vec(&super::super::tests::with_large_head()).unwrap();
        alike(&large);
        alike(&[&large[..], b" ]"].concat());
        // Read in pieces indeed, not left to the whole read.
        for piece in [1, 4096, 1 << 20] {
            let doc = crate::codec::streamed::from_brotli(&compressed(&large), u64::MAX, piece);
            assert_eq!(doc, Some(super::super::tests::with_large_head()));
        }
        // More than the limit allows: the whole read's error.
        let data = compressed(&large);
        let small = Limits::default().with_max_bytes(1 << 20);
        let err = brotli_document_from(&data, &small, &|| "h".into(), 0).unwrap_err();
        let whole = brotli_json::<crate::Document>(&data, &small, &|| "h".into()).unwrap_err();
        assert_eq!(err.to_string(), whole.to_string());
        assert!(err.to_string().contains("exceeds the limit"), "{err}");
    }

    #[test]
    fn parses_only_the_entry_asked_for() {
        let json = r#"{"a": {"not": "a list"}, "b": [1, 2], "c": [3]}"#;
        assert_eq!(pick(json, "b").unwrap(), Some(vec![1, 2]));
        assert_eq!(pick(json, "z").unwrap(), None);
        assert!(pick(json, "a").is_err());
        assert!(pick(r#"{"b": [1, 2"#, "c").is_err());
    }
}

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

    #[test]
    fn parses_only_the_entry_asked_for() {
        let json = r#"{"a": {"not": "a list"}, "b": [1, 2], "c": [3]}"#;
        assert_eq!(pick(json, "b").unwrap(), Some(vec![1, 2]));
        assert_eq!(pick(json, "z").unwrap(), None);
        assert!(pick(json, "a").is_err());
        assert!(pick(r#"{"b": [1, 2"#, "c").is_err());
    }
}

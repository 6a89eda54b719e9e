//! A block's turns as stored, read straight into turns: a stored turn is a turn, or a
//! turn whose `content` is kept as `parts` (text, and artifact versions of the vault).
//! Each is read into its [`Turn`] as it comes, with `parts` and its source record set
//! aside, rather than into JSON values first: a large archive holds hundreds of
//! thousands of turns, and their source records, parsed, several times their text.

use std::borrow::Cow;

use serde::de::value::{CowStrDeserializer, MapAccessDeserializer, StrDeserializer};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::Turn;

/// One stored turn: the turn, its `parts` when its content is kept as parts (the
/// turn's `content` is then empty until they are joined), and its source record's
/// JSON text (`source`, the record the turn was imported from), not in the turn.
pub(crate) struct Stored<'j> {
    pub(crate) turn: Turn,
    pub(crate) parts: Option<Value>,
    pub(crate) source: Option<&'j RawValue>,
}

impl Stored<'_> {
    /// `(artifact id, version)` of each artifact part, in order.
    pub(crate) fn artifacts(&self) -> Vec<(String, u64)> {
        let parts = self.parts.as_ref().and_then(Value::as_array);
        parts
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let id = p.get("artifact")?.as_str()?;
                Some((id.to_string(), p.get("version")?.as_u64()?))
            })
            .collect()
    }
}

/// A block's stored turns from its decompressed JSON (an array of them).
pub(crate) fn parse(block: u64, json: &[u8]) -> Result<Vec<Stored<'_>>> {
    serde_json::from_slice(json).map_err(|e| Error::Block {
        block,
        detail: format!("decoded data is not a JSON array of turns: {e}"),
    })
}

impl<'de> Deserialize<'de> for Stored<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(StoredVisitor)
    }
}

struct StoredVisitor;

impl<'de> Visitor<'de> for StoredVisitor {
    type Value = Stored<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("struct Turn")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Stored<'de>, A::Error> {
        let mut aside = Aside {
            map,
            parts: None,
            source: None,
            content: false,
            filling: false,
        };
        let turn = Turn::deserialize(MapAccessDeserializer::new(&mut aside))?;
        Ok(Stored {
            turn,
            parts: aside.parts,
            source: aside.source,
        })
    }
}

/// A stored turn's members as a turn reads them: `parts` and `source` taken aside,
/// and, when `parts` stands for the content, an empty `content` given in its place.
struct Aside<'de, A> {
    map: A,
    parts: Option<Value>,
    /// The last `source` given, as a map keeps the last value of a key.
    source: Option<&'de RawValue>,
    /// Whether the turn gave its `content`.
    content: bool,
    /// The next value asked for is the empty content given in place of `parts`.
    filling: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Aside<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> std::result::Result<Option<K::Value>, A::Error> {
        loop {
            let Some(Key(key)) = self.map.next_key::<Key<'de>>()? else {
                if self.parts.is_some() && !self.content {
                    self.content = true;
                    self.filling = true;
                    return seed.deserialize(StrDeserializer::new("content")).map(Some);
                }
                return Ok(None);
            };
            if key == "parts" {
                if self.parts.is_some() {
                    return Err(A::Error::duplicate_field("parts"));
                }
                self.parts = Some(self.map.next_value()?);
                continue;
            }
            if key == "source" {
                self.source = Some(self.map.next_value()?);
                continue;
            }
            self.content |= key == "content";
            return seed.deserialize(CowStrDeserializer::new(key)).map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> std::result::Result<V::Value, A::Error> {
        if std::mem::take(&mut self.filling) {
            return seed.deserialize(StrDeserializer::new(""));
        }
        self.map.next_value_seed(seed)
    }
}

/// A member's name, borrowed from the JSON where it can be.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct KeyVisitor;

        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("field identifier")
            }

            fn visit_borrowed_str<E>(self, key: &'de str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }

            fn visit_str<E>(self, key: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }

            fn visit_string<E>(self, key: String) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key)))
            }
        }

        d.deserialize_identifier(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the stored turns of `json` were read as before: JSON values, `parts`
    /// taken out and an empty content put in its place, then read as a turn.
    fn through_values(json: &str) -> std::result::Result<Vec<(Turn, Option<Value>)>, ()> {
        let values: Vec<Value> = serde_json::from_str(json).map_err(drop)?;
        values
            .into_iter()
            .map(|mut v| {
                let parts = v.as_object_mut().and_then(|o| o.remove("parts"));
                if parts.is_some() && v.get("content").is_none() {
                    v["content"] = Value::String(String::new());
                }
                Ok((serde_json::from_value(v).map_err(drop)?, parts))
            })
            .collect()
    }

    /// The stored turns of `json`, each with its source record parsed back in.
    fn read(json: &str) -> std::result::Result<Vec<(Turn, Option<Value>)>, ()> {
        let stored = parse(1, json.as_bytes()).map_err(drop)?;
        let turn = |s: Stored<'_>| {
            let mut turn = s.turn;
            if let Some(raw) = s.source {
                let source = serde_json::from_str(raw.get()).unwrap();
                turn.extra.insert("source".into(), source);
            }
            (turn, s.parts)
        };
        Ok(stored.into_iter().map(turn).collect())
    }

    #[test]
    fn stored_turns_read_as_their_values_did() {
        for json in [
            r#"[{"turn":1,"role":"user","content":"hi","source":{"record":{"a":[1]}}}]"#,
            r#"[{"turn":2,"role":"assistant","parts":[{"text":"x"},{"artifact":"a","version":1}]}]"#,
            r#"[{"parts":[],"role":"user","turn":3,"speaker":"Ann"},{"turn":4,"role":"user","content":"b"}]"#,
            r#"[{"turn":5,"role":"user","content":"kept","parts":[{"text":"joined"}]}]"#,
            r#"[{"turn":6,"role":"user"}]"#,
            r#"[{"turn":7,"role":"user","parts":null}]"#,
            r#"[{"turn":8,"role":"","content":"x"}]"#,
            r#"[{"turn":9,"role":"user","content":"x","we\u00efrd":"k\u00e9y"}]"#,
            r#"[{"turn":10,"role":"user","content":"x","source":1,"source":{"a":"\u00e9"}}]"#,
            r#"[{"turn":11,"role":"user","content":"x","source":null}]"#,
            r#"[1]"#,
            r#"{}"#,
        ] {
            assert_eq!(read(json), through_values(json), "{json}");
        }
    }

    #[test]
    fn parts_given_twice_are_refused() {
        let json = r#"[{"turn":1,"role":"user","parts":[],"parts":[]}]"#;
        let err = parse(4, json.as_bytes()).err().unwrap();
        assert_eq!(err.code(), "SMG-E117");
        assert!(err.to_string().contains("duplicate field `parts`"), "{err}");
    }

    #[test]
    fn the_artifacts_of_parts_are_listed_in_order() {
        let json = r#"[{"turn":1,"role":"user","parts":[{"artifact":"b","version":2},{"text":"t"},{"artifact":"a","version":1}]}]"#;
        let stored = parse(1, json.as_bytes()).unwrap();
        assert_eq!(
            stored[0].artifacts(),
            [("b".to_string(), 2), ("a".to_string(), 1)]
        );
    }
}

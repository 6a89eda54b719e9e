//! The canonical length of each member of a top-level object, without its whole
//! text: each member is measured alone ([`Length`]), so that what is held at once is
//! one array item's text, not the document's (`smg info` of a 100 MB file wrote
//! 322 MB of JSON to count it).

use serde::ser::{self, Impossible, Serialize};

use super::length::Length;
use super::ser::KeyName;
use crate::error::Error;

type Result<T> = std::result::Result<T, Error>;

/// Each member of `value`'s top-level object with the length of its canonical JSON
/// (in the order written), and the length of the whole object's canonical JSON. A
/// value that is not an object is refused.
pub(crate) fn member_lengths<T: Serialize + ?Sized>(
    value: &T,
) -> Result<(Vec<(String, u64)>, u64)> {
    let mut members = Members::default();
    value.serialize(&mut members)?;
    // `{`, `}`, a comma between members, and each `"key":value`.
    let commas = members.lengths.len().saturating_sub(1) as u64;
    let whole = 2 + commas + members.lengths.iter().map(|m| m.1).sum::<u64>() + members.keys;
    Ok((members.lengths, whole))
}

/// The members met so far.
#[derive(Default)]
struct Members {
    lengths: Vec<(String, u64)>,
    /// The bytes of every `"key":` written.
    keys: u64,
    /// The key whose value comes next.
    key: Option<String>,
    /// Where each array item is written to be measured.
    scratch: Vec<u8>,
}

impl Members {
    fn member<V: Serialize + ?Sized>(&mut self, key: String, value: &V) -> Result<()> {
        self.scratch.clear();
        super::write_string(&key, &mut self.scratch);
        self.keys += self.scratch.len() as u64 + 1;
        let len = value.serialize(Length {
            scratch: &mut self.scratch,
        })?;
        self.lengths.push((key, len));
        Ok(())
    }
}

fn not_an_object() -> Error {
    <Error as ser::Error>::custom("the value is not an object")
}

/// Methods of a value that is not an object: refused.
macro_rules! refused {
    ($($method:ident($($t:ty),*) -> $ret:ty),*) => {$(
        fn $method(self, $(_: $t),*) -> Result<$ret> {
            Err(not_an_object())
        }
    )*};
}

impl ser::Serializer for &mut Members {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    refused!(
        serialize_bool(bool) -> (), serialize_i8(i8) -> (), serialize_i16(i16) -> (),
        serialize_i32(i32) -> (), serialize_i64(i64) -> (), serialize_u8(u8) -> (),
        serialize_u16(u16) -> (), serialize_u32(u32) -> (), serialize_u64(u64) -> (),
        serialize_f32(f32) -> (), serialize_f64(f64) -> (), serialize_char(char) -> (),
        serialize_str(&str) -> (), serialize_bytes(&[u8]) -> (), serialize_none() -> (),
        serialize_unit() -> (), serialize_unit_struct(&'static str) -> (),
        serialize_unit_variant(&'static str, u32, &'static str) -> (),
        serialize_seq(Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(usize) -> Self::SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant
    );

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(not_an_object())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self> {
        Ok(self)
    }
}

impl ser::SerializeMap for &mut Members {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(KeyName)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("a value without its key"))?;
        self.member(key, value)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Members {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.member(key.to_string(), value)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The lengths the whole text gives, read back from it.
    fn from_whole(value: &serde_json::Value) -> (Vec<(String, u64)>, u64) {
        let text = super::super::to_vec(value).unwrap();
        let members: std::collections::BTreeMap<String, &serde_json::value::RawValue> =
            serde_json::from_slice(&text).unwrap();
        let lengths = members
            .into_iter()
            .map(|(k, v)| (k, v.get().len() as u64))
            .collect();
        (lengths, text.len() as u64)
    }

    #[test]
    fn each_member_is_as_long_as_in_the_whole() {
        let value = json!({
            "b": {"z": [1, 2.50, "x\u{1F600}\"\n"], "a": null},
            "a\u{e9}\"": "quoted \\ key",
            "c": [],
            "d": {},
            "e": 12345678901234567890u64,
        });
        let (mut lengths, whole) = member_lengths(&value).unwrap();
        lengths.sort();
        assert_eq!((lengths, whole), from_whole(&value));
        assert_eq!(member_lengths(&json!({})).unwrap(), (vec![], 2));
    }

    #[test]
    fn nested_lists_and_objects_are_as_long_as_in_the_whole() {
        let value = json!({
            "graph": {"nodes": [{"id": "n1", "b": [1, {"z": null, "y": "\u{7f}"}]}, {}],
                      "edges": [], "meta": {"k": [[], [[1.0e-7]]]}},
            "list": [[1, 2], {"a": []}, "s", -0.0, 1e300],
            "empty": {"": {"": ""}},
        });
        let (mut lengths, whole) = member_lengths(&value).unwrap();
        lengths.sort();
        assert_eq!((lengths, whole), from_whole(&value));
    }

    /// A map that gives a key twice, as a flattened struct's unknown fields can.
    struct Twice;

    impl Serialize for Twice {
        fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut outer = s.serialize_map(None)?;
            outer.serialize_entry("m", &Inner)?;
            outer.end()
        }
    }

    struct Inner;

    impl Serialize for Inner {
        fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut map = s.serialize_map(None)?;
            map.serialize_entry("b", "a long first value")?;
            map.serialize_entry("a", &[1, 2])?;
            map.serialize_entry(&7u8, &json!({"x": 1}))?;
            map.serialize_entry("b", "")?;
            map.end()
        }
    }

    #[test]
    fn a_key_given_twice_counts_its_last_value_as_the_writer_keeps_it() {
        let text = super::super::to_vec(&Twice).unwrap();
        assert_eq!(text, br#"{"m":{"7":{"x":1},"a":[1,2],"b":""}}"#);
        let (lengths, whole) = member_lengths(&Twice).unwrap();
        assert_eq!(lengths, vec![("m".to_string(), text.len() as u64 - 6)]);
        assert_eq!(whole, text.len() as u64);
    }

    #[test]
    fn every_fixture_document_is_measured_as_its_whole_text() {
        let mut measured = 0;
        for path in crate::test_support::fixture_files() {
            let Ok((doc, _)) = crate::file::read_file(&path, &crate::limits::Limits::default())
            else {
                continue;
            };
            let text = super::super::to_vec(&doc).unwrap();
            let members: std::collections::BTreeMap<String, &serde_json::value::RawValue> =
                serde_json::from_slice(&text).unwrap();
            let mut want: Vec<(String, u64)> = members
                .into_iter()
                .map(|(k, v)| (k, v.get().len() as u64))
                .collect();
            want.sort();
            let (mut lengths, whole) = member_lengths(&doc).unwrap();
            lengths.sort();
            assert_eq!(
                (lengths, whole),
                (want, text.len() as u64),
                "{}",
                path.display()
            );
            measured += 1;
        }
        assert!(measured > 30, "only {measured} fixtures read");
    }

    #[test]
    fn a_value_that_is_not_an_object_is_refused() {
        assert!(member_lengths(&json!([1, 2])).is_err());
        assert!(member_lengths(&json!("text")).is_err());
    }
}

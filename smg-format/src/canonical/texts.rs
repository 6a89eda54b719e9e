//! Each member of a top-level object with its own canonical JSON, written one member
//! at a time: what is held at once is one member's text, never the whole object's
//! nor a `serde_json::Value` of it (signing a million-turn memory built one of
//! several GB).

use serde::ser::{self, Impossible, Serialize};

use super::ser::{key_of_value, Canonical, KeyName};
use crate::error::Error;

type Result<T> = std::result::Result<T, Error>;

/// Hand `each` every member of `value`'s top-level object, key and canonical JSON,
/// in the order they are serialised (a key given twice comes twice: the later one is
/// the object's, as in its canonical JSON). A value that is not an object is refused.
pub(crate) fn each_member_text<T: Serialize + ?Sized>(
    value: &T,
    each: &mut dyn FnMut(String, &[u8]),
) -> Result<()> {
    let mut text = Vec::new();
    value.serialize(Top {
        each,
        text: &mut text,
    })
}

/// The serializer of the top-level object.
struct Top<'a> {
    each: &'a mut dyn FnMut(String, &[u8]),
    text: &'a mut Vec<u8>,
}

/// The top-level object's entries, each written alone.
struct Members<'a> {
    top: Top<'a>,
    key: Option<String>,
}

impl Members<'_> {
    fn member<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<()> {
        self.top.text.clear();
        value.serialize(Canonical { out: self.top.text })?;
        (self.top.each)(key, self.top.text);
        self.top.text.clear();
        Ok(())
    }
}

fn not_an_object() -> Error {
    <Error as ser::Error>::custom("the value is not an object")
}

/// Methods of a value that is not an object: refused.
macro_rules! refused {
    ($($method:ident($($t:ty),*) -> $out:ty),* $(,)?) => {$(
        fn $method(self, $(_: $t),*) -> Result<$out> {
            Err(not_an_object())
        }
    )*};
}

impl<'a> ser::Serializer for Top<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Members<'a>;
    type SerializeStruct = Members<'a>;
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
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant,
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
    fn serialize_map(self, _: Option<usize>) -> Result<Members<'a>> {
        Ok(Members {
            top: self,
            key: None,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Members<'a>> {
        self.serialize_map(None)
    }
}

impl ser::SerializeMap for Members<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(KeyName)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = key_of_value(&mut self.key)?;
        self.member(key, value)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStruct for Members<'_> {
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

    fn texts(value: &serde_json::Value) -> Vec<(String, String)> {
        let mut out = Vec::new();
        each_member_text(value, &mut |k, t| {
            out.push((k, String::from_utf8(t.to_vec()).unwrap()))
        })
        .unwrap();
        out
    }

    #[test]
    fn each_member_is_its_canonical_json() {
        let value = json!({"b": {"z": [1, 2.50], "a": null}, "a\u{e9}": "x\n", "c": []});
        let mut got = texts(&value);
        got.sort();
        let want: Vec<(String, String)> = value
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    String::from_utf8(super::super::to_canonical_json_value(v)).unwrap(),
                )
            })
            .collect();
        let mut want = want;
        want.sort();
        assert_eq!(got, want);
        assert!(each_member_text(&json!([1]), &mut |_, _| {}).is_err());
        assert!(each_member_text(&json!("s"), &mut |_, _| {}).is_err());
    }
}

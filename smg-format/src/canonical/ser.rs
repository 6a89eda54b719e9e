//! A serde serializer that writes canonical JSON directly, without building a
//! `serde_json::Value` of the whole document first (which costs several times the
//! document's size in memory). Objects buffer their entries to sort the keys; arrays
//! and scalars go straight to the output.

use std::borrow::Cow;

use serde::ser::{self, Serialize};

use super::{write_f64, write_integer, write_string, KeyOrder};
use crate::error::Error;

type Result<T> = std::result::Result<T, Error>;

/// The name under which `serde_json::value::RawValue` serialises itself: a struct of
/// one field, its text (serde_json's own serialisers write that text in place).
const RAW_VALUE: &str = "$serde_json::private::RawValue";

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::InvalidArgument(format!("value cannot be serialised: {msg}"))
    }
}

/// Writes one value's canonical JSON to `out`.
pub(super) struct Canonical<'a> {
    pub(super) out: &'a mut Vec<u8>,
}

/// An array being written.
pub(super) struct Array<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    /// Set for tuple variants: `{"name":[…]}` needs a closing brace.
    close_object: bool,
}

/// An object being written: each entry goes straight to the output as `"key":value,`
/// and the entries are put in key order in place when the object ends, so that no
/// object is ever copied into its parent (a document is written in one buffer).
pub(super) struct Object<'a> {
    out: &'a mut Vec<u8>,
    /// Where the first entry starts (after the `{`).
    start: usize,
    /// Each entry's key and length in bytes, in the order written.
    entries: Vec<(Cow<'static, str>, usize)>,
    key: Option<String>,
    /// Set for struct variants: `{"name":{…}}` needs a closing brace.
    close_object: bool,
    /// Set for a `serde_json::value::RawValue`: its one field is JSON text, written
    /// as it is (smg holds only canonical text so: a block's turns).
    raw: bool,
}

impl Object<'_> {
    fn new(out: &mut Vec<u8>, len: Option<usize>, close_object: bool) -> Object<'_> {
        out.push(b'{');
        Object {
            start: out.len(),
            out,
            entries: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
            close_object,
            raw: false,
        }
    }

    /// The state of a `RawValue`: nothing is written until its text.
    fn raw(out: &mut Vec<u8>) -> Object<'_> {
        Object {
            start: out.len(),
            out,
            entries: Vec::new(),
            key: None,
            close_object: false,
            raw: true,
        }
    }

    /// Struct fields name themselves with `'static` keys: no allocation for them.
    fn value<T: Serialize + ?Sized>(&mut self, key: Cow<'static, str>, value: &T) -> Result<()> {
        let at = self.out.len();
        write_string(&key, self.out);
        self.out.push(b':');
        value.serialize(Canonical { out: self.out })?;
        self.out.push(b',');
        self.entries.push((key, self.out.len() - at));
        Ok(())
    }

    fn finish(mut self) {
        let ordered = self
            .entries
            .windows(2)
            .all(|w| KeyOrder::cmp(&w[0].0, &w[1].0).is_lt());
        if !ordered {
            self.reorder();
        }
        // Every entry ends with a comma; the last one's becomes the closing brace.
        if self.entries.is_empty() {
            self.out.push(b'}');
        } else if let Some(last) = self.out.last_mut() {
            *last = b'}';
        }
        if self.close_object {
            self.out.push(b'}');
        }
    }

    /// Put the entries in key order by rotating each into place; a key given twice
    /// keeps its last value, as a JSON object built from it would.
    fn reorder(&mut self) {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by(|&a, &b| KeyOrder::cmp(&self.entries[a].0, &self.entries[b].0));
        let mut target: Vec<usize> = Vec::with_capacity(order.len());
        for i in order {
            match target.last_mut() {
                Some(last) if self.entries[*last].0 == self.entries[i].0 => *last = (*last).max(i),
                _ => target.push(i),
            }
        }
        let lens: Vec<usize> = self.entries.iter().map(|e| e.1).collect();
        let len = |i: usize| lens[i];
        let mut current: Vec<usize> = (0..self.entries.len()).collect();
        let mut pos = self.start;
        for (slot, &want) in target.iter().enumerate() {
            let j = current[slot..]
                .iter()
                .position(|&c| c == want)
                .map_or(slot, |p| p + slot);
            let before: usize = current[slot..j].iter().map(|&c| len(c)).sum();
            if j > slot {
                self.out[pos..pos + before + len(want)].rotate_right(len(want));
                current.remove(j);
                current.insert(slot, want);
            }
            pos += len(want);
        }
        // What is left after the ordered entries are the values a later duplicate
        // replaced.
        self.out.truncate(pos);
        self.entries = target
            .into_iter()
            .map(|i| (std::mem::take(&mut self.entries[i].0), len(i)))
            .collect();
    }
}

fn open_variant(out: &mut Vec<u8>, variant: &str) {
    out.push(b'{');
    write_string(variant, out);
    out.push(b':');
}

impl<'a> ser::Serializer for Canonical<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Array<'a>;
    type SerializeTuple = Array<'a>;
    type SerializeTupleStruct = Array<'a>;
    type SerializeTupleVariant = Array<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Object<'a>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        write_integer(i128::from(v), self.out);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        write_integer(v, self.out);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        write_integer(i128::from(v), self.out);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        let v =
            i128::try_from(v).map_err(|_| <Error as ser::Error>::custom("integer out of range"))?;
        write_integer(v, self.out);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        write_f64(v, self.out);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<()> {
        write_string(v.encode_utf8(&mut [0; 4]), self.out);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        write_string(v, self.out);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<()> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.serialize_str(variant)
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
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        open_variant(self.out, variant);
        value.serialize(Canonical { out: self.out })?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Array<'a>> {
        self.out.push(b'[');
        Ok(Array {
            out: self.out,
            first: true,
            close_object: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Array<'a>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Array<'a>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Array<'a>> {
        open_variant(self.out, variant);
        self.out.push(b'[');
        Ok(Array {
            out: self.out,
            first: true,
            close_object: true,
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Object<'a>> {
        Ok(Object::new(self.out, len, false))
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Object<'a>> {
        if name == RAW_VALUE {
            return Ok(Object::raw(self.out));
        }
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Object<'a>> {
        open_variant(self.out, variant);
        Ok(Object::new(self.out, Some(len), true))
    }
}

impl Array<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Canonical { out: self.out })
    }

    fn close(self) -> Result<()> {
        self.out.push(b']');
        if self.close_object {
            self.out.push(b'}');
        }
        Ok(())
    }
}

/// The four array-like serde traits write the same way.
macro_rules! array_impl {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Array<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.element(value)
            }
            fn end(self) -> Result<()> {
                self.close()
            }
        }
    )*};
}

array_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Object<'_> {
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
            .ok_or_else(|| <Error as ser::Error>::custom("a map value without its key"))?;
        self.value(Cow::Owned(key), value)
    }
    fn end(self) -> Result<()> {
        self.finish();
        Ok(())
    }
}

/// Struct fields and struct-variant fields are object entries.
macro_rules! struct_impl {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Object<'_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                if self.raw {
                    self.out.extend_from_slice(value.serialize(KeyName)?.as_bytes());
                    return Ok(());
                }
                self.value(Cow::Borrowed(key), value)
            }
            fn end(self) -> Result<()> {
                if !self.raw {
                    self.finish();
                }
                Ok(())
            }
        }
    )*};
}

struct_impl!(SerializeStruct, SerializeStructVariant);

/// Map keys: strings, and integers and characters written as strings (as serde_json
/// does); anything else is refused.
pub(super) struct KeyName;

macro_rules! integer_keys {
    ($($name:ident: $ty:ty),*) => {$(
        fn $name(self, v: $ty) -> Result<String> {
            Ok(v.to_string())
        }
    )*};
}

impl ser::Serializer for KeyName {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = ser::Impossible<String, Error>;
    type SerializeTuple = ser::Impossible<String, Error>;
    type SerializeTupleStruct = ser::Impossible<String, Error>;
    type SerializeTupleVariant = ser::Impossible<String, Error>;
    type SerializeMap = ser::Impossible<String, Error>;
    type SerializeStruct = ser::Impossible<String, Error>;
    type SerializeStructVariant = ser::Impossible<String, Error>;

    integer_keys!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_char: char);

    fn serialize_str(self, v: &str) -> Result<String> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<String> {
        v.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_f32(self, _: f32) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_f64(self, _: f64) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_none(self) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_unit(self) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String> {
        Err(not_a_key())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(not_a_key())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(not_a_key())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(not_a_key())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(not_a_key())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(not_a_key())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(not_a_key())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(not_a_key())
    }
}

/// The key a map's value belongs to, taken from where `serialize_key` put it.
pub(super) fn key_of_value(key: &mut Option<String>) -> Result<String> {
    key.take()
        .ok_or_else(|| <Error as ser::Error>::custom("a value without its key"))
}

fn not_a_key() -> Error {
    <Error as ser::Error>::custom("an object key must be a string")
}

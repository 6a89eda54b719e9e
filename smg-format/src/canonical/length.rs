//! The length of a value's canonical JSON, measured without holding its text:
//! objects are measured an entry at a time and arrays an item at a time, so that what
//! is written at once is one array item (a node, an edge, an archive block), never a
//! section (`smg info` of a million-turn memory held its graph's 100 MB of text).

use std::borrow::Cow;

use serde::ser::{self, Serialize};

use super::ser::{key_of_value, Canonical, KeyName};
use super::{write_string, KeyOrder};
use crate::error::Error;

type Result<T> = std::result::Result<T, Error>;

/// Measures one value; `scratch` is the buffer each item is written to.
pub(super) struct Length<'a> {
    pub(super) scratch: &'a mut Vec<u8>,
    /// Where the value, which must then be an object, lists each of its members'
    /// keys and lengths.
    pub(super) members: Option<&'a mut Vec<(String, u64)>>,
}

impl<'a> Length<'a> {
    /// A measure of a value that is not a document's top-level object.
    fn inner(scratch: &'a mut Vec<u8>) -> Self {
        Length {
            scratch,
            members: None,
        }
    }

    /// An error if the value's members were asked for: it is not an object.
    fn not_members(&self) -> Result<()> {
        match self.members {
            Some(_) => Err(<Error as ser::Error>::custom("the value is not an object")),
            None => Ok(()),
        }
    }

    /// `value` written whole, its bytes counted and dropped.
    fn whole<T: Serialize + ?Sized>(self, value: &T) -> Result<u64> {
        self.not_members()?;
        self.scratch.clear();
        value.serialize(Canonical { out: self.scratch })?;
        let len = self.scratch.len() as u64;
        self.scratch.clear();
        Ok(len)
    }
}

/// The bytes of `{"variant":` and its closing `}` around a variant's value.
fn variant_bytes(variant: &str) -> u64 {
    let mut text = Vec::new();
    write_string(variant, &mut text);
    text.len() as u64 + 3
}

/// An array being measured: `[`, `]`, the commas and each item written alone.
pub(super) struct Items<'a> {
    scratch: &'a mut Vec<u8>,
    count: u64,
    bytes: u64,
    /// Bytes around the array (a tuple variant's `{"name":…}`).
    around: u64,
}

impl Items<'_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.bytes += Length::inner(self.scratch).whole(value)?;
        self.count += 1;
        Ok(())
    }

    fn total(&self) -> u64 {
        2 + self.count.saturating_sub(1) + self.bytes + self.around
    }
}

/// An object being measured: each entry's key text and value length. Entries are put
/// in key order at the end only to find a key given twice, which keeps its last value
/// as the canonical writer keeps it.
pub(super) struct Entries<'a> {
    scratch: &'a mut Vec<u8>,
    members: Option<&'a mut Vec<(String, u64)>>,
    entries: Vec<(Cow<'static, str>, u64)>,
    key: Option<String>,
    around: u64,
}

impl Entries<'_> {
    fn entry<T: Serialize + ?Sized>(&mut self, key: Cow<'static, str>, value: &T) -> Result<()> {
        let len = value.serialize(Length::inner(self.scratch))?;
        self.entries.push((key, len));
        Ok(())
    }

    fn total(self) -> u64 {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        // Stable: of a key given twice, the later entry sorts last.
        order.sort_by(|&a, &b| KeyOrder::cmp(&self.entries[a].0, &self.entries[b].0));
        let mut kept: Vec<usize> = Vec::with_capacity(order.len());
        for i in order {
            match kept.last_mut() {
                Some(last) if self.entries[*last].0 == self.entries[i].0 => *last = i,
                _ => kept.push(i),
            }
        }
        let mut text = Vec::new();
        let entries: u64 = kept
            .iter()
            .map(|&i| {
                text.clear();
                write_string(&self.entries[i].0, &mut text);
                text.len() as u64 + 1 + self.entries[i].1
            })
            .sum();
        if let Some(members) = self.members {
            let kept = kept.iter().map(|&i| &self.entries[i]);
            members.extend(kept.map(|(key, len)| (key.to_string(), *len)));
        }
        2 + (kept.len() as u64).saturating_sub(1) + entries + self.around
    }
}

/// Scalars are written whole into the scratch buffer.
macro_rules! whole {
    ($($method:ident($t:ty)),*) => {$(
        fn $method(self, v: $t) -> Result<u64> {
            self.whole(&v)
        }
    )*};
}

impl<'a> ser::Serializer for Length<'a> {
    type Ok = u64;
    type Error = Error;
    type SerializeSeq = Items<'a>;
    type SerializeTuple = Items<'a>;
    type SerializeTupleStruct = Items<'a>;
    type SerializeTupleVariant = Items<'a>;
    type SerializeMap = Entries<'a>;
    type SerializeStruct = Entries<'a>;
    type SerializeStructVariant = Entries<'a>;

    whole!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8])
    );

    fn serialize_none(self) -> Result<u64> {
        self.whole(&())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<u64> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<u64> {
        self.whole(&())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<u64> {
        self.whole(&())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<u64> {
        self.whole(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<u64> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<u64> {
        self.not_members()?;
        Ok(variant_bytes(variant) + value.serialize(self)?)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'a>> {
        self.not_members()?;
        Ok(Items {
            scratch: self.scratch,
            count: 0,
            bytes: 0,
            around: 0,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<'a>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Items<'a>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items<'a>> {
        let mut items = self.serialize_seq(Some(len))?;
        items.around = variant_bytes(variant);
        Ok(items)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Entries<'a>> {
        Ok(Entries {
            scratch: self.scratch,
            members: self.members,
            entries: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
            around: 0,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Entries<'a>> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Entries<'a>> {
        self.not_members()?;
        let mut entries = self.serialize_map(Some(len))?;
        entries.around = variant_bytes(variant);
        Ok(entries)
    }
}

/// The four array-like serde traits measure the same way.
macro_rules! items_impl {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Items<'_> {
            type Ok = u64;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.item(value)
            }
            fn end(self) -> Result<u64> {
                Ok(self.total())
            }
        }
    )*};
}

items_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Entries<'_> {
    type Ok = u64;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(KeyName)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = key_of_value(&mut self.key)?;
        self.entry(Cow::Owned(key), value)
    }
    fn end(self) -> Result<u64> {
        Ok(self.total())
    }
}

/// Structs and struct variants measure the same way.
macro_rules! struct_impl {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Entries<'_> {
            type Ok = u64;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                self.entry(Cow::Borrowed(key), value)
            }
            fn end(self) -> Result<u64> {
                Ok(self.total())
            }
        }
    )*};
}

struct_impl!(SerializeStruct, SerializeStructVariant);

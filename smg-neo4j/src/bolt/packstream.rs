//! PackStream, the binary encoding of Bolt messages: a MessagePack relative with
//! tagged structures. Decoding bounds every length by the bytes actually received and
//! the nesting depth, so a hostile server cannot make us allocate or recurse without end.

use crate::Error;

/// A PackStream value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(f64),
    /// A byte array.
    Bytes(Vec<u8>),
    /// A UTF-8 string.
    String(String),
    /// A list.
    List(Vec<Value>),
    /// A map with string keys, in the order received.
    Map(Vec<(String, Value)>),
    /// A structure: a tag and its fields (nodes, relationships, temporal values).
    Struct(u8, Vec<Value>),
}

impl Value {
    /// The string inside, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The entry `key` of a map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

/// Appends the encoding of `value` to `out`.
pub(crate) fn encode(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(0xC0),
        Value::Bool(b) => out.push(if *b { 0xC3 } else { 0xC2 }),
        Value::Int(i) => encode_int(*i, out),
        Value::Float(f) => {
            out.push(0xC1);
            out.extend_from_slice(&f.to_be_bytes());
        }
        Value::Bytes(b) => {
            header(b.len(), None, [0xCC, 0xCD, 0xCE], out);
            out.extend_from_slice(b);
        }
        Value::String(s) => {
            header(s.len(), Some(0x80), [0xD0, 0xD1, 0xD2], out);
            out.extend_from_slice(s.as_bytes());
        }
        Value::List(items) => {
            header(items.len(), Some(0x90), [0xD4, 0xD5, 0xD6], out);
            items.iter().for_each(|v| encode(v, out));
        }
        Value::Map(entries) => {
            header(entries.len(), Some(0xA0), [0xD8, 0xD9, 0xDA], out);
            for (k, v) in entries {
                encode(&Value::String(k.clone()), out);
                encode(v, out);
            }
        }
        Value::Struct(tag, fields) => {
            // Bolt's structures have at most 15 fields; ours have at most 3.
            out.push(0xB0 | (fields.len().min(15) as u8));
            out.push(*tag);
            fields.iter().take(15).for_each(|v| encode(v, out));
        }
    }
}

fn encode_int(i: i64, out: &mut Vec<u8>) {
    if (-16..=127).contains(&i) {
        out.push(i as u8);
    } else if let Ok(b) = i8::try_from(i) {
        out.push(0xC8);
        out.push(b as u8);
    } else if let Ok(s) = i16::try_from(i) {
        out.push(0xC9);
        out.extend_from_slice(&s.to_be_bytes());
    } else if let Ok(w) = i32::try_from(i) {
        out.push(0xCA);
        out.extend_from_slice(&w.to_be_bytes());
    } else {
        out.push(0xCB);
        out.extend_from_slice(&i.to_be_bytes());
    }
}

/// A length header: the tiny form when `tiny` is given and `len < 16`, else the
/// smallest of the 8-, 16- and 32-bit forms.
fn header(len: usize, tiny: Option<u8>, markers: [u8; 3], out: &mut Vec<u8>) {
    match (tiny, len) {
        (Some(t), 0..=15) => out.push(t | len as u8),
        (_, 0..=0xFF) => out.extend_from_slice(&[markers[0], len as u8]),
        (_, 0x100..=0xFFFF) => {
            out.push(markers[1]);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            out.push(markers[2]);
            out.extend_from_slice(&(len as u32).to_be_bytes());
        }
    }
}

/// Deeper nesting than any Bolt reply has: a guard, not a limit users meet.
const MAX_DEPTH: usize = 64;

/// Decodes one value that must fill `bytes` exactly.
pub(crate) fn decode(bytes: &[u8]) -> Result<Value, Error> {
    let mut reader = Reader { bytes, at: 0 };
    let value = reader.value(0)?;
    if reader.at != bytes.len() {
        return Err(protocol(format!(
            "{} bytes left over after a message",
            bytes.len() - reader.at
        )));
    }
    Ok(value)
}

fn protocol(message: String) -> Error {
    Error::Protocol(message)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| {
            protocol(format!(
                "a value runs past the message end at byte {}",
                self.at
            ))
        })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn byte(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    fn len(&mut self, width: usize) -> Result<usize, Error> {
        let b = self.take(width)?;
        Ok(b.iter().fold(0usize, |acc, &x| (acc << 8) | x as usize))
    }

    fn int(&mut self, width: usize) -> Result<i64, Error> {
        let b = self.take(width)?;
        let mut buf = [0u8; 8];
        buf[8 - width..].copy_from_slice(b);
        let unsigned = u64::from_be_bytes(buf);
        // Sign-extend from the encoded width.
        let shift = 64 - 8 * width as u32;
        Ok(((unsigned << shift) as i64) >> shift)
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(protocol("values nested too deeply".into()));
        }
        let marker = self.byte()?;
        Ok(match marker {
            0x00..=0x7F => Value::Int(marker as i64),
            0xF0..=0xFF => Value::Int(marker as i8 as i64),
            0xC0 => Value::Null,
            0xC2 => Value::Bool(false),
            0xC3 => Value::Bool(true),
            0xC1 => {
                let b: [u8; 8] = self.take(8)?.try_into().expect("eight bytes");
                Value::Float(f64::from_be_bytes(b))
            }
            0xC8 => Value::Int(self.int(1)?),
            0xC9 => Value::Int(self.int(2)?),
            0xCA => Value::Int(self.int(4)?),
            0xCB => Value::Int(self.int(8)?),
            0xCC..=0xCE => {
                let n = self.len(1 << (marker - 0xCC))?;
                Value::Bytes(self.take(n)?.to_vec())
            }
            0x80..=0x8F => self.string((marker & 0x0F) as usize)?,
            0xD0..=0xD2 => {
                let n = self.len(1 << (marker - 0xD0))?;
                self.string(n)?
            }
            0x90..=0x9F => self.list((marker & 0x0F) as usize, depth)?,
            0xD4..=0xD6 => {
                let n = self.len(1 << (marker - 0xD4))?;
                self.list(n, depth)?
            }
            0xA0..=0xAF => self.map((marker & 0x0F) as usize, depth)?,
            0xD8..=0xDA => {
                let n = self.len(1 << (marker - 0xD8))?;
                self.map(n, depth)?
            }
            0xB0..=0xBF => {
                let n = (marker & 0x0F) as usize;
                let tag = self.byte()?;
                let fields = (0..n)
                    .map(|_| self.value(depth + 1))
                    .collect::<Result<_, _>>()?;
                Value::Struct(tag, fields)
            }
            other => return Err(protocol(format!("unknown PackStream marker 0x{other:02X}"))),
        })
    }

    fn string(&mut self, n: usize) -> Result<Value, Error> {
        let at = self.at;
        let bytes = self.take(n)?;
        let s = std::str::from_utf8(bytes)
            .map_err(|_| protocol(format!("a string at byte {at} is not UTF-8")))?;
        Ok(Value::String(s.to_string()))
    }

    /// Every item takes at least one byte: a count beyond the bytes left is a lie,
    /// refused before anything is allocated for it.
    fn bounded(&self, n: usize) -> Result<usize, Error> {
        if n > self.bytes.len() - self.at {
            return Err(protocol(format!(
                "a collection of {n} items cannot fit in the message"
            )));
        }
        Ok(n)
    }

    fn list(&mut self, n: usize, depth: usize) -> Result<Value, Error> {
        let n = self.bounded(n)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::List(items))
    }

    fn map(&mut self, n: usize, depth: usize) -> Result<Value, Error> {
        let n = self.bounded(n)?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let key = match self.value(depth + 1)? {
                Value::String(s) => s,
                other => return Err(protocol(format!("a map key is not a string: {other:?}"))),
            };
            entries.push((key, self.value(depth + 1)?));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::Int),
            (-1e300f64..1e300).prop_map(Value::Float),
            proptest::collection::vec(any::<u8>(), 0..300).prop_map(Value::Bytes),
            ".{0,40}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 64, 20, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::List),
                proptest::collection::vec((".{0,8}", inner.clone()), 0..20).prop_map(Value::Map),
                (any::<u8>(), proptest::collection::vec(inner, 0..4))
                    .prop_map(|(t, f)| Value::Struct(t, f)),
            ]
        })
    }

    proptest! {
        #[test]
        fn what_is_encoded_decodes_to_itself(v in value()) {
            let mut out = Vec::new();
            encode(&v, &mut out);
            prop_assert_eq!(decode(&out).unwrap(), v);
        }

        #[test]
        fn garbage_is_an_error_never_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode(&bytes);
        }
    }

    #[test]
    fn integers_take_the_smallest_form_bolt_documents() {
        let enc = |i| {
            let mut out = Vec::new();
            encode(&Value::Int(i), &mut out);
            out
        };
        assert_eq!(enc(1), [0x01]);
        assert_eq!(enc(-16), [0xF0]);
        assert_eq!(enc(-17), [0xC8, 0xEF]);
        assert_eq!(enc(1000), [0xC9, 0x03, 0xE8]);
        assert_eq!(enc(i64::MIN)[0], 0xCB);
    }

    #[test]
    fn a_collection_longer_than_the_message_is_refused_before_allocating() {
        let err = decode(&[0xD6, 0xFF, 0xFF, 0xFF, 0xFF]).unwrap_err();
        assert!(err.to_string().contains("cannot fit"), "{err}");
    }
}

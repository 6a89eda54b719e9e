//! A block's turns: compressed and written as base64 (format 1), or in the clear as
//! a JSON array (format 2's JSON layout).

use std::borrow::Cow;
use std::fmt;

use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Refused;

/// The turns of an archive [`super::Block`]: compressed, `compressedData` in the file
/// (base64, RFC 4648, with padding); or the canonical JSON array of the turns itself,
/// `turns` in the file (format 2 writes blocks so in its JSON layout: the file's one
/// compressed stream then sees every turn, where blocks compressed one by one share
/// nothing).
///
/// Held as the bytes it stands for, a quarter smaller than its text (at a million
/// turns, 24 MB of a document's 250). Text that is not such base64 is kept as it was
/// read, so that the file is written back as it came and reading its turns fails
/// where it always did ([`BlockData::bytes`]).
///
/// ```
/// use smg_format::model::BlockData;
/// let data: BlockData = serde_json::from_str("\"aGk=\"").unwrap();
/// assert_eq!(data.bytes().unwrap(), b"hi");
/// assert_eq!(serde_json::to_string(&data).unwrap(), "\"aGk=\"");
/// let odd: BlockData = serde_json::from_str("\"aGk\"").unwrap();
/// assert!(odd.bytes().is_err());
/// assert_eq!(serde_json::to_string(&odd).unwrap(), "\"aGk\"");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct BlockData(Held);

#[derive(Clone)]
enum Held {
    Bytes(Box<[u8]>),
    /// Not base64 as RFC 4648 writes it: kept verbatim.
    Text(Box<str>),
    /// The JSON array of the block's turns, in the clear.
    Plain(Box<str>),
    /// The same, as a file spelled it: made canonical when written, so that a read
    /// that writes nothing never pays for it.
    Read(Box<str>),
}

impl Held {
    /// What two helds are equal by: turns in the clear by their text, however held.
    fn key(&self) -> (u8, &[u8]) {
        match self {
            Held::Bytes(b) => (0, b),
            Held::Text(t) => (1, t.as_bytes()),
            Held::Plain(json) | Held::Read(json) => (2, json.as_bytes()),
        }
    }
}

impl PartialEq for Held {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Held {}

impl std::hash::Hash for Held {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl Default for Held {
    fn default() -> Self {
        Held::Bytes(Box::default())
    }
}

impl BlockData {
    /// The data of a block whose compressed turns are `bytes`.
    pub fn from_bytes(bytes: impl Into<Box<[u8]>>) -> Self {
        BlockData(Held::Bytes(bytes.into()))
    }

    /// The data `text` (base64) stands for; text that is not base64 is kept as it is.
    pub fn from_base64(text: &str) -> Self {
        match STANDARD.decode(text) {
            Ok(bytes) => BlockData::from_bytes(bytes),
            Err(_) => BlockData(Held::Text(text.into())),
        }
    }

    /// Turns held in the clear: `json` must be the canonical JSON array of the
    /// block's turns (as [`crate::archive::encode_turns`] compresses it); it is written
    /// as it is.
    pub fn from_turns_json(json: String) -> Self {
        BlockData(Held::Plain(json.into()))
    }

    /// Turns in the clear from any JSON text of them, held canonical; or why the text
    /// is not a JSON array.
    pub(crate) fn canonical_turns(json: &[u8]) -> Result<Self, String> {
        let value: serde_json::Value =
            serde_json::from_slice(json).map_err(|e| format!("not JSON: {e}"))?;
        if !value.is_array() {
            return Err("not a JSON array of turns".into());
        }
        // Canonical JSON is UTF-8.
        let text = String::from_utf8(crate::canonical::to_canonical_json_value(&value))
            .map_err(|e| e.to_string())?;
        Ok(BlockData::from_turns_json(text))
    }

    /// Turns in the clear as a file or section held them, which may not be
    /// canonical JSON: made so when written.
    pub(crate) fn from_read_json(json: String) -> Self {
        BlockData(Held::Read(json.into()))
    }

    /// The JSON array of the turns, when they are held in the clear.
    pub fn turns_json(&self) -> Option<&str> {
        match &self.0 {
            Held::Plain(json) | Held::Read(json) => Some(json),
            _ => None,
        }
    }

    /// The bytes held: compressed, or for turns in the clear their JSON; or why the
    /// text read is not base64.
    pub fn bytes(&self) -> Result<&[u8], Refused> {
        match &self.0 {
            Held::Bytes(b) => Ok(b),
            Held::Plain(json) | Held::Read(json) => Ok(json.as_bytes()),
            Held::Text(t) => Err(STANDARD.decode(t.as_bytes()).map_or_else(
                |e| Refused::new(e.to_string()),
                // Never: text that decodes is held as bytes.
                |_| Refused::new("base64 held as text".into()),
            )),
        }
    }

    /// The base64 text, as the file holds it (for turns in the clear, of their JSON).
    pub fn to_base64(&self) -> Cow<'_, str> {
        match &self.0 {
            Held::Bytes(b) => Cow::Owned(STANDARD.encode(b)),
            Held::Plain(json) | Held::Read(json) => Cow::Owned(STANDARD.encode(json.as_bytes())),
            Held::Text(t) => Cow::Borrowed(t),
        }
    }

    /// How many bytes the text stands for (for text that is not base64, about as
    /// many as it would).
    pub fn len(&self) -> usize {
        match &self.0 {
            Held::Bytes(b) => b.len(),
            Held::Text(t) => t.len() / 4 * 3,
            Held::Plain(json) | Held::Read(json) => json.len(),
        }
    }

    /// Whether there are no bytes (as in a packed file's head, whose blocks are
    /// sections of their own).
    pub fn is_empty(&self) -> bool {
        matches!(&self.0, Held::Bytes(b) if b.is_empty())
    }
}

impl From<Vec<u8>> for BlockData {
    fn from(bytes: Vec<u8>) -> Self {
        BlockData::from_bytes(bytes)
    }
}

impl fmt::Debug for BlockData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Held::Bytes(b) => write!(f, "BlockData({} bytes)", b.len()),
            Held::Text(t) => write!(f, "BlockData(not base64: {} chars)", t.len()),
            Held::Plain(json) | Held::Read(json) => {
                write!(f, "BlockData({} bytes of JSON)", json.len())
            }
        }
    }
}

impl Serialize for BlockData {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Held::Bytes(b) => s.collect_str(&Base64Display::new(b, &STANDARD)),
            Held::Text(t) => s.serialize_str(t),
            Held::Plain(json) => Raw(json).serialize(s),
            Held::Read(json) => serde_json::from_str::<serde_json::Value>(json)
                .map_err(serde::ser::Error::custom)?
                .serialize(s),
        }
    }
}

/// JSON text written in place: what `serde_json::value::RawValue` serialises as
/// (serde_json's serialisers and smg's canonical one write its text as it is), without
/// parsing the text again to make one.
struct Raw<'a>(&'a str);

/// The struct name and field name `RawValue` serialises under.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

impl Serialize for Raw<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = s.serialize_struct(RAW_VALUE, 1)?;
        raw.serialize_field(RAW_VALUE, self.0)?;
        raw.end()
    }
}

/// A block's `turns` as read: any JSON array, held as the file spelled it (no value
/// is built of it: its turns are parsed when they are read).
pub(crate) struct InlineTurns(pub(crate) BlockData);

impl<'de> Deserialize<'de> for InlineTurns {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        if !raw.get().starts_with('[') {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other("a value that is not an array"),
                &"an array of turns",
            ));
        }
        if !compact(raw.get()) {
            // Spaced out (a file written by hand, or pretty-printed): held canonical,
            // so that it reads back as the same data once written.
            return BlockData::canonical_turns(raw.get().as_bytes())
                .map(InlineTurns)
                .map_err(de::Error::custom);
        }
        let text: Box<str> = raw.into();
        Ok(InlineTurns(BlockData(Held::Read(text))))
    }
}

/// Whether JSON `text` has no white space outside its strings, as canonical JSON
/// (and every writer of it) has none: a scan, not a parse.
fn compact(text: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    for b in text.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b.is_ascii_whitespace() {
            return false;
        }
    }
    true
}

impl<'de> Deserialize<'de> for BlockData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = BlockData;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base64 string")
            }
            // Borrowed or not, the text is decoded where serde holds it.
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BlockData, E> {
                Ok(BlockData::from_base64(v))
            }
        }
        d.deserialize_str(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_is_written_back_as_it_was_read(text in "[A-Za-z0-9+/=]{0,12}") {
            let json = serde_json::to_string(&text).unwrap();
            let data: BlockData = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(serde_json::to_string(&data).unwrap(), json);
            prop_assert_eq!(data.to_base64(), text.as_str());
            // Held as bytes exactly when it decodes, and then they are what it says.
            let decoded = STANDARD.decode(&text).ok();
            prop_assert_eq!(data.bytes().ok().map(<[u8]>::to_vec), decoded);
        }

        #[test]
        fn any_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let data = BlockData::from_bytes(bytes.clone());
            let json = serde_json::to_string(&data).unwrap();
            prop_assert_eq!(&json, &serde_json::to_string(&STANDARD.encode(&bytes)).unwrap());
            let back: BlockData = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back.bytes().unwrap(), &bytes[..]);
            prop_assert_eq!(back, data);
        }
    }

    #[test]
    fn white_space_counts_only_outside_strings() {
        assert!(compact(r#"[{"a":"x y","b":"q\" z\\"}]"#));
        assert!(!compact(r#"[{"a":"x\\" ,"b":1}]"#));
        assert!(!compact("[1,\n2]"));
    }

    #[test]
    fn text_that_is_not_base64_says_why_when_its_bytes_are_asked_for() {
        let data = BlockData::from_base64("abc!");
        let why = data.bytes().unwrap_err().to_string();
        assert_eq!(why, STANDARD.decode("abc!").unwrap_err().to_string());
        assert_eq!(data.len(), 3);
        assert!(!data.is_empty());
        assert!(BlockData::default().is_empty());
        assert!(serde_json::from_str::<BlockData>("12").is_err());
    }
}

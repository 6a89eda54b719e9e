//! Canonical JSON: RFC 8785 (JSON Canonicalization Scheme), kept lossless for integers.
//!
//! RFC 8785 formats every number as an IEEE-754 double, which would round integers
//! beyond 2^53 that a newer writer put in an unknown field. smg writes such an
//! integer with all its digits instead; for every other value the output is exactly
//! RFC 8785's (spec §2.3).

mod length;
mod members;
mod ser;
mod splice;
mod texts;

pub(crate) use members::member_lengths;
pub(crate) use splice::{with_entries, Pieces};
pub(crate) use texts::each_member_text;

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use crate::error::Result;

/// Canonical bytes of any serialisable value, written as it is serialised (no
/// intermediate `serde_json::Value`).
pub(crate) fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    value.serialize(ser::Canonical { out: &mut out })?;
    Ok(out)
}

/// `value`'s canonical bytes appended to `out`.
pub(crate) fn append<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<()> {
    value.serialize(ser::Canonical { out })?;
    Ok(())
}

/// Canonical bytes of a JSON value (RFC 8785, integers kept exact; spec §2.3).
///
/// ```
/// let v = serde_json::json!({"b": 1.50, "a": [true, null]});
/// assert_eq!(smg_format::codec::to_canonical_json_value(&v), br#"{"a":[true,null],"b":1.5}"#);
/// ```
pub fn to_canonical_json_value(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            KeyOrder::sort(&mut entries);
            out.push(b'{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(k, out);
                out.push(b':');
                write_value(v, out);
            }
            out.push(b'}');
        }
    }
}

/// RFC 8785 key order: UTF-16 code units. It differs from UTF-8 byte order (and so
/// from `String`'s) only when a key holds characters beyond U+FFFF.
pub(crate) struct KeyOrder;

impl KeyOrder {
    pub(crate) fn cmp(a: &str, b: &str) -> std::cmp::Ordering {
        if a.is_ascii() && b.is_ascii() {
            a.cmp(b)
        } else {
            a.encode_utf16().cmp(b.encode_utf16())
        }
    }

    pub(crate) fn sort<K: AsRef<str>, V>(entries: &mut [(K, V)]) {
        if entries.iter().all(|(k, _)| k.as_ref().is_ascii()) {
            entries.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        } else {
            entries.sort_by(|a, b| a.0.as_ref().encode_utf16().cmp(b.0.as_ref().encode_utf16()));
        }
    }
}

fn write_number(n: &serde_json::Number, out: &mut Vec<u8>) {
    if let Some(u) = n.as_u64() {
        write_integer(i128::from(u), out);
    } else if let Some(i) = n.as_i64() {
        write_integer(i128::from(i), out);
    } else {
        write_f64(n.as_f64().unwrap_or(0.0), out);
    }
}

/// An integer: every digit. Up to 2^53 this is also RFC 8785's form (the double's
/// shortest form has no exponent below 10^21); beyond, the digits are kept exact.
fn write_integer(n: i128, out: &mut Vec<u8>) {
    let _ = write!(out, "{n}");
}

/// A double in ECMAScript's shortest form; NaN and infinities (which JSON cannot hold)
/// as `null`, as serde_json turns them into.
fn write_f64(f: f64, out: &mut Vec<u8>) {
    if f.is_finite() {
        out.extend_from_slice(ryu_js::Buffer::new().format_finite(f).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// RFC 8785 string escaping is serde_json's: `"`, `\` and control characters only,
/// with short escapes where JSON has them and lowercase `\u00xx` otherwise.
fn write_string(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(&mut *out, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(json: &str) -> String {
        let v: Value = serde_json::from_str(json).unwrap();
        String::from_utf8(to_vec(&v).unwrap()).unwrap()
    }

    #[test]
    fn rfc_8785_section_3_2_example() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        assert_eq!(
            canon(input),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // U+1F600 is D83D DE00 in UTF-16, which sorts before U+FB01 (FB01).
        assert_eq!(canon(r#"{"ﬁ":1,"😀":2,"a":3}"#), r#"{"a":3,"😀":2,"ﬁ":1}"#);
    }

    #[test]
    fn the_serializer_writes_what_the_value_path_writes() {
        let doc = crate::test_support::full_fixture();
        let via_value = to_canonical_json_value(&serde_json::to_value(&doc).unwrap());
        assert_eq!(to_vec(&doc).unwrap(), via_value);
        let odd = serde_json::json!({"😀": [1.5, -0.0, 1e300, 9007199254740993u64], "ﬁ": {"b": null, "a": "\u{1}"}});
        assert_eq!(to_vec(&odd).unwrap(), to_canonical_json_value(&odd));
        assert_eq!(to_vec(&f64::NAN).unwrap(), b"null");
        let keyed: std::collections::BTreeMap<u32, char> = [(10, 'x'), (9, 'y')].into();
        assert_eq!(to_vec(&keyed).unwrap(), br#"{"10":"x","9":"y"}"#);
    }

    /// Entries as given, in that order, duplicates included.
    struct Entries(Vec<(&'static str, serde_json::Value)>);

    impl Serialize for Entries {
        fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut m = s.serialize_map(Some(self.0.len()))?;
            for (k, v) in &self.0 {
                m.serialize_entry(k, v)?;
            }
            m.end()
        }
    }

    #[test]
    fn objects_are_put_in_key_order_in_place_and_the_last_duplicate_wins() {
        let e = |pairs: Vec<(&'static str, serde_json::Value)>| {
            String::from_utf8(to_vec(&[Entries(pairs)]).unwrap()).unwrap()
        };
        use serde_json::json;
        assert_eq!(
            e(vec![
                ("c", json!({"z": 1, "a": [2]})),
                ("b", json!("x")),
                ("a", json!(null))
            ]),
            r#"[{"a":null,"b":"x","c":{"a":[2],"z":1}}]"#
        );
        assert_eq!(
            e(vec![
                ("b", json!(1)),
                ("a", json!(2)),
                ("b", json!(3)),
                ("a", json!("long value"))
            ]),
            r#"[{"a":"long value","b":3}]"#
        );
        assert_eq!(e(vec![]), "[{}]");
        assert_eq!(
            e(vec![("ﬁ", json!(1)), ("😀", json!(2))]),
            r#"[{"😀":2,"ﬁ":1}]"#
        );
    }

    #[test]
    fn integers_keep_every_digit() {
        assert_eq!(
            canon("[9007199254740993, -9007199254740993, 18446744073709551615, 1.0, -0.0]"),
            "[9007199254740993,-9007199254740993,18446744073709551615,1,0]"
        );
    }
}

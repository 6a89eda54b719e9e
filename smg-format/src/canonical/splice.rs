//! Canonical JSON written in parts (side by side) and joined without copying: an
//! object's missing entries are put in their keys' places between its own bytes.

use std::borrow::Cow;

use super::{write_string, KeyOrder};
use crate::error::{Error, Result};

/// Canonical JSON in pieces, in order; joined, they are the whole.
pub(crate) type Pieces<'a> = Vec<Cow<'a, [u8]>>;

/// The pieces of the canonical object `object` with `entries` added, each in its key's
/// place. No key of `entries` is in `object`; each value is canonical JSON in pieces.
pub(crate) fn with_entries<'a>(
    object: &'a [u8],
    mut entries: Vec<(&str, Pieces<'a>)>,
) -> Result<Pieces<'a>> {
    let malformed = || Error::InvalidArgument("not a canonical JSON object".into());
    let end = object.len().checked_sub(1).ok_or_else(malformed)?;
    if end == 0 || object[0] != b'{' || object[end] != b'}' {
        return Err(malformed());
    }
    entries.sort_by(|a, b| KeyOrder::cmp(a.0, b.0));
    let mut out = Pieces::new();
    // Bytes of `object` given out so far, and where the next of its keys starts.
    let (mut given, mut next) = (0, 1);
    let mut any_before = end > 1;
    for (key, value) in entries {
        while next < end {
            let (name, key_end) = key_at(object, next).ok_or_else(malformed)?;
            if KeyOrder::cmp(&name, key).is_gt() {
                break;
            }
            next = value_end(object, key_end + 1).ok_or_else(malformed)? + 1;
        }
        let at = next.min(end);
        out.push(Cow::Borrowed(&object[given..at]));
        given = at;
        let mut name = Vec::with_capacity(key.len() + 4);
        if at == end && any_before {
            name.push(b',');
        }
        write_string(key, &mut name);
        name.push(b':');
        out.push(Cow::Owned(name));
        out.extend(value);
        if at < end {
            out.push(Cow::Borrowed(b","));
        }
        any_before = true;
    }
    out.push(Cow::Borrowed(&object[given..]));
    Ok(out)
}

/// The key whose string opens at `at`, and where its string ends.
fn key_at(object: &[u8], at: usize) -> Option<(String, usize)> {
    let end = string_end(object, at)?;
    Some((serde_json::from_slice(&object[at..end]).ok()?, end))
}

/// Where the JSON string that opens at `at` ends (just after its closing quote).
fn string_end(json: &[u8], at: usize) -> Option<usize> {
    if json.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', json.get(i..)?)?;
        if json[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// Where the value that starts at `at` ends: the index of the `,` or `}` after it.
fn value_end(json: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    loop {
        match *json.get(i)? {
            b'"' => {
                i = string_end(json, i)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b']' => depth = depth.checked_sub(1)?,
            b'}' if depth > 0 => depth -= 1,
            b',' | b'}' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map, Value};

    use super::*;
    use crate::canonical::to_vec;

    fn joined(pieces: &Pieces<'_>) -> String {
        String::from_utf8(pieces.concat()).unwrap()
    }

    proptest::proptest! {
        #[test]
        fn entries_added_are_in_the_places_of_their_keys(
            entries in proptest::collection::btree_map("[a-e\"\\\\😀ﬁ]{0,3}", ".{0,6}", 0..6),
            added in proptest::collection::btree_set("[a-e\"😀ﬁ]{0,3}", 0..4),
            nested in proptest::bool::ANY,
        ) {
            let value = |v: &str| if nested { json!([v, {"}": "]", "v": [v, {}]}]) } else { json!(v) };
            let mut object: Map<String, Value> =
                entries.iter().map(|(k, v)| (k.clone(), value(v))).collect();
            for key in &added {
                object.remove(key);
            }
            let without = to_vec(&object).unwrap();
            let values: Vec<Vec<u8>> = added.iter().map(|k| to_vec(&value(k)).unwrap()).collect();
            let pieces = with_entries(
                &without,
                added.iter().zip(&values).map(|(k, v)| (k.as_str(), vec![Cow::Borrowed(&v[..])])).collect(),
            ).unwrap();
            for key in &added {
                object.insert(key.clone(), value(key));
            }
            proptest::prop_assert_eq!(joined(&pieces), String::from_utf8(to_vec(&object).unwrap()).unwrap());
        }
    }

    #[test]
    fn only_an_object_takes_entries() {
        for bad in [&b""[..], b"[]", b"{", b"{\"a\":1", b"{\"a\"}"] {
            let entries = vec![("z", vec![Cow::Borrowed(&b"1"[..])])];
            assert!(with_entries(bad, entries).is_err(), "{bad:?}");
        }
    }
}

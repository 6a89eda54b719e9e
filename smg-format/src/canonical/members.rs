//! The canonical length of each member of a top-level object, without its whole
//! text: each member is measured alone ([`Length`]), so that what is held at once is
//! one array item's text, not the document's (`smg info` of a 100 MB file wrote
//! 322 MB of JSON to count it).

use serde::Serialize;

use super::length::Length;
use crate::error::Error;

/// Each member of `value`'s top-level object with the length of its canonical JSON
/// (in key order), and the length of the whole object's canonical JSON. A value that
/// is not an object is refused.
pub(crate) fn member_lengths<T: Serialize + ?Sized>(
    value: &T,
) -> Result<(Vec<(String, u64)>, u64), Error> {
    let (mut scratch, mut members) = (Vec::new(), Vec::new());
    let whole = value.serialize(Length {
        scratch: &mut scratch,
        members: Some(&mut members),
    })?;
    Ok((members, whole))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::ser;
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

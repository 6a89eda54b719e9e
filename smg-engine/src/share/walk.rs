//! Every string of a JSON value, and every object key, visited with its place.

use serde_json::{Map, Value};

/// What is done with each string: given its text and a way to name its place, the
/// new text when it changes.
pub(crate) type Visit<'a> = dyn FnMut(&str, &dyn Fn() -> String) -> Option<String> + 'a;

/// Call `f` on every string and key of `v` with the JSON Pointer below `at`; `f`
/// returns the new text when it changes one.
pub(crate) fn strings(v: &mut Value, at: &mut Vec<String>, f: &mut Visit<'_>) {
    visit(v, at, &|_| true, f);
}

/// [`strings`] of `v`, passing over each item of a long list for which `worth`
/// says no (so that a large list costs one check an item, not one a string).
pub(crate) fn strings_where(v: &mut Value, worth: &dyn Fn(&Value) -> bool, f: &mut Visit<'_>) {
    visit(v, &mut Vec::new(), worth, f);
}

/// Lists shorter than this are walked whole.
const LONG: usize = 16;

fn visit(v: &mut Value, at: &mut Vec<String>, worth: &dyn Fn(&Value) -> bool, f: &mut Visit<'_>) {
    match v {
        Value::String(s) => {
            if let Some(new) = f(s, &|| pointer(at)) {
                *s = new;
            }
        }
        Value::Array(items) => {
            let long = items.len() >= LONG;
            for (i, item) in items.iter_mut().enumerate() {
                if long && !worth(item) {
                    continue;
                }
                at.push(i.to_string());
                visit(item, at, worth, f);
                at.pop();
            }
        }
        Value::Object(map) => object(map, at, worth, f),
        _ => {}
    }
}

fn object(
    map: &mut Map<String, Value>,
    at: &mut Vec<String>,
    worth: &dyn Fn(&Value) -> bool,
    f: &mut Visit<'_>,
) {
    let long = map.len() >= LONG;
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        at.push(key.clone());
        if let Some(item) = map.get_mut(&key).filter(|v| !long || worth(v)) {
            visit(item, at, worth, f);
        }
        let renamed = f(&key, &|| format!("{} (a key)", pointer(at)));
        at.pop();
        if let Some(new) = renamed {
            if let Some(item) = map.remove(&key) {
                map.insert(new, item);
            }
        }
    }
}

/// Every string and key of `v` appended to `out`, each followed by a line break.
pub(crate) fn joined(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|i| joined(i, out)),
        Value::Object(map) => {
            for (k, item) in map {
                out.push_str(k);
                out.push('\n');
                joined(item, out);
            }
        }
        _ => {}
    }
}

/// The strings of `json` (well-formed JSON text, as serde_json writes it), unescaped,
/// appended to `out` each followed by a line break: keys and values alike, numbers and
/// punctuation left out, as [`joined`] gives them from a value.
pub(crate) fn strings_of_json(json: &str, out: &mut String) {
    let bytes = json.as_bytes();
    let mut i = 0;
    while let Some(q) = memchr::memchr(b'"', &bytes[i..]) {
        let start = i + q + 1;
        let (end, escaped) = string_end(bytes, start);
        match escaped {
            false => out.push_str(&json[start..end]),
            true => {
                match serde_json::from_str::<String>(&json[start - 1..(end + 1).min(json.len())]) {
                    Ok(s) => out.push_str(&s),
                    Err(_) => out.push_str(&json[start..end]),
                }
            }
        }
        out.push('\n');
        i = end + 1;
        if i >= bytes.len() {
            break;
        }
    }
}

/// Where the string whose text starts at `start` ends (its closing quote, or the
/// text's end), and whether it holds an escape.
fn string_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut j = start;
    let mut escaped = false;
    while let Some(k) = memchr::memchr2(b'"', b'\\', &bytes[j.min(bytes.len())..]) {
        j += k;
        if bytes[j] == b'"' {
            return (j, escaped);
        }
        escaped = true;
        j += 2;
    }
    (bytes.len(), escaped)
}

/// `/a/b~1c` from its tokens.
pub(crate) fn pointer(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_of_json_are_what_joined_gives() {
        let values = [
            json!({"a": ["x\"y\n", {"k": 1.5, "e": "z\\w"}], "b": null}),
            json!(["\\", "\\\"", "é\u{1}ü", "", {"": ""}]),
            json!("plain"),
            json!(12),
        ];
        for v in values {
            let (mut from_text, mut from_value) = (String::new(), String::new());
            strings_of_json(&v.to_string(), &mut from_text);
            joined(&v, &mut from_value);
            assert_eq!(from_text, from_value, "{v}");
        }
        let (mut pretty, mut from_value) = (String::new(), String::new());
        let v = json!({"k": ["a b", "c\td"]});
        strings_of_json(&serde_json::to_string_pretty(&v).unwrap(), &mut pretty);
        joined(&v, &mut from_value);
        assert_eq!(pretty, from_value);
    }

    #[test]
    fn every_string_and_key_is_visited_with_its_pointer() {
        let mut v = json!({"a": ["x", {"b/c": "y"}], "k@e": 1});
        let mut seen = Vec::new();
        strings(&mut v, &mut Vec::new(), &mut |s, place| {
            seen.push((s.to_string(), place()));
            (s == "y" || s == "k@e").then(|| "Z".to_string())
        });
        assert_eq!(v, json!({"a": ["x", {"b/c": "Z"}], "Z": 1}));
        assert!(seen.contains(&("y".into(), "/a/1/b~1c".into())));
        assert!(seen.contains(&("k@e".into(), "/k@e (a key)".into())));
    }
}

//! Running a query in a dialect. FalkorDB (4.16) turns Bolt parameters back into
//! Cypher text without escaping them: a string with an apostrophe fails to parse,
//! `\"` loses its backslash, and large batches crashed the server. So on FalkorDB the
//! parameters are written into the query as literals, escaped as `export` escapes them.

use std::fmt::Write;

use crate::bolt::{Connection, Rows, Value};
use crate::schema::Dialect;
use crate::Error;

/// Runs `query` with `params` on `conn` as `dialect` needs.
pub(crate) fn run(
    conn: &mut Connection,
    dialect: Dialect,
    query: &str,
    params: Vec<(String, Value)>,
    database: Option<&str>,
) -> Result<Rows, Error> {
    let (text, params) = prepare(dialect, query, params);
    conn.run(&text, params, database)
}

/// The text and parameters to send `query` with in `dialect`.
pub(crate) fn prepare(
    dialect: Dialect,
    query: &str,
    params: Vec<(String, Value)>,
) -> (String, Vec<(String, Value)>) {
    match dialect {
        Dialect::Neo4j => (query.to_string(), params),
        Dialect::FalkorDb => (inline(query, &params), vec![]),
    }
}

/// `query` with every `$name` of `params` replaced by its literal ([`literal`]): the
/// statement as a parameter-free script holds it.
pub fn inline(query: &str, params: &[(String, Value)]) -> String {
    let mut out = String::with_capacity(query.len());
    let mut rest = query;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        match params.iter().find(|(k, _)| k == &after[..end]) {
            Some((_, v)) => out.push_str(&literal(v)),
            None => out.push_str(&rest[at..at + 1 + end]),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// A Cypher literal for a value: strings single-quoted with every character that
/// needs it escaped, map keys back-quoted, floats with a decimal point or exponent.
///
/// ```
/// use smg_neo4j::bolt::Value;
/// use smg_neo4j::export::literal;
/// assert_eq!(literal(&Value::from("it's a \\ \n")), r"'it\'s a \\ \n'");
/// assert_eq!(literal(&Value::Float(1.0)), "1.0");
/// ```
pub fn literal(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        // The most negative integer has no literal of its own in Cypher.
        Value::Int(i64::MIN) => "(-9223372036854775807 - 1)".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::String(s) => string(s),
        Value::Bytes(b) => literal(&Value::List(
            b.iter().map(|&x| Value::Int(x as i64)).collect(),
        )),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(entries) => {
            let items: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("`{}`: {}", k.replace('`', "``"), literal(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Struct(..) => "null".into(),
    }
}

fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_literals_and_other_dollars_stay() {
        let params = vec![
            ("m".to_string(), Value::from("it's")),
            ("rows".to_string(), Value::List(vec![Value::Int(1)])),
        ];
        assert_eq!(
            inline(
                "UNWIND $rows AS r MATCH (n {memory: $m, x: $mx}) RETURN '$'",
                &params
            ),
            r"UNWIND [1] AS r MATCH (n {memory: 'it\'s', x: $mx}) RETURN '$'"
        );
    }
}

//! Reading an object whose unknown fields are kept in `extra`, as serde's derive with
//! `#[serde(flatten)]` reads it, without its cost: the derive buffers every field of
//! every object (each key and value copied into serde's `Content` first, then read
//! again), and a large memory holds millions of nodes, edges and turns. Here each
//! known field is read into its type as it comes and only the unknown ones become
//! JSON values. What is accepted and refused is the derive's: a missing required
//! field, a known field given twice, a value of the wrong type are refused with the
//! derive's messages; an optional field that is absent or `null` is `None`; an
//! unknown field given twice keeps its last value.

/// `Deserialize` for struct `$t`, whose fields are listed with their JSON keys and how
/// each is read: `req` (required), `opt` (an `Option`, absent or `null` is `None`),
/// `tight` (an optional list read with no room to spare, [`super::lists::Tight`]).
/// Every other key goes to the struct's `extra`.
macro_rules! read_with_extra {
    ($t:ident { $($field:ident: $how:ident $key:literal),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[allow(non_camel_case_types)]
                enum Field {
                    $($field,)*
                    Other(String),
                }

                struct FieldVisitor;

                impl serde::de::Visitor<'_> for FieldVisitor {
                    type Value = Field;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("field identifier")
                    }

                    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Field, E> {
                        Ok(match key {
                            $($key => Field::$field,)*
                            other => Field::Other(other.to_owned()),
                        })
                    }
                }

                impl<'de> serde::Deserialize<'de> for Field {
                    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                        d.deserialize_identifier(FieldVisitor)
                    }
                }

                struct ObjectVisitor;

                impl<'de> serde::de::Visitor<'de> for ObjectVisitor {
                    type Value = $t;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($t)))
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<$t, A::Error> {
                        $(let mut $field = None;)*
                        let mut extra = $crate::model::Extra::new();
                        while let Some(key) = map.next_key::<Field>()? {
                            match key {
                                $(Field::$field => {
                                    if $field.is_some() {
                                        return Err(serde::de::Error::duplicate_field($key));
                                    }
                                    $field = Some(read_with_extra!(@read $how, map));
                                })*
                                Field::Other(key) => {
                                    extra.insert(key, map.next_value()?);
                                }
                            }
                        }
                        Ok($t {
                            $($field: read_with_extra!(@done $how, $field, $key),)*
                            extra,
                        })
                    }
                }

                d.deserialize_map(ObjectVisitor)
            }
        }
    };
    (@read req, $map:ident) => { $map.next_value()? };
    (@read opt, $map:ident) => { $map.next_value()? };
    (@read tight, $map:ident) => { $map.next_value::<$crate::model::lists::Tight<_>>()?.0 };
    (@done req, $field:ident, $key:literal) => {
        $field.ok_or_else(|| serde::de::Error::missing_field($key))?
    };
    (@done opt, $field:ident, $key:literal) => { $field.flatten() };
    (@done tight, $field:ident, $key:literal) => { $field.flatten() };
}

pub(super) use read_with_extra;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::model::{Edge, Node, Turn};

    /// What the derive with `#[serde(flatten)]` makes of a turn: the reference the
    /// hand-made reader is held to (named as the model's type, whose name the
    /// derive's messages give).
    mod derived {
        use crate::model::{Extra, NonEmpty, Ordinal, Scope, ShortText, Timestamp, Unit};

        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub(super) struct Turn {
            content: String,
            conversation_id: Option<ShortText>,
            importance: Option<Unit>,
            message_id: Option<ShortText>,
            role: NonEmpty,
            scope: Option<Scope>,
            session_id: Option<ShortText>,
            speaker: Option<ShortText>,
            timestamp: Option<Timestamp>,
            turn: Ordinal,
            #[serde(flatten)]
            extra: Extra,
        }

        impl From<Turn> for crate::model::Turn {
            fn from(d: Turn) -> Self {
                crate::model::Turn {
                    content: d.content,
                    conversation_id: d.conversation_id,
                    importance: d.importance,
                    message_id: d.message_id,
                    role: d.role,
                    scope: d.scope,
                    session_id: d.session_id,
                    speaker: d.speaker,
                    timestamp: d.timestamp,
                    turn: d.turn,
                    extra: d.extra,
                }
            }
        }
    }

    /// The turn read from `text` by the hand-made reader and by the derive: the same
    /// turn, or both refused with the same message.
    fn same_as_derived(text: &str) {
        let ours = serde_json::from_str::<Turn>(text).map_err(|e| e.to_string());
        let derived = serde_json::from_str::<derived::Turn>(text)
            .map(Turn::from)
            .map_err(|e| e.to_string());
        assert_eq!(ours, derived, "{text}");
        // Through a JSON value (how unknown fields and errors read without positions).
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
            let ours = serde_json::from_value::<Turn>(value.clone()).map_err(|e| e.to_string());
            let derived = serde_json::from_value::<derived::Turn>(value)
                .map(Turn::from)
                .map_err(|e| e.to_string());
            assert_eq!(ours, derived, "{text}");
        }
    }

    #[test]
    fn a_turn_reads_as_the_derive_reads_it() {
        for text in [
            r#"{"turn":1,"role":"user","content":"hi"}"#,
            r#"{"turn":1,"role":"user","content":"hi","speaker":null,"scope":"restricted"}"#,
            r#"{"turn":1,"role":"user","content":"hi","x":{"b":[1,2.5,-3]},"a":null,"x":true}"#,
            r#"{"content":"a","content":"b","role":"user","turn":1}"#,
            r#"{"content":"a","role":"user","turn":1,"messageId":"m","messageId":"n"}"#,
            r#"{"role":"user","turn":1}"#,
            r#"{"content":"a","turn":1}"#,
            r#"{"content":null,"role":"user","turn":1}"#,
            r#"{"content":"a","role":"","turn":1}"#,
            r#"{"content":"a","role":"user","turn":0}"#,
            r#"{"content":"a","role":"user","turn":1,"importance":2}"#,
            r#"{"content":"a","role":"user","turn":1,"timestamp":"yesterday"}"#,
            r#"{"content":"a","role":"user","turn":1,"conversationId":5}"#,
            r#"{"content":"a\u00e9\"","role":"user","turn":1,"k\u00e9y":"v"}"#,
            r#"[1,"user","a"]"#,
            r#""turn""#,
            r#"{}"#,
        ] {
            same_as_derived(text);
        }
    }

    /// Keys a turn knows, and some it does not.
    const KEYS: &[&str] = &[
        "content",
        "role",
        "turn",
        "conversationId",
        "importance",
        "messageId",
        "scope",
        "sessionId",
        "speaker",
        "timestamp",
        "parts",
        "source",
        "x",
    ];
    /// Values of every JSON kind, some right for a key and some wrong.
    const VALUES: &[&str] = &[
        r#""a""#,
        r#""user""#,
        r#""""#,
        "1",
        "0",
        "0.5",
        "-2",
        "null",
        "true",
        "[1,\"b\"]",
        r#"{"a":{"b":null}}"#,
        r#""2025-01-01T00:00:00Z""#,
        r#""restricted""#,
        r#""\u00e9""#,
    ];

    proptest::proptest! {
        #[test]
        fn any_object_reads_as_the_derive_reads_it(
            fields in proptest::collection::vec((0..KEYS.len(), 0..VALUES.len()), 0..14)
        ) {
            let members: Vec<String> = fields
                .iter()
                .map(|&(k, v)| format!("\"{}\":{}", KEYS[k], VALUES[v]))
                .collect();
            same_as_derived(&format!("{{{}}}", members.join(",")));
        }
    }

    #[test]
    fn nodes_and_edges_keep_unknown_fields_and_refuse_what_the_derive_refuses() {
        let node: Node = serde_json::from_value(json!({"id": "a", "type": "concept",
            "label": null, "zeta": [1], "alpha": {"b": 2}, "keywords": ["k"]}))
        .unwrap();
        assert_eq!(node.label, None);
        assert_eq!(node.extra.keys().collect::<Vec<_>>(), ["alpha", "zeta"]);
        assert_eq!(node.keywords.unwrap().capacity(), 1);
        let refused = |v: serde_json::Value| serde_json::from_value::<Node>(v).unwrap_err();
        assert_eq!(
            refused(json!({"type": "concept"})).to_string(),
            "missing field `id`"
        );
        assert_eq!(
            refused(json!({"id": "a", "type": "concept", "importance": "high"})).to_string(),
            "invalid type: string \"high\", expected f64"
        );
        let twice = r#"{"id":"a","type":"concept","id":"b"}"#;
        assert!(serde_json::from_str::<Node>(twice)
            .unwrap_err()
            .to_string()
            .starts_with("duplicate field `id`"));
        let edge: Edge =
            serde_json::from_str(r#"{"from":"a","relation":"r","to":"b","w":1}"#).unwrap();
        assert_eq!(edge.extra["w"], 1);
        assert_eq!(
            serde_json::from_str::<Edge>("[]").unwrap_err().to_string(),
            "invalid type: sequence, expected struct Edge at line 1 column 0"
        );
    }
}

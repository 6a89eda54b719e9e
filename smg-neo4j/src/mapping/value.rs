//! JSON values and property values: what a property can hold (strings, booleans,
//! 64-bit integers, floats, and lists of one of those), both ways.

use serde_json::{Number, Value as Json};

use crate::bolt::Value;

/// The property for a JSON value, or `None` when no property can hold it exactly
/// (null, objects, mixed lists, integers beyond 64 bits).
pub(crate) fn to_property(v: &Json) -> Option<Value> {
    Some(match v {
        Json::String(s) => Value::String(s.clone()),
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => number(n)?,
        Json::Array(items) => {
            let list: Vec<Value> = items.iter().map(to_property).collect::<Option<_>>()?;
            let same_kind = list.windows(2).all(|w| kind(&w[0]) == kind(&w[1]));
            if !same_kind || list.iter().any(|v| matches!(v, Value::List(_))) {
                return None;
            }
            Value::List(list)
        }
        Json::Null | Json::Object(_) => return None,
    })
}

fn number(n: &Number) -> Option<Value> {
    if let Some(i) = n.as_i64() {
        Some(Value::Int(i))
    } else if n.is_u64() {
        None
    } else {
        n.as_f64().map(Value::Float)
    }
}

fn kind(v: &Value) -> u8 {
    match v {
        Value::String(_) => 0,
        Value::Bool(_) => 1,
        Value::Int(_) => 2,
        Value::Float(_) => 3,
        _ => 4,
    }
}

/// The JSON value of a property read back, or a description of why it cannot be one.
pub(crate) fn to_json(v: &Value) -> Result<Json, String> {
    Ok(match v {
        Value::Null => Json::Null,
        Value::String(s) => Json::String(s.clone()),
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::Number((*i).into()),
        Value::Float(f) => Json::Number(
            Number::from_f64(*f).ok_or_else(|| format!("{f} is not a number JSON can hold"))?,
        ),
        Value::List(items) => Json::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Bytes(_) => return Err("a byte array".into()),
        Value::Map(_) => return Err("a map".into()),
        // Dates, times, points: written by another program, not by smg.
        Value::Struct(tag, _) => {
            return Err(format!("a structure (tag 0x{tag:02X}, a date or point?)"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_a_property_holds_comes_back_equal() {
        for v in [
            json!("é\n"),
            json!(true),
            json!(-3),
            json!(0.1),
            json!(["a", "b"]),
            json!([1, 2]),
            json!([]),
        ] {
            let p = to_property(&v).unwrap();
            assert_eq!(to_json(&p).unwrap(), v);
        }
    }

    #[test]
    fn what_a_property_cannot_hold_is_refused() {
        for v in [
            json!(null),
            json!({"a": 1}),
            json!([1, "a"]),
            json!([[1]]),
            json!(u64::MAX),
            json!([1, 2.5]),
        ] {
            assert_eq!(to_property(&v), None, "{v}");
        }
    }
}

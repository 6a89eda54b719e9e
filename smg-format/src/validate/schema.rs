//! JSON Schema (2020-12) validation against the published `spec/smg.schema.json`.

use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value;

use super::Finding;

/// The published schema, compiled into the binary so validation never touches the network.
pub(crate) const SCHEMA_JSON: &str = include_str!("../../../spec/smg.schema.json");

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(SCHEMA_JSON).expect("bundled schema is JSON (tested)");
        jsonschema::draft202012::new(&schema).expect("bundled schema compiles (tested)")
    })
}

/// Every schema violation, each mapped to its stable code.
pub(crate) fn check(value: &Value) -> Vec<Finding> {
    validator()
        .iter_errors(value)
        .map(|e| {
            let code = match e.kind() {
                Kind::Required { .. } => "SMG-E100",
                Kind::Type { .. } => "SMG-E101",
                Kind::Enum { .. } | Kind::Constant { .. } => "SMG-E102",
                Kind::Minimum { .. }
                | Kind::Maximum { .. }
                | Kind::ExclusiveMinimum { .. }
                | Kind::ExclusiveMaximum { .. } => "SMG-E103",
                Kind::Pattern { .. } | Kind::Format { .. } | Kind::MinLength { .. } => "SMG-E104",
                _ => "SMG-E109",
            };
            Finding::error(code, e.instance_path().as_str(), e.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_schema_compiles() {
        let _ = super::validator();
    }
}

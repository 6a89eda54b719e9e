//! JSON Schema (2020-12) validation against the published `spec/smg.schema.json`.

use std::collections::HashMap;
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value;

use super::Finding;
use crate::model::{is_date_time, is_full_date};

/// Where in the schema's definitions a vector index's embedding is defined.
pub(crate) const EMBEDDING: &str = "vectorIndex/properties/embeddings/items";
/// Where a block's time range is.
pub(crate) const TIME_RANGE: &str = "block/properties/timeRange";

/// The definitions (paths under `$defs`) whose members the model keeps as JSON.
pub(crate) const DEFINITIONS: [&str; 20] = [
    "access",
    "curation",
    "metadata",
    "workingMemory",
    "turn",
    "graph",
    "provenance",
    "node",
    "edge",
    "artifactVault",
    "artifact",
    "artifactVersion",
    "deepArchive",
    "block",
    TIME_RANGE,
    "vectorIndex",
    EMBEDDING,
    "collaborator",
    "privateContext",
    "sealedSection",
];

/// The published schema, compiled into the binary so validation never touches the network.
pub(crate) const SCHEMA_JSON: &str = include_str!("../../../spec/smg.schema.json");

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(SCHEMA_JSON).expect("bundled schema is JSON (tested)");
        compile(&schema)
    })
}

/// The schema's `format`s are asserted, each by the check the model's type runs
/// ([`crate::model::Timestamp`], [`crate::model::DateOrTime`]), so that what the
/// schema passes the typed reader reads.
fn compile(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_format("date-time", is_date_time)
        .with_format("date", is_full_date)
        .build(schema)
        .expect("bundled schema compiles (tested)")
}

/// Every schema violation, each mapped to its stable code.
pub(crate) fn check(value: &Value) -> Vec<Finding> {
    validator().iter_errors(value).map(finding).collect()
}

/// Every violation of definition `def` (a path under `$defs`, one of
/// [`DEFINITIONS`]) by `value`; none for another path.
pub(crate) fn check_against(def: &str, value: &Value) -> Vec<Finding> {
    static VALIDATORS: OnceLock<HashMap<&'static str, jsonschema::Validator>> = OnceLock::new();
    let validators = VALIDATORS.get_or_init(|| {
        let mut schema: Value =
            serde_json::from_str(SCHEMA_JSON).expect("bundled schema is JSON (tested)");
        let defs = schema["$defs"].take();
        DEFINITIONS
            .into_iter()
            .map(|d| {
                let one = serde_json::json!({"$ref": format!("#/$defs/{d}"), "$defs": defs});
                (d, compile(&one))
            })
            .collect()
    });
    validators
        .get(def)
        .map_or_else(Vec::new, |v| v.iter_errors(value).map(finding).collect())
}

fn finding(e: jsonschema::ValidationError<'_>) -> Finding {
    let at = e.instance_path().as_str();
    let time = |what: &str| {
        let message = format!("{} is not an RFC 3339 {what}", e.instance());
        Finding::error("SMG-E113", at, message)
    };
    match e.kind() {
        Kind::Format { format } if format == "date-time" => return time("date-time"),
        Kind::AnyOf { context } if only_formats(context) => return time("date or date-time"),
        _ => {}
    }
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
    Finding::error(code, at, e.to_string())
}

/// Whether every alternative of an `anyOf` failed on a `format` alone.
fn only_formats(context: &[Vec<jsonschema::ValidationError<'static>>]) -> bool {
    let errors = || context.iter().flatten();
    errors().next().is_some() && errors().all(|e| matches!(e.kind(), Kind::Format { .. }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_schema_compiles() {
        let _ = super::validator();
    }

    #[test]
    fn every_definition_compiles_on_its_own() {
        let one = serde_json::json!({"turn": 0, "role": "", "content": ""});
        let mut codes: Vec<_> = super::check_against("turn", &one)
            .into_iter()
            .map(|f| (f.code, f.pointer))
            .collect();
        codes.sort();
        assert_eq!(
            codes,
            [
                ("SMG-E103", "/turn".to_string()),
                ("SMG-E104", "/role".to_string())
            ]
        );
        for d in super::DEFINITIONS {
            let _ = super::check_against(d, &serde_json::json!({}));
        }
    }
}

//! The conformance suite: every fixture behaves as its sidecar says, every valid
//! fixture round-trips losslessly and deterministically, and the committed fixtures
//! are exactly what the generator writes.

mod generate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use smg_format::{
    validate::{Severity, ValidateOptions},
    Encoding, Limits, WriteOptions,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn files(sub: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(fixtures().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v
}

fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in ["valid", "invalid"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            out.insert(
                format!("{sub}/{}", p.file_name().unwrap().to_string_lossy()),
                std::fs::read(&p).unwrap(),
            );
        }
    }
    out
}

#[test]
fn committed_fixtures_are_what_the_generator_writes() {
    if std::env::var_os("SMG_BLESS").is_some() {
        generate::write_all(&fixtures());
    }
    let tmp = tempfile::tempdir().unwrap();
    generate::write_all(tmp.path());
    let want = read_tree(tmp.path());
    let have = read_tree(&fixtures());
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        have.keys().collect::<Vec<_>>(),
        "fixture set differs from the generator's; rerun with SMG_BLESS=1"
    );
    for (name, bytes) in &want {
        assert!(
            have[name] == *bytes,
            "{name} differs from the generator's output; rerun with SMG_BLESS=1"
        );
    }
}

#[test]
fn every_invalid_fixture_reports_exactly_its_expected_codes() {
    let sidecars = files("invalid", ".expect.json");
    assert!(
        sidecars.len() >= 30,
        "only {} invalid fixtures",
        sidecars.len()
    );
    let mut checked_packed = 0;
    for sidecar in sidecars {
        let expect: Value = serde_json::from_slice(&std::fs::read(&sidecar).unwrap()).unwrap();
        let smg = PathBuf::from(sidecar.to_string_lossy().replace(".expect.json", ".smg"));
        let mut options = ValidateOptions::default();
        if let Some(m) = expect["maxBytes"].as_u64() {
            options.limits = Limits::default().with_max_bytes(m);
        }
        let bytes = std::fs::read(&smg).unwrap();
        let report = smg_format::validate::validate(&bytes, &options);
        let owned = smg_format::validate::validate_owned(bytes.clone(), &options);
        assert_eq!(owned, report, "{}: validate_owned differs", smg.display());
        // Packed, the document its sections make is checked without parsing it again:
        // what the semantic checks find is what they find in its JSON.
        if let Ok((doc, _)) = smg_format::from_bytes(&bytes, &options.limits) {
            let packed = smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap();
            let json = smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
            let (packed, json) = (
                smg_format::validate::validate_owned(packed, &options),
                smg_format::validate::validate(&json, &options),
            );
            assert_eq!(packed.findings, json.findings, "{}", smg.display());
            checked_packed += 1;
        }
        let want: Vec<&str> = expect["codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(
            report.error_codes(),
            want,
            "{}: {:#?}",
            smg.display(),
            report.findings
        );
        for f in &report.findings {
            assert!(!f.message.is_empty(), "{}: empty message", smg.display());
        }
    }
    assert!(checked_packed >= 5, "{checked_packed} fixtures packed");
}

/// `a` equals `b`, except that members of `a` whose value is null may be absent from `b`
/// (the spec makes a null known field the same as an absent one).
fn equal_modulo_nulls(a: &Value, b: &Value, at: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => equal_modulo_nulls(v, w, &format!("{at}/{k}"))?,
                    None if v.is_null() => {}
                    None => return Err(format!("{at}/{k} was lost")),
                }
            }
            match y.keys().find(|k| !x.contains_key(*k)) {
                Some(k) => Err(format!("{at}/{k} was added")),
                None => Ok(()),
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .try_for_each(|(i, (v, w))| equal_modulo_nulls(v, w, &format!("{at}/{i}"))),
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => Ok(()),
        _ if a == b => Ok(()),
        _ => Err(format!("{at}: {a} became {b}")),
    }
}

#[test]
fn every_valid_fixture_validates_and_round_trips_losslessly() {
    let valid = files("valid", ".smg");
    assert!(valid.len() >= 8);
    for path in valid {
        let name = path.display();
        let bytes = std::fs::read(&path).unwrap();
        let report = smg_format::validate::validate(&bytes, &ValidateOptions::default());
        assert!(report.is_valid(), "{name}: {:#?}", report.findings);
        assert!(
            report
                .findings
                .iter()
                .all(|f| f.severity == Severity::Warning && f.code != "SMG-W021"),
            "{name}: {:#?}",
            report.findings
        );

        let (doc, encoding) = smg_format::from_bytes(&bytes, &Limits::default()).unwrap();
        let once = smg_format::codec::to_canonical_json(&doc).unwrap();
        let again = smg_format::codec::from_json_slice(&once).unwrap();
        assert_eq!(
            again, doc,
            "{name}: read → write → read changed the document"
        );
        assert_eq!(
            smg_format::codec::to_canonical_json(&again).unwrap(),
            once,
            "{name}: writing twice differs"
        );

        let (_, original) = smg_format::codec::decode_json(&bytes, &Limits::default()).unwrap();
        let original: Value = serde_json::from_slice(&original).unwrap();
        let written: Value = serde_json::from_slice(&once).unwrap();
        equal_modulo_nulls(&original, &written, "").unwrap_or_else(|e| panic!("{name}: {e}"));

        if let Ok(enc) = encoding.name().parse() {
            let rewritten = smg_format::to_bytes(&doc, &WriteOptions::new(enc)).unwrap();
            assert_eq!(
                rewritten,
                smg_format::to_bytes(&again, &WriteOptions::new(enc)).unwrap()
            );
        }
    }
}

/// The writers' gate, given the turns the archive's blocks hold, finds the first
/// error `smg validate`'s checks of the typed document find (its code, and its
/// pointer unless the error is an archived turn's), on every fixture that decodes;
/// it refuses exactly the documents those checks refuse.
#[test]
fn the_writers_gate_on_held_turns_refuses_what_the_full_checks_refuse() {
    use smg_format::validate::{check_document, Gate};
    let limits = Limits::default();
    let mut compared = 0;
    for path in files("valid", ".smg")
        .into_iter()
        .chain(files("invalid", ".smg"))
    {
        let bytes = std::fs::read(&path).unwrap();
        let Ok((doc, _)) = smg_format::from_bytes(&bytes, &limits) else {
            continue;
        };
        let Ok(archived) = smg_format::archive::read_archive(&doc, &limits) else {
            continue;
        };
        let held: Vec<_> = archived.iter().map(|a| &a.turn).collect();
        let gate = Gate::new(&doc, &limits, &held).finish(&doc);
        let full = check_document(&doc, &limits);
        let first = full.iter().find(|f| f.severity == Severity::Error);
        match (first, gate) {
            (None, Ok(())) => {}
            (Some(f), Err(smg_format::Error::Unwritable { code, pointer, .. })) => {
                assert_eq!(code, f.code, "{}", path.display());
                // A turn held by no block, or twice, has no block of its own to point at.
                if !pointer.starts_with("/deepArchive/blocks") {
                    assert_eq!(pointer, f.pointer, "{}", path.display());
                }
            }
            (f, g) => panic!("{}: full checks {f:?}, gate {g:?}", path.display()),
        }
        compared += 1;
    }
    assert!(compared >= 30, "only {compared} fixtures compared");
}

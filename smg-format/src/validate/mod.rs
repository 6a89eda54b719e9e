//! Validation: JSON Schema, semantic checks and JSON-LD expansion, each finding with
//! a stable `SMG-` code, a severity and a JSON Pointer.

mod fed;
mod fields;
mod frame;
pub(crate) mod jsonld;
mod path;
mod provenance;
mod schema;
mod semantic;
mod shapes;
mod split;
mod windows;

use std::borrow::Cow;

use serde::Serialize;

use crate::envelope::{self, Encoding};
use crate::limits::Limits;
use crate::model::{Document, Turn};
pub use fed::Fed;
pub use path::validate_path;
use split::Split;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file is not a valid v1 document.
    Error,
    /// The file is valid, but something deserves a look.
    Warning,
}

/// One problem found in a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable code, e.g. `SMG-E111`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// JSON Pointer (RFC 6901) to the value concerned; empty for the whole file.
    pub pointer: String,
    /// What is wrong, in words.
    pub message: String,
}

impl Finding {
    pub(crate) fn error(
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            severity: Severity::Error,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    pub(crate) fn warning(
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            severity: Severity::Warning,
            ..Finding::error(code, pointer, message)
        }
    }

    fn from_error(e: &crate::Error) -> Self {
        Finding::error(e.code(), e.pointer(), e.to_string())
    }
}

/// The outcome of validating one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The encoding detected, if the envelope could be read.
    pub encoding: Option<Encoding>,
    /// Everything found, in the order checked.
    pub findings: Vec<Finding>,
}

impl Report {
    /// True when no finding is an error.
    pub fn is_valid(&self) -> bool {
        self.findings.iter().all(|f| f.severity != Severity::Error)
    }

    /// The distinct codes of the error findings, sorted.
    pub fn error_codes(&self) -> Vec<&'static str> {
        let mut codes: Vec<_> = self
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.code)
            .collect();
        codes.sort_unstable();
        codes.dedup();
        codes
    }
}

impl Serialize for Encoding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// What to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidateOptions {
    /// Decoding limits.
    pub limits: Limits,
    /// Whether to expand the document as JSON-LD and report dropped keys.
    pub jsonld: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            limits: Limits::default(),
            jsonld: true,
        }
    }
}

/// Validate a whole file's bytes.
///
/// Decoding problems (envelope, compression, UTF-8, JSON syntax) end validation with
/// a single finding; after that every check runs and every problem is reported.
///
/// ```
/// use smg_format::{validate::{validate, ValidateOptions}};
/// let report = validate(br#"{"version":"1.0"}"#, &ValidateOptions::default());
/// assert!(!report.is_valid());
/// assert!(report.error_codes().contains(&"SMG-E100"));
/// ```
pub fn validate(bytes: &[u8], options: &ValidateOptions) -> Report {
    validate_input(Cow::Borrowed(bytes), options)
}

/// [`validate`] for bytes that are no longer needed: they are freed as soon as they
/// are decoded, so that a compressed or packed file's bytes are not held beside the
/// document through the checks. The report is [`validate`]'s.
pub fn validate_owned(bytes: Vec<u8>, options: &ValidateOptions) -> Report {
    validate_input(Cow::Owned(bytes), options)
}

fn validate_input(bytes: Cow<'_, [u8]>, options: &ValidateOptions) -> Report {
    let limits = &options.limits;
    let unreadable = |e: crate::Error| Report {
        encoding: None,
        findings: vec![Finding::from_error(&e)],
    };
    match envelope::detect(&bytes) {
        Ok(Encoding::Packed) => match crate::packed::unpack(&bytes, limits) {
            Ok(doc) => {
                drop(bytes);
                Report {
                    encoding: Some(Encoding::Packed),
                    findings: validate_document(doc, options),
                }
            }
            Err(e) => unreadable(e),
        },
        Ok(_) => match envelope::decode(&bytes, limits) {
            Ok((encoding, Cow::Owned(json))) => {
                drop(bytes);
                Report {
                    encoding: Some(encoding),
                    findings: validate_json(Cow::Owned(json), options),
                }
            }
            Ok((encoding, Cow::Borrowed(json))) => Report {
                encoding: Some(encoding),
                findings: validate_json(Cow::Borrowed(json), options),
            },
            Err(e) => unreadable(e),
        },
        Err(e) => unreadable(e),
    }
}

/// Validate a document in memory as [`validate`] validates the file it is written
/// to, the JSON-LD expansion aside: the schema's constraints on the typed fields, then
/// the semantic checks. What a writer runs before it replaces a file.
///
/// ```
/// use smg_format::model::{Edge, Graph, NonEmpty, Timestamp};
/// use smg_format::{validate::check_document, Document, Limits};
/// let mut doc = Document::new(Timestamp::from_static("2026-01-01T00:00:00Z"));
/// assert!(check_document(&doc, &Limits::default()).is_empty());
/// let id = |s: &str| NonEmpty::new(s).unwrap();
/// let edge = Edge::new(id("a"), id("uses"), id("b"));
/// doc.semantic_graph = Some(Graph { edges: Some(vec![edge]), ..Graph::default() });
/// let found = check_document(&doc, &Limits::default());
/// assert_eq!(found[0].code, "SMG-E111");
/// assert_eq!(found[0].pointer, "/semanticGraph/edges/0/from");
/// ```
pub fn check_document(doc: &Document, limits: &Limits) -> Vec<Finding> {
    let findings = fields::check(doc);
    if !findings.is_empty() {
        return findings;
    }
    semantic::check(doc, limits)
}

/// [`check_document`] as a writer's gate: `Ok` when the document would validate,
/// otherwise [`crate::Error::Unwritable`] naming the first error and its field.
pub fn ensure_valid(doc: &Document, limits: &Limits) -> crate::Result<()> {
    unwritable(check_document(doc, limits))
}

/// The gate of a writer that streams a large document out as it is built: only the
/// schema's constraints on the typed fields ([`check_document`]'s first half, a few
/// milliseconds for a million nodes), not the semantic checks, which decode every
/// archive block and artifact version again.
pub fn ensure_fields_valid(doc: &Document) -> crate::Result<()> {
    unwritable(fields::check(doc))
}

/// The gate of a writer that holds the archive's turns as it wrote them (an ingest,
/// an append, a merge), in two steps: what [`ensure_valid`] checks, with the turns
/// taken from the writer rather than decoded again from the blocks it has just
/// encoded. [`Gate::new`] checks the document's frame (vault, deep archive,
/// collaborators), which a writer that streams the document out may then take out
/// and compress ([`crate::codec::Head::compress`]); [`Gate::finish`] checks the rest
/// once it is final.
///
/// ```
/// use smg_format::model::{role, Ordinal, Turn, Timestamp};
/// use smg_format::{archive::append_turns, validate::Gate, Document, Limits};
/// let mut doc = Document::new(Timestamp::from_static("2026-01-01T00:00:00Z"));
/// let turns = vec![Turn::new(Ordinal::new(1).unwrap(), role::USER, "hello")];
/// append_turns(&mut doc, &turns, &Default::default()).unwrap();
/// let held: Vec<&Turn> = turns.iter().collect();
/// let gate = Gate::new(&doc, &Limits::default(), &held);
/// assert!(gate.finish(&doc).is_ok());
/// ```
pub struct Gate(frame::Frame);

impl Gate {
    /// Check `doc`'s frame, its archive holding `turns` (every turn of its unsealed
    /// blocks): each turn within the range of a block of its scope, none twice.
    pub fn new(doc: &Document, limits: &Limits, turns: &[&Turn]) -> Gate {
        Gate(frame::Frame::read(doc, limits, Some(turns)))
    }

    /// A gate of `doc`'s archive that its writer feeds block by block as it decodes
    /// or encodes them ([`Fed`]): for a writer that changes some blocks of a file it
    /// read whole.
    pub fn fed(doc: &Document) -> Fed {
        Fed::new(doc)
    }

    /// Check the rest of `doc` (every field, then the semantic rules);
    /// [`crate::Error::Unwritable`] naming the first error of either step.
    pub fn finish(self, doc: &Document) -> crate::Result<()> {
        // Both read the whole graph, one thread each; the fields' errors come first.
        let (fields, semantic) =
            rayon::join(|| fields::check(doc), || semantic::check_with(doc, self.0));
        if !fields.is_empty() {
            return unwritable(fields);
        }
        unwritable(semantic)
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").finish_non_exhaustive()
    }
}

fn unwritable(findings: Vec<Finding>) -> crate::Result<()> {
    let mut errors = findings
        .into_iter()
        .filter(|f| f.severity == Severity::Error);
    match errors.next() {
        None => Ok(()),
        Some(first) => Err(crate::Error::Unwritable {
            code: first.code,
            pointer: first.pointer,
            detail: first.message,
            more: errors.count(),
        }),
    }
}

/// The findings in `json`. The text is freed before the semantic checks, when it is
/// owned.
fn validate_json(json: Cow<'_, [u8]>, options: &ValidateOptions) -> Vec<Finding> {
    match Checked::text(&json, options) {
        Ok(checked) => checked.then_typed(
            move || {
                let doc = crate::codec::from_json_slice(&json);
                drop(json);
                doc
            },
            &options.limits,
        ),
        Err(end) => end,
    }
}

/// The findings in a document read from sections (a packed file's), as its canonical
/// JSON's text would give them: the schema and JSON-LD read its large lists an item
/// at a time, written from the typed items, so the document's text is never held.
fn validate_document(mut doc: Document, options: &ValidateOptions) -> Vec<Finding> {
    let checked = match Split::of_document(&mut doc) {
        Ok(split) => Checked::of_split(split, options, |e| Err(unparsed(&e))),
        Err(e) => Err(unparsed(&e)),
    };
    match checked {
        Ok(checked) => checked.then_typed(|| Ok(doc), &options.limits),
        Err(end) => end,
    }
}

/// The finding of JSON a parser refused.
fn unparsed(e: &serde_json::Error) -> Vec<Finding> {
    vec![Finding::from_error(&crate::Error::from_json(e, None))]
}

/// What the checks of a document's text found: the schema's findings, then
/// JSON-LD's, which come last in a report.
struct Checked {
    findings: Vec<Finding>,
    linked: Vec<Finding>,
}

impl Checked {
    /// The checks of `json`'s text; `Err` with the finding that ends validation
    /// (bytes that are not UTF-8, text that is not JSON, a version not read here).
    fn text(json: &[u8], options: &ValidateOptions) -> Result<Checked, Vec<Finding>> {
        let text = std::str::from_utf8(json).map_err(|e| {
            let err = crate::Error::InvalidUtf8 {
                offset: e.valid_up_to(),
            };
            vec![Finding::from_error(&err)]
        })?;
        // The large lists stay text, read an item at a time: no tree of the whole
        // document (1.3 GB for a million turns' 250 MB of JSON).
        let split = Split::parse(text).map_err(|e| unparsed(&e))?;
        Self::of_split(split, options, |_| {
            // An item a tree refuses (a number out of range): read whole, as the tree
            // reads it.
            let value = serde_json::from_str(text).map_err(|e| unparsed(&e))?;
            Ok(Split::whole(value))
        })
    }

    /// The checks of a document's text, split (`Split::parse`) or as a typed document
    /// would be (`Split::of_document`); `whole` gives the split to check instead when
    /// one of its large lists' items does not read as a tree.
    fn of_split<'a>(
        split: Split<'a>,
        options: &ValidateOptions,
        whole: impl FnOnce(serde_json::Error) -> Result<Split<'a>, Vec<Finding>>,
    ) -> Result<Checked, Vec<Finding>> {
        let version = split.rest.get("version");
        if let Err(e) = crate::codec::check_version(version.and_then(|v| v.as_str())) {
            if version.is_some_and(|v| v.is_string()) {
                return Err(vec![Finding::from_error(&e)]);
            }
        }
        let (split, findings) = match split.schema_findings() {
            Ok(found) => (split, found),
            Err(e) => {
                let split = whole(e)?;
                let found = split.schema_findings().unwrap_or_default();
                (split, found)
            }
        };
        // JSON-LD is checked before the typed document is made, and the split freed,
        // so that the document and the semantic checks do not hold it too.
        let linked = if options.jsonld {
            jsonld::check(&split)
        } else {
            Vec::new()
        };
        Ok(Checked { findings, linked })
    }

    /// The findings, with those of the typed document `doc` makes when the text had
    /// none: its counts against `limits`, then the semantic checks.
    fn then_typed(
        mut self,
        doc: impl FnOnce() -> crate::Result<Document>,
        limits: &Limits,
    ) -> Vec<Finding> {
        if self.findings.is_empty() {
            match doc() {
                // Counts over a limit would make the semantic checks cost what they
                // declare.
                Ok(doc) => match crate::counts::check_document(limits, &doc) {
                    Ok(()) => self.findings.extend(semantic::check_owned(doc, limits)),
                    Err(e) => self.findings.push(Finding::from_error(&e)),
                },
                Err(e) => self.findings.push(Finding::from_error(&e)),
            }
        }
        self.findings.extend(self.linked);
        self.findings
    }
}

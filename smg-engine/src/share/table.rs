//! Replacements: each value found gets one typed placeholder for the whole file
//! (`[EMAIL-1]` is the same address everywhere), numbered in the order first met.

use std::collections::{BTreeMap, HashMap};

use super::rules::{Hit, Kind, Rules};
use super::Finding;

/// The placeholders given so far, and the findings made.
#[derive(Debug, Default)]
pub(crate) struct Table {
    next: BTreeMap<Kind, u64>,
    given: HashMap<(Kind, String), String>,
    pub(crate) findings: Vec<Finding>,
}

impl Table {
    /// A table whose numbers start after any placeholder `text_seen` already holds,
    /// so that a file redacted before keeps its placeholders' meaning.
    pub(crate) fn after(seen: &BTreeMap<Kind, u64>) -> Table {
        Table {
            next: seen.clone(),
            ..Table::default()
        }
    }

    /// Record a value of `kind` found at `section`, `place`, giving it its
    /// placeholder if it is new.
    pub(crate) fn register_value(&mut self, kind: Kind, value: &str, section: &str, place: String) {
        let key = (kind, value.to_string());
        if !self.given.contains_key(&key) {
            let n = self.next.entry(kind).or_insert(0);
            *n += 1;
            let tag = format!("[{}-{}]", kind.tag(), n);
            self.given.insert(key, tag);
        }
        self.findings.push(Finding {
            kind,
            section: section.to_string(),
            place,
        });
    }

    /// Record `text`'s hits (found at `section`, `place`) and give the text with each
    /// replaced.
    pub(crate) fn apply(
        &mut self,
        text: &str,
        hits: &[Hit],
        section: &str,
        place: &dyn Fn() -> String,
    ) -> String {
        for h in hits {
            self.register_value(h.kind, &text[h.start..h.end], section, place());
        }
        self.replace(text, hits)
    }

    /// `text` with each hit replaced by its placeholder (every hit registered before).
    pub(crate) fn replace(&self, text: &str, hits: &[Hit]) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for h in hits {
            out.push_str(&text[at..h.start]);
            match self.given.get(&(h.kind, text[h.start..h.end].to_string())) {
                Some(tag) => out.push_str(tag),
                None => out.push_str(&format!("[{}]", h.kind.tag())),
            }
            at = h.end;
        }
        out.push_str(&text[at..]);
        out
    }

    /// How many distinct values of each kind were replaced.
    pub(crate) fn distinct(&self) -> BTreeMap<Kind, usize> {
        let mut out = BTreeMap::new();
        for (kind, _) in self.given.keys() {
            *out.entry(*kind).or_insert(0) += 1;
        }
        out
    }
}

/// Find and replace in one string at once: register its hits and give the new text
/// (`None` when nothing was found).
pub(crate) fn redact(
    rules: &Rules,
    table: &mut Table,
    text: &str,
    section: &str,
    place: &dyn Fn() -> String,
) -> Option<String> {
    let hits = rules.hits(text);
    (!hits.is_empty()).then(|| table.apply(text, &hits, section, place))
}

/// The highest placeholder number of each kind in `text` (`[EMAIL-3]` → 3).
pub(crate) fn note_placeholders(text: &str, seen: &mut BTreeMap<Kind, u64>) {
    let mut rest = text;
    while let Some(i) = rest.find('[') {
        rest = &rest[i + 1..];
        let Some(end) = rest.find(']').filter(|e| *e <= 24) else {
            continue;
        };
        let inner = &rest[..end];
        let Some((tag, n)) = inner.rsplit_once('-') else {
            continue;
        };
        let (Some(kind), Ok(n)) = (
            Kind::ALL.into_iter().find(|k| k.tag() == tag),
            n.parse::<u64>(),
        ) else {
            continue;
        };
        raise(seen, kind, n);
    }
}

/// `seen`'s number for `kind` raised to `n` at least.
pub(crate) fn raise(seen: &mut BTreeMap<Kind, u64>, kind: Kind, n: u64) {
    let m = seen.entry(kind).or_insert(0);
    *m = (*m).max(n);
}

//! The vault as the page shows it: each artifact's versions, each beside the one
//! before it, line by line.

use serde::Serialize;
use smg_format::vault::rebuild_versions;
use smg_format::Document;

/// One row of a side-by-side diff: `[kind, old line no, old text, new line no, new
/// text]`. Kinds: `" "` same, `"-"` removed, `"+"` added, `"~"` changed, `"…"` a run
/// of unchanged lines left out (its length in the old text's place).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Row(
    pub(crate) &'static str,
    pub(crate) Option<usize>,
    pub(crate) String,
    pub(crate) Option<usize>,
    pub(crate) String,
);

/// One version and how it differs from the one before it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct VersionView {
    pub(crate) v: u64,
    pub(crate) timestamp: Option<String>,
    pub(crate) hash: Option<String>,
    pub(crate) lines: usize,
    pub(crate) rows: Vec<Row>,
}

/// One artifact.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ArtifactView {
    pub(crate) id: String,
    pub(crate) name: String,
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) language: Option<String>,
    pub(crate) versions: Vec<VersionView>,
    /// The linked file that holds it; left out for the file asked.
    #[serde(skip_serializing_if = "crate::graph::is_first")]
    pub(crate) file: usize,
}

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;

/// Every artifact of each of `docs`' vaults, by file and id, every version rebuilt.
pub(crate) fn build(docs: &[&Document]) -> smg_engine::Result<Vec<ArtifactView>> {
    let mut out = Vec::new();
    for (file, doc) in docs.iter().enumerate() {
        out.extend(of_file(doc, file)?);
    }
    Ok(out)
}

/// Every artifact of `doc`'s vault, the `file`th of the page.
fn of_file(doc: &Document, file: usize) -> smg_engine::Result<Vec<ArtifactView>> {
    let artifacts = doc
        .artifact_vault
        .iter()
        .flat_map(|v| v.artifacts.iter().flatten());
    let mut out = Vec::new();
    for (id, a) in artifacts {
        let texts = rebuild_versions(id, a)?;
        let versions = a
            .versions
            .iter()
            .zip(&texts)
            .enumerate()
            .map(|(k, (v, text))| VersionView {
                v: v.v.get(),
                timestamp: v.timestamp.as_ref().map(|t| t.to_string()),
                hash: v.hash.as_deref().map(str::to_string),
                lines: text.lines().count(),
                rows: side_by_side(if k == 0 { "" } else { &texts[k - 1] }, text),
            })
            .collect();
        out.push(ArtifactView {
            id: id.clone(),
            name: a.filename.clone().unwrap_or_else(|| id.clone()),
            kind: a.kind.to_string(),
            language: a.language.clone(),
            versions,
            file,
        });
    }
    Ok(out)
}

/// `old` and `new` side by side: the changed runs, removed lines paired with the lines
/// that replace them, and [`CONTEXT`] lines around, the rest left out.
pub(crate) fn side_by_side(old: &str, new: &str) -> Vec<Row> {
    let patch = diffy::DiffOptions::new()
        .set_context_len(CONTEXT)
        .create_patch(old, new);
    let old_lines = old.lines().count();
    let mut rows = Vec::new();
    let mut next_old = 1;
    for hunk in patch.hunks() {
        let (mut o, mut n) = (hunk.old_range().start(), hunk.new_range().start());
        // An empty side's range starts one line early (`@@ -0,0 …`).
        o = o.max(1);
        n = n.max(1);
        gap(&mut rows, o.saturating_sub(next_old));
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        for line in hunk.lines() {
            match line {
                diffy::Line::Delete(t) => removed.push(t.trim_end_matches('\n')),
                diffy::Line::Insert(t) => added.push(t.trim_end_matches('\n')),
                diffy::Line::Context(t) => {
                    pair(&mut rows, &mut removed, &mut added, &mut o, &mut n);
                    let t = t.trim_end_matches('\n').to_owned();
                    rows.push(Row(" ", Some(o), t.clone(), Some(n), t));
                    o += 1;
                    n += 1;
                }
            }
        }
        pair(&mut rows, &mut removed, &mut added, &mut o, &mut n);
        next_old = o;
    }
    gap(&mut rows, (old_lines + 1).saturating_sub(next_old));
    rows
}

fn gap(rows: &mut Vec<Row>, n: usize) {
    if n > 0 {
        rows.push(Row("…", Some(n), String::new(), None, String::new()));
    }
}

/// A run of removed lines beside the run of added lines that followed it.
fn pair(
    rows: &mut Vec<Row>,
    removed: &mut Vec<&str>,
    added: &mut Vec<&str>,
    o: &mut usize,
    n: &mut usize,
) {
    for k in 0..removed.len().max(added.len()) {
        let (l, r) = (removed.get(k), added.get(k));
        let kind = match (l, r) {
            (Some(_), Some(_)) => "~",
            (Some(_), None) => "-",
            _ => "+",
        };
        let left = l.map(|_| {
            *o += 1;
            *o - 1
        });
        let right = r.map(|_| {
            *n += 1;
            *n - 1
        });
        rows.push(Row(
            kind,
            left,
            l.map_or_else(String::new, |t| (*t).to_owned()),
            right,
            r.map_or_else(String::new, |t| (*t).to_owned()),
        ));
    }
    removed.clear();
    added.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(rows: &[Row]) -> String {
        rows.iter().map(|r| r.0).collect()
    }

    #[test]
    fn a_first_version_is_all_added() {
        let rows = side_by_side("", "a\nb\n");
        assert_eq!(kinds(&rows), "++");
        assert_eq!(rows[1], Row("+", None, String::new(), Some(2), "b".into()));
    }

    #[test]
    fn changes_pair_up_and_far_lines_are_left_out() {
        let old: String = (1..=20).map(|k| format!("line {k}\n")).collect();
        let new = old
            .replace("line 10\n", "line ten\n")
            .replace("line 11\n", "");
        let rows = side_by_side(&old, &new);
        // 6 unchanged lines left out, 3 of context, ten for 10, 11 removed, 3, 6 left.
        assert_eq!(kinds(&rows), "…   ~-   …");
        assert_eq!(rows[0].1, Some(6));
        assert_eq!(
            rows[4],
            Row("~", Some(10), "line 10".into(), Some(10), "line ten".into())
        );
        assert_eq!(
            rows[5],
            Row("-", Some(11), "line 11".into(), None, String::new())
        );
        assert_eq!(
            rows[6],
            Row(" ", Some(12), "line 12".into(), Some(11), "line 12".into())
        );
        assert_eq!(rows[9].1, Some(6));
    }

    #[test]
    fn the_same_text_is_one_gap() {
        assert_eq!(kinds(&side_by_side("a\nb\n", "a\nb\n")), "…");
    }
}

//! Counts and sizes of a document's sections, for `smg info`.

use serde::Serialize;

use crate::archive::parse_turn_range;
use crate::model::Document;

/// What a document holds: counts per section and canonical bytes per section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Stats {
    /// The document's `version`.
    pub version: String,
    /// Nodes in all graphs.
    pub nodes: usize,
    /// Edges in all graphs.
    pub edges: usize,
    /// Artifacts in the vault.
    pub artifacts: usize,
    /// Artifact versions in the vault.
    pub artifact_versions: usize,
    /// Archive blocks.
    pub blocks: usize,
    /// Turns the archive's block ranges cover.
    pub archived_turns: u64,
    /// Turns in working memory's recent context.
    pub recent_turns: usize,
    /// Collaborators.
    pub collaborators: usize,
    /// Sealed sections: id and sealed bytes (their content is not readable here).
    pub sealed: Vec<(String, u64)>,
    /// Canonical JSON bytes of each top-level field, in key order.
    pub section_bytes: Vec<(String, u64)>,
    /// Canonical JSON bytes of the whole document.
    pub json_bytes: u64,
}

/// Count what `doc` holds.
///
/// ```
/// let doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let stats = smg_format::stats::stats(&doc);
/// assert_eq!(stats.nodes, 0);
/// assert!(stats.section_bytes.iter().any(|(k, _)| k == "metadata"));
/// ```
pub fn stats(doc: &Document) -> Stats {
    let graphs = doc.graphs();
    let vault = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref());
    let blocks = doc
        .deep_archive
        .as_ref()
        .map(|a| a.blocks())
        .unwrap_or_default();
    // Each section is written alone to be counted, never the whole document.
    let (mut section_bytes, json_bytes) = crate::canonical::member_lengths(doc).unwrap_or_default();
    section_bytes.sort();
    Stats {
        version: doc.version.to_string(),
        nodes: graphs.iter().map(|(_, g)| g.nodes().len()).sum(),
        edges: graphs.iter().map(|(_, g)| g.edges().len()).sum(),
        artifacts: vault.map_or(0, |a| a.len()),
        artifact_versions: vault.map_or(0, |a| a.values().map(|x| x.versions.len()).sum()),
        blocks: blocks.len(),
        archived_turns: blocks
            .iter()
            .filter_map(|b| parse_turn_range(&b.turn_range))
            .map(|(a, b)| b - a + 1)
            .sum(),
        recent_turns: doc
            .working_memory
            .as_ref()
            .and_then(|w| w.recent_context.as_ref())
            .map_or(0, Vec::len),
        collaborators: doc.collaborators.as_ref().map_or(0, Vec::len),
        sealed: doc
            .sealed_sections
            .iter()
            .flatten()
            .map(|s| (s.id.to_string(), s.size))
            .collect(),
        json_bytes,
        section_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_counted_as_the_whole_canonical_text_holds_them() {
        let mut doc = crate::test_support::full_fixture();
        doc.extra.insert(
            "x-newer".into(),
            serde_json::json!({"é\u{1F600}": [1.50, null]}),
        );
        let text = crate::canonical::to_vec(&doc).unwrap();
        let whole: std::collections::BTreeMap<String, &serde_json::value::RawValue> =
            serde_json::from_slice(&text).unwrap();
        let stats = stats(&doc);
        assert_eq!(stats.json_bytes, text.len() as u64);
        let from_whole: Vec<(String, u64)> = whole
            .into_iter()
            .map(|(k, v)| (k, v.get().len() as u64))
            .collect();
        assert_eq!(stats.section_bytes, from_whole);
        assert!(stats.section_bytes.iter().any(|(k, _)| k == "x-newer"));
    }
}

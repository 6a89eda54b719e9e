//! A document's counts against the reader's limits, checked as soon as it is read.

use crate::archive::parse_turn_range;
use crate::error::Result;
use crate::limits::{Bound, Limits};
use crate::model::{escape_pointer, Document};

/// Check a document's counts against these limits (archive blocks by their declared
/// turn ranges: what a block really holds is checked when it is decoded).
pub(crate) fn check_document(limits: &Limits, doc: &Document) -> Result<()> {
    check_lean(limits, doc, (0, 0))
}

/// [`check_document`] of a document read without `(nodes, edges)` of its semantic
/// graph ([`crate::merge::Lean`]): they count as if they were there.
pub(crate) fn check_lean(limits: &Limits, doc: &Document, left_out: (u64, u64)) -> Result<()> {
    let (mut nodes, mut edges) = left_out;
    for (_, graph) in doc.graphs() {
        nodes += graph.nodes().len() as u64;
        edges += graph.edges().len() as u64;
    }
    limits.check(Bound::Nodes, nodes, "/semanticGraph")?;
    limits.check(Bound::Edges, edges, "/semanticGraph")?;
    let recent = doc
        .working_memory
        .as_ref()
        .and_then(|w| w.recent_context.as_deref())
        .unwrap_or_default();
    for (i, t) in recent.iter().enumerate() {
        let at = format!("/workingMemory/recentContext/{i}/content");
        limits.check(Bound::TurnBytes, t.content.len() as u64, &at)?;
    }
    let blocks = doc.deep_archive.iter().flat_map(|a| a.blocks());
    let archived = blocks
        .filter_map(|b| parse_turn_range(&b.turn_range))
        .fold(0u64, |n, (a, z)| n.saturating_add(z.saturating_sub(a) + 1));
    limits.check(
        Bound::Turns,
        archived.saturating_add(recent.len() as u64),
        "/",
    )?;
    check_vault(limits, doc)
}

fn check_vault(limits: &Limits, doc: &Document) -> Result<()> {
    let Some(artifacts) = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref())
    else {
        return Ok(());
    };
    limits.check(
        Bound::Artifacts,
        artifacts.len() as u64,
        "/artifactVault/artifacts",
    )?;
    for (id, art) in artifacts {
        let at = format!("/artifactVault/artifacts/{}/versions", escape_pointer(id));
        limits.check(Bound::Versions, art.versions.len() as u64, &at)?;
        let mut run = 0u64;
        for v in &art.versions {
            run = if v.content.is_some() { 0 } else { run + 1 };
            limits.check(Bound::DeltaChain, run, &at)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::OverLimit;
    use crate::test_support::full_fixture;
    use crate::Error;

    fn fixture(name: &str) -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/valid");
        std::fs::read(dir.join(name)).unwrap()
    }

    #[test]
    fn each_count_is_refused_one_past_what_the_file_has() {
        let doc = full_fixture();
        assert!(check_document(&Limits::default(), &doc).is_ok());
        for bound in Bound::ALL {
            // Raise the limit to each offender's count until the file passes: the last
            // limit is the file's largest count, and one less is refused.
            let mut limit = 0;
            while let Err(err) = check_document(&Limits::default().with(bound, limit), &doc) {
                assert_eq!(err.code(), bound.code(), "{err}");
                assert!(err.to_string().contains(bound.flag()), "{err}");
                let Error::OverLimit(OverLimit { found, .. }) = err else {
                    panic!("{bound:?}: {err}");
                };
                assert!(found > limit, "{bound:?}: {found} over {limit}");
                limit = found;
            }
            assert!(limit > 0, "{bound:?}: the fixture has some");
            let below = Limits::default().with(bound, limit - 1);
            assert!(check_document(&below, &doc).is_err(), "{bound:?}");
        }
    }

    #[test]
    fn every_reader_refuses_a_file_over_a_limit_with_its_code() {
        for name in [
            "full.smg",
            "full-brotli.smg",
            "full-zstd.smg",
            "full-packed.smg",
        ] {
            let limits = Limits::default().with(Bound::Nodes, 1);
            let err = crate::from_bytes(&fixture(name), &limits).unwrap_err();
            assert_eq!(err.code(), "SMG-E024", "{name}: {err}");
            assert_eq!(err.pointer(), "/semanticGraph");
        }
    }

    #[test]
    fn a_turn_joined_from_parts_stops_at_the_turn_byte_limit() {
        let (doc, _) = crate::from_bytes(&fixture("code-chat.smg"), &Limits::default()).unwrap();
        let longest = crate::archive::read_archive(&doc, &Limits::default())
            .unwrap()
            .iter()
            .map(|t| t.turn.content.len() as u64)
            .max()
            .unwrap();
        let at_limit = Limits::default().with(Bound::TurnBytes, longest);
        assert!(crate::archive::read_archive(&doc, &at_limit).is_ok());
        let below = Limits::default().with(Bound::TurnBytes, longest - 1);
        let err = crate::archive::read_archive(&doc, &below).unwrap_err();
        assert_eq!(err.code(), "SMG-E027", "{err}");
        assert!(err.to_string().contains("archive block"), "{err}");
    }

    #[test]
    fn a_block_holding_more_turns_than_the_limit_is_refused() {
        let (doc, _) = crate::from_bytes(&fixture("full.smg"), &Limits::default()).unwrap();
        let block = &doc.deep_archive.as_ref().unwrap().blocks()[0];
        let err = crate::archive::decode_block(
            block,
            Default::default(),
            None,
            &Limits::default().with(Bound::Turns, 1),
        )
        .unwrap_err();
        assert_eq!(err.code(), "SMG-E026", "{err}");
    }
}

//! Ids of files written before derived ids were stable (spec §11): such files named
//! segments, decisions and memories by archive position (`seg-N`, `dec-N-K`,
//! `mem-N-K`), which mean other things on another branch. Every ingest (and so
//! `smg migrate` and a merge) renames them to the ids the turns give now, in every
//! graph and every reference, so that the edges and related nodes someone authored
//! towards them stay true when the graph is built again.

use smg_format::archive::{no_source, read_archive_with};
use smg_format::model::{NonEmpty, Turn};
use smg_format::{Document, Limits};

use crate::error::Result;

use super::graph::{turn_ref, CREATED_BY};
use crate::fast::FastMap;

/// Rename the legacy ids of `doc`'s derived nodes to the ids its archived turns give
/// now (spec §11), in every graph and reference; returns how many were renamed.
///
/// Ingest does it on every run (so `smg migrate`, which ingests nothing, and a merge);
/// the archive is read only when a legacy id is found.
///
/// ```
/// let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
/// assert_eq!(smg_engine::ingest::migrate(&mut doc, &Default::default()).unwrap(), 0);
/// ```
pub fn migrate(doc: &mut Document, limits: &Limits) -> Result<usize> {
    if !needs_migration(doc) {
        return Ok(0);
    }
    let archived = read_archive_with(doc, limits, &no_source)?;
    Ok(legacy_ids(doc, archived.iter().map(|a| &a.turn)))
}

/// Whether `id` is a derived node's id from before they were stable.
pub(crate) fn is_legacy(id: &str) -> bool {
    legacy(id).is_some()
}

/// Whether `doc` has a derived node of a legacy id.
pub(crate) fn needs_migration(doc: &Document) -> bool {
    doc.graphs()
        .into_iter()
        .flat_map(|(_, g)| g.nodes())
        .any(|n| n.is_derived() && is_legacy(&n.id))
}

/// [`migrate`], given `doc`'s archived turns.
pub(crate) fn legacy_ids<'t>(
    doc: &mut Document,
    archived: impl Iterator<Item = &'t Turn>,
) -> usize {
    let graphs = doc.graphs();
    let legacy: Vec<(&str, Legacy<'_>)> = graphs
        .iter()
        .flat_map(|(_, g)| g.nodes())
        .filter(|n| n.created_by.as_deref() == Some(CREATED_BY))
        .filter_map(|n| Some((n.id.as_str(), legacy(&n.id)?)))
        .collect();
    if legacy.is_empty() {
        return 0;
    }
    let by_number: FastMap<u64, &Turn> = archived.map(|t| (t.turn.get(), t)).collect();
    let renamed: FastMap<String, NonEmpty> = legacy
        .into_iter()
        .filter_map(|(id, l)| {
            let t = by_number.get(&l.turn).filter(|t| t.message_id.is_some())?;
            let r = turn_ref(t);
            let new = match l.ordinal {
                Some(k) => format!("{}-{r}-{k}", l.kind),
                None => format!("{}-{r}", l.kind),
            };
            Some((id.to_string(), NonEmpty::new(new).ok()?))
        })
        .collect();
    if renamed.is_empty() {
        return 0;
    }
    let rename = |id: &mut NonEmpty| {
        if let Some(new) = renamed.get(id.as_str()) {
            id.clone_from(new);
        }
    };
    let rename_related = |id: &mut String| {
        if let Some(new) = renamed.get(id.as_str()) {
            *id = new.to_string();
        }
    };
    for g in doc.graphs_mut() {
        for node in g.nodes.iter_mut().flatten() {
            rename(&mut node.id);
            node.related_nodes
                .iter_mut()
                .flatten()
                .for_each(rename_related);
        }
        for edge in g.edges.iter_mut().flatten() {
            rename(&mut edge.from);
            rename(&mut edge.to);
        }
    }
    renamed.len()
}

/// A derived id of the position-based form: its kind, turn number and ordinal.
struct Legacy<'a> {
    kind: &'a str,
    turn: u64,
    ordinal: Option<&'a str>,
}

/// `seg-N`, `dec-N-K` or `mem-N-K`, read. A turn without a message id keeps its
/// number as its name, so its nodes are found but not renamed.
fn legacy(id: &str) -> Option<Legacy<'_>> {
    let (kind, rest) = id.split_once('-')?;
    let (n, ordinal) = match kind {
        "seg" => (rest, None),
        "dec" | "mem" => {
            let (n, k) = rest.split_once('-')?;
            (n, Some(k))
        }
        _ => return None,
    };
    // Stable ids are 16 hex digits, which can all be decimal: longer than any number.
    let digits = |s: &str| !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(n) || !ordinal.is_none_or(digits) {
        return None;
    }
    Some(Legacy {
        kind,
        turn: n.parse().ok()?,
        ordinal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use smg_format::model::{Edge, Graph, Node};

    fn archived(n: u64, message: Option<&str>) -> Turn {
        Turn {
            conversation_id: Some("c".into()),
            message_id: message.map(Into::into),
            ..Turn::new(
                smg_format::model::Ordinal::new(n).unwrap(),
                smg_format::model::role::USER,
                format!("turn {n}"),
            )
        }
    }

    #[test]
    fn legacy_ids_and_the_edges_to_them_are_renamed() {
        let turns = [archived(1, Some("m1")), archived(2, None)];
        let node = |id: &str, by: Option<&str>| Node {
            created_by: by.map(Into::into),
            ..Node::new(NonEmpty::new(id).unwrap(), NonEmpty::from_static("segment"))
        };
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        doc.semantic_graph = Some(Graph {
            nodes: Some(vec![
                node("seg-1", Some(CREATED_BY)),
                node("mem-1-2", Some(CREATED_BY)),
                node("seg-2", Some(CREATED_BY)),
                node("seg-1-note", None),
                Node {
                    related_nodes: Some(vec!["mem-1-2".into()]),
                    ..node("mine", None)
                },
            ]),
            edges: Some(vec![Edge::new(
                NonEmpty::from_static("mine"),
                NonEmpty::from_static("mentions"),
                NonEmpty::from_static("seg-1"),
            )]),
            ..Graph::default()
        });
        assert_eq!(legacy_ids(&mut doc, turns.iter()), 2);
        let r = turn_ref(&turns[0]);
        let g = doc.semantic_graph.as_ref().unwrap();
        let ids: Vec<&str> = g.nodes.iter().flatten().map(|n| n.id.as_str()).collect();
        let (seg, mem) = (format!("seg-{r}"), format!("mem-{r}-2"));
        assert_eq!(ids, [seg.as_str(), &mem, "seg-2", "seg-1-note", "mine"]);
        assert_eq!(g.edges.as_ref().unwrap()[0].to, seg);
        assert_eq!(g.nodes.as_ref().unwrap()[4].related_nodes, Some(vec![mem]));
        assert_eq!(
            legacy_ids(&mut doc, turns.iter()),
            0,
            "a second run finds none"
        );
    }
}

//! The names and technical terms counted over the file, and the concept and entity
//! nodes they become (spec §11: an entity's id is the SHA-256 of its name).

use sha2::{Digest, Sha256};
use smg_format::model::{Node, NonEmpty, Unit};

use super::graph::{round, Graph, CREATED_BY};
use super::names::NameKind;
use crate::fast::FastMap;

/// A name or term counted over the file.
pub(super) struct Mention {
    display: String,
    count: usize,
    technical: usize,
    kinds: [usize; 4],
    first: u64,
    last: u64,
}

impl Mention {
    fn new(display: &str, turn: u64) -> Self {
        Mention {
            display: display.to_string(),
            count: 0,
            technical: 0,
            kinds: [0; 4],
            first: turn,
            last: turn,
        }
    }

    /// The node of this name or term: `base` confidence and 0.1 more per mention, at
    /// most 1.
    fn node(&self, id: NonEmpty, kind: NonEmpty, base: f64) -> Node {
        Node {
            label: Some(self.display.clone()),
            confidence: Some(Unit::clamped(round(
                (base + 0.1 * self.count as f64).min(1.0),
            ))),
            first_mentioned: Some(self.first),
            last_mentioned: Some(self.last),
            created_by: Some(CREATED_BY.into()),
            ..Node::new(id, kind)
        }
    }
}

/// Names (or terms) counted, in the order first met, and each one's place in that
/// list by its lower case.
pub(super) type Counted = (Vec<(String, Mention)>, FastMap<String, usize>);

/// Count one mention of `display` in turn `turn`, as a name of `kind` if known, in a
/// technical turn or not.
pub(super) fn count(
    (list, index): &mut Counted,
    display: &str,
    turn: u64,
    kind: Option<NameKind>,
    technical: bool,
) {
    let key = display.trim().to_lowercase();
    let at = match index.get(&key) {
        Some(&at) => at,
        None => {
            index.insert(key.clone(), list.len());
            list.push((key, Mention::new(display, turn)));
            list.len() - 1
        }
    };
    let m = &mut list[at].1;
    m.count += 1;
    m.technical += usize::from(technical);
    m.last = turn;
    if let Some(k) = kind {
        m.kinds[k as usize] += 1;
    }
}

/// Entity ids (spec §11): SHA-256 of the trimmed, lower-cased name, in hex.
pub(crate) fn entity_id(name: &str) -> NonEmpty {
    NonEmpty::hex(Sha256::digest(name.trim().to_lowercase().as_bytes()).into())
}

/// Concepts: technical terms used three times or more, and names said mostly in
/// technical turns three times or more. Returns concept id by lower-cased term.
fn concepts(
    g: &mut Graph,
    names: &[(String, Mention)],
    terms: &[(String, Mention)],
) -> FastMap<String, String> {
    let mut ids = FastMap::default();
    let technical_names = names
        .iter()
        .filter(|(_, m)| m.count >= 3 && m.technical * 2 >= m.count);
    for (key, m) in terms
        .iter()
        .filter(|(_, m)| m.count >= 3)
        .chain(technical_names)
    {
        let slug: String = key
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '-' })
            .collect();
        let id = NonEmpty::joined(&NonEmpty::from_static("concept-"), slug);
        if let Some(node) = g.get_mut(&id) {
            node.first_mentioned = node.first_mentioned.min(Some(m.first));
            node.last_mentioned = node.last_mentioned.max(Some(m.last));
        } else {
            g.add(Node {
                keywords: Some(vec![key.into()]),
                ..m.node(id.clone(), NonEmpty::from_static("concept"), 0.4)
            });
        }
        ids.insert(key.clone(), id.into_string());
    }
    ids
}

/// The concept and entity nodes, by the lower case of the names they go by.
#[derive(Default)]
pub(crate) struct Named {
    /// Concept ids by lower-cased term.
    pub(super) concepts: FastMap<String, String>,
    /// Entity ids by lower-cased name.
    entities: FastMap<String, String>,
}

impl Named {
    /// The concept and entity nodes of the `names` and technical `terms` counted over
    /// the file, added to `g`.
    pub(super) fn add(
        g: &mut Graph,
        names: &[(String, Mention)],
        terms: &[(String, Mention)],
    ) -> Self {
        let concepts = concepts(g, names, terms);
        let entities = entities(g, names, &concepts);
        Named { concepts, entities }
    }

    /// The id of the concept or else the entity a name in lower case is, if either
    /// is in the graph.
    pub(crate) fn id(&self, lower: &str) -> Option<&String> {
        self.concepts
            .get(lower)
            .or_else(|| self.entities.get(lower.trim()))
    }

    /// The id of the concept a name in lower case is, if it is in the graph.
    pub(crate) fn concept(&self, lower: &str) -> Option<&String> {
        self.concepts.get(lower)
    }
}

/// Entities: people, places, organisations; id = SHA-256 of the normalised name.
/// Gives each one's id by its name in lower case.
fn entities(
    g: &mut Graph,
    names: &[(String, Mention)],
    concepts: &FastMap<String, String>,
) -> FastMap<String, String> {
    let mut ids = FastMap::default();
    for (key, m) in names {
        if concepts.contains_key(key) || key.chars().count() < 3 {
            continue;
        }
        let kinds = ["person", "place", "organization", "other"];
        let best = (0..4)
            .max_by(|a, b| m.kinds[*a].cmp(&m.kinds[*b]).then(b.cmp(a)))
            .unwrap_or(3);
        let kind = if m.kinds[best] == 0 {
            "other"
        } else {
            kinds[best]
        };
        let id = entity_id(key);
        ids.insert(key.clone(), id.to_string());
        g.add(Node {
            tags: Some(vec![kind.into()]),
            ..m.node(id, NonEmpty::from_static("entity"), 0.5)
        });
    }
    ids
}

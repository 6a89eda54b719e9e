//! Constraints and indexes (spec §19.5): the M3S seed's, plus the keys the bridge
//! merges on, in Neo4j 5 syntax or FalkorDB's.

use crate::bolt::{Connection, Value};
use crate::mapping::{tier_label, MEMORY_LABEL, NODE_LABEL};
use crate::Error;
use smg_format::model::Scope;

/// Which server's Cypher to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// Neo4j 5: constraints, `IF NOT EXISTS`, vector indexes on lists of floats.
    #[default]
    Neo4j,
    /// FalkorDB: range indexes only; no constraints, no `IF NOT EXISTS`.
    FalkorDb,
}

impl Dialect {
    /// Parses `neo4j` or `falkordb`.
    pub fn parse(name: &str) -> Option<Dialect> {
        match name {
            "neo4j" => Some(Dialect::Neo4j),
            "falkordb" => Some(Dialect::FalkorDb),
            _ => None,
        }
    }
}

/// One index or constraint.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    /// Its name (Neo4j names them; FalkorDB does not).
    pub name: &'static str,
    /// The label indexed.
    pub label: &'static str,
    /// The properties, in order.
    pub props: Vec<&'static str>,
    /// What kind of index.
    pub kind: Kind,
}

/// The kinds of index the schema uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A uniqueness constraint (Neo4j; a plain index on FalkorDB).
    Unique,
    /// A range index.
    Range,
    /// A cosine vector index of this many dimensions.
    Vector(u64),
}

/// The schema: keys first, then the seed's indexes, then a vector index per tier
/// when the memory has node embeddings of `dimensions`.
pub fn indexes(dimensions: Option<u64>) -> Vec<Index> {
    let personal = tier_label(Scope::Personal);
    let departmental = tier_label(Scope::Departmental);
    let global = tier_label(Scope::Global);
    let mut all = vec![
        Index {
            name: "smg_node_key",
            label: NODE_LABEL,
            props: vec!["memory", "id"],
            kind: Kind::Unique,
        },
        Index {
            name: "smg_memory_key",
            label: MEMORY_LABEL,
            props: vec!["memory"],
            kind: Kind::Unique,
        },
        Index {
            name: "smg_node_id",
            label: NODE_LABEL,
            props: vec!["id"],
            kind: Kind::Range,
        },
        Index {
            name: "conversation_memory_composite",
            label: personal,
            props: vec!["id", "year"],
            kind: Kind::Range,
        },
        Index {
            name: "conversation_memory_temporal",
            label: personal,
            props: vec!["timestamp", "user_id"],
            kind: Kind::Range,
        },
        Index {
            name: "dept_knowledge_department",
            label: departmental,
            props: vec!["department", "knowledge_type"],
            kind: Kind::Range,
        },
        Index {
            name: "global_knowledge_validity",
            label: global,
            props: vec!["effective_date", "expiry_date"],
            kind: Kind::Range,
        },
    ];
    if let Some(d) = dimensions {
        let names = [
            "conversation_memory_embedding",
            "dept_knowledge_embedding",
            "global_knowledge_embedding",
            "csuite_knowledge_embedding",
        ];
        for (scope, name) in crate::mapping::TIERS.into_iter().zip(names) {
            all.push(Index {
                name,
                label: tier_label(scope),
                props: vec!["embedding"],
                kind: Kind::Vector(d),
            });
        }
    }
    all
}

/// The statement that creates `index` in `dialect`; `None` where the dialect has no
/// equivalent (FalkorDB's vector index needs 32-bit vectors, which would not give
/// the file's numbers back exactly).
pub fn statement(index: &Index, dialect: Dialect) -> Option<String> {
    let props = |var: &str| {
        let list: Vec<String> = index.props.iter().map(|p| format!("{var}.{p}")).collect();
        list.join(", ")
    };
    let (name, label) = (index.name, index.label);
    Some(match (dialect, index.kind) {
        (Dialect::Neo4j, Kind::Unique) => format!(
            "CREATE CONSTRAINT {name} IF NOT EXISTS FOR (n:{label}) REQUIRE ({}) IS UNIQUE",
            props("n")
        ),
        (Dialect::Neo4j, Kind::Range) => {
            format!("CREATE INDEX {name} IF NOT EXISTS FOR (n:{label}) ON ({})", props("n"))
        }
        (Dialect::Neo4j, Kind::Vector(d)) => format!(
            "CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) \
             OPTIONS {{indexConfig: {{`vector.dimensions`: {d}, `vector.similarity_function`: 'cosine'}}}}"
        ),
        (Dialect::FalkorDb, Kind::Unique | Kind::Range) => {
            format!("CREATE INDEX FOR (n:{label}) ON ({})", props("n"))
        }
        (Dialect::FalkorDb, Kind::Vector(_)) => return None,
    })
}

/// Creates what is missing. Neo4j's statements are idempotent; on FalkorDB, whose
/// `CREATE INDEX` fails on an existing index, the indexed properties are read first
/// and only missing ones are created. Returns the statements run.
pub fn apply(
    conn: &mut Connection,
    dialect: Dialect,
    dimensions: Option<u64>,
    database: Option<&str>,
) -> Result<Vec<String>, Error> {
    let mut existing = match dialect {
        Dialect::Neo4j => Vec::new(),
        Dialect::FalkorDb => falkordb_indexed(conn, database)?,
    };
    let mut ran = Vec::new();
    for index in indexes(dimensions) {
        let missing: Vec<&str> = index
            .props
            .iter()
            .copied()
            .filter(|p| !existing.iter().any(|(l, q)| l == index.label && q == p))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let index = match dialect {
            // FalkorDB keeps one index per label; adding an indexed property again fails.
            Dialect::FalkorDb => Index {
                props: missing,
                ..index
            },
            Dialect::Neo4j => index,
        };
        if let Some(text) = statement(&index, dialect) {
            conn.run(&text, vec![], database)?;
            existing.extend(
                index
                    .props
                    .iter()
                    .map(|p| (index.label.to_string(), p.to_string())),
            );
            ran.push(text);
        }
    }
    Ok(ran)
}

fn falkordb_indexed(
    conn: &mut Connection,
    database: Option<&str>,
) -> Result<Vec<(String, String)>, Error> {
    let rows = conn.run(
        "CALL db.indexes() YIELD label, properties RETURN label, properties",
        vec![],
        database,
    )?;
    let mut out = Vec::new();
    for row in rows.records {
        if let [Value::String(label), Value::List(props)] = &row[..] {
            out.extend(
                props
                    .iter()
                    .filter_map(|p| Some((label.clone(), p.as_str()?.to_string()))),
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neo4j_statements_are_idempotent_and_falkordb_ones_plain() {
        for index in indexes(Some(384)) {
            let neo = statement(&index, Dialect::Neo4j).unwrap();
            assert!(neo.contains("IF NOT EXISTS"), "{neo}");
            if let Some(f) = statement(&index, Dialect::FalkorDb) {
                assert!(f.starts_with("CREATE INDEX FOR"), "{f}");
            }
        }
        let vector = statement(&indexes(Some(384))[7], Dialect::Neo4j).unwrap();
        assert!(
            vector.contains("`vector.dimensions`: 384") && vector.contains("'cosine'"),
            "{vector}"
        );
    }
}

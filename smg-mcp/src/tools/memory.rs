//! The MCP memory server's nine tools: same names, same arguments, same replies.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router, ErrorData};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use smg_engine::mcp::{self, Entity, ObservationsToAdd, ObservationsToDelete, Page, Relation};

use super::{answer, done, failed, Server};
use crate::Error;

/// An entity as the tools take it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EntityIn {
    /// The name of the entity
    name: String,
    /// The type of the entity
    entity_type: String,
    /// An array of observation contents associated with the entity
    observations: Vec<String>,
}

/// A relation as the tools take it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RelationIn {
    /// The name of the entity where the relation starts
    from: String,
    /// The name of the entity where the relation ends
    to: String,
    /// The type of the relation
    relation_type: String,
}

impl From<RelationIn> for Relation {
    fn from(r: RelationIn) -> Self {
        Relation {
            from: r.from,
            to: r.to,
            relation_type: r.relation_type,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Entities {
    entities: Vec<EntityIn>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Relations {
    relations: Vec<RelationIn>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Addition {
    /// The name of the entity to add the observations to
    entity_name: String,
    /// An array of observation contents to add
    contents: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Additions {
    observations: Vec<Addition>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Names {
    /// An array of entity names to delete
    entity_names: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Deletion {
    /// The name of the entity containing the observations
    entity_name: String,
    /// An array of observations to delete
    observations: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Deletions {
    deletions: Vec<Deletion>,
}

/// Which page of a read to answer with.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct Paging {
    /// Skip this many entities of the ranking: the `nextOffset` a cut answer gave
    offset: Option<usize>,
    /// At most this many entities (default 50); an answer also stays within 64,000 characters
    limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Query {
    /// The search query to match against entity names, types, and observation content
    query: String,
    #[serde(flatten)]
    paging: Paging,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Open {
    /// An array of entity names to retrieve
    names: Vec<String>,
    #[serde(flatten)]
    paging: Paging,
}

type Reply = Result<CallToolResult, ErrorData>;

/// A read's description: the reference server's, and what answers hold.
macro_rules! paged {
    ($what:literal) => {
        concat!(
            $what,
            " Answers hold at most `limit` entities (50 unless asked) and 64,000 characters; \
             when more matched, the best come first and the answer gives `matched` (how many \
             in all) and `nextOffset` (pass it as `offset` for the next page)."
        )
    };
}

/// A write's answer: what it added, under `key` in the structured content.
fn listed<T: serde::Serialize>(r: Result<Vec<T>, Error>, key: &str) -> Reply {
    match r {
        Ok(items) => answer(json!(items), json!({ key: items })),
        Err(e) => failed(e),
    }
}

/// A deletion's answer.
fn deleted(r: Result<(), Error>, message: &str) -> Reply {
    match r {
        Ok(()) => done(message),
        Err(e) => failed(e),
    }
}

/// A read's answer: the graph it found, as text and structured content.
fn found<T: serde::Serialize>(r: Result<T, Error>) -> Reply {
    match r {
        Ok(g) => answer(json!(g), json!(g)),
        Err(e) => failed(e),
    }
}

impl Server {
    /// The page `p` asks for, or everything when the server answers unbounded.
    fn page(&self, p: &Paging) -> Option<Page> {
        (!self.store.unbounded()).then(|| Page {
            offset: p.offset.unwrap_or(0),
            limit: p.limit.unwrap_or(Page::LIMIT).max(1),
            max_chars: Page::MAX_CHARS,
        })
    }
}

#[tool_router(router = memory_tools, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "Create multiple new entities in the knowledge graph",
        annotations(
            title = "Create Entities",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn create_entities(&self, Parameters(a): Parameters<Entities>) -> Reply {
        let entities = a.entities.into_iter().map(|e| Entity {
            name: e.name,
            entity_type: e.entity_type,
            observations: e.observations,
        });
        listed(
            self.store.write("create_entities", |doc| {
                mcp::create_entities(doc, entities.collect())
            }),
            "entities",
        )
    }

    #[tool(
        description = "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice",
        annotations(
            title = "Create Relations",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn create_relations(&self, Parameters(a): Parameters<Relations>) -> Reply {
        let relations = a.relations.into_iter().map(Relation::from).collect();
        listed(
            self.store.write("create_relations", |doc| {
                mcp::create_relations(doc, relations)
            }),
            "relations",
        )
    }

    #[tool(
        description = "Add new observations to existing entities in the knowledge graph",
        annotations(
            title = "Add Observations",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn add_observations(&self, Parameters(a): Parameters<Additions>) -> Reply {
        let adds = a.observations.into_iter().map(|o| ObservationsToAdd {
            entity_name: o.entity_name,
            contents: o.contents,
        });
        listed(
            self.store.write("add_observations", |doc| {
                mcp::add_observations(doc, adds.collect())
            }),
            "results",
        )
    }

    #[tool(
        description = "Delete multiple entities and their associated relations from the knowledge graph",
        annotations(
            title = "Delete Entities",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn delete_entities(&self, Parameters(a): Parameters<Names>) -> Reply {
        let names = a.entity_names;
        deleted(
            self.store
                .write("delete_entities", |doc| mcp::delete_entities(doc, &names)),
            "Entities deleted successfully",
        )
    }

    #[tool(
        description = "Delete specific observations from entities in the knowledge graph",
        annotations(
            title = "Delete Observations",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn delete_observations(&self, Parameters(a): Parameters<Deletions>) -> Reply {
        let deletions = a.deletions.into_iter().map(|d| ObservationsToDelete {
            entity_name: d.entity_name,
            observations: d.observations,
        });
        let deletions = deletions.collect();
        deleted(
            self.store.write("delete_observations", |doc| {
                mcp::delete_observations(doc, deletions)
            }),
            "Observations deleted successfully",
        )
    }

    #[tool(
        description = "Delete multiple relations from the knowledge graph",
        annotations(
            title = "Delete Relations",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn delete_relations(&self, Parameters(a): Parameters<Relations>) -> Reply {
        let relations: Vec<Relation> = a.relations.into_iter().map(Relation::from).collect();
        deleted(
            self.store.write("delete_relations", |doc| {
                mcp::delete_relations(doc, &relations)
            }),
            "Relations deleted successfully",
        )
    }

    #[tool(
        description = paged!("Read the entire knowledge graph."),
        annotations(
            title = "Read Graph",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn read_graph(&self, Parameters(a): Parameters<Paging>) -> Reply {
        let view = self.store.view();
        match self.page(&a) {
            Some(page) => found(view.map(|v| v.graph_page(&page))),
            None => found(view.map(|v| v.graph().clone())),
        }
    }

    #[tool(
        description = paged!("Search for nodes in the knowledge graph based on a query."),
        annotations(
            title = "Search Nodes",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn search_nodes(&self, Parameters(a): Parameters<Query>) -> Reply {
        let view = self.store.view();
        match self.page(&a.paging) {
            Some(page) => found(view.map(|v| v.search_page(&a.query, &page))),
            None => found(view.map(|v| v.search(&a.query))),
        }
    }

    #[tool(
        description = paged!("Open specific nodes in the knowledge graph by their names."),
        annotations(
            title = "Open Nodes",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn open_nodes(&self, Parameters(a): Parameters<Open>) -> Reply {
        let view = self.store.view();
        match self.page(&a.paging) {
            Some(page) => found(view.map(|v| v.open_page(&a.names, &page))),
            None => found(view.map(|v| v.open(&a.names))),
        }
    }
}

//! smg's own tools (search, context, expansion, FIND) and the M3S tier searches.

use std::collections::HashSet;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router, ErrorData};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use smg_engine::search::{display, Item, Period, SearchOptions};
use smg_format::model::{Node, Scope};
use smg_format::Document;

use super::{answer, failed, Server};
use crate::Error;

type Reply = Result<CallToolResult, ErrorData>;

/// Candidates a tier search ranks before keeping its tier's: the memory's best
/// matches of every tier, so that a tier's few nodes are not crowded out.
const CANDIDATES: usize = 1000;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Search {
    /// What to look for, in words
    query: String,
    /// How many turns and how many nodes to return (default 10)
    k: Option<usize>,
    /// Only turns and nodes of this time or later: a date (2023-05-08) or an RFC 3339
    /// date-time
    since: Option<String>,
    /// Only turns and nodes before this time (a date: through the end of that day)
    until: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Context {
    /// The question the context is for
    query: String,
    /// The most tokens the context may take (default 2000), counted as the server
    /// was started to count them (characters / 4 unless `smg mcp --tokenizer`)
    budget: Option<usize>,
    /// Only turns of this time or later: a date (2023-05-08) or an RFC 3339 date-time
    since: Option<String>,
    /// Only turns before this time (a date: through the end of that day)
    until: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Expand {
    /// A segment id from a context's reference card (`seg-…`)
    id: String,
    /// The linked file to read it from, by its link's name, as a card from a linked
    /// file names it (`--link NAME`); default: this memory, then its linked files
    link: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Find {
    /// A FIND query, e.g. `FIND decisions WHERE importance > 0.5 ORDER BY timestamp`
    query: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Conversation {
    /// What to look for in the conversations
    query: String,
    /// Only turns of the last N days
    time_window_days: Option<u32>,
    /// How many turns (default 5)
    limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Departmental {
    /// What to look for
    query: String,
    /// Only this department's knowledge
    department: Option<String>,
    /// Only this type: how_to, expertise, project_learning, best_practice
    knowledge_type: Option<String>,
    /// How many (default 5)
    limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Global {
    /// What to look for
    query: String,
    /// Only this type: event, milestone, announcement, policy, cycle
    knowledge_type: Option<String>,
    /// Only knowledge of this year (its effective date, else its time)
    year: Option<i32>,
    /// How many (default 5)
    limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Every {
    /// What to look for
    query: String,
    /// How many from each tier (default 3)
    limit_per_tier: Option<usize>,
}

/// Whether a node passes a tier search's own filters.
type Filter<'a> = &'a dyn Fn(&Node) -> bool;

/// Whether the time `t` (RFC 3339) is before now; an unreadable time is not.
fn past(t: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(t).is_ok_and(|t| t <= chrono::Utc::now())
}

impl Server {
    /// Search for `k` hits of `query`, with its vector when the server has a model.
    fn options(&self, query: &str, k: usize) -> Result<SearchOptions, Error> {
        let mut options = SearchOptions::new(k);
        options.vector = self.store.vector(query)?;
        Ok(options)
    }

    fn conversation(
        &self,
        query: &str,
        days: Option<u32>,
        limit: usize,
    ) -> Result<Vec<Value>, Error> {
        let net = self.store.network()?;
        let mut options = self.options(query, limit)?;
        if let Some(d) = days {
            let cutoff = chrono::Utc::now() - chrono::Duration::days(i64::from(d));
            options.period = Period::millis(Some(cutoff.timestamp_millis()), None)?;
        }
        let found = net.search(query, &options)?;
        Ok(found.turns.iter().map(|f| f.to_json()).collect())
    }

    /// The best matches of `query` among the nodes of `tier` that pass `keep`.
    fn tier(
        &self,
        query: &str,
        tier: Scope,
        keep: Filter<'_>,
        limit: usize,
    ) -> Result<Vec<Value>, Error> {
        // Tiers are the memory's own graph's: its nodes, filtered by its fields.
        let net = self.store.network()?;
        let found = net
            .root()
            .search(query, &self.options(query, CANDIDATES)?)?;
        let wanted: HashSet<&str> = found
            .nodes
            .iter()
            .filter_map(|f| match &f.item {
                Item::Node { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        let doc = self.store.doc()?;
        let graph = doc.semantic_graph.as_ref().map_or(&[][..], |g| g.nodes());
        let passing: HashSet<&str> = graph
            .iter()
            .filter(|n| wanted.contains(n.id.as_str()))
            .filter(|n| {
                n.scope.unwrap_or(Scope::Personal) == tier && n.tombstone != Some(true) && keep(n)
            })
            .map(|n| n.id.as_str())
            .collect();
        Ok(found
            .nodes
            .iter()
            .filter(|f| matches!(&f.item, Item::Node { id, .. } if passing.contains(id.as_str())))
            .take(limit)
            .map(|f| {
                let mut v = f.to_json();
                v["tier"] = json!(tier.name());
                v
            })
            .collect())
    }

    fn departmental(&self, a: &Departmental, limit: usize) -> Result<Vec<Value>, Error> {
        let keep = |n: &Node| {
            a.department
                .as_ref()
                .is_none_or(|d| n.department.as_ref() == Some(d))
                && a.knowledge_type
                    .as_ref()
                    .is_none_or(|k| n.knowledge_type.as_ref() == Some(k))
        };
        self.tier(&a.query, Scope::Departmental, &keep, limit)
    }

    fn global(&self, a: &Global, limit: usize) -> Result<Vec<Value>, Error> {
        let keep = |n: &Node| {
            let year = (n.effective_date.as_deref())
                .or(n.timestamp.as_deref())
                .and_then(|t| t.get(..4)?.parse::<i32>().ok());
            a.knowledge_type
                .as_ref()
                .is_none_or(|k| n.knowledge_type.as_ref() == Some(k))
                && a.year.is_none_or(|y| year == Some(y))
                && n.effective_date.as_deref().is_none_or(past)
                && n.expiry_date.as_deref().is_none_or(|t| !past(t))
        };
        self.tier(&a.query, Scope::Global, &keep, limit)
    }
}

fn list(r: Result<Vec<Value>, Error>) -> Reply {
    match r {
        Ok(items) => answer(json!(items), json!({ "results": items })),
        Err(e) => failed(e),
    }
}

#[tool_router(router = smg_tools, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "Search the whole memory (every archived turn and every graph node): hybrid BM25, named entities and graph neighbours, importance and decay; the best turns and the best nodes"
    )]
    fn search_memory(&self, Parameters(a): Parameters<Search>) -> Reply {
        let found = self.store.network().and_then(|r| {
            let mut options = self.options(&a.query, a.k.unwrap_or(10))?;
            options.period = Period::parse(a.since.as_deref(), a.until.as_deref())?;
            Ok(r.search(&a.query, &options)?)
        });
        match found {
            Ok(found) => {
                let v = found.to_json(&a.query);
                answer(v.clone(), v)
            }
            Err(e) => failed(e),
        }
    }

    #[tool(
        description = "Memory for a prompt: the working summary and goals, the turns and reference cards that answer the query best, within a token budget (what `smg context` prints)"
    )]
    fn get_context(&self, Parameters(a): Parameters<Context>) -> Reply {
        let budget = a.budget.unwrap_or(2000);
        match self.store.network().and_then(|net| {
            let period = Period::parse(a.since.as_deref(), a.until.as_deref())?;
            let vector = self.store.vector(&a.query)?;
            Ok(net.prompt(&a.query, vector.as_ref(), budget, &period)?)
        }) {
            Ok(p) => {
                let mut r =
                    CallToolResult::success(vec![rmcp::model::ContentBlock::text(p.text.clone())]);
                r.structured_content = Some(p.to_json(&a.query, budget));
                Ok(r)
            }
            Err(e) => failed(e),
        }
    }

    #[tool(
        description = "The turns of a segment, byte for byte as said (a context's reference card names its segment)"
    )]
    fn expand_segment(&self, Parameters(a): Parameters<Expand>) -> Reply {
        let found = self.store.network();
        match found.and_then(|net| Ok(net.expand(&a.id, a.link.as_deref())?)) {
            Ok((_, turns)) => {
                let text: String = turns.iter().map(|t| format!("{}\n", display(t))).collect();
                let mut r = CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]);
                r.structured_content =
                    Some(json!({ "turns": turns.iter().map(|t| json!(t)).collect::<Vec<_>>() }));
                Ok(r)
            }
            Err(e) => failed(e),
        }
    }

    #[tool(
        description = "Run a FIND query over the graph's nodes (and those of linked memory files, each naming its file), e.g. FIND decisions WHERE importance > 0.5 ORDER BY timestamp DESC LIMIT 5"
    )]
    fn query(&self, Parameters(a): Parameters<Find>) -> Reply {
        let run = || -> Result<Value, Error> {
            let q = smg_engine::query::parse(&a.query)?;
            let all = self.store.documents()?;
            let (files, warnings) = &*all;
            let docs: Vec<&Document> = files.iter().map(|(_, d)| &**d).collect();
            let found = smg_engine::query::run_all(&docs, &q);
            // A file alone answers as it always has: no file to name.
            let nodes: Vec<Value> = found
                .into_iter()
                .map(|(i, n)| {
                    let mut v = json!(n);
                    if files.len() > 1 {
                        v["file"] = files[i].0.to_json();
                    }
                    v
                })
                .collect();
            let mut out = json!({ "nodes": nodes });
            if !warnings.is_empty() {
                out["warnings"] =
                    json!(warnings.iter().map(ToString::to_string).collect::<Vec<_>>());
            }
            Ok(out)
        };
        match run() {
            Ok(out) => answer(out["nodes"].clone(), out),
            Err(e) => failed(e),
        }
    }

    #[tool(
        description = "Search the conversation history (the personal tier: archived turns), optionally only the last N days"
    )]
    fn search_conversation_memory(&self, Parameters(a): Parameters<Conversation>) -> Reply {
        list(self.conversation(&a.query, a.time_window_days, a.limit.unwrap_or(5)))
    }

    #[tool(
        description = "Search departmental knowledge (how_to, expertise, project_learning, best_practice), optionally of one department and type"
    )]
    fn search_departmental_knowledge(&self, Parameters(a): Parameters<Departmental>) -> Reply {
        list(self.departmental(&a, a.limit.unwrap_or(5)))
    }

    #[tool(
        description = "Search global knowledge (events, milestones, announcements, policies, cycles) in effect now, optionally of one type and year"
    )]
    fn search_global_knowledge(&self, Parameters(a): Parameters<Global>) -> Reply {
        list(self.global(&a, a.limit.unwrap_or(5)))
    }

    #[tool(
        description = "Search every tier at once: conversation history, departmental and global knowledge (restricted knowledge is never returned)"
    )]
    fn intelligent_search(&self, Parameters(a): Parameters<Every>) -> Reply {
        let n = a.limit_per_tier.unwrap_or(3);
        let all = || -> Result<Value, Error> {
            let departmental = Departmental {
                query: a.query.clone(),
                department: None,
                knowledge_type: None,
                limit: None,
            };
            let global = Global {
                query: a.query.clone(),
                knowledge_type: None,
                year: None,
                limit: None,
            };
            Ok(json!({
                "query": a.query,
                "personal": self.conversation(&a.query, None, n)?,
                "departmental": self.departmental(&departmental, n)?,
                "global": self.global(&global, n)?,
            }))
        };
        match all() {
            Ok(v) => answer(v.clone(), v),
            Err(e) => failed(e),
        }
    }
}

//! The server: its tools (the MCP memory server's, smg's and M3S's tier searches) and
//! its resources.

mod memory;
mod smg;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};

use crate::store::Store;
use crate::Error;

const GRAPH: &str = "memory://knowledge-graph";
const WORKING: &str = "smg://working-memory";

/// The MCP server of one memory file.
#[derive(Clone)]
pub(crate) struct Server {
    store: Arc<Store>,
    tool_router: ToolRouter<Server>,
}

impl Server {
    pub(crate) fn new(store: Store) -> Self {
        Server {
            store: Arc::new(store),
            tool_router: Self::memory_tools() + Self::smg_tools(),
        }
    }

    /// The tools' names, as `tools/list` gives them.
    pub(crate) fn names() -> Vec<String> {
        let router = Self::memory_tools() + Self::smg_tools();
        router
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect()
    }
}

/// A tool's answer: `text` for the model (pretty JSON, as the reference server
/// writes it), `structured` for programs.
fn answer(text: Value, structured: Value) -> Result<CallToolResult, ErrorData> {
    let pretty = serde_json::to_string_pretty(&text).unwrap_or_default();
    let mut r = CallToolResult::success(vec![ContentBlock::text(pretty)]);
    r.structured_content = Some(structured);
    Ok(r)
}

/// A deletion's answer, as the reference server gives it.
fn done(message: &str) -> Result<CallToolResult, ErrorData> {
    let mut r = CallToolResult::success(vec![ContentBlock::text(message)]);
    r.structured_content = Some(json!({"success": true, "message": message}));
    Ok(r)
}

/// A tool that failed answers with its code and message (`isError`), as an MCP tool
/// does, so that the model sees why; the memory is unchanged.
fn failed(e: Error) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::error(vec![ContentBlock::text(format!(
        "{}: {e}",
        e.code()
    ))]))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        // rmcp's `from_build_env` would give rmcp's own version.
        let mut server = Implementation::from_build_env();
        server.name = "smg".into();
        server.version = env!("CARGO_PKG_VERSION").into();
        ServerConfig::new(capabilities)
            .with_server_info(server)
            .with_instructions(
                "A .smg memory: the MCP memory server's knowledge-graph tools over its semantic \
             graph, and smg's search, context packing, segment expansion, FIND queries and \
             tier searches over every turn and node it holds.",
            )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let graph = Resource::new(GRAPH, "knowledge-graph")
            .with_title("Knowledge Graph")
            .with_description("The full knowledge graph with all entities and relations")
            .with_mime_type("application/json");
        let working = Resource::new(WORKING, "working-memory")
            .with_title("Working memory")
            .with_description("The memory's summary and current goals")
            .with_mime_type("application/json");
        Ok(ListResourcesResult {
            resources: vec![graph, working],
            ..Default::default()
        })
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let internal = |e: Error| ErrorData::internal_error(format!("{}: {e}", e.code()), None);
        let text = match request.uri.as_str() {
            GRAPH => json!(self.store.view().map_err(internal)?.graph()),
            WORKING => {
                let doc = self.store.doc().map_err(internal)?;
                let wm = doc.working_memory.as_ref();
                json!({
                    "summary": wm.and_then(|w| w.summary.as_deref()),
                    "currentGoals": wm.and_then(|w| w.current_goals.as_deref()),
                    "activeArtifacts": wm.and_then(|w| w.active_artifacts.as_deref()),
                })
            }
            other => {
                return Err(ErrorData::resource_not_found(
                    format!("no resource {other}"),
                    None,
                ))
            }
        };
        let pretty = serde_json::to_string_pretty(&text).unwrap_or_default();
        let contents =
            ResourceContents::text(pretty, request.uri.clone()).with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

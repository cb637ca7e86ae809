//! The MCP handler: what `engram mcp` answers to `tools/list`, `tools/call`,
//! `resources/*` and `prompts/*`.
//!
//! One store serves every call, kept open in a [`Served`] behind a mutex, so
//! calls run one at a time, each on a blocking thread (the library is
//! synchronous) while the protocol goes on. A call that panics is reported
//! as an error, and the next call finds the store as the panic left it or,
//! when it was poisoned mid-write, reopened.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::cli::context::Context;
use crate::cli::mcp::scope::ServedScope;
use crate::cli::mcp::tools;
use crate::cli::output::{message_of, one_line};
use crate::clock;
use crate::storage::index::{Filter, Validity};

/// What the server keeps between calls: the command context with its open
/// store, and the scope it serves.
pub struct Served {
    pub ctx: Context,
    pub scope: ServedScope,
}

impl Served {
    /// Reloads the index when another process (or the watcher) committed
    /// since the last call; a store that cannot reload is reopened.
    fn refresh(&mut self) {
        let failed = match self.ctx.store() {
            Ok(mut store) => store.refresh().is_err(),
            Err(_) => false,
        };
        if failed {
            self.ctx.close_store();
        }
    }
}

/// Records listed per `resources/list` page.
const RESOURCE_PAGE: usize = 200;

/// The URI scheme of records as resources: `engram://<vault path>`.
const SCHEME: &str = "engram://";

/// The handler; clones share the store.
#[derive(Clone)]
pub struct EngramServer {
    served: Arc<Mutex<Served>>,
    tools: Arc<Vec<Tool>>,
}

impl EngramServer {
    pub fn new(served: Served) -> EngramServer {
        EngramServer {
            served: Arc::new(Mutex::new(served)),
            tools: Arc::new(tools::all()),
        }
    }

    /// Runs `f` on the served store, on a blocking thread.
    async fn with_served<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Served) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        let served = self.served.clone();
        tokio::task::spawn_blocking(move || {
            let mut served = served.lock().unwrap_or_else(|poisoned| {
                let served = poisoned.into_inner();
                // A panic may have left the store mid-write.
                served.ctx.close_store();
                served
            });
            served.refresh();
            f(&mut served)
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))
    }
}

impl ServerHandler for EngramServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("engram", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "engram is a long-term memory kept as markdown files. Call `recall` with what \
             you need to know before answering (a person's facts and preferences, past \
             decisions, how a task went); call `remember` with what is worth keeping \
             (facts about the user, decisions, outcomes), giving `session` for a \
             conversation. Facts that change supersede the old value; `recall` with \
             `as_of` asks what was true at a past time. The `context` prompt gives a \
             ready-made block for a prompt.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if self.get_tool(&name).is_none() {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool '{name}'; engram has {}",
                    self.tools
                        .iter()
                        .map(|t| t.name.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let result = self
            .with_served(move |s| tools::call(&mut s.ctx, &s.scope, &name, arguments))
            .await?;
        Ok(result.expect("the tool exists").into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        let offset = match cursor.as_deref() {
            None => 0,
            Some(c) => c.parse::<usize>().map_err(|_| {
                ErrorData::invalid_params(
                    format!("cursor '{c}' is not one this server gave; list from the start"),
                    None,
                )
            })?,
        };
        self.with_served(move |s| {
            let store = s.ctx.store().map_err(|e| tool_failure(&e))?;
            let now = clock::now().map_err(|e| tool_failure(&e.into()))?;
            let filter = Filter {
                user: s.scope.user.clone(),
                agent: s.scope.agent.clone(),
                validity: Validity::CurrentAt(now),
                ..Filter::default()
            };
            let docs = store
                .index()
                .fetch_newest(&filter, offset + RESOURCE_PAGE + 1)
                .map_err(|e| tool_failure(&e.into()))?;
            let more = docs.len() > offset + RESOURCE_PAGE;
            let resources: Vec<Resource> = docs
                .iter()
                .skip(offset)
                .take(RESOURCE_PAGE)
                .map(|d| {
                    let stem = d.path.rsplit('/').next().unwrap_or(&d.path);
                    Resource::new(format!("{SCHEME}{}", d.path), stem.trim_end_matches(".md"))
                        .with_title(one_line(&d.content, 80))
                        .with_description(format!(
                            "{} memory, {}, created {}",
                            d.kind,
                            d.status,
                            &d.created_text()[..10]
                        ))
                        .with_mime_type("text/markdown")
                })
                .collect();
            let mut page = ListResourcesResult::with_all_items(resources);
            if more {
                page.next_cursor = Some((offset + RESOURCE_PAGE).to_string());
            }
            Ok(page)
        })
        .await?
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{SCHEME}{{path}}"), "record")
                .with_description(
                    "A memory's markdown file, by its path in the vault (as recall and list \
                     give it), or by its id",
                )
                .with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let Some(needle) = uri.strip_prefix(SCHEME).map(str::to_string) else {
            return Err(ErrorData::invalid_params(
                format!("'{uri}' is not an engram resource; their URIs are {SCHEME}<path>"),
                None,
            ));
        };
        self.with_served(move |s| {
            let missing = || {
                ErrorData::resource_not_found(
                    format!(
                        "no memory at '{uri}' among those this server serves ({}); \
                         resources/list names them",
                        s.scope.describe()
                    ),
                    None,
                )
            };
            let store = s.ctx.open_synced().map_err(|e| tool_failure(&e))?;
            // Only indexed records are read: a path cannot reach past them.
            let doc = store.resolve(&needle).map_err(|_| missing())?;
            if !s.scope.admits(doc.user.as_deref(), doc.agent.as_deref()) {
                return Err(missing());
            }
            let text = std::fs::read_to_string(store.vault().abs(&doc.path))
                .map_err(|e| ErrorData::internal_error(format!("{}: {e}", doc.path), None))?;
            let contents = ResourceContents::text(text, format!("{SCHEME}{}", doc.path))
                .with_mime_type("text/markdown");
            Ok(ReadResourceResult::new(vec![contents]).into())
        })
        .await?
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "context",
            Some(
                "What memory knows, as a block for a prompt: facts, then working memory, \
                 then recent episodes (recall --format context)",
            ),
            Some(vec![
                PromptArgument::new("query")
                    .with_description(
                        "What the conversation is about; leave it out for the most salient \
                         and recent memories",
                    )
                    .with_required(false),
                PromptArgument::new("session")
                    .with_description("Only this session's memories")
                    .with_required(false),
            ]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "context" {
            return Err(ErrorData::invalid_params(
                format!("no prompt '{}'; engram has `context`", request.name),
                None,
            ));
        }
        let mut arguments = JsonObject::new();
        arguments.insert("format".into(), json!("context"));
        for (key, value) in request.arguments.unwrap_or_default() {
            if key != "query" && key != "session" {
                return Err(ErrorData::invalid_params(
                    format!("the context prompt takes `query` and `session`, not `{key}`"),
                    None,
                ));
            }
            arguments.insert(key, value);
        }
        let result = self
            .with_served(move |s| tools::call(&mut s.ctx, &s.scope, "recall", arguments))
            .await?
            .expect("recall is a tool");
        let text: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        if result.is_error == Some(true) {
            return Err(ErrorData::invalid_params(text, None));
        }
        let block = if text.trim().is_empty() {
            "No memories match.".to_string()
        } else {
            format!("What you remember:\n\n{text}")
        };
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, block)])
                .with_description("engram memory context")
                .into(),
        )
    }
}

/// A failure outside any tool call (the store could not be read), as a
/// protocol error.
fn tool_failure(e: &anyhow::Error) -> ErrorData {
    ErrorData::internal_error(message_of(e), None::<Value>)
}

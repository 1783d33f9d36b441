//! The MCP server: `tools/list` from what was served at start, `tools/call` through the Rider.
//!
//! A call: the tool found by name (an unknown name is the one protocol error); its arguments
//! checked against the MCP input schema (a secret slot given by the caller, an unknown slot,
//! a wrong type or a missing slot is a tool error naming the slot); a turn at the [`Gate`];
//! a Rider from the one builder ([`RunSetup::rider`]) with the registry read at start; the
//! plan run with the caller's values and the server's secret references, cancellable;
//! the output checked against the contract and answered as `structuredContent` with a short
//! text. Every failure of the run is a tool error (`isError`) carrying the Rider's message —
//! for a replay, the step, the expected and the actual state —, redacted.

use std::collections::BTreeMap;
use std::sync::Arc;

use browserflow_catalog::RunSetup;
use browserflow_flow::Bound;
use browserflow_rider::{CancelHandle, RunEvent};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, MetaObject, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use crate::gate::Gate;
use crate::served::{Served, ServedTool, WRAPPED_OUTPUT};

/// Where a call reports each finished step: (steps done, steps in all, what finished).
pub type Progress = Arc<dyn Fn(u32, u32, String) + Send + Sync>;

/// Limits on calls.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Calls replaying at once (each in its own browser context).
    pub max_concurrency: usize,
    /// Calls waiting for a turn; past it a call is answered "busy" at once.
    pub queue_limit: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_concurrency: 4,
            queue_limit: 64,
        }
    }
}

/// The server: cheap to clone (a handle on what is shared by every connection).
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    served: Served,
    setup: RunSetup,
    gate: Gate,
    tools: Vec<Tool>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("served", &self.inner.served)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server for `served`, its calls' Riders built from `setup` (the shared browser, the
    /// secrets chain, the journal), at most `limits` at once.
    pub fn new(served: Served, setup: RunSetup, limits: Limits) -> McpServer {
        let tools = served.tools.iter().map(mcp_tool).collect();
        McpServer {
            inner: Arc::new(Inner {
                served,
                setup,
                gate: Gate::new(limits.max_concurrency, limits.queue_limit),
                tools,
            }),
        }
    }

    /// What `tools/list` answers, in its order (by name).
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// Serves one client over stdin and stdout until it disconnects.
    pub async fn serve_stdio(self) -> Result<(), crate::ServeError> {
        use rmcp::ServiceExt;
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| crate::ServeError::Transport(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| crate::ServeError::Transport(e.to_string()))?;
        Ok(())
    }

    /// Runs one call of `tool` with `arguments`; `cancel` stops it. Every failure is a
    /// tool error; `progress` receives each finished step (done, total, what).
    pub async fn call(
        &self,
        tool: &ServedTool,
        arguments: Map<String, Value>,
        cancel: &CancelHandle,
        progress: Option<Progress>,
    ) -> CallToolResult {
        let redactor = &self.inner.served.redactor;
        let refuse = |message: String| tool_error(&redactor.redact_string(&message));
        if let Err(message) = check_arguments(tool, &arguments) {
            return refuse(message);
        }
        let _turn = match self.inner.gate.enter().await {
            Ok(turn) => turn,
            Err(busy) => return refuse(busy.to_string()),
        };
        let mut setup = self.inner.setup.clone();
        if let Some(progress) = progress {
            let total = u32::try_from(tool.plan.steps.len()).unwrap_or(u32::MAX);
            let done = Arc::new(std::sync::atomic::AtomicU32::new(0));
            setup.rider.on_event = Some(Arc::new(move |event: &RunEvent| {
                if let RunEvent::StepFinished {
                    step_id, status, ..
                } = event
                {
                    let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                    progress(n, total, format!("step `{step_id}` {status}"));
                }
            }));
        }
        let rider = match setup.rider(self.inner.served.registry.clone()) {
            Ok(rider) => rider,
            Err(e) => return refuse(format!("the run could not start: {e}")),
        };
        let mut inputs: BTreeMap<String, Bound> = arguments
            .into_iter()
            .map(|(name, value)| (name, Bound::Value(value)))
            .collect();
        inputs.extend(tool.secret_inputs());
        match rider.run_with(&tool.plan, inputs, cancel).await {
            Ok(outcome) => {
                let output = redactor.redact_json(&rider.redactor().redact_json(&outcome.output));
                let structured = if tool.wrapped {
                    Value::Object([(WRAPPED_OUTPUT.to_owned(), output)].into_iter().collect())
                } else {
                    output
                };
                if let Err(errors) = tool.output_check.validate(&structured) {
                    let each: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    return refuse(format!(
                        "`{}` answered an output its contract refuses: {}",
                        tool.reference,
                        each.join("; ")
                    ));
                }
                let text = format!("{} → {structured}", tool.reference);
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(structured);
                result.with_meta(Some(MetaObject(
                    [("browserflow/run_id".to_owned(), json!(outcome.run_id))]
                        .into_iter()
                        .collect(),
                )))
            }
            // The Rider's message is redacted; it names the step and, for a replay, what was
            // expected and what was found.
            Err(failure) => refuse(format!("`{}` failed: {}", tool.reference, failure.message)),
        }
    }
}

/// A tool error with `message` as its text.
fn tool_error(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// `arguments` against the input schema; the first problems named by slot.
fn check_arguments(tool: &ServedTool, arguments: &Map<String, Value>) -> Result<(), String> {
    for name in arguments.keys() {
        if let Some(secret) = tool.secrets.get(name) {
            return Err(format!(
                "the input `{name}` is secret: the server binds it to `secret.{secret}`; a \
                 call never gives a secret"
            ));
        }
    }
    let value = Value::Object(arguments.clone());
    tool.inputs_check.validate(&value).map_err(|errors| {
        let each: Vec<String> = errors
            .iter()
            .map(|e| match e.pointer.strip_prefix('/') {
                Some(slot) if !slot.is_empty() => format!("the input `{slot}`: {}", e.message),
                _ => format!("the inputs: {}", e.message),
            })
            .collect();
        format!("`{}`: {}", tool.reference, each.join("; "))
    })
}

/// The MCP tool of `served`.
fn mcp_tool(served: &ServedTool) -> Tool {
    let object = |value: &Value| match value {
        Value::Object(map) => Arc::new(map.clone()),
        _ => Arc::new(Map::new()),
    };
    let description = match served.contract.description() {
        "" => served.reference.clone(),
        text => text.to_owned(),
    };
    Tool::new(
        served.mcp_name.clone(),
        description,
        object(&served.input_schema),
    )
    .with_title(served.reference.clone())
    .with_raw_output_schema(object(&served.output_schema))
    .with_meta(MetaObject(served.meta()))
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("bflow", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Recorded, versioned browser tools: each replays a recording \
                 deterministically and answers a validated output.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    // `get_tool` stays the SDK's default (`None`): arguments are checked in `call` against
    // the contract, slot by slot, so that a bad input is a tool error naming the slot, not
    // the SDK's protocol error.

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.inner.served.get(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("no tool `{}` is served", request.name),
                None,
            ));
        };
        let (progress, forwarding) = match context.meta.get_progress_token() {
            Some(token) => {
                let (sink, forwarding) = progress_sink(context.peer.clone(), token);
                (Some(sink), Some(forwarding))
            }
            None => (None, None),
        };
        let cancel = CancelHandle::new();
        let arguments = request.arguments.unwrap_or_default();
        let call = self.call(tool, arguments, &cancel, progress);
        tokio::pin!(call);
        let result = tokio::select! {
            result = &mut call => result,
            () = context.ct.cancelled() => {
                tracing::info!("call of `{}` cancelled by the client", tool.reference);
                cancel.cancel();
                // The run stops at once and closes its browser context; wait for that so
                // the call leaves nothing behind.
                call.await
            }
        };
        // Every progress notification goes out before the result.
        if let Some(forwarding) = forwarding {
            forwarding.finish().await;
        }
        Ok(result.into())
    }
}

/// What the progress sink forwards: a finished step, or the end of the call.
type ProgressItem = Option<(u32, u32, String)>;

/// The forwarding of one call's progress notifications, in order, from one task.
struct Forwarding {
    end: tokio::sync::mpsc::UnboundedSender<ProgressItem>,
    task: tokio::task::JoinHandle<()>,
}

impl Forwarding {
    /// Waits until every notification sent before now has gone out.
    async fn finish(self) {
        let _ = self.end.send(None);
        let _ = self.task.await;
    }
}

/// Progress notifications for `token`: the sink the call's Rider reports finished steps to,
/// and the forwarding to finish before the call answers.
fn progress_sink(peer: Peer<RoleServer>, token: ProgressToken) -> (Progress, Forwarding) {
    let (send, mut receive) = tokio::sync::mpsc::unbounded_channel::<ProgressItem>();
    let task = tokio::spawn(async move {
        while let Some(Some((done, total, message))) = receive.recv().await {
            let param = ProgressNotificationParam::new(token.clone(), f64::from(done))
                .with_total(f64::from(total))
                .with_message(message);
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    let end = send.clone();
    let sink: Progress = Arc::new(move |done: u32, total: u32, message: String| {
        let _ = send.send(Some((done, total, message)));
    });
    (sink, Forwarding { end, task })
}

"""Vulture whitelist: names the dead-code check must not report (false positives only).

Each helper appends a block headed ``# <package>``; one line per name, ``_.name  # why``.
Vulture only reads the names here: this module is never imported or run.
"""

# ruff: noqa
# mypy: ignore-errors

_ = object()

# scripts
_.pycache_prefix  # bench/_common.py sets sys.pycache_prefix (read by the interpreter)
_.tempdir  # bench/coding_tools.py sets tempfile.tempdir (read by tempfile)
_.noop_tool  # bench/integrations.py registers it with a decorator on a pydantic-ai toolset

# prism-core (prism.core.testing.RecordingTools)
_.exclusive_overlap  # public result attribute of a test double, read by the adapter tests

# prism-conformance

# prism-otel
_.instrument  # PrismTelemetry.instrument: public API (the README's wiring), called by hosts
_.on_trace_start  # OpenAIAgentsBridge: the Agents SDK's TracingProcessor interface
_.on_trace_end  # OpenAIAgentsBridge: TracingProcessor interface
_.on_span_start  # OpenAIAgentsBridge: TracingProcessor interface
_.on_span_end  # OpenAIAgentsBridge: TracingProcessor interface
_.force_flush  # OpenAIAgentsBridge: TracingProcessor interface
_.shutdown  # OpenAIAgentsBridge: TracingProcessor interface

# prism-coding-tools
_.filename  # OSError.filename set so the error message names the walked path (_fs)

# prism-coding-server
_.sandboxed  # BuiltServer.sandboxed: public field, read by hosts embedding the server

# prism-core
__getattr__  # prism.core: PEP 562 lazy loading of the public names
__dir__  # prism.core: lists the lazily loaded names
_.throw_if_aborted  # AbortSignal: public API for handlers
_.paths  # ExecutionAction: field read by execution policies in other packages
_.command  # ExecutionAction: field read by execution policies
_.cwd  # ExecutionAction: field read by execution policies
_.risk  # ExecutionAction: field read by execution policies
_.register_tool  # ExtensionAPI: the protocol an extension's setup() calls
api  # Extension.setup(api): protocol parameter
_.contributions  # ExtensionKernel: public property read by hosts
_.loaded  # ExtensionKernel: public property read by hosts
_.distribution  # ExtensionDescriptor: public field shown to hosts choosing what to load
_.finished_at  # ToolCallRecord: public ledger field
_.records  # InMemoryRunLedger: public property read by hosts and tests
_.role  # messages: the discriminator providers read
_.finish_reason  # RunResult: public field
_.final_text  # RunResult: public property
_.use  # MiddlewareRegistry.use: public API
_.unchanged  # ExternalOutcome: public field read by the framework integrations
_.visible_tools  # ToolPipeline: public API used by the framework integrations
_.dispatch_external  # ToolPipeline: public API used by the framework integrations
_.unregister  # ToolRegistry: public API
_.subscribe  # ToolRegistry: public API
_.resolve  # ToolRegistry: public API
_.priority  # ContentAnnotations: public field (MCP annotations)
_.is_error  # ToolResult: public property
_.duration_seconds  # events: public field read by sinks

# prism-coding-security
_.describe  # ApprovalRequest.describe: public, hosts build approval prompts from it
_.filesystem_isolated  # SandboxCapabilities fields: public, read by hosts (and getattr in missing)
_.network_isolated  # SandboxCapabilities field, public
_.process_isolated  # SandboxCapabilities field, public
_.privilege_isolated  # SandboxCapabilities field, public
_.user_namespace  # SandboxCapabilities field, public
_.seccomp_filter  # SandboxCapabilities field, public
_.unix_sockets_blocked  # SandboxCapabilities field, public
_.protected_paths_readonly  # SandboxCapabilities field, public
_.secrets_masked  # SandboxCapabilities field, public
_.whitespace_split  # shlex.shlex setting read by the lexer (_script_digest: split like the shell)
_.commenters  # shlex.shlex setting read by the lexer (`a#b` is one word in bash)

# prism-mcp
_.__getattr__  # prism.mcp's lazy module attribute (McpToolBridge loads the SDK on first use)
_.closed  # McpToolBridge.closed: public API
_.list_requests  # McpToolBridge.list_requests: public API
_.server_pid  # McpToolBridge.server_pid: public API
_.declared  # McpClientFeatures.declared: public API
_.mode  # ElicitationRequest field, read by the host's handler
_.requested_schema  # ElicitationRequest field, read by the host's handler
_.elicitation_id  # ElicitationRequest field, read by the host's handler
_.system_prompt  # SamplingRequest field, read by the host's handler
_.auth  # httpx2.AsyncClient.auth, set for OAuth (read by httpx2)
_.get_tokens  # the SDK's TokenStorage protocol, called by its OAuth provider
_.set_tokens  # the SDK's TokenStorage protocol
_.get_client_info  # the SDK's TokenStorage protocol
_.set_client_info  # the SDK's TokenStorage protocol
_.msg  # logging.LogRecord fields rewritten by the redacting filter (read by logging)
_.exc_text  # logging.LogRecord field cleared by the redacting filter
_.levelname  # logging.LogRecord field rewritten by the quiet filter
_.echo  # scripts/bench/mcp_bridge.py registers it as the bench server's tool (decorator)

# prism-jsonschema
_.generate_pattern  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
_._expand_refs  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
_.generate_multiple_of  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
_.generate_unique_items  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
rewrite_refs  # parameter of fastjsonschema's RefResolver.walk, which prism-jsonschema overrides
_.log_errors  # re2.Options field, read by RE2
_.max_mem  # re2.Options field, read by RE2
_.cache_bytes  # public JsonSchemaArgumentValidator API (documented in docs/jsonschema.md)
# scripts/bench
_.pycache_prefix  # scripts/bench/_common.py sets sys.pycache_prefix (read by the interpreter)
_.tempdir  # scripts/bench/coding_tools.py sets tempfile.tempdir so spills land in the bench dir
_.probe  # scripts/bench/_dispatch_peers.py registers it as a pydantic-ai tool (decorator)
_.noop_tool  # scripts/bench/integrations.py registers it as a pydantic-ai tool (decorator)

# prism-core
_.ToolReturn  # prism/core/_types.py: the type alias ToolHandler names in a string annotation

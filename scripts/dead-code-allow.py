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
_.exec  # _rows_coding_security._RecordingShell.exec: a ShellOperations implementation
_.on_data  # a ShellOperations.exec keyword the recording fake accepts and ignores

# prism-otel
_.instrument  # PrismTelemetry.instrument: public API (the README's wiring), called by hosts

# prism-coding-tools
_.filename  # OSError.filename set so the error message names the walked path (_fs)

# prism-coding-server
_.sandboxed  # BuiltServer.sandboxed: public field, read by hosts embedding the server

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
_.log_errors  # re2.Options field, read by RE2
_.max_mem  # re2.Options field, read by RE2
_.cache_bytes  # public JsonSchemaArgumentValidator API (documented in docs/jsonschema.md)

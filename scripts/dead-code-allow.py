"""Vulture whitelist: names the dead-code check must not report (false positives only).

Each helper appends a block headed ``# <package>``; one line per name, ``_.name  # why``.
Vulture only reads the names here: this module is never imported or run.
"""

# ruff: noqa
# mypy: ignore-errors

_ = object()

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

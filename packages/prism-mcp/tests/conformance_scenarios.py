"""The MCP conformance suites' scenario lists and what Prism does not pass, per pinned suite.

``stable`` is @modelcontextprotocol/conformance 0.1.16, ``alpha`` its 0.2.0-alpha.12 (both pinned
in ``scripts/mcp-conformance-setup.py``). Each list is checked against the suite's ``list``; each
reason is kept in step with docs/mcp.md.
"""

from __future__ import annotations

SUITES = ("stable", "alpha")

_STABLE_SERVER = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
)
_TASKS = (
    "lifecycle",
    "capability-negotiation",
    "wire-fields",
    "request-state-removal",
    "mrtr-input",
    "request-headers",
    "dispatch-and-envelope",
    "status-notifications",
    "required-task-error",
    "mrtr-composition",
)
_INPUT_REQUIRED = (
    "basic-elicitation",
    "basic-sampling",
    "basic-list-roots",
    "request-state",
    "multiple-input-requests",
    "multi-round",
    "missing-input-response",
    "non-tool-request",
    "result-type",
    "unsupported-methods",
    "tampered-state",
    "capability-check",
    "ignore-extra-params",
    "validate-input",
)
_ALPHA_SERVER = (
    *_STABLE_SERVER,
    "server-session-lifecycle",
    "server-stateless",
    "sep-2164-resource-not-found",
    "sep-2640-skills-directory",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "caching",
    "http-header-validation",
    "http-custom-header-server-validation",
    *(f"tasks-{name}" for name in _TASKS),
    *(f"input-required-result-{name}" for name in _INPUT_REQUIRED),
)
SERVER_SCENARIOS = {"stable": _STABLE_SERVER, "alpha": _ALPHA_SERVER}
"""Every server scenario of each suite (compared with its ``list`` as a set)."""

_NO_RESOURCES = "a tool server offers no resources; Prism serves a tool registry only"
_NO_PROMPTS = "a tool server offers no prompts; Prism serves a tool registry only"
_NO_TASKS = (
    "the tasks extension (SEP-2663, tasks/get, tasks/update, tasks/cancel) is not served: a "
    "served call runs to its result within one request; the scenarios also call the suite's own "
    "fixture tools (greet, slow_compute, failing_job, confirm_delete...)"
)
_NO_INPUT_REQUIRED = (
    "input-required results (SEP-2322, 2026-07-28) are not produced yet: on 2026-07-28 a served "
    "tool cannot ask the client (ask_client returns None, approvals go to the host's fallback); "
    "the scenarios call the suite's fixture tools test_input_required_result_*"
)
_SERVER_BOTH: dict[str, str] = {
    "completion-complete": (
        "argument completion is for prompts and resource templates (none served)"
    ),
    "tools-call-sampling": (
        "served tools cannot call the client's model; a tool sees only its arguments and "
        "execution context, so it cannot spend the user's model budget"
    ),
    **{name: _NO_RESOURCES for name in _STABLE_SERVER if name.startswith("resources-")},
    **{name: _NO_PROMPTS for name in _STABLE_SERVER if name.startswith("prompts-")},
}
SERVER_UNSUPPORTED: dict[str, dict[str, str]] = {
    "stable": {
        **_SERVER_BOTH,
        "server-sse-polling": (
            "needs an event store to resume a stream with Last-Event-ID (SEP-1699); the SDK's "
            "store is keyed by the request id every session reuses, so one store would replay one "
            "session's events to another; each call stays on one stream"
        ),
    },
    "alpha": {
        **_SERVER_BOTH,
        "server-stateless": (
            "its 2026-07-28 checks need the suite's own diagnostic tools (test_missing_capability, "
            "test_streaming_elicitation, test_logging_tool) with fixed behaviours; the checks "
            "that do not need them pass"
        ),
        "server-sse-polling": (
            "warnings only: no priming event and no retry field, because the server stores no "
            "events to resume a stream from (SEP-1699; see the stable suite's reason)"
        ),
        "sep-2164-resource-not-found": _NO_RESOURCES,
        "caching": (
            "the tools/list caching hints pass; the prompts/list and resources/list checks fail "
            "because neither is served"
        ),
        "http-custom-header-server-validation": (
            "needs a tool whose input schema maps parameters to x-mcp-header HTTP headers "
            "(SEP-2243); Prism tools declare none, so the suite reports every check as not "
            "testable"
        ),
        **{f"tasks-{name}": _NO_TASKS for name in _TASKS if name != "status-notifications"},
        **{
            f"input-required-result-{name}": _NO_INPUT_REQUIRED
            for name in _INPUT_REQUIRED
            if name not in ("unsupported-methods", "validate-input")
        },
    },
}
"""Server scenarios Prism does not pass, with the reason, per suite."""

_CROSS_APP = "auth/cross-app-access-complete-flow"
_STABLE_CLIENT = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    _CROSS_APP,
)
_ALPHA_CLIENT = (
    *(name for name in _STABLE_CLIENT if name != _CROSS_APP),  # renamed in 0.2
    "request-metadata",
    "auth/authorization-server-migration",
    *(f"auth/iss-{name}" for name in ("supported", "not-advertised", "supported-missing")),
    *(f"auth/iss-{name}" for name in ("wrong-issuer", "unexpected", "normalized")),
    "auth/metadata-issuer-mismatch",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    *(f"sep-2640-client-verify-{name}" for name in ("digest", "size", "frontmatter")),
)
CLIENT_SCENARIOS = {"stable": _STABLE_CLIENT, "alpha": _ALPHA_CLIENT}
"""Every client scenario of each suite (compared with its ``list`` as a set)."""

_NO_ENTERPRISE = (
    "enterprise-managed authorization (identity-provider token exchange to an ID-JAG, "
    "SEP-990) is not offered; Prism supports authorization code + PKCE and client "
    "credentials"
)
_NO_DPOP = (
    "DPoP sender-constrained tokens (SEP-1932) are not offered: the SDK's OAuth client presents "
    "bearer tokens"
)
CLIENT_UNSUPPORTED: dict[str, dict[str, str]] = {
    "stable": {
        "auth/2025-03-26-oauth-metadata-backcompat": (
            "its authorization server metadata, served at the resource origin's well-known URL, "
            "names another issuer (<origin>/oauth); the SDK rejects that as RFC 8414 section 3.3 "
            "requires, which is what stops a server from steering tokens to a mix-up issuer"
        ),
        _CROSS_APP: _NO_ENTERPRISE,
    },
    "alpha": {
        "auth/enterprise-managed-authorization": _NO_ENTERPRISE,
        "auth/dpop": _NO_DPOP,
        "auth/dpop-nonce": _NO_DPOP,
        "auth/wif-jwt-bearer": (
            "the workload-identity JWT bearer grant (RFC 7523 with a federated identity token) is "
            "not offered; client credentials with a signed assertion is"
        ),
        "http-custom-headers": (
            "mirroring tool parameters into x-mcp-header HTTP headers (SEP-2243) is not done: the "
            "bridge sends arguments in the body only (tools with malformed x-mcp-header "
            "declarations are still skipped, see http-invalid-tool-headers)"
        ),
    },
}
"""Client scenarios Prism does not pass, with the reason, per suite."""

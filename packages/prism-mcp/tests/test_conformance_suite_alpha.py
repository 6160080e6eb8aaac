"""The 0.2 alpha series of the official MCP client conformance suite drives
``scripts/mcp-conformance-client.py``, next to the stable suite (``test_conformance_suite.py``).

Every client scenario runs, one at a time; each passes or ``UNSUPPORTED`` names it with the
reason, which docs/mcp.md repeats. Pinned in ``scripts/mcp-conformance-setup.py`` (``--suite
alpha``); skipped only when npm is unreachable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conformance_suite import check_client_scenario, install_suite, listed_scenarios

SCENARIOS = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
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
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
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
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
)
"""Every client scenario of @modelcontextprotocol/conformance 0.2.0-alpha.12 (``list``)."""

_NO_DPOP = (
    "DPoP sender-constrained tokens (SEP-1932) are not offered: the SDK's OAuth client presents "
    "bearer tokens"
)
UNSUPPORTED: dict[str, str] = {
    "auth/enterprise-managed-authorization": (
        "enterprise-managed authorization (identity-provider token exchange to an ID-JAG, "
        "SEP-990) is not offered; Prism supports authorization code + PKCE and client "
        "credentials"
    ),
    "auth/dpop": _NO_DPOP,
    "auth/dpop-nonce": _NO_DPOP,
    "auth/wif-jwt-bearer": (
        "the workload-identity JWT bearer grant (RFC 7523 with a federated identity token) is not "
        "offered; client credentials with a signed assertion is"
    ),
    "http-custom-headers": (
        "mirroring tool parameters into x-mcp-header HTTP headers (SEP-2243) is not done: the "
        "bridge sends arguments in the body only (tools with malformed x-mcp-header declarations "
        "are still skipped, see http-invalid-tool-headers)"
    ),
}
"""Scenarios Prism does not pass, with the reason (kept in step with docs/mcp.md)."""


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    """(node 22 binary, alpha suite entry point), installed into the cache on first use."""
    return install_suite("alpha")


def test_the_scenario_list_is_the_suites(suite: tuple[Path, Path]) -> None:
    assert listed_scenarios(suite, "Client") == SCENARIOS


def test_every_unsupported_scenario_is_a_suite_scenario() -> None:
    assert set(UNSUPPORTED) <= set(SCENARIOS)
    assert all(reason.strip() for reason in UNSUPPORTED.values())


@pytest.mark.timeout(150)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(suite: tuple[Path, Path], scenario: str, tmp_path: Path) -> None:
    check_client_scenario(suite, scenario, tmp_path, UNSUPPORTED)

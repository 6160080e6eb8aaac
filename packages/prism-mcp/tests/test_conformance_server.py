"""The official MCP conformance suite's server scenarios against ``serve_tools``.

``scripts/mcp-conformance-server.py`` serves the tools the scenarios call from a Prism registry
behind ``McpToolServer`` (Streamable HTTP on a free 127.0.0.1 port). Every server scenario of
the pinned suite runs, one at a time; each must pass unless ``UNSUPPORTED`` names it with the
reason, which docs/mcp.md repeats. Skipped only when npm is unreachable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .conformance_suite import (
    check_server_scenario,
    conformance_server,
    install_suite,
    listed_scenarios,
    run_server_scenarios,
)
from .conftest import free_port

SCENARIOS = (
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
"""Every server scenario of @modelcontextprotocol/conformance 0.1.16 (checked against ``list``)."""

_NO_RESOURCES = "a tool server offers no resources; Prism serves a tool registry only"
_NO_PROMPTS = "a tool server offers no prompts; Prism serves a tool registry only"
UNSUPPORTED: dict[str, str] = {
    "completion-complete": (
        "argument completion is for prompts and resource templates (none served)"
    ),
    "tools-call-sampling": (
        "served tools cannot call the client's model; a tool sees only its arguments and "
        "execution context, so it cannot spend the user's model budget"
    ),
    "server-sse-polling": (
        "needs an event store to resume a stream with Last-Event-ID (SEP-1699); the SDK's store "
        "is keyed by the request id every session reuses, so one store would replay one "
        "session's events to another; each call stays on one stream"
    ),
    **{name: _NO_RESOURCES for name in SCENARIOS if name.startswith("resources-")},
    **{name: _NO_PROMPTS for name in SCENARIOS if name.startswith("prompts-")},
}
"""Scenarios Prism deliberately does not pass, with the reason (kept in step with docs/mcp.md)."""


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    """(node 22 binary, suite entry point), installed into the cache on first use."""
    return install_suite()


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """The conformance server on a free 127.0.0.1 port; its process group is killed after."""
    with conformance_server(free_port()) as url:
        yield url


def test_the_scenario_list_is_the_suites(suite: tuple[Path, Path]) -> None:
    assert listed_scenarios(suite, "Server") == SCENARIOS


def test_every_unsupported_scenario_is_a_suite_scenario() -> None:
    assert set(UNSUPPORTED) <= set(SCENARIOS)
    assert all(reason.strip() for reason in UNSUPPORTED.values())


@pytest.fixture(scope="module")
def results(
    suite: tuple[Path, Path], server_url: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    """Every scenario's results folder (one suite run for the module), and the suite's stderr."""
    out = tmp_path_factory.mktemp("server-scenarios")
    return out, run_server_scenarios(suite, server_url, out)


@pytest.mark.timeout(300)  # the first one runs every scenario (``results``) in its setup
@pytest.mark.xdist_group("mcp-server-scenarios-stable")  # one suite run, on one worker
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_server_scenario(results: tuple[Path, str], scenario: str) -> None:
    check_server_scenario(results[0], scenario, UNSUPPORTED, results[1])

"""The official MCP client conformance suite drives ``scripts/mcp-conformance-client.py``.

Every client scenario of each pinned suite (``stable`` and the 0.2 ``alpha``, see
``conformance_scenarios.py``) runs, one at a time (the suite starts its own test server and
authorization server per scenario). Each must pass unless ``CLIENT_UNSUPPORTED`` names it with
the reason, which docs/mcp.md repeats. Node 22 and the suites come from a cache outside the
repository (``scripts/mcp-conformance-setup.py``); the test skips only when npm is unreachable.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conformance_scenarios import CLIENT_SCENARIOS, CLIENT_UNSUPPORTED, SUITES
from .conformance_suite import check_client_scenario, install_suite, listed_scenarios


@pytest.fixture(scope="module")
def suite(
    request: pytest.FixtureRequest, mcp_node_tooling: Callable[..., tuple[Any, Path]]
) -> tuple[str, tuple[Path, Path]]:
    """(suite name, (node 22 binary, its entry point)), installed into the cache on first use."""
    return request.param, install_suite(mcp_node_tooling, request.param)


@pytest.mark.parametrize("suite", SUITES, indirect=True)
def test_the_scenario_list_is_the_suites(suite: tuple[str, tuple[Path, Path]]) -> None:
    name, paths = suite
    assert sorted(listed_scenarios(paths, "Client")) == sorted(CLIENT_SCENARIOS[name])


@pytest.mark.parametrize("name", SUITES)
def test_every_unsupported_scenario_is_a_suite_scenario(name: str) -> None:
    assert set(CLIENT_UNSUPPORTED[name]) <= set(CLIENT_SCENARIOS[name])
    assert all(reason.strip() for reason in CLIENT_UNSUPPORTED[name].values())


@pytest.mark.timeout(150)
@pytest.mark.parametrize(
    ("suite", "scenario"),
    [(name, scenario) for name in SUITES for scenario in CLIENT_SCENARIOS[name]],
    indirect=["suite"],
)
def test_client_scenario(
    suite: tuple[str, tuple[Path, Path]], scenario: str, tmp_path: Path
) -> None:
    name, paths = suite
    check_client_scenario(paths, scenario, tmp_path, CLIENT_UNSUPPORTED[name])

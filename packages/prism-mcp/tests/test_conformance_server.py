"""The official MCP conformance suite's server scenarios against ``serve_tools``, per pinned suite.

``scripts/mcp-conformance-server.py`` serves the tools the scenarios call from a Prism registry
behind ``McpToolServer`` (Streamable HTTP on a free 127.0.0.1 port). Every server scenario of
each pinned suite (``stable`` and the 0.2 ``alpha``, see ``conformance_scenarios.py``) runs, one
at a time; each must pass unless ``SERVER_UNSUPPORTED`` names it with the reason, which
docs/mcp.md repeats. Skipped only when npm is unreachable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .conformance_scenarios import SERVER_SCENARIOS, SERVER_UNSUPPORTED, SUITES
from .conformance_suite import (
    check_server_scenario,
    conformance_server,
    install_suite,
    listed_scenarios,
    run_server_scenarios,
)
from .conftest import free_port


@pytest.fixture(scope="module")
def suite(
    request: pytest.FixtureRequest, mcp_node_tooling: Callable[..., tuple[Any, Path]]
) -> tuple[str, tuple[Path, Path]]:
    """(suite name, (node 22 binary, its entry point)), installed into the cache on first use."""
    return request.param, install_suite(mcp_node_tooling, request.param)


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """The conformance server on a free 127.0.0.1 port; its process group is killed after."""
    with conformance_server(free_port()) as url:
        yield url


@pytest.mark.parametrize("suite", SUITES, indirect=True)
def test_the_scenario_list_is_the_suites(suite: tuple[str, tuple[Path, Path]]) -> None:
    name, paths = suite
    assert sorted(listed_scenarios(paths, "Server")) == sorted(SERVER_SCENARIOS[name])


@pytest.mark.parametrize("name", SUITES)
def test_every_unsupported_scenario_is_a_suite_scenario(name: str) -> None:
    assert set(SERVER_UNSUPPORTED[name]) <= set(SERVER_SCENARIOS[name])
    assert all(reason.strip() for reason in SERVER_UNSUPPORTED[name].values())


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[Path, str]]:
    """Each pinned suite's one run: its results folder and stderr, filled on first use.

    A dict rather than a fixture parametrized by suite: pytest tears such a fixture down
    whenever consecutive tests switch suites, which would run a whole suite per test.
    """
    return {}


@pytest.mark.timeout(300)  # the first one of each suite runs every scenario of it
@pytest.mark.xdist_group("mcp-server-scenarios")  # one suite run per worker at most
@pytest.mark.parametrize(
    ("suite", "scenario"),
    [(name, scenario) for name in SUITES for scenario in SERVER_SCENARIOS[name]],
    indirect=["suite"],
)
def test_server_scenario(
    suite: tuple[str, tuple[Path, Path]],
    server_url: str,
    runs: dict[str, tuple[Path, str]],
    tmp_path_factory: pytest.TempPathFactory,
    scenario: str,
) -> None:
    name, paths = suite
    if name not in runs:
        out = tmp_path_factory.mktemp(f"server-scenarios-{name}")
        runs[name] = out, run_server_scenarios(paths, server_url, out)
    out, stderr = runs[name]
    check_server_scenario(out, scenario, SERVER_UNSUPPORTED[name], stderr)

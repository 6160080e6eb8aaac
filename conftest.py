"""Workspace-wide test configuration: every async test runs on asyncio and on trio, the
pytest-timeout bound of every test is multiplied by ``PRISM_TEST_TIME_FACTOR``, and hypothesis
is reproducible under CI."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from prism.core.testing import scaled, time_factor

# CI (CI=true) replays the same examples every run, so a red run is reproducible; the random
# search runs where it cannot block a landing: locally, and in the non-blocking `explore` job
# (PRISM_HYPOTHESIS_PROFILE=explore).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
_PROFILE = os.environ.get("PRISM_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "")
if _PROFILE:
    settings.load_profile(_PROFILE)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Run each ``@pytest.mark.anyio`` test once per backend."""
    return str(request.param)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Scale each test's pytest-timeout (its own mark, else the configured default)."""
    if time_factor() == 1.0:
        return
    given = config.getoption("timeout", default=None)  # pytest-timeout's --timeout, else ini
    default = float(given if given is not None else config.getini("timeout") or 0)
    for item in items:
        mark = item.get_closest_marker("timeout")
        seconds = float(mark.args[0]) if mark is not None and mark.args else default
        if mark is not None and "timeout" in mark.kwargs:
            seconds = float(mark.kwargs["timeout"])
        if seconds > 0:
            item.add_marker(pytest.mark.timeout(scaled(seconds)), append=False)

"""Workspace-wide test configuration: every async test runs on asyncio and on trio, the
pytest-timeout bound of every test is multiplied by ``PRISM_TEST_TIME_FACTOR``, hypothesis
is reproducible under CI, a test marked ``alone`` has the machine to itself under xdist, and
``mcp_node_tooling`` installs the pinned MCP node tools for the packages that test against them."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


# --- pytest-xdist: tests marked ``alone`` run while no other worker runs a test -----------------
# Every test holds a shared lock on one file of the run for its setup, call and teardown; an
# ``alone`` test holds it exclusively. A turnstile taken first stops new shared holders from
# overtaking an exclusive one that waits. Without workers (``-n 0``) nothing is locked.
_LOCK_DIR = "prism_alone_lock_dir"
_LOCK_KEY = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        config.stash[_LOCK_KEY] = tempfile.mkdtemp(prefix="prism-pytest-")


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_LOCK_KEY, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller hands each worker the lock folder of this run."""
    node.workerinput[_LOCK_DIR] = node.config.stash[_LOCK_KEY]


@contextlib.contextmanager
def _share_of_the_machine(item: pytest.Item) -> Iterator[None]:
    folder = getattr(item.config, "workerinput", {}).get(_LOCK_DIR)
    if folder is None:
        yield
        return
    alone = item.get_closest_marker("alone") is not None
    deadline = time.monotonic() + scaled(_LOCK_WAIT_SECONDS)
    with open(Path(folder) / "turnstile", "a") as turnstile, open(Path(folder) / "run", "a") as run:
        _flock(turnstile, fcntl.LOCK_EX, deadline, item)
        _flock(run, fcntl.LOCK_EX if alone else fcntl.LOCK_SH, deadline, item)
        fcntl.flock(turnstile, fcntl.LOCK_UN)
        yield  # the lock goes with the file's close


_LOCK_WAIT_SECONDS = 900.0
"""The longest a test waits for its share of the machine: longer than any test's own timeout
(the holder's), so only a stuck holder reaches it, and then the wait fails loudly."""


def _flock(file: Any, mode: int, deadline: float, item: pytest.Item) -> None:
    """``flock`` with a deadline: non-blocking tries, 5 ms apart once contended."""
    while True:
        try:
            fcntl.flock(file, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                pytest.fail(
                    f"{item.nodeid} waited over {_LOCK_WAIT_SECONDS:.0f} s for the alone lock"
                )
            time.sleep(0.005)


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outside pytest-timeout: waiting is not the test
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    with _share_of_the_machine(item):
        return (yield)


_MCP_SETUP = Path(__file__).resolve().parent / "scripts" / "mcp-conformance-setup.py"


def _install_mcp_node_tooling(*args: str, what: str) -> tuple[Any, Path]:
    """Run ``scripts/mcp-conformance-setup.py`` with ``args``; skip, saying why, when npm is
    unreachable (exit 3). Returns the script as a module (for its ``paths``) and the cache root."""
    try:
        done = subprocess.run(
            [sys.executable, str(_MCP_SETUP), "--timeout", "240", *args],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("scripts/mcp-conformance-setup.py did not finish in 300 s")
    if done.returncode == 3:
        pytest.skip(f"npm registry unreachable, cannot install {what}: "
                    f"{done.stderr.strip()[-300:]}")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    spec = importlib.util.spec_from_file_location("mcp_conformance_setup", _MCP_SETUP)
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    return setup, Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def mcp_node_tooling() -> Callable[..., tuple[Any, Path]]:
    """``install(*args, what=...)``: the pinned Node 22, MCP conformance suite and Inspector CLI
    in a cache outside the repository (prism-mcp and prism-coding-server test against them)."""
    return _install_mcp_node_tooling

"""First use of prism.core (the import and one dispatch) loads none of the heavy standard
modules it needs only on some paths; the list is documented in docs/performance.md."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

FORBIDDEN = (
    "asyncio", "trio", "anyio", "sniffio",  # the host chooses the event loop
    "json",  # exact sizes near the argument bound use _json's encoder alone
    "_json", "math",  # extension modules: with the first exact string size, the first float
    "datetime",  # loads with the first ledger row
    "threading",  # abort signals lock with _thread
    "fnmatch",  # only for filters and policies that hold a glob
    "logging",  # only when a sink or ledger raises
    "subprocess", "uuid", "socket", "ssl", "concurrent.futures", "contextvars",
)  # fmt: skip
"""Modules that ``import prism.core`` plus a first dispatch must not import."""

LOADED_ON_DEMAND = tuple(
    f"prism.core.{name}"
    for name in (
        "_gates", "_filter", "_globs", "_permission", "_ledger", "_validation", "_redact",
        "_middleware", "_weight", "events",  # with the first gate or event sink
        "_backend",  # with the first wait, worker thread or task group
    )
)  # fmt: skip
"""Core modules a dispatch of an async tool without gates or an event sink must not load: the
gate modules' and the events' classes (frozen dataclasses, compiled from generated source) are
created when a gate or a sink is first used."""

IMPORT_ONLY = "import prism.core\n"
FIRST_USE = """
from prism.core import ToolCall, ToolDefinition, ToolRegistry, dispatch_tool_call

async def noop(arguments, context):
    return "ok"

registry = ToolRegistry([ToolDefinition(name="noop", execute=noop)])
step = dispatch_tool_call(ToolCall(id="1", name="noop", arguments={"a": 1}), registry=registry)
try:
    step.send(None)
except StopIteration as done:
    assert done.value.content[0].text == "ok", done.value
else:
    raise SystemExit("the no-op dispatch suspended")
"""


def _modules_after(code: str) -> set[str]:
    """``sys.modules`` of a fresh interpreter after running ``code``."""
    probe = "import sys\n" + code + "\nprint(sorted(sys.modules))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    loaded: list[str] = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    return set(loaded)


@pytest.mark.parametrize("code", [IMPORT_ONLY, FIRST_USE], ids=["import", "first-dispatch"])
def test_first_use_loads_no_forbidden_module(code: str) -> None:
    loaded = _modules_after(code)
    assert "prism.core" in loaded
    assert sorted(loaded & set(FORBIDDEN)) == []


def test_the_probe_sees_a_forbidden_module_when_one_is_loaded() -> None:
    assert "datetime" in _modules_after(FIRST_USE + "import datetime\n")


@pytest.mark.parametrize("code", [IMPORT_ONLY, FIRST_USE], ids=["import", "first-dispatch"])
def test_first_use_without_gates_loads_no_gate_module(code: str) -> None:
    assert sorted(_modules_after(code) & set(LOADED_ON_DEMAND)) == []

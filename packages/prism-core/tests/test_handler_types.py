"""``ToolHandler`` accepts every handler shape dispatch accepts, under ``mypy --strict``.

docs/core.md promises that a handler may return a ``ToolResult``, a ``str``, content blocks, a
JSON value or ``None``, sync or async; a user who annotates their handler that way must not get
a type error.
"""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[3]

TYPED_HANDLERS = """
from collections.abc import Sequence
from prism.core import (
    JsonObject, JsonValue, TextContent, ToolDefinition, ToolExecutionContext, ToolResult,
)

async def returns_json(args: JsonObject, ctx: ToolExecutionContext) -> dict[str, JsonValue]:
    return {"sum": 3}

async def returns_none(args: JsonObject, ctx: ToolExecutionContext) -> None:
    return None

def returns_text(args: JsonObject, ctx: ToolExecutionContext) -> str:
    return "ok"

def returns_blocks(args: JsonObject, ctx: ToolExecutionContext) -> Sequence[TextContent]:
    return [TextContent(text="ok")]

async def returns_result(args: JsonObject, ctx: ToolExecutionContext) -> ToolResult:
    return ToolResult(tool_call_id="", name="")

def returns_numbers(args: JsonObject, ctx: ToolExecutionContext) -> list[int]:
    return [1, 2]

TOOLS = [
    ToolDefinition(name=f.__name__, execute=f)
    for f in (returns_json, returns_none, returns_text, returns_blocks, returns_result)
] + [ToolDefinition(name="n", execute=returns_numbers)]
"""

WRONG_HANDLER = """
from prism.core import ToolDefinition

def takes_nothing() -> str:
    return "no arguments"

TOOL = ToolDefinition(name="x", execute=takes_nothing)
"""


def _mypy(tmp_path: Path, modules: dict[str, str], *flags: str) -> tuple[str, int]:
    for name, code in modules.items():
        (tmp_path / f"{name}.py").write_text(code, encoding="utf-8")
    stdout, stderr, status = api.run(
        [
            *flags,
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            "--config-file",
            str(ROOT / "pyproject.toml"),
            *(str(tmp_path / f"{name}.py") for name in modules),
        ]
    )
    return stdout + stderr, status


def test_every_documented_handler_shape_type_checks(tmp_path: Path) -> None:
    out, status = _mypy(tmp_path, {"typed": TYPED_HANDLERS, "wrong": WRONG_HANDLER}, "--strict")
    assert "typed.py" not in out, out
    assert "wrong.py" in out and "execute" in out, "a handler of the wrong shape is refused"
    assert status == 1

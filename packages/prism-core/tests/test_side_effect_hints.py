"""Side-effect hints on ToolDefinition: additive, default off, settable through ``@tool``."""

from __future__ import annotations

import dataclasses

import pytest

from prism.core import ToolDefinition, ToolExecutionContext
from prism.core._fastinit import positional_factory
from prism.core.functions import tool


def _noop(arguments: object, context: ToolExecutionContext) -> str:
    return "ok"


def test_hints_default_to_the_cautious_answer() -> None:
    definition = ToolDefinition(name="t", execute=_noop)
    assert definition.read_only is False
    assert definition.idempotent is False


def test_hints_sit_after_exclusive_and_before_metadata() -> None:
    names = [f.name for f in dataclasses.fields(ToolDefinition)]
    assert names == [
        "name", "execute", "description", "parameters", "exclusive",
        "read_only", "idempotent", "metadata",
    ]  # fmt: skip


def test_a_positional_factory_follows_the_new_field_order() -> None:
    order = ("name", "execute", "description", "parameters", "exclusive", "read_only", "idempotent")
    make = positional_factory(ToolDefinition, (*order, "metadata"))
    built = make("t", _noop, "d", None, False, True, False, {})
    assert built == ToolDefinition(
        name="t", execute=_noop, description="d", read_only=True, metadata={}
    )


def test_tool_decorator_sets_the_hints() -> None:
    @tool(read_only=True)
    def look(path: str) -> str:
        """Look at a path."""
        return path

    @tool(idempotent=True)
    async def put(key: str, value: str) -> str:
        """Set a key."""
        return value

    assert (look.read_only, look.idempotent) == (True, False)
    assert (put.read_only, put.idempotent) == (False, True)


@pytest.mark.parametrize("option", ["read_only", "idempotent"])
def test_tool_decorator_rejects_non_bool_hints(option: str) -> None:
    with pytest.raises(TypeError, match=option):
        tool(**{option: "yes"})  # type: ignore[call-overload]

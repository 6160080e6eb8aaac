"""A registry tells its subscribers about every change (an MCP server sends list_changed)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from prism.core import ToolDefinition, ToolExecutionContext, ToolRegistry


async def noop(args: Any, ctx: ToolExecutionContext) -> str:
    return "ok"


def test_register_replace_and_unregister_each_notify_once() -> None:
    registry = ToolRegistry([ToolDefinition(name="a", execute=noop)])
    seen: list[tuple[str, ...]] = []
    unsubscribe = registry.subscribe(lambda: seen.append(tuple(t.name for t in registry)))
    registry.register(ToolDefinition(name="b", execute=noop))
    registry.register(ToolDefinition(name="a", execute=noop, description="new"))
    assert registry.unregister("a") is True
    assert registry.unregister("missing") is False
    assert seen == [("a", "b"), ("a", "b"), ("b",)]
    unsubscribe()
    unsubscribe()
    registry.register(ToolDefinition(name="c", execute=noop))
    assert len(seen) == 3


def test_a_raising_listener_is_logged_and_the_others_still_hear(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = ToolRegistry()
    heard: list[str] = []

    def broken() -> None:
        raise RuntimeError("listener bug")

    registry.subscribe(broken)
    registry.subscribe(lambda: heard.append("ok"))
    with caplog.at_level(logging.WARNING, logger="prism.core"):
        registry.register(ToolDefinition(name="x", execute=noop))
    assert heard == ["ok"]
    assert "registry listener raised" in caplog.text


def test_a_listener_must_be_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        ToolRegistry().subscribe("nope")  # type: ignore[arg-type]

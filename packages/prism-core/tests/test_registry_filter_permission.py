"""Registry naming and duplicates, glob filters, static permission policies."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    PermissionRequest,
    ToolDefinition,
    ToolFilter,
    ToolRegistry,
    UnknownToolError,
    create_static_permission_policy,
    filter_tools,
)


def _tool(name: str, tag: str = "") -> ToolDefinition:
    async def execute(args: Any, ctx: Any) -> str:
        return tag

    return ToolDefinition(name=name, execute=execute, description=tag)


def test_replace_keeps_insertion_position() -> None:
    registry = ToolRegistry([_tool("a"), _tool("b"), _tool("c")])
    registry.register(_tool("b", "new"))
    assert [t.name for t in registry.list()] == ["a", "b", "c"]
    assert registry.resolve("b").description == "new"
    assert len(registry) == 3 and "b" in registry and "z" not in registry


def test_duplicate_error_mode() -> None:
    registry = ToolRegistry([_tool("a")], duplicate="error")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(_tool("a"))


def test_resolve_unknown_raises_keyerror_subclass() -> None:
    with pytest.raises(KeyError) as info:
        ToolRegistry().resolve("nope")
    assert isinstance(info.value, UnknownToolError)
    assert str(info.value) == "Unknown tool: nope"


@pytest.mark.parametrize("name", ["", "a b", "x" * 129, "é", "a/b", "a\n"])
def test_invalid_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="invalid tool name"):
        ToolRegistry([_tool(name)])


@pytest.mark.parametrize("name", ["a", "mcp:docs:search", "x.y-z_1", "x" * 128])
def test_valid_names_are_accepted(name: str) -> None:
    assert name in ToolRegistry([_tool(name)])


def test_filters_deny_union_wins_and_every_allow_must_match() -> None:
    tools = [_tool(n) for n in ("mcp:docs:search", "mcp:docs:fetch", "mcp:web:search", "read")]
    f1 = ToolFilter(allow=["mcp:*"])
    f2 = ToolFilter(allow=["*:search", "mcp:docs:*"], deny=["mcp:docs:fetch"])
    names = [t.name for t in filter_tools(tools, [f1, f2])]
    assert names == ["mcp:docs:search", "mcp:web:search"]
    without_read = [t.name for t in filter_tools(tools, ToolFilter(deny=["read"]))]
    assert without_read == ["mcp:docs:search", "mcp:docs:fetch", "mcp:web:search"]
    assert len(filter_tools(tools, None)) == 4
    assert filter_tools(tools, ToolFilter()) == tuple(tools)


def test_static_policy_deny_wins_and_empty_allow_admits_all() -> None:
    policy = create_static_permission_policy(allow=["tool:*:execute"], deny=["tool:rm*:*"])
    ok = policy.check(PermissionRequest(kind="tool", target="ls", action="execute"))
    no = policy.check(PermissionRequest(kind="tool", target="rmdir", action="execute"))
    other = policy.check(PermissionRequest(kind="extension", target="x", action="setup"))
    assert ok.allowed is True  # type: ignore[union-attr]
    assert no.allowed is False and "tool:rmdir:execute" in (no.reason or "")  # type: ignore[union-attr]
    assert other.allowed is False  # type: ignore[union-attr]
    open_policy = create_static_permission_policy(deny=["tool:x:execute"])
    assert open_policy.check(PermissionRequest(kind="a", target="b", action="c")).allowed  # type: ignore[union-attr]

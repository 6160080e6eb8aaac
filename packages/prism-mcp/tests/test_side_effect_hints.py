"""MCP tools take their side-effect hints from the server's annotations (explicit true only)."""

from __future__ import annotations

import pytest
from mcp import types

from prism.mcp import McpBridgeOptions
from prism.mcp._listing import build_definitions


def _handler(remote: str, name: str):  # type: ignore[no-untyped-def]
    async def run(arguments: object, context: object) -> str:
        return remote

    return run


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, (False, False)),
        (types.ToolAnnotations(), (False, False)),
        (types.ToolAnnotations(readOnlyHint=True), (True, False)),
        (types.ToolAnnotations(idempotentHint=True), (False, True)),
        (types.ToolAnnotations(readOnlyHint=False, idempotentHint=False), (False, False)),
        (types.ToolAnnotations(readOnlyHint=True, idempotentHint=True), (True, True)),
    ],
)
def test_hints_follow_read_only_and_idempotent_annotations(
    annotations: types.ToolAnnotations | None, expected: tuple[bool, bool]
) -> None:
    listed = [types.Tool(name="t", inputSchema={"type": "object"}, annotations=annotations)]
    (definition,) = build_definitions(
        listed, server_id="s", prefix="mcp:s:", options=McpBridgeOptions(), make_handler=_handler
    )
    assert (definition.read_only, definition.idempotent) == expected

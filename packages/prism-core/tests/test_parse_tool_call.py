"""parse_tool_call: raw JSON arguments become a ToolCall; bad ones a call dispatch blocks."""

from __future__ import annotations

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolRegistry,
    dispatch_tool_call,
    parse_tool_call,
)
from prism.core.testing import scaled


def test_an_object_is_decoded() -> None:
    call = parse_tool_call("1", "add", '{"a": 1, "b": [2]}')
    assert call == ToolCall(id="1", name="add", arguments={"a": 1, "b": [2]})


@pytest.mark.parametrize("empty", [None, "", b""])
def test_no_text_means_no_arguments(empty: str | bytes | None) -> None:
    assert parse_tool_call("1", "t", empty).arguments == {}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{", "not valid JSON"),
        ('{"a": NaN}', "NaN: not valid JSON"),
        ('{"a": Infinity}', "Infinity"),
        ("[1, 2]", "must be a JSON object, got list"),
        ('"text"', "got str"),
        ('{"n": ' + "9" * 5000 + "}", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    ],
)
def test_bad_arguments_are_marked_with_what_was_wrong(text: str, fragment: str) -> None:
    call = parse_tool_call("1", "t", text)
    assert call.arguments == {}
    assert call.arguments_error is not None
    assert fragment in call.arguments_error.message


def test_oversized_text_is_refused_before_decoding() -> None:
    call = parse_tool_call("1", "t", '{"a": "' + "x" * 2000 + '"}', max_bytes=1000)
    assert call.arguments_error is not None
    assert "over the 1000-byte limit" in call.arguments_error.message


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_any_text_gives_a_call_and_never_raises(text: str | bytes) -> None:
    call = parse_tool_call("x", "t", text)
    assert isinstance(call.arguments, dict)


@pytest.mark.anyio
async def test_dispatch_blocks_a_marked_call_as_invalid_arguments() -> None:
    ran: list[str] = []

    async def tool(args: object, ctx: ToolExecutionContext) -> str:
        ran.append("ran")
        return "ok"

    registry = ToolRegistry([ToolDefinition(name="t", execute=tool)])
    with anyio.fail_after(scaled(10)):
        result = await dispatch_tool_call(parse_tool_call("1", "t", "{oops"), registry=registry)
    assert ran == []
    assert result.error is not None and result.error.code == "invalid_arguments"

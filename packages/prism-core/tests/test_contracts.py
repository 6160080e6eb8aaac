"""Contracts are frozen data; results always render to text a model can read."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core import (
    ContentAnnotations,
    ErrorInfo,
    ImageContent,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    ToolCall,
    ToolResult,
    render_tool_result,
)


def test_contracts_are_frozen_and_slotted() -> None:
    call = ToolCall(id="1", name="x", arguments={})
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.name = "y"  # type: ignore[misc]
    assert not hasattr(call, "__dict__")
    assert hash(TextContent(text="a")) == hash(TextContent(text="a"))


def test_contracts_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        ToolCall("1", "x", {})  # type: ignore[misc]


def test_content_only_result_renders_its_text_not_null() -> None:
    result = ToolResult(tool_call_id="1", name="x", content=(TextContent(text="hello"),))
    assert render_tool_result(result) == "hello"


def test_render_joins_content_then_error_and_keeps_value_for_programs() -> None:
    result = ToolResult(
        tool_call_id="1",
        name="x",
        content=(TextContent(text="a"), TextContent(text="b")),
        value={"k": [1, 2]},
        error=ErrorInfo(message="boom"),
    )
    assert render_tool_result(result) == "a\nb\nError: boom"


def test_render_shows_the_value_only_when_there_is_no_content() -> None:
    result = ToolResult(tool_call_id="1", name="x", value={"k": [1, 2]})
    assert render_tool_result(result) == '{"k":[1,2]}'
    failed = ToolResult(tool_call_id="1", name="x", value=[1], error=ErrorInfo(message="boom"))
    assert render_tool_result(failed) == "[1]\nError: boom"


def test_render_leaves_out_content_not_meant_for_the_assistant() -> None:
    user_only = ContentAnnotations(audience=("user",), priority=0.2)
    both = ContentAnnotations(audience=("user", "assistant"))
    result = ToolResult(
        tool_call_id="1",
        name="x",
        content=(
            TextContent(text="secret for the user", annotations=user_only),
            TextContent(text="for everyone", annotations=both),
            ImageContent(data="AAAA", mime_type="image/png", annotations=user_only),
            TextContent(text="plain"),
            ResourceLinkContent(uri="file:///a", name="a", annotations=ContentAnnotations()),
        ),
        value={"hidden": True},
    )
    assert render_tool_result(result).splitlines() == [
        "for everyone",
        "plain",
        "[resource link a <file:///a>]",
    ]
    only_user = ToolResult(
        tool_call_id="1",
        name="x",
        content=(TextContent(text="u", annotations=user_only),),
        value={"not": "rendered"},
    )
    text = render_tool_result(only_user)
    assert "u" not in text.split() and "rendered" not in text and text.strip()


def test_render_summarizes_binary_blocks() -> None:
    image = ImageContent(data="AAAA" * 10, mime_type="image/png")
    link = ResourceLinkContent(uri="file:///a", name="a", description="the a file")
    blob = ResourceContent(uri="mem://b", mime_type="application/pdf", blob="AAAA")
    text = render_tool_result(ToolResult(tool_call_id="1", name="x", content=(image, link, blob)))
    assert text.splitlines() == [
        "[image image/png, 30 bytes]",
        "[resource link a <file:///a>: the a file]",
        "[resource mem://b application/pdf, 3 bytes]",
    ]


def test_empty_result_is_never_null_or_empty() -> None:
    text = render_tool_result(ToolResult(tool_call_id="1", name="x"))
    assert text not in ("", "null")


def test_is_error_reflects_error_field() -> None:
    assert ToolResult(tool_call_id="1", name="x", error=ErrorInfo(message="m")).is_error
    assert not ToolResult(tool_call_id="1", name="x").is_error


_AUDIENCES = st.sampled_from([None, (), ("user",), ("assistant",), ("user", "assistant")])
_BLOCKS = st.lists(
    st.builds(
        lambda text, audience: TextContent(
            text=text,
            annotations=None if audience is None else ContentAnnotations(audience=audience),
        ),
        st.text(alphabet="abc \n", min_size=1, max_size=8),
        _AUDIENCES,
    ),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(blocks=_BLOCKS, value=st.none() | st.dictionaries(st.sampled_from("xyz"), st.integers()))
def test_render_rule_holds_for_any_mix_of_blocks_and_value(blocks, value) -> None:
    result = ToolResult(tool_call_id="1", name="x", content=tuple(blocks), value=value)
    text = render_tool_result(result)
    assert text and text != "null"
    # a declared audience (even an empty one) that does not name the assistant hides the block
    shown = [
        b.text
        for b in blocks
        if b.annotations is None
        or b.annotations.audience is None
        or "assistant" in b.annotations.audience
    ]
    if blocks:
        assert text == "\n".join(shown) or (not shown and "user" in text)
    elif value is not None:
        assert text == json.dumps(value, separators=(",", ":"))

"""Raw-message checks: ids recovered without parsing, and JSON that would explode refused."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.mcp._http import _UNKNOWN_SESSION
from prism.mcp._limits import complexity_problem, head_id, tail_id

CAP = 1_000_000


def test_head_id_reads_the_sdk_field_order() -> None:
    line = b'{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"' + b"x" * 900
    assert head_id(line) == 17
    assert head_id(b'{ "jsonrpc" : "2.0" , "id" : "req-1" , "error": {') == "req-1"


def test_head_id_never_takes_an_id_from_inside_the_result() -> None:
    assert head_id(b'{"result":{"id":5,"content":[]},"jsonrpc":"2.0","id":9}') is None
    assert head_id(b'{"jsonrpc":"2.0","result":{"id":5}') is None
    assert head_id(b"not json at all") is None
    assert head_id(b'{"jsonrpc":"2.0","id":1.5,') is None
    assert head_id(b'{"jsonrpc":"2.0","id":true,') is None


def test_tail_id_reads_servers_that_write_the_id_last() -> None:
    line = b'{"result":{"content":[{"type":"text","text":"yyy"}]},"jsonrpc":"2.0","id":42}\r'
    assert tail_id(line[-256:]) == 42
    assert tail_id(b'..."content":[]},"id":"a\\"b"}') == 'a"b'
    assert tail_id(b'{"result":{"x":{"id":3}}}') is None


@settings(max_examples=60, deadline=None)
@given(
    rid=st.one_of(st.integers(min_value=-(2**53), max_value=2**53), st.text(max_size=40)),
    payload=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=20,
    ),
)
def test_head_id_finds_any_id_written_before_the_payload(rid: int | str, payload: object) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"v": payload}}).encode()
    assert head_id(line[:1024]) == rid


def test_small_messages_are_never_refused() -> None:
    assert complexity_problem(b"[" + b"{}," * 20_000 + b"{}]", CAP) is None


def test_millions_of_tiny_containers_are_refused() -> None:
    wide = b"[" + b",".join([b"{}"] * 300_000) + b"]"
    problem = complexity_problem(wide, CAP)
    assert problem is not None
    assert "objects/arrays" in problem
    values = json.dumps([1] * 200_000).encode()
    assert "values" in (complexity_problem(values, CAP) or "")


def test_braces_inside_strings_do_not_count() -> None:
    text = json.dumps({"code": "function(a){return [a,{b}];}\n" * 20_000}).encode()
    assert text.count(b"{") > 20_000
    assert complexity_problem(text, CAP) is None


@pytest.mark.parametrize(
    "body",
    [
        b'{"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}',
        b'{"error":{"message":"Session not found"}}',
        b"Invalid or expired session",
        b'{"message":"unknown session id abc"}',
        b"session abc does not exist",
    ],
)
def test_a_400_that_says_the_session_is_unknown_is_recognised(body: bytes) -> None:
    assert _UNKNOWN_SESSION.search(body) is not None


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":1}',
        b"Bad Request: missing Accept header",
        b"",
        b'{"message":"session created"}',
    ],
)
def test_other_400s_are_not_a_lost_session(body: bytes) -> None:
    assert _UNKNOWN_SESSION.search(body) is None

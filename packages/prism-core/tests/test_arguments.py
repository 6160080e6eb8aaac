"""The JSON-object argument check: types, depth, size and prototype-pollution keys."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core._arguments import check_json_object

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8).filter(lambda k: k not in ("__proto__", "constructor")),
                      children, max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8).filter(lambda k: k != "__proto__"), json_values))
def test_any_json_object_passes(value: dict[str, object]) -> None:
    if "constructor" in value and isinstance(value["constructor"], dict):
        return
    assert check_json_object(value, 1_048_576) is None


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ([], "expected an object, got an array"),
        ("x", "expected an object, got a string"),
        (None, "expected an object, got null"),
        ({1: "a"}, "non-string key 1"),
        ({"a": math.nan}, "non-finite number at /a"),
        ({"a": [1, math.inf]}, "non-finite number at /a/1"),
        ({"a": object()}, "object is not a JSON value at /a"),
        ({"a": {"b": {1, 2}}}, "set is not a JSON value at /a/b"),
        ({"__proto__": {}}, "forbidden key '__proto__' at /__proto__"),
        ({"x": [{"__proto__": 1}]}, "forbidden key '__proto__' at /x/0/__proto__"),
        ({"constructor": {"prototype": {}}}, "forbidden 'constructor.prototype' at /constructor"),
        ({"a": {"constructor": {"prototype": 1}}}, "at /a/constructor"),
    ],
)
def test_bad_arguments_are_named(value: object, fragment: str) -> None:
    why = check_json_object(value, 1_048_576)
    assert why is not None
    assert fragment in why


def test_parameters_named_constructor_or_prototype_are_fine() -> None:
    assert check_json_object({"constructor": "Foo", "prototype": {"a": 1}}, 1000) is None
    assert check_json_object({"constructor": {"name": "x"}}, 1000) is None


def test_depth_64_passes_and_65_fails() -> None:
    def nested(levels: int) -> dict[str, object]:
        value: dict[str, object] = {}
        for _ in range(levels - 1):
            value = {"a": value}
        return value

    assert check_json_object(nested(64), 1_048_576) is None
    why = check_json_object(nested(65), 1_048_576)
    assert why is not None and "deeper than 64" in why


def test_size_bound_is_on_encoded_utf8_bytes() -> None:
    value = {"s": "é" * 10}
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
    assert check_json_object(value, size) is None
    why = check_json_object(value, size - 1)
    assert why is not None and f"exceed {size - 1} bytes" in why


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=8).filter(lambda k: k not in ("__proto__", "constructor")),
        json_values,
        min_size=1,
    )
)
def test_incremental_size_count_matches_json_dumps_exactly(value: dict[str, object]) -> None:
    size = len(
        json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
    )
    assert check_json_object(value, size) is None
    why = check_json_object(value, size - 1)
    assert why is not None and "exceed" in why

"""With jsonschema-rs the instance bounds run as a schema in Rust; they must never be weaker
than the Python walk (which stays the authority that produces the error)."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaValidatorOptions
from prism.jsonschema._instance import InstanceBounds, InstanceRejected
from prism.jsonschema._rs import compile_rs_bounds

OPTIONS = JsonSchemaValidatorOptions(
    max_instance_depth=3, max_instance_properties=3, max_string_length=4, max_array_items=3
)
RUST = compile_rs_bounds(max_depth=3, max_properties=3, max_string=4, max_items=3)
PYTHON = InstanceBounds(OPTIONS)

_keys = st.text(alphabet=string.ascii_letters + "é/~", max_size=6)
_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
)  # fmt: skip
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_keys, inner, max_size=5),
    max_leaves=25,
)


def _python_accepts(value: Any) -> bool:
    try:
        PYTHON.check(value)
    except InstanceRejected:
        return False
    return True


def _rust_accepts(value: Any) -> bool:
    try:
        return bool(RUST.is_valid(value))
    except ValueError:
        return False


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_values)
def test_rust_bounds_reject_whatever_python_rejects(value: Any) -> None:
    if not _python_accepts(value):
        assert not _rust_accepts(value), value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_values)
def test_rust_bounds_accept_plain_json_within_bounds(value: Any) -> None:
    if _python_accepts(value) and not _has_huge_int(value):
        assert _rust_accepts(value), value


def _has_huge_int(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_huge_int(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_huge_int(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**64


def test_exact_caps() -> None:
    assert _rust_accepts([[[]]])
    assert not _rust_accepts([[[[]]]])
    assert _rust_accepts({"a": "x" * 4, "b": 1, "c": 2})
    assert not _rust_accepts({"a": "x" * 5})
    assert not _rust_accepts({"a": 1, "b": 1, "c": 1, "d": 1})
    assert not _rust_accepts({"abcde": 1})
    assert _rust_accepts([1, 2, 3])
    assert not _rust_accepts([1, 2, 3, 4])
    assert not _rust_accepts({"n": float("nan")})

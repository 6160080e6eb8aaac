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
    if _python_accepts(value) and not _has_non_native_int(value):
        assert _rust_accepts(value), value


def _has_non_native_int(value: Any) -> bool:
    """An integer (or a float with an integral value, an integer to JSON Schema) outside
    i64/u64: by design it takes the slow path (the Python walk decides)."""
    if isinstance(value, dict):
        return any(_has_non_native_int(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_non_native_int(v) for v in value)
    if (isinstance(value, float) and value.is_integer()) or isinstance(value, int):
        return not -(2**63) <= value <= 2**64 - 1
    return False


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


def test_integers_outside_i64_and_u64_take_the_slow_path() -> None:
    for inside in (2**64 - 1, -(2**63), 1.5, -1e-300, 2.0**63):
        assert _rust_accepts([inside]), inside
    for outside in (2**64, -(2**63) - 1, 2**2048, -(2**2048), 10**4300, -(10**4300), 1e300):
        assert not _rust_accepts([outside]), outside

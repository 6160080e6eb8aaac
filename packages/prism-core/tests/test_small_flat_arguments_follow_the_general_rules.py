"""The one-pass copy of small flat arguments decides exactly as the general walk does: the same
copy, of the same exact types, or a hand-over to the walk (which then refuses or accepts)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.core._arguments import (
    FLAT_MEMBERS,
    MAX_ARGUMENT_INTEGER_BITS,
    _canonical,
    _flat_copy,
    canonical_json_object,
)

scalars = (
    st.none() | st.booleans() | st.text(max_size=40) | st.floats()
    | st.integers(min_value=-(2**2100), max_value=2**2100)
    | st.sampled_from([2**2048 - 1, -(2**2048) + 1, 2**2048, math.inf, -math.inf, math.nan])
)  # fmt: skip
keys = st.text(max_size=12) | st.sampled_from(["__proto__", "constructor", "prototype"])


class _Text(str):
    pass


class _Number(int):
    pass


def _general(value: object, max_bytes: int) -> tuple[dict[str, object] | None, str | None]:
    try:
        return _canonical(value, max_bytes, None), None
    except Exception as exc:  # the refusal: what canonical_json_object would report
        return None, type(exc).__name__


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.dictionaries(keys, scalars, max_size=FLAT_MEMBERS + 4), st.integers(1, 4096))
def test_the_fast_path_copies_what_the_walk_copies_or_hands_over(
    value: dict[str, object], max_bytes: int
) -> None:
    flat = _flat_copy(value, max_bytes)
    copy, refused = _general(value, max_bytes)
    if flat is None:
        return  # handed over: canonical_json_object asks the walk
    assert refused is None and copy is not None, (value, refused)
    assert flat is not value
    assert list(flat) == list(copy)
    for key, item in flat.items():
        other = copy[key]
        assert type(item) is type(other) and (item == other or item != item)


@pytest.mark.parametrize(
    "value",
    [
        {"__proto__": 1},
        {"a": math.nan},
        {"a": -math.inf},
        {"a": 2**MAX_ARGUMENT_INTEGER_BITS},
        {"a": _Text("x")},
        {_Text("a"): 1},
        {"a": _Number(3)},
        {"a": [1]},
        {"a": {"prototype": 1}},
        {str(i): i for i in range(FLAT_MEMBERS + 1)},
    ],
    ids=repr,
)
def test_anything_the_rules_might_refuse_or_rewrite_goes_to_the_walk(
    value: dict[object, object],
) -> None:
    assert _flat_copy(value, 1_048_576) is None


def test_a_copy_over_the_bound_goes_to_the_walk_and_is_refused() -> None:
    assert _flat_copy({"a": "x" * 100}, 50) is None
    assert canonical_json_object({"a": "x" * 100}, 50) == (
        None,
        "encoded arguments exceed 50 bytes",
    )


def test_the_handler_gets_a_fresh_dict_of_the_same_members() -> None:
    value = {"path": "/tmp/x", "limit": 10, "deep": True, "ratio": 0.5, "none": None}
    copy, refused = canonical_json_object(value, 1_048_576)
    assert refused is None and copy == value and copy is not value

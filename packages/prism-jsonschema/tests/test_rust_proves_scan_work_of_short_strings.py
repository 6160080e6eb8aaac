"""jsonschema-rs proves a value's scan work in Rust instead of counting its characters.

Issue 25's cache-hit budget: counting every character of every string and property name in
Python made a cached jsonschema-rs validation 1.1-1.5x its cost before scan work existed. It now
counts nodes only and runs a bounds schema whose ``maxLength`` keeps ``2 x nodes x maxLength``
characters within the budget; a value with a longer string must still be counted, and refused
when its real scan work is over ``max_validation_work``.
"""

from __future__ import annotations

import functools
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema import _validator as validator_module
from prism.jsonschema._rs import compile_rs_bounds
from prism.jsonschema._scan import CHARS_PER_WORK, Impure, longest_within, plain_nodes, text_of

# Weight 1,057 (an RE2 program of 4,224 instructions, off the DFA): 100,000 x 8 // 1,057 = 756
# characters of the whole value are within the default budget.
NESTED_REPEAT = "(((a|b){1,10}){1,10}){1,10}c"
HEAVY: dict[str, Any] = {
    "type": "object",
    "properties": {"x": {"type": "string", "pattern": NESTED_REPEAT}},
}
PROPERTY = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _rs(**options: Any) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine="jsonschema-rs", **options)
    )


def _places(text: str, copies: int) -> list[Any]:
    """``copies`` strings or names of ``text`` nested below the top level (the Rust proof only
    runs on a nested value: a flat one is as cheap to count)."""
    return [
        {"y": [text] * copies},
        {"y": [{"z": text} for _ in range(copies)]},
        {"y": [{text + str(i): 1} for i in range(copies)]},
        {"y": {text + str(i): None for i in range(copies)}},
    ]


@pytest.mark.parametrize("place", range(4))
@pytest.mark.parametrize(("copies", "length"), [(12, 100), (2, 400)])
def test_a_heavy_pattern_times_strings_past_the_short_bound_is_still_refused(
    place: int, copies: int, length: int
) -> None:
    """1,200 or 800 characters x weight 1,057 is over the budget although every string is far
    below ``max_string_length`` (the options' own bound) and ``x``, the only string the pattern
    reads, is absent: the bound must come from the characters. (12 copies: no short bound
    fits; 2: strings of 64 would be proven, these are not.)"""
    validator = _rs()
    assert validator.validate(HEAVY, {"x": "ac"}).ok  # compiled and cached
    assert validator.validate(HEAVY, _places("ab" * 3, copies)[place]).ok  # within the budget
    result = validator.validate(HEAVY, _places("ab" * (length // 2), copies)[place])
    assert not result.ok
    message = result.errors[0].message
    assert "characters of strings and property names" in message
    assert "max_validation_work=100,000" in message


def test_a_shared_string_counts_every_time_it_is_reached() -> None:
    """One 100-character string object reached 12 times scans 1,200 characters."""
    validator = _rs()
    text = "ab" * 50
    assert validator.validate(HEAVY, {"y": [text]}).ok
    assert not validator.validate(HEAVY, {"y": [text] * 12}).ok


def test_short_strings_are_proven_in_rust_without_counting_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cache-hit path: a nested value of short strings is never walked for characters."""
    validator = _rs()
    schema = {"type": "object", "properties": {"y": {"items": {"pattern": "^a"}}}}
    assert validator.validate(schema, {"y": ["a"]}).ok

    def counted(*args: object) -> object:
        raise AssertionError("characters counted in Python")

    monkeypatch.setattr(validator_module, "text_of", counted)
    assert validator.validate(schema, {"y": ["abc"] * 20, "z": {"k": "v"}}).ok
    # An invalid value counts its text once more, to bound what jsonschema-rs's errors quote
    # (RS_QUOTED): the error path, not the cache hit measured here.
    monkeypatch.undo()
    result = validator.validate(schema, {"y": ["abc", "b"]})
    assert not result.ok
    assert result.errors[0].path == "/y/1"


_keys = st.text(alphabet=string.ascii_letters + "é", max_size=12)
_scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=40)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_keys, inner, max_size=6),
    max_leaves=30,
)
_schemas = st.sampled_from(
    [
        {"properties": {"y": {"items": {"pattern": "^(a|b)*c"}}}},
        {"additionalProperties": {"pattern": "[ab]{3}"}},
        {"patternProperties": {"^a": {"type": "string"}}},
        {"propertyNames": {"pattern": "^[a-z]*$"}},
        {"properties": {"y": {"format": "email"}}},
    ]
)


_VALIDATORS: dict[tuple[int, int], JsonSchemaArgumentValidator] = {}


@PROPERTY
@given(
    schema=_schemas,
    value=st.dictionaries(_keys, _values, max_size=5),
    budget=st.sampled_from([40, 300, 2_000, 100_000]),
    longest=st.sampled_from([4, 20, 65_536]),
)
def test_the_verdict_is_the_counted_one(
    schema: dict[str, Any], value: dict[str, Any], budget: int, longest: int
) -> None:
    """Proven in Rust or counted, a value gets the verdict (and message) of counting every
    character: the proof only skips counting where the count could not refuse."""
    validator = _VALIDATORS.get((budget, longest))
    if validator is None:
        validator = _VALIDATORS[budget, longest] = _rs(
            max_validation_work=budget, max_pattern_input_length=longest, validate_formats=True
        )
    validator.validate(schema, {})
    entry = validator._newest
    if entry.rejected is not None or not entry.scan:  # type: ignore[union-attr]
        return
    assert validator.validate(schema, value) == validator._counted(entry, value)  # type: ignore[arg-type]


@PROPERTY
@given(value=_values, longest=st.integers(0, 6))
def test_the_short_bounds_hold_every_string_and_name_to_their_length(
    value: Any, longest: int
) -> None:
    """What the Rust proof rests on: accepted means every string and name is at most that
    long, so the characters are at most ``2 x nodes x`` it."""
    try:
        accepted = _short_bounds(longest).is_valid(value)
    except ValueError:
        accepted = False
    if accepted:
        nodes, chars, name = text_of(value, 10**9, 10**9, names=True)
        assert max(name, _longest_string(value)) <= longest
        assert chars <= 2 * nodes * longest
        assert plain_nodes(value, 10**9) == nodes


@functools.cache
def _short_bounds(longest: int) -> Any:
    return compile_rs_bounds(max_depth=64, max_properties=1_000, max_string=longest, max_items=10)


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max(map(_longest_string, value.values()), default=0)
    if isinstance(value, list):
        return max(map(_longest_string, value), default=0)
    return 0


@PROPERTY
@given(
    budget=st.integers(1, 10**8),
    expanded=st.integers(1, 10_000),
    scan=st.integers(1, 4_096 * 10_000),
    nodes=st.integers(1, 10**6),
)
def test_the_longest_short_string_keeps_the_work_within_budget(
    budget: int, expanded: int, scan: int, nodes: int
) -> None:
    longest = longest_within(budget, expanded, scan, nodes)
    if longest >= 0:
        assert expanded * nodes + scan * (2 * nodes * longest) // CHARS_PER_WORK <= budget
    else:
        assert expanded * nodes > budget


def test_plain_nodes_refuses_what_rust_could_read_differently() -> None:
    class Text(str):
        pass

    for value in ({"a": (1,)}, {"a": Text("x")}, {"a": [range(3)]}, Text("x")):
        with pytest.raises(Impure):
            plain_nodes(value, 100)
    assert plain_nodes({"a": [1, {"b": "c"}], "d": None}, 100) == 6

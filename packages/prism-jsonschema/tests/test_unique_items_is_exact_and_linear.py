"""``uniqueItems`` keeps JSON equality (``1 == 1.0``, ``true != 1``, key order irrelevant) on
both engines, and fastjsonschema's check no longer hashes the items themselves (redteam3)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

_ATOMS: list[Any] = [
    0, 1, 1.0, -0.0, True, False, None, "a", "1", 2**70, float(2**70), 0.5, [], {}, [1], [1.0],
    [True], {"a": 1}, {"a": 1.0}, {"a": True}, {"b": 1, "a": 2}, {"a": 2, "b": 1},
]  # fmt: skip
_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"a": {"uniqueItems": True}}}
_FJS = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="fastjsonschema"))
_RS = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))


def _json_unique(items: list[Any]) -> bool:
    """The reference: pairwise JSON equality, written out."""

    def equal(a: Any, b: Any) -> bool:
        if isinstance(a, bool) or isinstance(b, bool):
            return type(a) is type(b) and a == b
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(map(equal, a, b))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
        if isinstance(a, int | float) and isinstance(b, int | float):
            return a == b
        return type(a) is type(b) and a == b

    return not any(equal(x, y) for i, x in enumerate(items) for y in items[i + 1 :])


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), max_size=5))
def test_unique_items_is_json_equality_on_both_engines(items: list[Any]) -> None:
    expected = _json_unique(items)
    assert _FJS.validate(_SCHEMA, {"a": items}).ok is expected
    assert _RS.validate(_SCHEMA, {"a": items}).ok is expected

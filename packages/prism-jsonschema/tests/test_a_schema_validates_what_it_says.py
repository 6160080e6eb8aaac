"""A schema validates what its keyword structure says: an ``$id``, ``$ref`` or ``$anchor`` in a
data position (``const``, ``enum``, ``default``, ``examples``, unknown keywords) is data, never
an identifier, on every engine; the verdicts never accept what the ``jsonschema`` package
rejects."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import prism_jsonschema_tests_attacks as attacks  # loaded by conftest.py
import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

ROOT = "https://example.com/tool"
SAFE: dict[str, Any] = {
    "$id": ROOT,
    "type": "object",
    "properties": {"cmd": {"$ref": "#/$defs/safe"}},
    "required": ["cmd"],
    "$defs": {"safe": {"type": "string", "pattern": "^(ls|pwd)$"}},
}
PLANT: dict[str, Any] = {"$id": ROOT, "$defs": {"safe": {}}}
PLACES = ("const", "default", "examples", "enum", "x-meta", "title-object")


def _planted(place: str) -> dict[str, Any]:
    schema = copy.deepcopy(SAFE)
    value: Any = [PLANT] if place in ("enum", "examples") else PLANT
    key = "title" if place == "title-object" else place
    schema["properties"]["other"] = {key: copy.deepcopy(value)}
    return schema


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_a_planted_id_cannot_retarget_the_root(engine: str, place: str) -> None:
    schema = _planted(place)
    result, handler = await attacks.dispatch_once(engine, schema, {"cmd": "rm -rf /"})
    assert result.error is not None
    assert handler.calls == []
    allowed, handler = await attacks.dispatch_once(engine, schema, {"cmd": "ls"})
    if place == "title-object":  # `title` must be a string: the schema is refused
        assert allowed.error is not None
        return
    assert allowed.error is None, allowed.error
    assert handler.calls == [{"cmd": "ls"}]


def test_a_ref_in_const_is_data_not_rewritten(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema = {"$id": ROOT, "const": {"$ref": "#a", "$id": "other"}}
    assert validator.validate(schema, {"$ref": "#a", "$id": "other"}).ok
    assert not validator.validate(schema, {"$ref": f"{ROOT}#a", "$id": "other"}).ok


def test_a_ref_into_data_is_refused(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    for schema in (
        {"const": {"type": "integer"}, "properties": {"a": {"$ref": "#/const"}}},
        {"x-lib": {"type": "integer"}, "properties": {"a": {"$ref": "#/x-lib"}}},
        {"examples": [{"type": "integer"}], "properties": {"a": {"$ref": "#/examples/0"}}},
    ):
        result = validator.validate(schema, {"a": "text"})
        assert not result.ok
        assert "schema rejected" in result.errors[0].message


def _placements() -> list[tuple[str, dict[str, Any]]]:
    """Where an identifier can sit, with a schema whose root reference it could retarget."""
    out = []
    for place in PLACES[:-1]:
        out.append((f"id in {place}", _planted(place)))
    for keyword in ("$anchor", "$dynamicAnchor"):
        schema = copy.deepcopy(SAFE)
        schema["properties"]["cmd"] = {"$ref": "#safe"}
        schema["$defs"]["safe"][keyword] = "safe"
        schema["const"] = {keyword: "safe"}
        out.append((f"{keyword} beside data", schema))
    nested = copy.deepcopy(SAFE)
    nested["$defs"]["safe"] = {"$id": "inner", "$ref": "#/$defs/safe"}
    out.append(("embedded id", nested))
    return out


@pytest.mark.parametrize(("why", "schema"), _placements(), ids=[p[0] for p in _placements()])
def test_never_valid_where_jsonschema_says_invalid(engine: str, why: str, schema: Any) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    oracle = jsonschema.Draft202012Validator(schema)
    for value in ({"cmd": "rm -rf /"}, {"cmd": "ls"}, {"cmd": 3}, {}, {"cmd": "pwd", "x": 1}):
        try:
            expected = oracle.is_valid(value)
        except Exception:  # the oracle cannot resolve it either: Prism must not accept
            expected = False
        if validator.validate(schema, value).ok:
            assert expected, (why, value)

"""fastjsonschema embeds the (ref-expanded) definition in every raise: quadratic code. Ours does
not, and a hard budget stops generation whatever the schema."""

from __future__ import annotations

import json
from typing import Any

import fastjsonschema
import pytest

import prism.jsonschema._fastjsonschema as engine_module
from prism.jsonschema import JsonSchemaArgumentValidator
from prism.jsonschema._fastjsonschema import compile_fastjsonschema
from prism.jsonschema._walk import SchemaRejected


def _fan_out(refs: int) -> dict[str, Any]:
    big = {"type": "object", "properties": {f"field_{i}": {"type": "string"} for i in range(150)}}
    return {
        "type": "object",
        "$defs": {"big": big},
        "properties": {f"p{i}": {"$ref": "#/$defs/big"} for i in range(refs)},
        "required": ["p0"],
        "additionalProperties": False,
    }


def _size(schema: Any) -> int:
    return len(json.dumps(schema, separators=(",", ":")))


def test_upstream_code_is_quadratic_ours_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = _fan_out(100)
    upstream = len(fastjsonschema.compile_to_code(json.loads(json.dumps(schema))))
    sources: list[str] = []
    real_load = engine_module._load

    def capture(source: str, generator: Any, root: str, patterns: Any) -> Any:
        sources.append(source)
        return real_load(source, generator, root, patterns)

    monkeypatch.setattr(engine_module, "_load", capture)
    validator = JsonSchemaArgumentValidator()
    assert validator.validate(schema, {"p0": {"field_1": "x"}}).ok
    assert not validator.validate(schema, {"p0": {"field_1": 1}}).ok
    ours = max(len(source) for source in sources)
    assert upstream > 50 * _size(schema)  # the problem is real
    assert ours < 20 * _size(schema)
    assert ours * 10 < upstream


def test_the_code_budget_stops_generation() -> None:
    schema = {"properties": {f"p{i}": {"type": "string", "maxLength": i} for i in range(400)}}
    compile_fastjsonschema(
        json.loads(json.dumps(schema)), 2020, schema_bytes=_size(schema),
        regexes={}, validate_formats=False, fast_fail=True,
    )  # fmt: skip
    with pytest.raises(SchemaRejected, match="too much validation code"):
        compile_fastjsonschema(
            json.loads(json.dumps(schema)), 2020, schema_bytes=1,
            regexes={}, validate_formats=False, fast_fail=True,
        )  # fmt: skip

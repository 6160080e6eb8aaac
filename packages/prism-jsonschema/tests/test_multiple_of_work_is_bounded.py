"""Exact ``multipleOf`` spends bounded CPU per validation on both engines: each check is a few
small big-integer operations, and past ``EXACT_CHECKS`` distinct exact checks the value is
refused by name (redteam3 cost finding 3, distinct numbers)."""

from __future__ import annotations

import math
import time
from typing import Any, Literal, cast

from prism.core.testing import scaled
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

CPU_BUDGET = 0.1  # seconds (docs/jsonschema.md)


def _distinct(start: float, count: int) -> list[float]:
    values, value = [], start
    for _ in range(count):
        values.append(value)
        value = math.nextafter(value, math.inf)
    return values


def test_distinct_costly_multiples_are_refused_within_the_cpu_budget(engine: str) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"multipleOf": 1e-300}},
    }
    numbers = _distinct(1.2345678901234567e-200, 9 * 9_990)
    value = {f"k{i}": numbers[i * 9_990 : (i + 1) * 9_990] for i in range(9)}
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(
            engine=cast(Literal["fastjsonschema", "jsonschema-rs"], engine)
        )
    )
    validator.validate(schema, {})
    started = time.thread_time()
    result = validator.validate(schema, value)
    cpu = time.thread_time() - started
    assert not result.ok
    assert "exact multipleOf checks" in result.errors[0].message
    assert cpu <= scaled(CPU_BUDGET), f"{cpu * 1000:.0f} ms of CPU"


def test_a_full_array_of_distinct_exact_multiples_still_validates(engine: str) -> None:
    schema: dict[str, Any] = {"type": "array", "items": {"multipleOf": 0.25}}
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(
            engine=cast(Literal["fastjsonschema", "jsonschema-rs"], engine)
        )
    )
    prices = [k * 0.25 + 1_000 for k in range(9_990)]
    wrapped: dict[str, Any] = {"type": "object", "properties": {"p": schema}}
    assert validator.validate(wrapped, {"p": prices}).ok
    assert not validator.validate(wrapped, {"p": [*prices[:10], 1.1]}).ok

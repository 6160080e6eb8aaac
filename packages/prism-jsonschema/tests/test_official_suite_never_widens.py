"""The official JSON Schema Test Suite: Prism never says valid where the suite says invalid.

Per draft and engine, each suite test lands in one bucket: ``agree``; ``refused`` (Prism
rejected the schema: fail-closed); ``stricter`` (Prism said invalid, the suite valid:
fail-closed); ``widened`` (Prism said valid, the suite invalid): the one bucket that must be
empty. ``python tests/test_official_suite_never_widens.py`` prints the table the docs quote.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

SUITE = Path(__file__).with_name("data") / "json-schema-test-suite"
DRAFTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}
ENGINES = ("fastjsonschema", "jsonschema-rs")
REFUSED = "tool parameter schema rejected"


def run_draft(engine: str, draft: str) -> tuple[Counter[str], list[str]]:
    """Buckets for one draft on one engine, and a description of every widened test."""
    validator = JsonSchemaArgumentValidator(
        options=JsonSchemaValidatorOptions(engine=engine, max_errors=1, cache_size=1024)
    )
    counts: Counter[str] = Counter()
    widened: list[str] = []
    for path in sorted((SUITE / draft).glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            schema: Any = case["schema"]
            if isinstance(schema, dict) and "$schema" not in schema:
                schema = {"$schema": DRAFTS[draft], **schema}
            for test in case["tests"]:
                result = validator.validate(schema, test["data"])
                bucket = _bucket(result, test["valid"])
                counts[bucket] += 1
                if bucket == "widened":
                    widened.append(f"{path.name}: {case['description']} / {test['description']}")
    return counts, widened


def _bucket(result: Any, expected: bool) -> str:
    if result.ok:
        return "agree" if expected else "widened"
    if any(error.message.startswith(REFUSED) for error in result.errors):
        return "refused"
    return "stricter" if expected else "agree"


@pytest.mark.parametrize("draft", list(DRAFTS))
@pytest.mark.parametrize("engine", ENGINES)
def test_prism_never_says_valid_where_the_suite_says_invalid(engine: str, draft: str) -> None:
    counts, widened = run_draft(engine, draft)
    assert sum(counts.values()) > 300
    assert widened == []


def _table() -> str:
    lines = [
        "| draft | engine | tests | agree | refused (schema) | stricter | widened | pass rate |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for draft in DRAFTS:
        for engine in ENGINES:
            counts, _ = run_draft(engine, draft)
            total = sum(counts.values())
            lines.append(
                f"| {draft} | {engine} | {total} | {counts['agree']} | {counts['refused']} | "
                f"{counts['stricter']} | {counts['widened']} | "
                f"{100 * counts['agree'] / total:.1f} % |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    print(_table())

"""Rows 1, 2, 3, E7 fail, with a precise message, against deliberately broken validators."""

from __future__ import annotations

import copy
import dataclasses
import urllib.request
from collections.abc import Mapping
from typing import Any

import pytest

from prism.conformance import ConformanceSubjects, default_subjects, run_row
from prism.core import ToolArgumentValidationIssue, ToolArgumentValidationResult

jsonschema = pytest.importorskip("prism.jsonschema", reason="prism-jsonschema is not installed")

BACKENDS = ["asyncio", "trio"]
ROWS = ["1", "2", "3", "E7"]
OK = ToolArgumentValidationResult(ok=True)


def _subjects(factory: Any) -> ConformanceSubjects:
    return dataclasses.replace(default_subjects(), json_schema_validator_factory=factory)


def expect_failure(row: str, factory: Any, backend: str, *phrases: str) -> str:
    result = run_row(row, _subjects(factory), backend=backend, timeout_seconds=60)
    assert result.status == "failed", f"row {row} should fail, got {result.status}"
    assert result.message is not None
    for phrase in phrases:
        assert phrase in result.message, f"{phrase!r} not in {result.message!r}"
    return result.message


# The rows pass against the real subjects once per session, in
# packages/prism-jsonschema/tests/test_conformance.py and
# test_threat_rows_jsonschema_rs.py (both engines);
# this module proves each row can fail.


def test_rows_skip_without_a_validator() -> None:
    subjects = dataclasses.replace(default_subjects(), json_schema_validator_factory=None)
    for row in ROWS:
        assert run_row(row, subjects).status == "skipped"


class _Real:
    """Delegates to the real validator; subclasses break one property."""

    def __init__(self, *, options: Any = None) -> None:
        self.inner = jsonschema.JsonSchemaArgumentValidator(options=options)

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        result: ToolArgumentValidationResult = self.inner.validate(schema, value)
        return result

    def cache_info(self) -> Any:
        return self.inner.cache_info()


class _AcceptsEverything(_Real):
    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        return OK


class _NoPointers(_Real):
    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        result = self.inner.validate(schema, value)
        errors = tuple(ToolArgumentValidationIssue(path=None, message="bad") for _ in result.errors)
        return ToolArgumentValidationResult(ok=result.ok, errors=errors)


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_1_fails_when_invalid_arguments_pass(backend: str) -> None:
    expect_failure("1", _AcceptsEverything, backend, "validation_failed", "violate the schema")


class _Recompiles(_Real):
    """Throws the cache away before every call."""

    def __init__(self, *, options: Any = None) -> None:
        super().__init__(options=options)
        self.options = options
        self.compiles = 0

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        self.inner = jsonschema.JsonSchemaArgumentValidator(options=self.options)
        self.compiles += 1
        return self.inner.validate(schema, value)

    def cache_info(self) -> Any:
        return self.inner.cache_info()._replace(compiles=self.compiles)


class _Rewalks(_Real):
    """Copies the schema on every call (a walk), then hits its cache by content."""

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        plain = copy.deepcopy(dict(schema.items()) if isinstance(schema, Mapping) else schema)
        return self.inner.validate(plain, value)


class _Fifo(_Real):
    """Never refreshes recency: the oldest schema is evicted even when just used."""

    def __init__(self, *, options: Any = None) -> None:
        super().__init__(options=options)
        self.size = self.inner.options.cache_size
        self.order: list[int] = []
        self.compiles = 0
        self.validators: dict[int, Any] = {}

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        key = id(schema)
        if key not in self.validators:
            self.compiles += 1
            self.validators[key] = jsonschema.JsonSchemaArgumentValidator()
            self.order.append(key)
            if len(self.order) > self.size:
                self.validators.pop(self.order.pop(0))
        result: ToolArgumentValidationResult = self.validators[key].validate(schema, value)
        return result

    def cache_info(self) -> Any:
        return self.inner.cache_info()._replace(compiles=self.compiles)


class _Fetches(_Real):
    """Resolves remote refs by fetching them (what fastjsonschema does by default)."""

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        for ref in _refs(schema):
            if ref.startswith("http://"):
                try:
                    urllib.request.urlopen(ref, timeout=0.5).close()
                except OSError:
                    pass
        return self.inner.validate(schema, value)


def _refs(value: Any) -> list[str]:
    if isinstance(value, Mapping):
        found = [str(value["$ref"])] if isinstance(value.get("$ref"), str) else []
        return found + [r for v in value.values() if v is not value for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


class _CompilesFirst(_Real):
    """Compiles whatever it gets, then reports problems (counts compiles before checking)."""

    def __init__(self, *, options: Any = None) -> None:
        super().__init__(options=options)
        self.compiles = 0

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        self.compiles += 1
        return self.inner.validate(schema, value)

    def cache_info(self) -> Any:
        return self.inner.cache_info()._replace(compiles=self.compiles)


class _Evaluates(_Real):
    """Builds Python from enum values without quoting them (the classic injection bug)."""

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        for keyword, found in _walk(schema):
            if keyword == "enum" and isinstance(found, list):
                for item in found:
                    try:
                        eval(f"{item!s}")
                    except Exception:
                        pass
        return self.inner.validate(schema, value)


def _walk(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        out = list(value.items())
        for item in value.values():
            out += _walk(item)
        return out
    if isinstance(value, list):
        return [pair for item in value for pair in _walk(item)]
    return []


class _ReadsPlantedIds(_Real):
    """Raw fastjsonschema, whose resolver reads a ``$id`` anywhere in the schema (a data
    position included) as an identifier: the planted one re-targets ``#/$defs/safe``."""

    def validate(self, schema: Any, value: object) -> ToolArgumentValidationResult:
        if "$id" not in schema:
            return super().validate(schema, value)
        import fastjsonschema

        try:
            fastjsonschema.compile(copy.deepcopy(schema))(value)
        except fastjsonschema.JsonSchemaException as exc:
            issue = ToolArgumentValidationIssue(path="/cmd", message=str(exc))
            return ToolArgumentValidationResult(ok=False, errors=(issue,))
        return OK


# --- the table: row, broken validator class, a phrase its failure message must contain ---

BROKEN = [
    pytest.param(
        "1", _NoPointers, "does not name the JSON Pointer /query", id="row-1-without-a-json-pointer"
    ),
    pytest.param(
        "1", _ReadsPlantedIds, "a $id planted in const", id="row-1-a-planted-id-retargets-a-ref"
    ),
    pytest.param("2", _Recompiles, "compiled again", id="row-2-every-call-compiles"),
    pytest.param("2", _Rewalks, "re-walked the schema", id="row-2-every-call-walks-the-schema"),
    pytest.param("2", _Fifo, "not LRU", id="row-2-eviction-is-not-lru"),
    pytest.param("3", _Fetches, "open a connection", id="row-3-a-remote-ref-is-fetched"),
    pytest.param(
        "3", _AcceptsEverything, "validation_failed", id="row-3-a-malformed-schema-passes"
    ),
    pytest.param(
        "3", _CompilesFirst, "reached compilation", id="row-3-malformed-schemas-reach-compilation"
    ),
    pytest.param("E7", _Evaluates, "schema content ran as code", id="row-e7-schema-content-runs"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("row", "validator", "phrase"), BROKEN)
def test_the_row_fails_against_the_broken_validator(
    row: str, validator: type, phrase: str, backend: str
) -> None:
    expect_failure(row, validator, backend, phrase)

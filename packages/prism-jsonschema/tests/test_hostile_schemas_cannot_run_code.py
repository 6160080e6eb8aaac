"""Threat E7: no schema content can run code while fastjsonschema compiles or validates.

Payloads that would set a canary (a builtins attribute and a file) are placed in every position
fastjsonschema turns into source, wrapped in every quoting break-out; a hypothesis strategy
builds random schemas from the same atoms. The canary must stay untouched, and every schema
either compiles (and validates without raising) or is rejected with a message.
"""

from __future__ import annotations

import ast
import builtins
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._codecheck import GeneratedCodeRejected, check_generated_code

CANARY = "PRISM_E7_CANARY"
CANARY_DIR = tempfile.TemporaryDirectory(prefix="prism-e7-")  # this run's own, removed at exit
CANARY_FILE = Path(CANARY_DIR.name) / "canary"
"""The payloads are built at import (for parametrize and hypothesis), so the canary lives in a
directory this test process made: no fixed /tmp name another run could share."""


def _payloads(file: Path) -> list[str]:
    calls = [
        f"__import__('builtins').__setattr__('{CANARY}', 1)",
        f'__import__("pathlib").Path("{file}").touch()',
    ]
    wrapped: list[str] = []
    for call in calls:
        wrapped += [
            call,
            f'"+{call}+"',
            f"'+{call}+'",
            f'""" + {call} + """',
            f"''' + {call} + '''",
            f'\\"+{call}+\\"',
            f"\n{call}\n",
            f'")\n{call}\n("',
            f"')\n{call}\n('",
            f"{{{call}}}",
            f"{{0.__class__}}{{data.__class__.__init__.__globals__}}{call}",
            f"\\\n{call}",
            f"\x00{call}",
            f"\u2028{call}\u2029",
            f"\r{call}#",
            f"]) or {call} or ([",
            f"\"; {call}; #'",
        ]
    return wrapped


ATOMS = [
    *_payloads(CANARY_FILE),
    '"',
    "'",
    "\\",
    '"""',
    "'''",
    "{",
    "}",
    "{}",
    "{name}",
    "{variable}",
    "{definition}",
    "%s",
    "$",
    "\\Z",
    "\x00",
    "\u2028",
    "\u2029",
    "\ud800",
    "\t\x0b\x0c",
    "é✓𝄞",
    "data",
    "validate",
]


@pytest.fixture(autouse=True)
def _canary_untouched() -> Iterator[None]:
    _reset()
    yield
    assert not hasattr(builtins, CANARY), "schema content was executed (builtins canary)"
    assert not CANARY_FILE.exists(), "schema content was executed (file canary)"


def _reset() -> None:
    if hasattr(builtins, CANARY):
        delattr(builtins, CANARY)
    CANARY_FILE.unlink(missing_ok=True)


def test_the_canary_detects_execution() -> None:
    for payload in _payloads(CANARY_FILE)[:1] + _payloads(CANARY_FILE)[17:18]:
        exec(payload)  # the canary mechanism itself must be able to fail
    assert hasattr(builtins, CANARY)
    assert CANARY_FILE.exists()
    _reset()


def _positions(atom: str) -> list[dict[str, Any]]:
    """``atom`` in every place fastjsonschema writes into generated source."""
    escaped = re.escape(atom)
    return [
        {"properties": {atom: {"type": "string"}}, "required": [atom]},
        {"properties": {atom: {"type": "integer", "default": atom}}},
        {"pattern": atom},
        {"pattern": escaped},
        {"patternProperties": {escaped: {"type": "integer"}}},
        {"enum": [atom, {atom: [atom]}]},
        {"const": {atom: atom}},
        {"default": atom, "title": atom, "description": atom, "$comment": atom, "examples": [atom]},
        {"$id": atom, "type": "object"},
        {"$id": "http://x/" + atom, "type": "object"},
        {"format": atom, "type": "string"},
        {"dependencies": {atom: [atom]}, "dependentRequired": {atom: [atom]}},
        {"$defs": {atom: {"type": "integer"}}, "properties": {"a": {"$ref": _ref(atom)}}},
        {"propertyNames": {"const": atom}},
        {"additionalProperties": False, "properties": {atom: True}},
        {"items": {"enum": [atom]}, "contains": {"const": atom}, "uniqueItems": True},
        {"if": {"const": atom}, "then": {"const": atom}, "else": {"not": {"const": atom}}},
        {atom: atom, "x-" + atom: {atom: [atom]}},
        {"$schema": atom},
    ]


def _ref(name: str) -> str:
    return "#/$defs/" + name.replace("~", "~0").replace("/", "~1")


def _instances(atom: str) -> list[object]:
    return [{}, {atom: atom}, {atom: 1, "a": atom}, [atom, atom], atom, 5, {"a": [atom]}]


def _exercise(validator: JsonSchemaArgumentValidator, schema: Any, instances: list[object]) -> None:
    for instance in instances:
        result = validator.validate(schema, instance)
        assert result.ok or result.errors
        for error in result.errors:
            assert isinstance(error.message, str)
            assert error.message


@pytest.mark.parametrize("atom", ATOMS, ids=[f"atom{i}" for i in range(len(ATOMS))])
def test_hostile_corpus(engine: str, atom: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    for schema in _positions(atom):
        _exercise(validator, schema, _instances(atom))
        nested = {"type": "object", "properties": {atom: {"type": "array", "items": schema}}}
        _exercise(validator, nested, [{atom: [_instances(atom)[1]]}, {atom: [atom]}])


def test_hostile_instances_cannot_run_code(engine: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    schema = {
        "type": "object",
        "patternProperties": {"^x": {"type": "integer"}},
        "additionalProperties": {"type": "integer"},
        "propertyNames": {"maxLength": 200},
    }
    for atom in ATOMS:
        _exercise(validator, schema, [{atom: "s"}, {"x" + atom: "s"}, {atom: {atom: atom}}])


_text = st.sampled_from(ATOMS) | st.text(max_size=8)
_json_leaf = st.none() | st.booleans() | st.integers(-5, 5) | _text
_json = st.recursive(
    _json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)


def _schemas() -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        keyword = st.one_of(
            st.builds(lambda m: {"properties": m}, st.dictionaries(_text, inner, max_size=3)),
            st.builds(lambda m: {"patternProperties": m},
                      st.dictionaries(_text.map(re.escape), inner, max_size=2)),
            st.builds(lambda s: {"items": s}, inner),
            st.builds(lambda s: {"additionalProperties": s}, inner),
            st.builds(lambda xs: {"anyOf": xs}, st.lists(inner, min_size=1, max_size=3)),
            st.builds(lambda xs: {"oneOf": xs}, st.lists(inner, min_size=1, max_size=2)),
            st.builds(lambda s: {"not": s}, inner),
            st.builds(lambda m: {"$defs": m}, st.dictionaries(_text, inner, max_size=2)),
        )  # fmt: skip
        return st.builds(
            lambda a, b: {**a, **b}, keyword, inner.filter(lambda s: isinstance(s, dict))
        )

    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "object", "array", "null"]),
            "enum": st.lists(_json, min_size=1, max_size=3),
            "const": _json,
            "default": _json,
            "title": _text,
            "description": _text,
            "pattern": _text.map(re.escape) | _text,
            "format": _text,
            "required": st.lists(_text, max_size=3, unique=True),
            "$ref": st.sampled_from(["#", "#/$defs/a", "#/properties/" + ATOMS[0]]),
            "$comment": _text,
            _text: _json,
        },
    )
    return st.recursive(leaf | st.booleans(), extend, max_leaves=5).filter(
        lambda s: isinstance(s, dict)
    )


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_schemas(), instance=_json)
def test_generated_hostile_schemas_never_run_code(schema: Any, instance: Any) -> None:
    for engine in ("fastjsonschema", "jsonschema-rs"):
        validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
        _exercise(validator, schema, [instance, {"a": instance}])
    assert not hasattr(builtins, CANARY)
    assert not CANARY_FILE.exists()


MALICIOUS = [
    "import os",
    "from os import system",
    "def validate(data):\n    __import__('os')",
    "def validate(data):\n    return data.__class__",
    "def validate(data):\n    return open('x')",
    "def validate(data):\n    return eval('1')",
    "def validate(data):\n    return '{data.__class__}'.format(**locals())",
    "def validate(data):\n    return '{0}'.format(data)",
    "def validate(data):\n    return x.format(**locals())",
    "def validate(data):\n    while True: pass",
    "def validate(data):\n    return lambda: 1",
    "def validate(data):\n    global x",
    "def validate(data):\n    return b'bytes'",
    "def validate(data, **kwargs):\n    return data",
    "@decorator\ndef validate(data):\n    return data",
    "def validate(data):\n    pass\ndef validate(data):\n    pass",
    "x = 1",
    "class C:\n    pass",
]


@pytest.mark.parametrize("source", MALICIOUS)
def test_code_check_refuses_anything_outside_the_whitelist(source: str) -> None:
    with pytest.raises(GeneratedCodeRejected):
        check_generated_code(ast.parse(source))


def test_code_check_is_the_last_line_of_defence(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulate an injection channel in fastjsonschema: the whitelist still stops it."""
    from fastjsonschema.draft04 import CodeGeneratorDraft04

    def unsafe(self: Any, var: str, value: Any) -> str:
        return f"{var} == {value}"  # an upstream regression: no repr()

    monkeypatch.setattr(CodeGeneratorDraft04, "_enum_value_matches", unsafe)
    validator = JsonSchemaArgumentValidator()
    payload = f"__import__('builtins').__setattr__('{CANARY}', 1)"
    result = validator.validate({"enum": [payload]}, "x")
    assert not result.ok
    (error,) = result.errors
    assert "failed the safety check" in error.message
    assert "unexpected" in error.message

r"""``\p{..}`` depends on the Unicode version: a code point the oldest tables lack fails the value.

ECMA-262 reads property escapes with current Unicode (V8 here: 17.0); RE2, Rust's ``regex`` and
Python's ``unicodedata`` (14.0 on 3.11) are older. Where a pattern reads Unicode properties, a
string it meets holding a code point unassigned in the oldest of those tables makes the whole
value invalid (never "no match", which ``not`` would turn into acceptance); other patterns and
other strings are unaffected.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

ENGINES = ("fastjsonschema", "jsonschema-rs")
NEWER = ["\u1c89", "\u2ffc", "\U0001e030", "\U00031350", "\u0378", "\U0001fae9", "\U000e0080"]
"""Unassigned in Unicode 14.0: 16.0, 15.1, 15.0, 15.0 letters and symbols, never assigned,
15.0/16.0 emoji, a tag-plane gap."""
OLD = ["a", "\u00e9", "\u0416", "1", " ", "\U0001f600", "\ue000", "\u4e00"]


def _prism(engine: str) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))


def _positions(pattern: str) -> list[tuple[str, dict[str, Any], Any]]:
    """Every place a pattern meets a string, each with the value holding ``{text}``."""
    return [
        ("pattern", {"properties": {"x": {"pattern": pattern}}}, lambda t: {"x": t}),
        ("not", {"properties": {"x": {"not": {"pattern": pattern}}}}, lambda t: {"x": t}),
        ("items", {"properties": {"x": {"items": {"pattern": pattern}}}}, lambda t: {"x": [t]}),
        ("names", {"propertyNames": {"pattern": pattern}}, lambda t: {t: 1}),
        ("keys", {"patternProperties": {pattern: {"type": "integer"}}}, lambda t: {t: "s"}),
        (
            "not-keys",
            {"not": {"patternProperties": {pattern: False}}},
            lambda t: {t: 1},
        ),
    ]  # type: ignore[list-item]


PATTERNS = ["^\\p{L}+$", "^\\P{L}+$", "^[^\\p{L}]+$", "\\p{So}", "^\\p{Script=Cyrillic}*$"]


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    engine=st.sampled_from(ENGINES),
    pattern=st.sampled_from(PATTERNS),
    position=st.integers(0, 5),
    new=st.sampled_from(NEWER),
    before=st.text(alphabet="ab1 \u00e9", max_size=3),
)
def test_a_code_point_the_oldest_tables_lack_fails_the_value_wherever_the_pattern_is(
    engine: str, pattern: str, position: int, new: str, before: str
) -> None:
    assert unicodedata.category(new) == "Cn"
    name, schema, value = _positions(pattern)[position]
    result = _prism(engine).validate(schema, value(before + new))  # type: ignore[operator]
    assert not result.ok, name
    for error in result.errors:  # the whole value, never one subschema's verdict
        if f"U+{ord(new):04X}" in error.message:
            assert error.path in (None, "")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("position", range(6))
def test_assigned_code_points_and_plain_patterns_are_unaffected(engine: str, position: int) -> None:
    name, schema, value = _positions("^\\p{L}+$")[position]
    for text in OLD:
        result = _prism(engine).validate(schema, value(text))  # type: ignore[operator]
        assert all("oldest tables" not in e.message for e in result.errors), name
    name, schema, value = _positions("^[a-z]+$")[position]
    for text in NEWER:
        result = _prism(engine).validate(schema, value(text))  # type: ignore[operator]
        assert all("oldest tables" not in e.message for e in result.errors), name


def _v8(pairs: list[tuple[str, str]]) -> list[bool]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the V8 oracle)")
    script = (
        "const pairs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(pairs.map(([p, s]) => new RegExp(p, 'u').test(s))))"
    )
    out = subprocess.run(
        [node, "-e", script], input=json.dumps(pairs), capture_output=True, text=True, check=True
    )
    verdicts: list[bool] = json.loads(out.stdout)
    return verdicts


@pytest.mark.parametrize("engine", ENGINES)
def test_prism_never_accepts_what_v8_rejects_for_property_escapes(engine: str) -> None:
    pairs = [(p, t) for p in PATTERNS for t in [*NEWER, *OLD, "a\u1c89b", "\u0416\u1c89"]]
    verdicts = _v8(pairs)
    validator = _prism(engine)
    for (pattern, text), v8 in zip(pairs, verdicts, strict=True):
        for schema, expect in (({"pattern": pattern}, v8), ({"not": {"pattern": pattern}}, not v8)):
            document = {"properties": {"x": schema}}
            if validator.validate(document, {"x": text}).ok:
                assert expect, (engine, document, text)


@pytest.mark.parametrize(
    ("pattern", "reads"),
    [
        ("^\\p{L}+$", True),
        ("[^\\P{Lu}x]", True),
        ("\\\\\\p{Nd}", True),
        ("^\\\\p{2}$", False),  # a literal backslash, then `p` twice
        ("^[a-z]+$", False),
        ("\\u{1F600}\\s\\d", False),
    ],
)
def test_only_patterns_reading_unicode_properties_depend_on_the_tables(
    pattern: str, reads: bool
) -> None:
    from prism.jsonschema._ecma import reads_unicode_tables, translate

    assert reads_unicode_tables(translate(pattern)) is reads

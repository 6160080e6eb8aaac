"""Schema patterns are ECMA-262 with the ``u`` flag: what that grammar refuses is refused.

RE2 and Rust's ``regex`` read ``[!-\\d]``, ``a{`` or a lone ``]`` their own way (a wider class,
a literal brace); ECMA-262 (``u`` flag) calls them syntax errors, so the schema is refused with
the pattern and its location named, never run under another reading.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import warnings
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.core.testing import scaled
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._ecma import translate
from prism.jsonschema._regex import PatternRefused, compile_pattern


def _x(pattern: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": {"type": "string", "pattern": pattern}}}


def _validator(engine: str) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"^[!-\d]+$", "#"),  # spelled out as [!-0-9] it held the range ! .. 0
        (r"^[!-\d]+$", "/"),
        (r"^[%-\w]+$", "+"),  # [%-0-9A-Za-z_]: the range % .. 0
        (r"^[.-\d]+$", "/"),
    ],
)
def test_a_class_range_ending_in_a_shorthand_is_not_widened(
    engine: str, pattern: str, text: str
) -> None:
    with pytest.raises(re.error):  # control: the reference's engine refuses it too
        re.compile(pattern)
    result = _validator(engine).validate(_x(pattern), {"x": text})
    assert not result.ok
    [error] = result.errors
    assert error.path is None  # the schema is refused, not the value
    assert repr(pattern) in error.message
    assert "/properties/x/pattern" in error.message
    assert "class range" in error.message


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"^[\d-z]$", "class range"),
        (r"^[a-\s]$", "class range"),
        (r"^[a-\p{Lu}]$", "class range"),
        (r"^a{$", "quantifier"),
        (r"^a{,3}$", "quantifier"),
        (r"^a{1$", "quantifier"),
        (r"a{}", "quantifier"),
        (r"^]$", "lone"),
        (r"^a}$", "lone"),
        (r"^[z-a]$", "out of order"),
        (r"^[a$", "not closed"),
        (r"^[\uD83D\uDE00]$", "surrogate pair"),  # u flag: one code point; Python: two
        (r"^\uD83D\uDE00$", "surrogate pair"),
        (r"^*a", "nothing to repeat"),  # an assertion is not quantifiable with the u flag
        (r"a$+", "nothing to repeat"),
        (r"^?a", "nothing to repeat"),
        (r"^{2}a", "nothing to repeat"),
        (r"(?<a>x)(?<a>y)", "used twice"),
        (r"(?<1a>x)", "name"),
    ],
)
def test_an_ecma_u_flag_syntax_error_refuses_the_schema(
    engine: str, pattern: str, why: str
) -> None:
    result = _validator(engine).validate(_x(pattern), {"x": "a"})
    assert not result.ok
    [error] = result.errors
    assert error.path is None
    assert why in error.message
    assert repr(pattern) in error.message


@pytest.mark.parametrize(
    ("pattern", "text", "valid"),
    [
        ("^[\\u{1F600}]$", "\U0001f600", True),
        ("^[\\u{1F600}]$", "\ud83d", False),
        ("^\\u{1F600}$", "\U0001f600", True),
        ("^[\\u{1F600}-\\u{1F64F}]$", "\U0001f610", True),
        ("^[\\u{1F600}-\\u{1F64F}]$", "\ud83d", False),
        ("^\\uD83D$", "\ud83d", True),
        ("^[a-]$", "-", True),
        ("^[a-b-c]$", "-", True),
        ("^[a-b-c]$", "c", True),
        ("^[a-b-c]$", "\\", False),
        ("^a{2}$", "aa", True),
        ("^a{2,}$", "a", False),
        ("^a\\{$", "a{", True),
        ("^\\]$", "]", True),
    ],
)
def test_u_flag_escapes_and_quantifiers_mean_what_ecma_says(
    engine: str, pattern: str, text: str, valid: bool
) -> None:
    """With the u flag ``\\u{...}`` is one code point; a lone surrogate escape is itself."""
    assert _validator(engine).validate(_x(pattern), {"x": text}).ok is valid


_ATOMS = st.sampled_from(
    [
        *("a", "z", "A", "0", "5", "9", "!", "#", "%", "/", ".", "_", "+", " ", "~", "-"),
        *(r"\d", r"\w", r"\s", r"\-", r"\]", r"\\", r"\.", r"\x41", r"\u0030", r"\t"),
    ]
)
_ITEMS = st.one_of(_ATOMS, st.tuples(_ATOMS, _ATOMS).map("-".join))
_CLASSES = st.builds(
    lambda negate, items: "[" + ("^" if negate else "") + "".join(items) + "]",
    st.booleans(),
    st.lists(_ITEMS, min_size=1, max_size=4),
)
# ASCII without \n (Python's $ matches before a final newline) and \x1c-\x1f (Python's \s
# holds them, ECMA's does not): where Python's re and ECMA-262 agree.
_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from("\t\r\v"),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cls=_CLASSES, texts=st.lists(_TEXT, min_size=1, max_size=4))
def test_classes_agree_with_the_jsonschema_package(engine: str, cls: str, texts: list[str]) -> None:
    """Prism refuses a class the reference's ``re`` refuses, and where both accept it every
    verdict is the reference's: never wider, never narrower."""
    pattern = f"^{cls}+$"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # Python's "possible set difference"
        try:
            re.compile(pattern)
            python_ok = True
        except re.error:
            python_ok = False
    schema = _x(pattern)
    validator = _validator(engine)
    for text in texts:
        result = validator.validate(schema, {"x": text})
        refused = not result.ok and result.errors[0].path is None
        if not python_ok:
            assert refused, f"{pattern!r}: Python's re refuses it, Prism ran it"
            return
        if refused:
            continue  # fail closed (e.g. "--" inside a class): never a wrong verdict
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            expected = jsonschema.Draft202012Validator(schema).is_valid({"x": text})
        assert result.ok is expected, f"{pattern!r} on {text!r}"


def test_a_surrogate_pair_escape_in_a_class_is_one_code_point(engine: str) -> None:
    """With the u flag ``[\\uD83D\\uDE00]`` is the class {U+1F600}; read as two lone
    surrogates it matched "\\ud83d". Python's ``re`` reads it that way, so the pattern is
    refused (``\\u{1F600}`` says it unambiguously)."""
    result = _validator(engine).validate(_x("^[\\uD83D\\uDE00]$"), {"x": "\ud83d"})
    assert not result.ok, "a lone high surrogate matched the class of one astral code point"
    assert result.errors[0].path is None


_TOKENS = (
    *("a", "b", "0", "-", "^", "$", ".", "*", "+", "?", "{", "}", "{2}", "{1,3}", "(", ")"),
    *("(?:", "(?<n>", "[", "]", "[^", "|", ",", "/", "&&"),
    *(r"\d", r"\w", r"\s", r"\D", r"\-", r"\u0041", r"\u{41}", r"\x41", r"\p{L}", r"\."),
    *(r"\/", r"\0", r"\t", r"\]", r"\["),
)
_CHARS = ("a", "b", "0", "-", "A", " ", "\t", "\n", "\r", ".", "/", "é", "\u2028", "\xa0")
_V8 = """
const [patterns, cases] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const compiles = (p) => { try { new RegExp(p, "u"); return true } catch { return false } };
const valid = patterns.map(compiles);
const found = cases.map(([p, s]) => compiles(p) && new RegExp(p, "u").test(s));
console.log(JSON.stringify([valid, found]));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node: V8 is the ECMA-262 oracle")
def test_patterns_agree_with_v8_under_the_u_flag() -> None:
    """Random patterns: Prism accepts none V8 refuses with the u flag, and where both accept,
    RE2 on the spelled-out pattern finds a match exactly where V8 does (fixed seed)."""
    rng = random.Random(7)
    patterns = sorted({"".join(rng.choices(_TOKENS, k=rng.randint(1, 7))) for _ in range(4000)})
    spelled: dict[str, Any] = {}
    for pattern in patterns:
        try:
            spelled[pattern] = compile_pattern(translate(pattern))
        except PatternRefused:
            pass
    accepted = [p for p in patterns if p in spelled]
    cases = [(p, "".join(rng.choices(_CHARS, k=rng.randint(0, 5)))) for p in accepted[:2000]]
    out = subprocess.run(
        ["node", "-e", _V8],
        input=json.dumps([accepted, cases]),
        capture_output=True,
        text=True,
        check=True,
        timeout=scaled(60),
    )
    valid, found = json.loads(out.stdout)
    assert [p for p, ok in zip(accepted, valid, strict=True) if not ok] == []
    wrong = [
        (p, s) for (p, s), hit in zip(cases, found, strict=True) if spelled[p].search(s) is not hit
    ]
    assert wrong == []


@pytest.mark.parametrize("draft", ["http://json-schema.org/draft-06/schema#",
                                   "http://json-schema.org/draft-07/schema#"])  # fmt: skip
@pytest.mark.parametrize(
    ("pattern", "matching", "other"),
    [
        ("^x-.*$", "x-a\u00e9", "x-\n"),
        (r"^a\sb$", "a\u3000b", "a_b"),
        (r"^[\s\d]+$", "1\t2\ufeff", "1a"),
        (r"^\n\r\t\v\f\0$", "\n\r\t\v\f\0", "nrtvf0"),
        (r"^\x41\u00e9\u{2028}[\u2000-\u200a]$", "A\u00e9\u2028\u2005", "A\u00e9\u2029 "),
    ],
)
def test_spelled_classes_compile_under_the_draft_6_and_7_meta_schemas(
    engine: str, draft: str, pattern: str, matching: str, other: str
) -> None:
    """jsonschema-rs checks every pattern of a draft-06/07 schema against ``format: "regex"``
    (ECMA-262): the spelled-out classes were ``\\x{a}``-style, RE2's own syntax, so every such
    schema with ``.``, ``\\s`` or ``\\n`` in a pattern or ``patternProperties`` was refused.
    (ECMA-262 reads ``\\s`` with U+FEFF and U+3000; Python's ``re`` does not.)"""
    validator = _validator(engine)
    schema: dict[str, Any] = {"$schema": draft, **_x(pattern)}
    names: dict[str, Any] = {"$schema": draft, "patternProperties": {pattern: False}}
    assert validator.validate(schema, {"x": matching}).ok
    assert not validator.validate(schema, {"x": other}).ok
    assert not validator.validate(names, {matching: 1}).ok
    assert validator.validate(names, {other: 1}).ok

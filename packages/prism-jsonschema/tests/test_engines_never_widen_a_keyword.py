"""Where an engine's own keyword is inexact, Prism's is exact or refuses: ``multipleOf`` never
accepts a non-multiple (fastjsonschema's 28-digit ``Decimal`` quotient and jsonschema-rs's float
remainder both did; an integer divisor is the reference's own ``%``), ``pattern`` classes mean
what ECMA-262 says (RE2's ``.`` and ``\\S`` accepted line terminators and Unicode spaces).
Differential against the ``jsonschema`` package: Prism never says valid where it says invalid."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import jsonschema
import prism_jsonschema_tests_attacks as attacks  # loaded by conftest.py
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

WIDENED_BEFORE = [  # accepted by the engine's own multipleOf, found by a random search
    (1.2345678901234566e28, 0.7),
    (1e308, 0.7),
    (8.715306131904667e29, 0.7),
    (2.558043282584668e29, 0.7),
]


def _exact(value: float, divisor: float) -> bool:
    ratio = Fraction(Decimal(repr(value))) / Fraction(Decimal(repr(divisor)))
    return ratio.denominator == 1


def _validator(engine: str) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))


@pytest.mark.anyio
@pytest.mark.parametrize(("value", "divisor"), WIDENED_BEFORE)
async def test_a_rounded_quotient_does_not_pass_multiple_of(
    engine: str, value: float, divisor: float
) -> None:
    schema = {"type": "object", "properties": {"n": {"multipleOf": divisor}}}
    result, handler = await attacks.dispatch_once(engine, schema, {"n": value})
    assert result.error is not None
    assert handler.calls == []
    # Exact is stricter than the reference's float division, so under `not` it would accept
    # what the reference rejects: that schema is refused (see _polarity).
    inverted = {"type": "object", "properties": {"n": {"not": {"multipleOf": divisor}}}}
    result, handler = await attacks.dispatch_once(engine, inverted, {"n": value})
    assert result.error is not None and "unsafe under not" in result.error.message
    assert handler.calls == []


@pytest.mark.parametrize("divisor", [0.1, 0.01, 0.7, 3, 2.5, 1e-5])
def test_true_multiples_still_pass(engine: str, divisor: float) -> None:
    validator = _validator(engine)
    for value in (0, divisor, divisor * 4, 19.01 if divisor == 0.01 else 3 * divisor):
        if _exact(value, divisor) and jsonschema.Draft202012Validator(
            {"multipleOf": divisor}
        ).is_valid(value):
            assert validator.validate({"multipleOf": divisor}, value).ok, value


_numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
)
_divisors = st.one_of(
    st.integers(min_value=1, max_value=1000),
    st.sampled_from([0.1, 0.01, 0.7, 0.25, 1e-5, 0.123456789, 2.5, 1e10]),
)


_PROPERTY = settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
"""Both properties: 300 reproducible examples each, the engine fixture shared across them."""


@_PROPERTY
@given(value=_numbers, divisor=_divisors)
def test_multiple_of_is_never_wider_than_exact_math_or_jsonschema(
    engine: str, value: float, divisor: float
) -> None:
    ok = _validator(engine).validate({"multipleOf": divisor}, value).ok
    reference = jsonschema.Draft202012Validator({"multipleOf": divisor}).is_valid(value)
    if isinstance(divisor, int):  # the reference's own `%`: exact, so safe under `not` too
        assert ok == reference
    elif ok:
        assert _exact(value, divisor)
        assert reference


ECMA_CASES = [  # (pattern, string, what ECMA-262 with the u flag says)
    (r"^\S+$", "a\u00a0b", False),
    (r"^\S+$", "a\ufeffb", False),
    (r"^\S+$", "a\u2028b", False),
    (r"^\S+$", "a\u000bb", False),
    (r"^\S+$", "a\u0085b", True),  # NEL is not ECMA whitespace
    (r"^.+$", "a\rb", False),
    (r"^.+$", "a\u2028b", False),
    (r"^.+$", "a\u2029b", False),
    (r"^.+$", "a\nb", False),
    (r"^.$", "\U0001f600", True),
    (r"^\d+$", "\u0661\u0662", False),
    (r"^\w+$", "\u00e9", False),
    (r"^\s$", "\u3000", True),
    (r"^\s$", "\u000b", True),
    (r"^[\s]$", "\u00a0", True),
    (r"^[^\s]$", "\u00a0", False),
    (r"^\D$", "\u0661", True),
    (r"^\W$", "\u00e9", True),
    (r"^a$", "a\n", False),
    (r"^\u00e9$", "\u00e9", True),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("pattern", "text", "valid"), ECMA_CASES)
async def test_pattern_classes_mean_what_ecma_262_says(
    engine: str, pattern: str, text: str, valid: bool
) -> None:
    schema = {"type": "object", "properties": {"s": {"pattern": pattern}}}
    result, _handler = await attacks.dispatch_once(engine, schema, {"s": text})
    assert (result.error is None) is valid, (pattern, text, result.error)


@pytest.mark.parametrize(
    "pattern", [r"\bword", r"[\S]", r"(?s).", r"(?i)a", "[]", "[^]", r"[[:alpha:]]", r"\A", r"a\z"]
)
def test_what_cannot_be_spelled_exactly_is_refused(engine: str, pattern: str) -> None:
    result = _validator(engine).validate({"pattern": pattern}, "x")
    assert not result.ok
    assert "not a supported regular expression" in result.errors[0].message


_ATOMS = [".", r"\d", r"\w", r"\s", r"\S", r"\D", r"\W", "[a-c]", r"[^\s]", r"[\d_]", "a", "-"]
_patterns = st.lists(
    st.tuples(st.sampled_from(_ATOMS), st.sampled_from(["", "*", "+", "?", "{1,2}"])),
    min_size=1,
    max_size=4,
).map(lambda parts: "^" + "".join(atom + q for atom, q in parts) + "$")
_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=6)


@_PROPERTY
@given(pattern=_patterns, text=_text)
def test_pattern_classes_agree_with_jsonschema_on_printable_ascii(
    engine: str, pattern: str, text: str
) -> None:
    # On printable ASCII, Python's `re` (the jsonschema package) and ECMA-262 agree.
    expected = jsonschema.Draft202012Validator({"pattern": pattern}).is_valid(text)
    assert _validator(engine).validate({"pattern": pattern}, text).ok is expected


@pytest.mark.anyio
async def test_a_long_string_is_not_matched_but_refused(engine: str) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"s": {"not": {"pattern": "^[a-z]+$"}}},
    }
    result, handler = await attacks.dispatch_once(
        engine, schema, {"s": "a" * 70_000}, max_pattern_input_length=65_536
    )
    assert result.error is not None
    assert "max_pattern_input_length=65536" in result.error.message
    assert handler.calls == []
    result, _handler = await attacks.dispatch_once(engine, schema, {"s": "A" * 65_536})
    assert result.error is None

"""Under ``validate_formats=True`` a format is checked at least as strictly as the reference
(the ``jsonschema`` package with ``idna``), or the schema is refused naming format and engine.

Both engines accepted IDN hostnames IDNA2008 disallows; a format an engine checks loosely (or
not at all, in some drafts) is a widening, so the allowlist in ``_formats`` decides.
"""

from __future__ import annotations

import warnings
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._drafts import CANONICAL_URI
from prism.jsonschema._formats import CHECKED_FORMATS

_SEEDS: dict[str, list[str]] = {
    "email": ["a@b.co", "a..b@c.d", ".a@b.co", "a@b", "@b.co", "a@", "nope", "é@é.fr"],
    "idn-email": ["a@b.co", "é@é.fr", "a@\u01c5.com", "a@-b.co", "nope", "a@b"],
    "ipv4": ["1.1.1.1", "01.1.1.1", "256.1.1.1", "1.1.1", "0.0.0.0", "1.1.1.1\n", "١.1.1.1"],
    "ipv6": ["::1", "::", "1::", ":::", "fe80::1%eth0", "::ffff:1.1.1.1", "1:2:3:4:5:6:7:8:9"],
    "uuid": [
        "2eb8aa08-aa98-11ea-b4aa-73b441d1638e",
        "2EB8AA08-AA98-11EA-B4AA-73B441D1638E",
        "2eb8aa08aa9811eab4aa73b441d1638e",
        "{2eb8aa08-aa98-11ea-b4aa-73b441d1638e}",
        "2eb8aa08-aa98-11ea-b4aa-73b441d1638",
    ],
}
_ALPHABET = "0123456789abcdefABCDEF@.:-%{}\n é\u01c5\ufb00١x"


def _mutate(seed: str, edits: list[tuple[int, int, str]]) -> str:
    text = list(seed)
    for kind, where, char in edits:
        at = where % (len(text) + 1)
        if kind == 0 or not text:
            text.insert(at, char)
        elif kind == 1:
            text[min(at, len(text) - 1)] = char
        else:
            del text[min(at, len(text) - 1)]
    return "".join(text)


def _strings(fmt: str) -> st.SearchStrategy[str]:
    edit = st.tuples(st.integers(0, 2), st.integers(0, 64), st.sampled_from(_ALPHABET))
    mutated = st.builds(_mutate, st.sampled_from(_SEEDS[fmt]), st.lists(edit, max_size=3))
    return st.one_of(mutated, st.text(alphabet=_ALPHABET, max_size=14))


def _schema(draft: Any, fmt: str) -> dict[str, Any]:
    return {
        "$schema": CANONICAL_URI[draft],
        "type": "object",
        "properties": {"x": {"type": "string", "format": fmt}},
    }


def _strict(engine: Any) -> JsonSchemaArgumentValidator:
    options = JsonSchemaValidatorOptions(engine=engine, validate_formats=True)
    return JsonSchemaArgumentValidator(options=options)


def _reference_valid(schema: dict[str, Any], value: Any) -> bool:
    cls = jsonschema.validators.validator_for(schema)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value))


_CHECKED = [
    (engine, draft, fmt)
    for engine, drafts in CHECKED_FORMATS.items()
    for draft, formats in drafts.items()
    for fmt in sorted(formats)
]


@pytest.mark.parametrize(("engine", "draft", "fmt"), _CHECKED)
def test_every_honoured_format_is_checked_on_an_obviously_bad_value(
    engine: str, draft: int, fmt: str
) -> None:
    """An allowlisted format is really asserted by that engine in that draft, not ignored."""
    result = _strict(engine).validate(_schema(draft, fmt), {"x": "not-a-value"})
    assert not result.ok
    assert result.errors[0].path is not None  # the value failed; the schema was accepted


@pytest.mark.parametrize(("engine", "draft", "fmt"), _CHECKED)
@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_honoured_format_accepts_what_the_reference_refuses(
    engine: str, draft: int, fmt: str, data: st.DataObject
) -> None:
    schema = _schema(draft, fmt)
    validator = _strict(engine)
    for seed in _SEEDS[fmt]:
        if validator.validate(schema, {"x": seed}).ok:
            assert _reference_valid(schema, {"x": seed}), f"{fmt} {seed!r} on {engine}"
    text = data.draw(_strings(fmt))
    if validator.validate(schema, {"x": text}).ok:
        assert _reference_valid(schema, {"x": text}), f"{fmt} {text!r} on {engine}"


@pytest.mark.parametrize(
    ("engine", "hostname"),
    [
        ("fastjsonschema", "xn--a.com"),  # not valid punycode
        ("fastjsonschema", "xn--.com"),  # empty punycode
        ("fastjsonschema", "ab--c.com"),  # hyphens in positions 3 and 4 (RFC 5891 4.2.3.1)
        ("fastjsonschema", "a-.com"),  # a label ending in a hyphen
        ("fastjsonschema", "xn--ls8h.la"),  # an emoji A-label (DISALLOWED in IDNA2008)
        ("jsonschema-rs", "\u01c5.com"),  # titlecase digraph (DISALLOWED)
        ("jsonschema-rs", "\ufb00.com"),  # ligature ff (DISALLOWED)
    ],
)
def test_no_idn_hostname_the_reference_refuses_is_valid(engine: str, hostname: str) -> None:
    schema = _schema(2020, "idn-hostname")
    assert not _reference_valid(schema, {"x": hostname})  # control: the idna package refuses it
    result = _strict(engine).validate(schema, {"x": hostname})
    assert not result.ok
    [error] = result.errors
    assert error.path is None  # refused at registration: the engine cannot check it exactly
    assert "'idn-hostname'" in error.message
    assert engine in error.message


@pytest.mark.parametrize(
    ("draft", "fmt"),
    [
        (2020, "idn-hostname"),
        (2020, "date"),  # both engines accept year 0000; Python's datetime does not
        (2020, "regex"),  # fastjsonschema would compile it with `re`; rs reads another dialect
        (2020, "date-time"),
        (2020, "hostname"),
        (2020, "uri"),
        (2020, "x-custom"),
        (7, "uuid"),  # not a draft-07 format: neither engine asserts it there
    ],
)
def test_a_format_no_engine_checks_exactly_refuses_the_schema(
    engine: str, draft: int, fmt: str
) -> None:
    schema = _schema(draft, fmt)
    result = _strict(engine).validate(schema, {"x": "anything"})
    assert not result.ok
    [error] = result.errors
    assert error.path is None
    assert f"format {fmt!r} at #/properties/x/format" in error.message
    assert engine in error.message


def test_fastjsonschema_refuses_format_regex() -> None:
    result = _strict("fastjsonschema").validate(_schema(2020, "regex"), {"x": "(a"})
    assert not result.ok
    assert result.errors[0].path is None
    assert "'regex'" in result.errors[0].message


@pytest.mark.parametrize("fmt", ["idn-hostname", "date", "regex", "x-custom", "uri"])
def test_without_validate_formats_a_format_is_an_annotation(engine: Any, fmt: str) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    assert validator.validate(_schema(2020, fmt), {"x": "\u01c5.com"}).ok

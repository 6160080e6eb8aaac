"""Every bound option has its documented default, accepts exactly its hard cap, refuses the rest."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import pytest

from prism.jsonschema import HARD_CAPS, JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

_PAGE = Path(__file__).resolve().parents[3] / "docs" / "jsonschema.md"
_ROW = re.compile(r"^\| `(\w+)` \| ([\d,]+) \| ([\d,]+) \|", re.MULTILINE)


def _documented() -> dict[str, tuple[int, int]]:
    """docs/jsonschema.md's options table: each count option's (default, hard cap)."""
    page = _PAGE.read_text()
    table = page[page.index("| option | default | hard cap |") :].split("\n\n", 1)[0]
    return {
        m[1]: (int(m[2].replace(",", "")), int(m[3].replace(",", ""))) for m in _ROW.finditer(table)
    }


DEFAULTS = {name: default for name, (default, _) in _documented().items()}
CAPS = {name: cap for name, (_, cap) in _documented().items()}


def test_defaults_match_the_design() -> None:
    options = JsonSchemaValidatorOptions()
    for name, default in DEFAULTS.items():
        assert getattr(options, name) == default, name
    assert options.missing_schema == "allow"
    assert options.engine == "fastjsonschema"
    assert options.validate_formats is False
    assert dict(HARD_CAPS) == CAPS


def test_options_are_frozen() -> None:
    options = JsonSchemaValidatorOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_errors = 3  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(CAPS))
def test_exactly_the_hard_cap_is_accepted(name: str) -> None:
    assert getattr(JsonSchemaValidatorOptions(**{name: CAPS[name]}), name) == CAPS[name]
    assert getattr(JsonSchemaValidatorOptions(**{name: 1}), name) == 1


@pytest.mark.parametrize("name", sorted(CAPS))
@pytest.mark.parametrize("bad", ["above", 0, -1, True, False, 1.5, math.nan, math.inf, "8", None])
def test_invalid_bound_values_raise_naming_the_option(name: str, bad: object) -> None:
    value = CAPS[name] + 1 if bad == "above" else bad
    error = ValueError if type(value) is int else TypeError  # a wrong type is a TypeError
    with pytest.raises(error, match=name) as info:
        JsonSchemaValidatorOptions(**{name: value})
    assert f"{CAPS[name]:,}" in str(info.value)


@pytest.mark.parametrize(
    ("name", "bad"),
    [("missing_schema", "deny"), ("missing_schema", None), ("engine", "jsonschema"),
     ("engine", 1), ("validate_formats", 1), ("validate_formats", "yes")],
)  # fmt: skip
def test_invalid_choices_raise_naming_the_option(name: str, bad: object) -> None:
    error = ValueError if isinstance(bad, str) and name != "validate_formats" else TypeError
    with pytest.raises(error, match=name):
        JsonSchemaValidatorOptions(**{name: bad})


def test_messages_name_the_owner_and_field() -> None:
    with pytest.raises(ValueError, match=r"^JsonSchemaValidatorOptions\.cache_size must be"):
        JsonSchemaValidatorOptions(cache_size=0)
    with pytest.raises(ValueError, match=r"^JsonSchemaValidatorOptions\.engine must be one of"):
        JsonSchemaValidatorOptions(engine="rust")  # type: ignore[arg-type]


def test_options_are_typed_keywords_only() -> None:
    with pytest.raises(TypeError):
        JsonSchemaValidatorOptions(max_bytes=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        JsonSchemaValidatorOptions(262_144)  # type: ignore[misc]
    with pytest.raises(TypeError):
        JsonSchemaArgumentValidator(max_errors=3)  # type: ignore[call-arg]


def test_validator_takes_one_options_object() -> None:
    options = JsonSchemaValidatorOptions(max_errors=64)
    assert JsonSchemaArgumentValidator(options=options).options is options
    assert JsonSchemaArgumentValidator().options == JsonSchemaValidatorOptions()
    with pytest.raises(TypeError, match="JsonSchemaValidatorOptions"):
        JsonSchemaArgumentValidator(options={"max_errors": 3})  # type: ignore[arg-type]


def test_the_validator_satisfies_the_core_protocol(engine: str) -> None:
    from prism.core import ToolArgumentValidator

    assert isinstance(
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine)),
        ToolArgumentValidator,
    )


def test_missing_rust_engine_fails_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    import prism.jsonschema._validator as module

    monkeypatch.setattr(module, "rs_available", lambda: False)
    with pytest.raises(ImportError, match=r"prism-jsonschema\[rs\]"):
        JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine="jsonschema-rs"))
    assert JsonSchemaArgumentValidator().options.engine == "fastjsonschema"

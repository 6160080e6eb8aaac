"""A schema is read in the reference's dialect: its ``$schema`` spellings, its keywords per draft.

The ``jsonschema`` package (the reference) knows each draft by its published URI only and reads
any other ``$schema`` as 2020-12; it applies only its own keywords per draft. Prism reading an
unknown spelling as the older draft it resembles, or applying a keyword foreign to the draft
(2020-12 ``additionalItems``), accepted under ``not`` what the reference rejects. So: only the
published URIs are accepted, the keyword table is held to the reference's, and a 2019-09
``$recursiveRef`` other than ``"#"`` is refused.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._dialect import KEYWORDS
from prism.jsonschema._drafts import CANONICAL_URI, draft_for_uri

REFERENCE = {
    4: jsonschema.Draft4Validator,
    6: jsonschema.Draft6Validator,
    7: jsonschema.Draft7Validator,
    2019: jsonschema.Draft201909Validator,
    2020: jsonschema.Draft202012Validator,
}
NOT_VALIDATORS = frozenset(
    {"$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$comment",
     "$defs", "definitions", "$vocabulary", "title", "description", "default", "examples",
     "deprecated", "readOnly", "writeOnly", "contentEncoding", "contentMediaType",
     "contentSchema"}
)  # fmt: skip
"""Identifiers, containers and annotations: no assertion of their own anywhere."""
FOLDED = {
    4: {"exclusiveMaximum", "exclusiveMinimum"},  # read by the reference's maximum/minimum
    7: {"then", "else"},  # read by its `if`
    2019: {"then", "else", "maxContains", "minContains"},  # ... and by its `contains`
    2020: {"then", "else", "maxContains", "minContains"},
}


@pytest.mark.parametrize("draft", list(REFERENCE))
def test_every_keyword_prism_reads_is_one_the_reference_applies(draft: int) -> None:
    reference = set(REFERENCE[draft].VALIDATORS)
    extra = KEYWORDS[draft] - reference - NOT_VALIDATORS - FOLDED.get(draft, set())  # type: ignore[index]
    assert extra == set(), f"draft {draft}: keywords the reference does not apply: {extra}"
    assert reference - KEYWORDS[draft] == set()  # type: ignore[index]


def _prism(engine: str) -> JsonSchemaArgumentValidator:
    return JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))


def _reference_draft(uri: str) -> int | None:
    found = jsonschema.validators.validator_for({"$schema": uri}, default=None)
    return next((d for d, cls in REFERENCE.items() if cls is found), None)


SPELLINGS = [
    *(f"{scheme}json-schema.org/{path}{tail}"
      for scheme in ("http://", "https://", "HTTP://", "")
      for path in ("draft-04/schema", "draft-06/schema", "draft-07/schema",
                   "draft/2019-09/schema", "draft/2020-12/schema", "draft/07/schema",
                   "draft-2020-12/schema", "draft/next/schema", "draft-03/schema")
      for tail in ("", "#", "/", "#/", "?", " ", "##"))
]  # fmt: skip


@pytest.mark.parametrize("uri", SPELLINGS)
def test_a_schema_uri_names_the_draft_the_reference_reads(uri: str) -> None:
    draft = draft_for_uri(uri)
    assert draft is None or draft == _reference_draft(uri)
    if draft is None:
        result = _prism("fastjsonschema").validate({"$schema": uri}, {})
        assert not result.ok and "published meta-schema URI" in result.errors[0].message


def test_every_published_uri_is_accepted_with_and_without_its_fragment() -> None:
    for draft, uri in CANONICAL_URI.items():
        for spelling in (uri.removesuffix("#"), uri.removesuffix("#") + "#"):
            assert draft_for_uri(spelling) == draft == _reference_draft(spelling)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    base=st.sampled_from(sorted({u.removesuffix("#") for u in CANONICAL_URI.values()})),
    cut=st.integers(0, 60),
    insert=st.text(alphabet="hpst:/#.-0123456789Ddraftschemajon", max_size=4),
)
def test_a_mutated_schema_uri_is_never_read_as_another_draft(
    base: str, cut: int, insert: str
) -> None:
    uri = base[:cut] + insert + base[cut:]
    draft = draft_for_uri(uri)
    assert draft is None or draft == _reference_draft(uri)


RECURSIVE_REFS = ["#/$defs/a", "#/properties/y", "#a", "#/", "", "#/$defs"]


@pytest.mark.parametrize("engine", ["fastjsonschema", "jsonschema-rs"])
@pytest.mark.parametrize("ref", RECURSIVE_REFS)
def test_a_recursive_ref_other_than_hash_is_refused(engine: str, ref: str) -> None:
    schema: dict[str, Any] = {
        "$schema": CANONICAL_URI[2019],
        "properties": {"x": {"$recursiveRef": ref}, "y": {"type": "integer"}},
        "$defs": {"a": {"type": "object"}},
    }
    result = _prism(engine).validate(schema, {"x": 5})
    assert not result.ok
    assert "'$recursiveRef'" in result.errors[0].message
    assert "#/properties/x/$recursiveRef" in result.errors[0].message


@pytest.mark.parametrize("engine", ["fastjsonschema", "jsonschema-rs"])
def test_a_recursive_ref_to_hash_still_works(engine: str) -> None:
    schema: dict[str, Any] = {
        "$schema": CANONICAL_URI[2019],
        "type": "object",
        "properties": {"child": {"$recursiveRef": "#"}, "n": {"type": "integer"}},
    }
    validator = _prism(engine)
    assert validator.validate(schema, {"child": {"n": 1}}).ok
    assert not validator.validate(schema, {"child": {"n": "x"}}).ok


@pytest.mark.parametrize("engine", ["fastjsonschema", "jsonschema-rs"])
@pytest.mark.parametrize("draft", [2019, 2020])
def test_additional_items_means_what_the_reference_says_per_draft(engine: str, draft: int) -> None:
    tuple_keyword = "items" if draft == 2019 else "prefixItems"
    schema = {
        "$schema": CANONICAL_URI[draft],  # type: ignore[index]
        "properties": {"x": {"not": {tuple_keyword: [{}], "additionalItems": False}}},
    }
    reference = REFERENCE[draft](schema)
    for value in ({"x": [1]}, {"x": [1, 2]}):
        if not reference.is_valid(value):
            assert not _prism(engine).validate(schema, value).ok

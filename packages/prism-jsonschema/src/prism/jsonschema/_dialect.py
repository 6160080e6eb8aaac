"""The keywords of each draft: a schema is read only through these, everything else is dropped.

A key that is not a keyword of the schema's draft has no meaning there, so it is left out of the
normalised document every engine compiles (with annotation-only data such as ``default`` and
``examples``). No engine can then find an ``$id``, ``$anchor`` or ``$ref`` where the draft does
not put one: data positions are opaque values, never walked for identifiers.
"""

from __future__ import annotations

from typing import Final

from ._drafts import Draft

__all__ = ["DROPPED_ANNOTATIONS", "KEYWORDS"]

_DRAFT4: Final = frozenset(
    {"$schema", "id", "$ref", "title", "description", "default", "type", "enum", "multipleOf",
     "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
     "pattern", "items", "additionalItems", "maxItems", "minItems", "uniqueItems",
     "maxProperties", "minProperties", "required", "properties", "patternProperties",
     "additionalProperties", "dependencies", "allOf", "anyOf", "oneOf", "not", "format",
     "definitions"}
)  # fmt: skip
_DRAFT6: Final = (_DRAFT4 - {"id"}) | {"$id", "const", "contains", "propertyNames", "examples"}
_DRAFT7: Final = _DRAFT6 | {
    "$comment", "if", "then", "else", "readOnly", "writeOnly", "contentMediaType",
    "contentEncoding",
}  # fmt: skip
_DRAFT2019: Final = (_DRAFT7 - {"dependencies"}) | {
    "$anchor", "$defs", "$vocabulary", "$recursiveRef", "$recursiveAnchor", "dependentRequired",
    "dependentSchemas", "maxContains", "minContains", "unevaluatedProperties",
    "unevaluatedItems", "contentSchema", "deprecated",
}  # fmt: skip
_DRAFT2020: Final = (_DRAFT2019 - {"$recursiveRef", "$recursiveAnchor", "additionalItems"}) | {
    "$dynamicRef", "$dynamicAnchor", "prefixItems",
}  # fmt: skip

KEYWORDS: Final[dict[Draft, frozenset[str]]] = {
    4: _DRAFT4, 6: _DRAFT6, 7: _DRAFT7, 2019: _DRAFT2019, 2020: _DRAFT2020,
}  # fmt: skip
"""What each draft defines (core, applicator, validation, meta-data, content vocabularies).

A keyword the reference does not apply in a draft is no keyword there (2020-12 has no
``additionalItems``: next to ``prefixItems`` it would act on one engine and not on the reference,
which under ``not`` accepts what the reference rejects); a test holds this table to the
reference's own keyword table per draft.

``definitions`` stays a container of schemas in every draft: it is where most real schemas keep
their ``$ref`` targets, 2019-09 and 2020-12 included."""

DROPPED_ANNOTATIONS: Final = frozenset({"default", "examples"})
"""Annotation data no engine validates with; dropped so no engine ever reads it."""

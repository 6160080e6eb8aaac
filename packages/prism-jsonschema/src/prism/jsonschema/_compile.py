"""Cache miss: check an untrusted schema, then compile it with the configured engine."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._cost import check_compile_cost
from ._drafts import DEFAULT_DRAFT, Draft, draft_for_uri
from ._exact import rs_keywords
from ._expansion import compare_weight, expanded_size, expanded_weight
from ._fastjsonschema import compile_fastjsonschema
from ._keywords import SchemaWalk
from ._lowering import guard_names_for_rs, lower_for_fastjsonschema, prepare_common
from ._options import JsonSchemaValidatorOptions
from ._polarity import refuse_inexact_where_negated
from ._refgraph import resolve_references
from ._rs import compile_rs
from ._scan import check_pattern_weights, own_weights
from ._walk import SchemaRejected, WalkState

__all__ = ["CheckedSchema", "check_schema", "compile_checked"]


@dataclass(slots=True)
class CheckedSchema:
    """A schema that passed every pre-check: its plain copy, draft and canonical digest."""

    walk: SchemaWalk
    document: dict[str, Any]
    digest: bytes
    size: int
    cost: int
    expanded: int = 0
    """Expanded size (see ``_expansion``), set when compiling."""
    scan: int = 0
    """Scan weight (see ``_scan``), set when compiling."""


def check_schema(schema: object, options: JsonSchemaValidatorOptions) -> CheckedSchema:
    """Copy and check ``schema`` (bounds, types, refs, patterns); raise ``SchemaRejected``."""
    if not isinstance(schema, Mapping):
        raise SchemaRejected(f"schema must be a JSON object, not {type(schema).__name__}")
    walk = SchemaWalk(WalkState(options), _draft(schema))
    document = walk.schema(schema, None, 1)
    assert isinstance(document, dict)
    try:
        canonical = json.dumps(
            document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        ).encode("utf-8", "surrogatepass")
    except (ValueError, RecursionError) as exc:
        raise SchemaRejected(f"schema cannot be encoded as JSON: {exc}") from None
    if len(canonical) > options.max_schema_bytes:
        raise SchemaRejected(
            f"schema is {len(canonical):,} bytes as compact JSON, more than "
            f"max_schema_bytes={options.max_schema_bytes}"
        )
    check_pattern_weights(walk.regexes)
    cost = check_compile_cost(len(canonical), len(walk.regexes), options)
    digest = hashlib.sha256(canonical).digest()
    return CheckedSchema(
        walk=walk, document=document, digest=digest, size=len(canonical), cost=cost
    )


def _draft(schema: Mapping[Any, Any]) -> Draft:
    uri = schema.get("$schema")
    if uri is None:
        return DEFAULT_DRAFT
    draft = draft_for_uri(uri) if isinstance(uri, str) else None
    if draft is None:
        raise SchemaRejected(
            f"$schema {str(uri)[:120]!r} is not a known draft: only a published meta-schema "
            "URI is read (draft-04, -06, -07 as http://json-schema.org/draft-0N/schema, "
            "2019-09 and 2020-12 as https://json-schema.org/draft/YYYY-MM/schema, each with or "
            "without a final '#'); another spelling is not read as the draft it resembles, and "
            "unknown meta-schemas are never fetched"
        )
    return draft


def compile_checked(
    checked: CheckedSchema, options: JsonSchemaValidatorOptions
) -> tuple[Callable[[object], object], Callable[[object], object] | None, Any]:
    """Compile with the configured engine: ``(fast, collect_all, rs_validator)``.

    For fastjsonschema ``fast`` raises on the first error and ``collect_all`` (built only when
    ``max_errors > 1``) collects every error; for jsonschema-rs ``fast`` is ``is_valid``.
    Consumes ``checked.document``.
    """
    walk = checked.walk
    document = checked.document
    nodes = [node for node, _ in walk.schema_nodes]
    targets = resolve_references(walk)
    refuse_inexact_where_negated(walk, targets, formats=options.validate_formats)
    checked.expanded = expanded_size(nodes, targets, options.max_expanded_size) + compare_weight(
        nodes
    )
    own = own_weights(nodes, walk.regexes, options.validate_formats)
    checked.scan = expanded_weight(nodes, targets, own) if any(own) else 0
    prepare_common(document, walk.schema_nodes, walk.draft)
    if options.engine == "jsonschema-rs":
        guard_names_for_rs(document, walk.schema_nodes, walk.regexes)
        validator = compile_rs(
            document,
            validate_formats=options.validate_formats,
            keywords=rs_keywords(walk.regexes),
        )
        return validator.is_valid, None, validator
    renamed = lower_for_fastjsonschema(walk.schema_nodes, walk.draft, walk.state.refs, walk.regexes)
    regexes = {**walk.regexes, **{name: walk.regexes[key] for name, key in renamed.items()}}
    build = functools.partial(
        compile_fastjsonschema,
        draft=walk.draft,
        schema_bytes=checked.size,
        code_budget=options.max_compile_cost,
        regexes=regexes,
        validate_formats=options.validate_formats,
    )
    collect_all = None
    if options.max_errors > 1:  # a copy: compiling consumes the document
        collect_all = build(json.loads(json.dumps(document)), fast_fail=False)
    fast = build(document, fast_fail=True)
    return fast, collect_all, None

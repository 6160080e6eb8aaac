"""What the validator answers besides a verdict: the budgets of error details, refusals (a
schema, a value over the work budget) and engine failures as results, and what an identity
alias may keep alive."""

from __future__ import annotations

import weakref
from typing import Final

from prism.core import ToolArgumentValidationIssue, ToolArgumentValidationResult

from ._cache import Entry, retained_bytes
from ._errors import clip
from ._hotpath import failure
from ._rs import lone_surrogate

__all__ = [
    "ALIAS_SLACK",
    "COLLECT_QUOTED",
    "COLLECT_WORK",
    "RS_QUOTED",
    "alias_size",
    "engine_crash",
    "nodes_over_budget",
    "over_budget",
    "proven",
    "rejection",
    "rs_failed",
    "text_over_budget",
    "unquoted",
    "weakly_referable",
]

COLLECT_WORK: Final = 1_024
"""Up to this much work (expanded size x value nodes) every error is collected (then
the first ``max_errors``); above it only the first error is reported, so an argument with
thousands of errors costs no time or memory. jsonschema-rs's ``iter_errors`` builds every error
before the first is returned and fastjsonschema's collecting run raises one exception per
error."""
COLLECT_QUOTED: Final = 262_144
"""And up to this much expanded size x value nodes x ``weigh`` units: each of up to expanded
size x nodes errors may quote the whole value (jsonschema-rs quotes the instance in every
message, a whole object for ``propertyNames``), so what collecting quotes stays within
this x 64 characters (16 MiB)."""


RS_QUOTED: Final = 524_288
"""Characters of strings and property names (shared ones counted each time) in a failing value
whose jsonschema-rs errors are built: each error's message, and a Python copy of its instance,
quote it in full (~43 bytes per quoted astral character measured: 171 MiB for 4 million). Above
this the value gets Prism's own error instead, so error details cost at most ~22 MiB; errors
are collected only while expanded size x these characters stay within it too."""


ALIAS_SLACK: Final = 65_536
"""Bytes an identity alias may keep alive beyond its entry's own estimate (dropped ``default``,
``examples``, descriptions); heavier schema objects take the hash path on every call."""


def alias_size(schema: object, entry: Entry) -> int | None:
    """The bytes ``schema`` keeps alive if aliased (counted in ``cache_bytes``), or ``None``
    when it is too heavy to keep alive (then it is aliased weakly when it can be, else every
    call on it takes the hash path)."""
    try:
        return retained_bytes(schema, entry.cost + ALIAS_SLACK)
    except Exception:  # a hostile object: never kept
        return None


def unquoted(quoted: int) -> ToolArgumentValidationIssue:
    message = (
        "value does not match the schema; the jsonschema-rs engine quotes the value in its "
        f"error details, and this value holds {quoted:,} or more characters of text, over "
        f"{RS_QUOTED:,}: details not built"
    )
    return ToolArgumentValidationIssue(path=None, message=message)


def weakly_referable(schema: object) -> bool:
    """Whether ``schema`` can be named by a weak reference (not an exact ``dict``)."""
    try:
        weakref.ref(schema)
    except TypeError:
        return False
    return True


def proven(value: object) -> bool:
    """The bounds of a value a short-strings bounds schema (stricter) already accepted."""
    return True


def rejection(reason: str) -> ToolArgumentValidationResult:
    message = clip(f"tool parameter schema rejected: {reason}", 600)
    return failure(ToolArgumentValidationIssue(path=None, message=message))


def rs_failed(exc: Exception, instance: object) -> ToolArgumentValidationResult:
    """jsonschema-rs raised: a lone surrogate is the value's fault (named where it is), any
    other exception the engine's."""
    issue = lone_surrogate(instance) if isinstance(exc, UnicodeEncodeError) else None
    return failure(issue or ToolArgumentValidationIssue(path=None, message=engine_crash(exc)))


def engine_crash(exc: BaseException) -> str:
    return clip(f"schema engine failed: {type(exc).__name__}: {exc}")


def over_budget(value: str, schema: str, budget: int) -> ToolArgumentValidationResult:
    """The refusal of a value whose work is over ``max_validation_work`` (``budget``):
    ``value`` says what it holds, ``schema`` what of the schema multiplies it."""
    message = (
        f"value has {value}: against this schema ({schema}) that is more than "
        f"max_validation_work={budget:,}"
    )
    return failure(ToolArgumentValidationIssue(path=None, message=message))


def text_over_budget(
    nodes: int, chars: int, schema: str, budget: int
) -> ToolArgumentValidationResult:
    """``over_budget`` for a value whose characters were counted too (scan work, uniqueItems)."""
    value = f"{nodes:,} JSON nodes and {chars:,} characters of strings and property names (or more)"
    return over_budget(value, schema, budget)


def nodes_over_budget(
    entry: Entry, budget: int, weighing: str = ""
) -> ToolArgumentValidationResult:
    """``over_budget`` for a value past ``entry.node_limit`` nodes (``weighing``: how weighed)."""
    value = f"more than {entry.node_limit:,} JSON nodes{weighing}"
    return over_budget(value, f"expanded size {entry.expanded:,}", budget)

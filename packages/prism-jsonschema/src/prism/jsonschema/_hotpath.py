"""The engine half of the per-call hot path, one closure per engine: every collaborator is a
local variable (no attribute loads per call).

``JsonSchemaArgumentValidator.validate`` finds the compiled entry (the cache lookup is shared by
both engines) and hands it, with the value, to the closure built here for its engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from prism.core import ToolArgumentValidationIssue, ToolArgumentValidationResult

from ._exact import OVERFLOW, reset_exact_checks
from ._instance import MAX_INSTANCE_INT_BITS, InstanceBounds, InstanceRejected, Slow, Violation
from ._scan import CHARS_PER_WORK, text_of
from ._weight import count_nodes

if TYPE_CHECKING:
    from ._cache import Entry

__all__ = ["OK", "EngineRun", "failure", "make_fastjsonschema_run", "make_rs_run"]

OK: Final = ToolArgumentValidationResult(ok=True)
EngineRun = Callable[["Entry", object], ToolArgumentValidationResult]
"""Validates a value against a compiled (not rejected) entry."""


def failure(*errors: Any) -> ToolArgumentValidationResult:
    """A failed result carrying ``errors``."""
    return ToolArgumentValidationResult(ok=False, errors=errors)


def make_fastjsonschema_run(
    bounds: InstanceBounds,
    engine_failure: Callable[[Entry, object, Exception], ToolArgumentValidationResult],
    too_much_work: Callable[[Entry], ToolArgumentValidationResult],
    too_much_scan: Callable[[Entry, int, int], ToolArgumentValidationResult],
    budget: int,
) -> EngineRun:
    """fastjsonschema: the Python bounds walk, then the generated function (raises if invalid).

    The arguments object's own level is walked inline (tool arguments are mostly flat), nested
    containers by ``bounds.walk``. A flat object's node count is known from that loop; only a
    nested one is counted against ``entry.node_limit`` (the work bound). The walk also counts
    characters: a schema that scans strings (``entry.scan``) checks its scan work (``_scan``)
    from that one walk, before the engine runs.
    """
    walk, check = bounds.walk, bounds.check
    max_properties, longest = bounds.max_properties, bounds.max_string
    max_bits = MAX_INSTANCE_INT_BITS
    join = "".join

    def run(entry: Entry, value: object) -> ToolArgumentValidationResult:
        instance: Any = value
        limit = entry.node_limit
        nodes = chars = 0  # nodes: 0 until counted (a flat object is counted at the end)
        try:
            if type(value) is not dict or len(value) > max_properties:
                raise Slow
            if len(value) >= limit:
                return too_much_work(entry)
            for key, item in value.items():
                kind = type(item)
                if type(key) is not str or len(key) > longest:
                    raise Slow
                if kind is str:
                    size = len(item)
                    if size > longest:
                        raise Slow
                    chars += size
                elif kind is dict or kind is list:
                    if not nodes:  # before any walk: a shared-object DAG is never unfolded
                        nodes = count_nodes(value, limit)
                        if nodes > limit:
                            return too_much_work(entry)
                    try:
                        chars += walk(item, 2)
                    except Violation as violation:
                        raise violation.at(key) from None
                elif kind is int:
                    if item.bit_length() > max_bits:  # the general check names the bound
                        raise Slow
                elif kind is float:
                    if item - item != 0.0:  # NaN or an infinity
                        raise Slow
                elif not (kind is bool or item is None):
                    raise Slow
            if entry.scan:
                chars += len(join(value))  # the names: all exact strings (checked above)
                nodes = nodes or len(value) + 1
        except Slow:  # not a plain, flat-enough object: the general check says what is wrong
            nodes = count_nodes(value, limit)
            if nodes > limit:
                return too_much_work(entry)
            try:
                instance = check(value)
            except InstanceRejected as exc:
                return failure(exc.error)
            if entry.scan:  # the plain copy: every length is its own
                nodes, chars, _ = text_of(instance, limit, budget * CHARS_PER_WORK)
        except Violation as violation:
            return failure(violation.error())
        scan = entry.scan
        if scan and max(entry.expanded, 1) * nodes + scan * chars // CHARS_PER_WORK > budget:
            return too_much_scan(entry, nodes, chars)
        if entry.exact:
            reset_exact_checks()
        try:
            entry.fast(instance)
        except Exception as exc:  # the engine's "invalid", or an engine bug: never a crash
            return engine_failure(entry, instance, exc)
        return OK

    return run


def make_rs_run(
    bounds_ok: Callable[[object], bool],
    invalid: Callable[[Entry, object], ToolArgumentValidationResult],
    slow: Callable[[Entry, object], ToolArgumentValidationResult],
) -> EngineRun:
    """jsonschema-rs: the bounds are a compiled schema too, run in Rust before the user's."""

    def run(entry: Entry, value: object) -> ToolArgumentValidationResult:
        if entry.patterns or entry.exact:
            return guarded(entry, value)
        try:
            if type(value) is dict and bounds_ok(value):  # a subclass: read by Python, below
                if entry.fast(value):
                    return OK
                return invalid(entry, value)
        except Exception:  # not plain JSON for jsonschema-rs: the slow path says why
            pass
        return slow(entry, value)

    def guarded(entry: Entry, value: object) -> ToolArgumentValidationResult:
        """A schema with patterns or ``multipleOf``: a string over the input bound, or a value
        past the exact-check budget, fails the value whatever the engine concluded from the
        keyword's exception."""
        OVERFLOW.error = None
        if entry.exact:
            reset_exact_checks()
        try:
            if type(value) is dict and bounds_ok(value):
                verdict = OK if entry.fast(value) else None
            else:
                verdict = slow(entry, value)
        except Exception:
            verdict = slow(entry, value)
        error = OVERFLOW.error
        if error is not None:
            OVERFLOW.error = None
            return failure(ToolArgumentValidationIssue(path=None, message=str(error)))
        return invalid(entry, value) if verdict is None else verdict

    return run

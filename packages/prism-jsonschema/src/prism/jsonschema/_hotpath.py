"""The per-call hot path, one closure per engine: every collaborator is a local variable.

A cache hit by identity costs one dict lookup and, unless the schema is the one used last, one
LRU move; no schema read, no lock. The two closures repeat that prologue on purpose: a shared
helper would cost a Python call on every validation.

Threads share a closure. ``newest`` is only a hint to skip the LRU move: racing threads can leave
an entry a few places short of the most-recent end (eviction order, never a result, is affected;
an evicted ``newest`` stays usable, its code is immutable). ``hits`` is exact on GIL builds (no
switch point inside ``+=``) and may undercount under free threading; see ``CompileCache``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from prism.core import JsonObject, ToolArgumentValidationResult

from ._instance import MAX_INSTANCE_INT_BITS, InstanceBounds, InstanceRejected, Slow, Violation

if TYPE_CHECKING:
    from ._cache import CompileCache, Entry

__all__ = ["OK", "Validate", "failure", "make_fastjsonschema_validate", "make_rs_validate"]

OK: Final = ToolArgumentValidationResult(ok=True)
Validate = Callable[[JsonObject, object], ToolArgumentValidationResult]


def failure(*errors: Any) -> ToolArgumentValidationResult:
    """A failed result carrying ``errors``."""
    return ToolArgumentValidationResult(ok=False, errors=errors)


def make_fastjsonschema_validate(
    cache: CompileCache,
    miss: Callable[[object], Entry],
    bounds: InstanceBounds,
    engine_failure: Callable[[Entry, object, Exception], ToolArgumentValidationResult],
) -> Validate:
    """fastjsonschema: the Python bounds walk, then the generated function (raises if invalid).

    The arguments object's own level is walked inline (tool arguments are mostly flat), nested
    containers by ``bounds.walk``.
    """
    by_id_get = cache.by_id.get
    touch = cache.touch
    walk, check = bounds.walk, bounds.check
    max_properties, longest = bounds.max_properties, bounds.max_string
    max_bits = MAX_INSTANCE_INT_BITS
    hits = 0
    newest: object = None  # the entry known to sit at the LRU's most-recent end
    cache.hit_counters.append(lambda: hits)

    def validate(schema: JsonObject, value: object) -> ToolArgumentValidationResult:
        nonlocal hits, newest
        alias = by_id_get(id(schema))
        if alias is not None and alias[0] is schema:
            entry = alias[1]
            hits += 1
            if entry is not newest:  # repeated calls of one tool skip the LRU move
                try:
                    touch(entry.key)
                    newest = entry
                except KeyError:  # evicted by another thread a moment ago
                    pass
        else:
            entry = newest = miss(schema)
        if entry.rejected is not None:
            rejected: ToolArgumentValidationResult = entry.rejected
            return rejected
        instance: Any = value
        try:
            if type(value) is not dict or len(value) > max_properties:
                raise Slow
            for key, item in value.items():
                kind = type(item)
                if type(key) is not str or len(key) > longest:
                    raise Slow
                if kind is str:
                    if len(item) > longest:
                        raise Slow
                elif kind is dict or kind is list:
                    try:
                        walk(item, 2)
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
        except Slow:  # not a plain, flat-enough object: the general check says what is wrong
            try:
                instance = check(value)
            except InstanceRejected as exc:
                return failure(exc.error)
        except Violation as violation:
            return failure(violation.error())
        try:
            entry.fast(instance)
        except Exception as exc:  # the engine's "invalid", or an engine bug: never a crash
            return engine_failure(entry, instance, exc)
        return OK

    return validate


def make_rs_validate(
    cache: CompileCache,
    miss: Callable[[object], Entry],
    bounds_ok: Callable[[object], bool],
    invalid: Callable[[Entry, object], ToolArgumentValidationResult],
    slow: Callable[[Entry, object], ToolArgumentValidationResult],
) -> Validate:
    """jsonschema-rs: the bounds are a compiled schema too, run in Rust before the user's."""
    by_id_get = cache.by_id.get
    touch = cache.touch
    hits = 0
    newest: object = None
    cache.hit_counters.append(lambda: hits)

    def validate(schema: JsonObject, value: object) -> ToolArgumentValidationResult:
        nonlocal hits, newest
        alias = by_id_get(id(schema))
        if alias is not None and alias[0] is schema:
            entry = alias[1]
            hits += 1
            if entry is not newest:
                try:
                    touch(entry.key)
                    newest = entry
                except KeyError:
                    pass
        else:
            entry = newest = miss(schema)
        if entry.rejected is not None:
            rejected: ToolArgumentValidationResult = entry.rejected
            return rejected
        try:
            if type(value) is dict and bounds_ok(value):  # a subclass: read by Python, below
                if entry.fast(value):
                    return OK
                return invalid(entry, value)
        except Exception:  # not plain JSON for jsonschema-rs: the slow path says why
            pass
        return slow(entry, value)

    return validate

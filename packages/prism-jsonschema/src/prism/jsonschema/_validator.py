"""``JsonSchemaArgumentValidator`` and the dispatch ``ToolValidator`` built on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from prism.core import (
    ErrorInfo,
    JsonObject,
    ToolArgumentValidationError,
    ToolArgumentValidationResult,
    ToolDefinition,
    ToolExecutionContext,
    ToolValidator,
)

from ._cache import CacheInfo, CompileCache, Entry
from ._compile import check_schema, compile_checked
from ._errors import clip, fastjsonschema_errors, render_errors, rs_errors
from ._fastjsonschema import FASTJSONSCHEMA_EXCEPTIONS
from ._instance import InstanceBounds, InstanceRejected, Slow, Violation
from ._options import JsonSchemaValidatorOptions
from ._rs import compile_rs_bounds, rs_available
from ._walk import SchemaRejected

__all__ = ["JsonSchemaArgumentValidator", "create_json_schema_tool_argument_validator"]

_OK: Final = ToolArgumentValidationResult(ok=True)


def _failure(*errors: ToolArgumentValidationError) -> ToolArgumentValidationResult:
    return ToolArgumentValidationResult(ok=False, errors=errors)


class JsonSchemaArgumentValidator:
    """Validates values against untrusted JSON Schemas: bounded, cached, never fetching.

    Schemas are treated as immutable once validated against (the cache keys on identity
    first): pass a new object after changing a schema.
    """

    def __init__(self, **options: Any) -> None:
        self.options = JsonSchemaValidatorOptions(**options)
        if self.options.engine == "jsonschema-rs" and not rs_available():
            raise ImportError(
                "engine='jsonschema-rs' needs jsonschema-rs: pip install 'prism-jsonschema[rs]'"
            )
        self._cache = CompileCache(self.options.cache_size)
        self._bounds = InstanceBounds(self.options)
        self._max_errors = self.options.max_errors
        self.validate = self._make_validate()  # type: ignore[method-assign,assignment]

    def cache_info(self) -> CacheInfo:
        """``CacheInfo(hits, misses, compiles, size)``."""
        return self._cache.info()

    def validate(self, schema: JsonObject, value: object) -> ToolArgumentValidationResult:
        """Check ``value`` against ``schema``; never raises for schema or value problems."""
        raise NotImplementedError  # pragma: no cover - replaced per instance in __init__

    def _make_validate(self) -> Callable[[JsonObject, object], ToolArgumentValidationResult]:
        # The hot path is a closure: every collaborator is a local, a cache hit costs one dict
        # lookup and one LRU touch, and the instance walk is one call for a flat object.
        by_id_get = self._cache.by_id.get
        cache = self._cache
        touch = cache.touch
        hits = 0
        newest: object = None  # the entry known to sit at the LRU's most-recent end

        def count_hits() -> int:
            return hits

        cache.hit_counters.append(count_hits)
        walk = self._bounds.walk
        check = self._bounds.check
        miss = self._miss
        rs = self.options.engine == "jsonschema-rs"
        bounds_ok = self._rs_bounds().is_valid if rs else None
        rs_slow = self._rs_slow
        rs_invalid = self._rs_invalid
        engine_failure = self._engine_failure

        def validate(schema: JsonObject, value: object) -> ToolArgumentValidationResult:
            """Check ``value`` against ``schema``; never raises for schema or value problems."""
            nonlocal hits, newest
            alias = by_id_get(id(schema))
            if alias is not None and alias[0] is schema:
                entry = alias[1]
                hits += 1
                if entry is not newest:  # repeated calls of one tool skip the LRU touch
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
            if bounds_ok is not None:
                # jsonschema-rs: the bounds are a schema too, checked in Rust before the user's.
                try:
                    if bounds_ok(value):
                        if entry.fast(value):
                            return _OK
                        return rs_invalid(entry, value)
                except Exception:  # not plain JSON for jsonschema-rs: the slow path says why
                    pass
                return rs_slow(entry, value)
            instance: Any = value
            try:
                if type(value) is dict or type(value) is list:
                    try:
                        walk(value, 1)
                    except Slow:
                        instance = check(value)
                else:
                    instance = check(value)
            except Violation as violation:
                return _failure(violation.error())
            except InstanceRejected as exc:
                return _failure(exc.error)
            try:
                entry.fast(instance)
            except Exception as exc:  # the engine's "invalid", or an engine bug: never a crash
                return engine_failure(entry, instance, exc)
            return _OK

        validate.__doc__ = JsonSchemaArgumentValidator.validate.__doc__
        return validate

    def _rs_bounds(self) -> Any:
        options = self.options
        return compile_rs_bounds(
            max_depth=options.max_instance_depth,
            max_properties=options.max_instance_properties,
            max_string=options.max_string_length,
            max_items=options.max_array_items,
        )

    def _rs_slow(self, entry: Entry, value: object) -> ToolArgumentValidationResult:
        """jsonschema-rs said no (or could not read the value): find out why, precisely."""
        try:
            instance = self._bounds.check(value)
        except InstanceRejected as exc:
            return _failure(exc.error)
        try:
            if entry.fast(instance):  # the bounds schema is stricter than JSON (huge integers)
                return _OK
        except Exception as exc:  # an engine bug must not escape as a crash
            return _failure(ToolArgumentValidationError(path=None, message=_engine_crash(exc)))
        return self._rs_invalid(entry, instance)

    def _rs_invalid(self, entry: Entry, instance: object) -> ToolArgumentValidationResult:
        try:
            errors = rs_errors(entry.rs_validator.iter_errors(instance), self._max_errors)
        except Exception as exc:  # an engine bug must not escape as a crash
            return _failure(ToolArgumentValidationError(path=None, message=_engine_crash(exc)))
        return _failure(*errors)

    def _engine_failure(
        self, entry: Entry, instance: object, exc: Exception
    ) -> ToolArgumentValidationResult:
        if isinstance(exc, FASTJSONSCHEMA_EXCEPTIONS):
            return self._fastjsonschema_failure(exc, entry.collect_all, instance)
        return _failure(ToolArgumentValidationError(path=None, message=_engine_crash(exc)))

    def _fastjsonschema_failure(
        self, first: Exception, collect_all: Any, instance: object
    ) -> ToolArgumentValidationResult:
        found: Exception = first
        if collect_all is not None:
            try:
                collect_all(instance)
            except FASTJSONSCHEMA_EXCEPTIONS as exc:
                found = exc
            except Exception:  # keep the first error rather than lose it
                pass
        return _failure(*fastjsonschema_errors(found, instance, self._max_errors))

    def _miss(self, schema: object) -> Entry:
        cache = self._cache
        try:
            checked = check_schema(schema, self.options)
        except SchemaRejected as exc:
            entry = Entry(key=("rejected", id(schema)), rejected=_rejection(str(exc)))
            entry = cache.store(entry)
            cache.alias(schema, entry)
            return entry
        except RecursionError:
            entry = Entry(key=("rejected", id(schema)), rejected=_rejection("schema too deep"))
            entry = cache.store(entry)
            cache.alias(schema, entry)
            return entry
        found = cache.lookup(checked.digest)
        if found is None:
            found = cache.store(self._build(checked))
        cache.alias(schema, found)
        return found

    def _build(self, checked: Any) -> Entry:
        with self._cache.lock:
            self._cache.compiles += 1
        try:
            compiled = compile_checked(checked, self.options)
        except SchemaRejected as exc:
            return Entry(key=checked.digest, rejected=_rejection(str(exc)))
        except Exception as exc:  # an engine failing on an odd schema: reject, never crash
            return Entry(key=checked.digest, rejected=_rejection(_engine_crash(exc)))
        fast, collect_all, rs_validator = compiled
        return Entry(
            key=checked.digest, fast=fast, collect_all=collect_all, rs_validator=rs_validator
        )


def _rejection(reason: str) -> ToolArgumentValidationResult:
    message = clip(f"tool parameter schema rejected: {reason}", 600)
    return _failure(ToolArgumentValidationError(path=None, message=message))


def _engine_crash(exc: BaseException) -> str:
    return clip(f"schema engine failed: {type(exc).__name__}: {exc}")


class _JsonSchemaToolValidator:
    """The dispatch ``ToolValidator``: ``None`` passes, an ``ErrorInfo`` blocks."""

    def __init__(self, validator: JsonSchemaArgumentValidator) -> None:
        self.validator = validator
        self._reject_missing = validator.options.missing_schema == "reject"

    def cache_info(self) -> CacheInfo:
        """The underlying validator's ``CacheInfo``."""
        return self.validator.cache_info()

    def __call__(
        self, tool: ToolDefinition, arguments: JsonObject, context: ToolExecutionContext
    ) -> ErrorInfo | None:
        schema = tool.parameters
        if schema is None:
            if not self._reject_missing:
                return None
            return ErrorInfo(
                code="validation_failed",
                message=f"Tool {tool.name} has no parameter schema; calls are rejected",
            )
        result = self.validator.validate(schema, arguments)
        if result.ok:
            return None
        return ErrorInfo(
            code="validation_failed",
            message=render_errors(result.errors),
            details={"errors": [{"path": e.path, "message": e.message} for e in result.errors]},
        )


def create_json_schema_tool_argument_validator(**options: Any) -> ToolValidator:
    """A dispatch ``ToolValidator`` over a new ``JsonSchemaArgumentValidator(**options)``.

    The returned callable also has ``.validator`` and ``.cache_info()``.
    """
    return _JsonSchemaToolValidator(JsonSchemaArgumentValidator(**options))

"""``JsonSchemaArgumentValidator`` and the dispatch ``ToolValidator`` built on it."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Final

from prism.core import JsonObject, ToolArgumentValidationIssue, ToolArgumentValidationResult

from ._cache import WEAK_ALIAS_BYTES, CacheInfo, CompileCache, Entry, names
from ._childcompile import CompileFault
from ._compile import check_schema, compile_checked
from ._cost import held_bytes
from ._explain import Explainer
from ._hotpath import EngineRun, failure, make_fastjsonschema_run, make_rs_run
from ._instance import InstanceBounds, InstanceRejected
from ._options import JsonSchemaValidatorOptions
from ._rs import compile_rs_bounds, rs_available
from ._scan import CHARS_PER_WORK, SHORT_TIERS, Impure, longest_within, plain_nodes, text_of
from ._verdicts import (
    COLLECT_WORK,
    alias_size,
    engine_crash,
    nodes_over_budget,
    proven,
    rejection,
    text_over_budget,
    weakly_referable,
)
from ._walk import SchemaRejected
from ._weight import SCALARS, count_nodes, weigh

__all__ = ["LIGHT_WORK", "JsonSchemaArgumentValidator"]

LIGHT_WORK: Final = 4_096
"""Expanded size x value nodes up to which dispatch validates on the event loop (tens of
microseconds); anything heavier runs in a worker thread."""


class JsonSchemaArgumentValidator:
    """Validates values against untrusted JSON Schemas: bounded, cached, never fetching.

    Schemas are treated as immutable once validated against (the cache keys on identity
    first): pass a new object after changing a schema.
    """

    def __init__(self, *, options: JsonSchemaValidatorOptions | None = None) -> None:
        self.options = JsonSchemaValidatorOptions() if options is None else options
        if not isinstance(self.options, JsonSchemaValidatorOptions):
            raise TypeError(
                "JsonSchemaArgumentValidator.options must be a JsonSchemaValidatorOptions, "
                f"got {type(options).__name__}"
            )
        if self.options.engine == "jsonschema-rs" and not rs_available():
            raise ImportError(
                "engine='jsonschema-rs' needs jsonschema-rs: pip install 'prism-jsonschema[rs]'"
            )
        self._cache = cache = CompileCache(self.options.cache_size, self.options.max_cache_bytes)
        self._bounds = InstanceBounds(self.options)
        self._explain = Explainer(
            self._bounds, self.options.max_errors, self.options.max_validation_work
        )
        self._by_id_get = cache.by_id.get
        self._touch = cache.touch
        self._newest: object = None
        """The entry known to sit at the LRU's most-recent end: repeated calls skip the move."""
        self._identity_hits = 0
        self._counts_here = self.options.engine == "jsonschema-rs"
        self._short: dict[int, Any] = {}
        """jsonschema-rs bounds (``is_valid``) by string length: the options' own, and
        short-strings ones compiled on first use."""
        self._run, self._run_proven = self._make_runs()

    def cache_info(self) -> CacheInfo:
        """``CacheInfo(hits, misses, compiles, size)``."""
        info = self._cache.info()
        return info._replace(hits=info.hits + self._identity_hits)

    def cache_bytes(self) -> int:
        """Estimated memory held by the compile cache (bounded by ``max_cache_bytes``)."""
        with self._cache.lock:
            return self._cache.bytes

    def validate(self, schema: JsonObject, value: object) -> ToolArgumentValidationResult:
        """Check ``value`` against ``schema``; never raises for schema or value problems."""
        # The identity hit reads no schema and takes no lock (see ``CompileCache``); racing
        # threads may leave ``_newest`` stale (LRU order, never a result, is affected) and, under
        # free threading, undercount ``_identity_hits``.
        alias = self._by_id_get(id(schema))
        if alias is not None and (alias[0] is schema or names(alias[0], schema)):
            entry: Entry = alias[1]
            self._identity_hits += 1
            if entry is not self._newest:
                try:
                    self._touch(entry.key)
                    self._newest = entry
                except KeyError:  # evicted by another thread a moment ago
                    pass
        else:
            entry = self._newest = self._miss(schema)
        rejected: ToolArgumentValidationResult | None = entry.rejected
        if rejected is not None:
            return rejected
        if self._counts_here:  # jsonschema-rs: the fastjsonschema run counts in its own walk
            if entry.scan:
                return self._scanned(entry, value)
            if entry.unique_text:
                return self._unique_counted(entry, value)
            limit = entry.node_limit
            flat = (  # a flat object: nothing to count
                type(value) is dict
                and len(value) < limit
                and SCALARS.issuperset(map(type, value.values()))
            )
            if not flat and count_nodes(value, limit) > limit:
                return self._too_much_work(entry)
        return self._run(entry, value)

    def work(self, schema: object, value: object) -> int | None:
        """Expanded size x weight of ``value`` (nodes, plus string lengths: see ``weigh``) for a
        compiled ``schema`` (by identity), ``None`` when it is not compiled; counting stops just
        past ``LIGHT_WORK``."""
        alias = self._cache.by_id.get(id(schema))
        if alias is None or not names(alias[0], schema) or alias[1].rejected is not None:
            return None
        entry: Entry = alias[1]
        expanded = max(entry.expanded, 1)
        scan = entry.scan
        if scan:
            try:
                nodes, chars, _ = text_of(
                    value, LIGHT_WORK // expanded, LIGHT_WORK * CHARS_PER_WORK // scan
                )
            except Impure:  # read through Python first: not provably light
                return None
            return expanded * nodes + scan * chars // CHARS_PER_WORK
        return expanded * weigh(value, LIGHT_WORK // expanded)

    def _scanned(self, entry: Entry, value: object) -> ToolArgumentValidationResult:
        """jsonschema-rs and a schema that scans strings (patterns, asserted formats): node
        work plus scan work within ``max_validation_work`` before any engine runs (see
        ``_scan``; fastjsonschema's run counts both in its bounds walk). The characters are
        proven by a short-strings bounds schema in Rust when one fits, else counted."""
        if type(value) is dict:
            try:
                short = self._short_bounds(entry, plain_nodes(value, entry.node_limit))
            except Impure:
                short = None
            if short is not None:
                try:
                    fits = short(value)
                except Exception:  # not plain JSON for jsonschema-rs: counted, below
                    fits = False
                if fits:
                    return self._run_proven(entry, value)
        return self._counted(entry, value)

    def _short_bounds(self, entry: Entry, nodes: int) -> Any:
        """The instance bounds with every string and property name short enough that
        ``nodes`` nodes keep the scan work within budget (``longest_within``), or ``None``."""
        options = self.options
        if nodes > entry.node_limit:
            return None
        longest = longest_within(
            options.max_validation_work, max(entry.expanded, 1), entry.scan, nodes
        )
        if entry.name_patterns:  # every name within max_pattern_input_length, too
            longest = min(longest, options.max_pattern_input_length)
        most = options.max_string_length
        if longest >= most:  # the options' own bound suffices
            tier = most
        else:
            index = bisect_right(SHORT_TIERS, longest)
            if not index:
                return None
            tier = SHORT_TIERS[index - 1]
        bounds = self._short.get(tier)
        if bounds is None:
            bounds = self._short[tier] = self._rs_bounds(tier).is_valid
        return bounds

    def _counted(self, entry: Entry, value: object) -> ToolArgumentValidationResult:
        """``_scanned`` by counting every character (``text_of``)."""
        options = self.options
        budget = options.max_validation_work
        expanded, scan = max(entry.expanded, 1), entry.scan
        char_limit = budget * CHARS_PER_WORK // scan
        names = entry.name_patterns
        counted = self._text(value, entry.node_limit, char_limit, names)
        if isinstance(counted, ToolArgumentValidationResult):
            return counted
        value, (nodes, chars, longest) = counted
        if expanded * nodes + scan * chars // CHARS_PER_WORK > budget:
            return self._too_much_scan(entry, nodes, chars)
        limit = options.max_pattern_input_length
        if names and longest > limit:  # jsonschema-rs matches names natively
            message = (
                f"a property name of {longest:,} characters is longer than "
                f"max_pattern_input_length={limit} and is not matched against a pattern"
            )
            return failure(ToolArgumentValidationIssue(path=None, message=message))
        return self._run(entry, value)

    def _unique_counted(self, entry: Entry, value: object) -> ToolArgumentValidationResult:
        """jsonschema-rs ``uniqueItems`` hashes every item's whole text: node work plus one unit
        per ``UNIQUE_CHARS_PER_WORK`` characters (a shared string each time it is reached)."""
        budget = self.options.max_validation_work
        expanded = max(entry.expanded, 1)
        char_limit = budget * UNIQUE_CHARS_PER_WORK
        counted = self._text(value, entry.node_limit, char_limit, False)
        if isinstance(counted, ToolArgumentValidationResult):
            return counted
        value, (nodes, chars, _) = counted
        if expanded * nodes + chars // UNIQUE_CHARS_PER_WORK > budget:
            schema = (
                f"expanded size {expanded:,}; "
                f"its uniqueItems reads every character, {UNIQUE_CHARS_PER_WORK} per unit"
            )
            return text_over_budget(nodes, chars, schema, budget)
        return self._run(entry, value)

    def _text(
        self, value: object, node_limit: int, char_limit: int, names: bool
    ) -> tuple[object, tuple[int, int, int]] | ToolArgumentValidationResult:
        """``text_of`` the value, or of its canonical copy when it is not plain JSON (subclasses,
        Mappings, tuples): the value counted with its counts, or the copy's refusal."""
        try:
            return value, text_of(value, node_limit, char_limit, names)
        except Impure:
            try:
                value = self._bounds.check(value)
            except InstanceRejected as exc:
                return failure(exc.error)
            return value, text_of(value, node_limit, char_limit, names)

    def _too_much_scan(self, entry: Entry, nodes: int, chars: int) -> ToolArgumentValidationResult:
        schema = f"expanded size {max(entry.expanded, 1):,}, scan weight {entry.scan:,}"
        return text_over_budget(nodes, chars, schema, self.options.max_validation_work)

    def _too_much_work(self, entry: Entry, weighing: str = "") -> ToolArgumentValidationResult:
        return nodes_over_budget(entry, self.options.max_validation_work, weighing)

    def _make_runs(self) -> tuple[EngineRun, EngineRun]:
        """The engine's run, and (jsonschema-rs) the run once bounds are proven."""
        if self.options.engine == "jsonschema-rs":
            most = self.options.max_string_length
            bounds = self._short[most] = self._rs_bounds(most).is_valid
            explain = self._explain
            return (
                make_rs_run(bounds, explain.rs_invalid, explain.rs_slow),
                make_rs_run(proven, explain.rs_invalid, explain.rs_slow),
            )
        run = make_fastjsonschema_run(
            self._bounds,
            self._explain.engine_failure,
            self._too_much_work,
            self._too_much_scan,
            self.options.max_validation_work,
        )
        return run, run

    def _rs_bounds(self, max_string: int) -> Any:
        options = self.options
        return compile_rs_bounds(
            max_depth=options.max_instance_depth,
            max_properties=options.max_instance_properties,
            max_string=max_string,
            max_items=options.max_array_items,
        )

    def _miss(self, schema: object) -> Entry:
        cache = self._cache
        try:
            checked = check_schema(schema, self.options)
        except SchemaRejected as exc:
            return self._reject(schema, str(exc))
        except RecursionError:
            return self._reject(schema, "schema too deep")
        except Exception as exc:  # a hostile object (raising items, repr ...): refuse it
            return self._reject(schema, f"schema cannot be read ({type(exc).__name__})")
        found = cache.lookup(checked.digest)
        if found is None:
            built, keep = self._build(checked)
            found = cache.store(built, keep=keep)
        if found.rejected is None:  # a rejection is remembered by its hash only
            size = alias_size(schema, found)
            if size is not None:
                cache.alias(schema, found, size)
            elif weakly_referable(schema):
                cache.alias(schema, found, WEAK_ALIAS_BYTES, weak=True)
        return found

    def _reject(self, schema: object, reason: str) -> Entry:
        """A schema refused before it could be hashed: nothing of it is kept (the walk that
        refuses it again is bounded by the schema bounds)."""
        with self._cache.lock:
            self._cache.misses += 1
        return Entry(key=None, rejected=rejection(reason))

    def _build(self, checked: Any) -> tuple[Entry, bool]:
        """Compile ``checked``: the entry, and whether to cache it (the schema's own outcome)."""
        with self._cache.lock:
            self._cache.compiles += 1
        digest = checked.digest
        try:
            compiled = compile_checked(checked, self.options)
        except SchemaRejected as exc:
            return Entry(key=digest, rejected=rejection(str(exc))), True
        except (SystemError, CompileFault) as exc:  # an interpreter or child fault: this call only
            return Entry(key=digest, rejected=rejection(engine_crash(exc))), False
        except Exception as exc:  # an engine failing on an odd schema: reject, never crash
            return Entry(key=digest, rejected=rejection(engine_crash(exc))), True
        fast, collect_all, rs_validator = compiled
        entry = Entry(
            key=digest, fast=fast, collect_all=collect_all, rs_validator=rs_validator,
            patterns=bool(checked.walk.regexes), expanded=checked.expanded, scan=checked.scan,
            exact=any("multipleOf" in node for node, _path in checked.walk.schema_nodes),
            unique_text=self._counts_here and any(
                node.get("uniqueItems") is True for node, _path in checked.walk.schema_nodes
            ),
            name_patterns=self._counts_here and any(
                "patternProperties" in node for node, _path in checked.walk.schema_nodes
            ),
            node_limit=self.options.max_validation_work // max(checked.expanded, 1),
            collect_limit=COLLECT_WORK // max(checked.expanded, 1),
            cost=held_bytes(
                checked.size,
                len(checked.walk.regexes),
                2 if collect_all is not None else 1,
                self.options.engine,
                [node for node, _path in checked.walk.schema_nodes],
            ),
        )  # fmt: skip
        return entry, True


UNIQUE_CHARS_PER_WORK: Final = 512
"""Characters per work unit under jsonschema-rs ``uniqueItems``, which hashes them: 9 GB (one
shared 1 MB string in 9,000 items) took 605 ms, about 15 characters per ns; at 512 per unit
(1 unit ~ 1 µs) the default budget admits 51 MB, about 4 ms of hashing: over 20x margin."""

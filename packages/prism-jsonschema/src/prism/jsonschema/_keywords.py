"""Walk the schema positions of a document and check the shape of every keyword engines use.

This is the part of the meta-schema both engines rely on, so a malformed keyword is refused
with one clear message instead of crashing (or silently misleading) an engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NoReturn

from ._dialect import DROPPED_ANNOTATIONS, KEYWORDS
from ._drafts import Draft
from ._ecma import reads_unicode_tables, translate
from ._formats import check_format
from ._pointer import Path, location, pointer
from ._regex import PatternRefused, Re2Pattern, compile_pattern
from ._walk import REF_KEYWORDS, Json, SchemaRejected, WalkState, is_array, is_object

__all__ = ["SchemaWalk"]

_TYPES: Final = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
_TYPE_NAMES: Final = f"a type name or a non-empty array of unique type names {sorted(_TYPES)}"
_SCHEMA: Final = frozenset(
    {"not", "if", "then", "else", "contains", "propertyNames", "additionalProperties",
     "additionalItems", "unevaluatedProperties", "unevaluatedItems", "contentSchema"}
)  # fmt: skip
_SCHEMA_LIST: Final = frozenset({"allOf", "anyOf", "oneOf"})
_NEGATING: Final = ("not", "if", "oneOf")
"""Where a subschema's failure can make its parent pass (see ``_polarity``); so does
``contains`` next to ``maxContains``."""
_SCHEMA_MAP: Final = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_COUNTS: Final = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties",
     "maxContains", "minContains"}
)  # fmt: skip
_NUMBERS: Final = frozenset({"maximum", "minimum"})
_STRINGS: Final = frozenset(
    {"$id", "$anchor", "$dynamicAnchor", "$comment", "title", "description",
     "contentEncoding", "contentMediaType", "$ref", "$dynamicRef", "$recursiveRef", "$schema"}
)  # fmt: skip


class SchemaWalk:
    """One walk over one schema: the plain copy plus every schema node, in document order."""

    def __init__(self, state: WalkState, draft: Draft) -> None:
        self.state = state
        self.draft = draft
        self.schema_nodes: list[tuple[dict[str, Json], Path]] = []
        self.positions: dict[str, dict[str, Json] | bool] = {}
        """Every schema position by JSON Pointer: the only places a ``$ref`` may point to."""
        self.negated_roots: list[dict[str, Json]] = []
        """Subschemas in a negated or mixed position (``not``, ``if``, ``oneOf`` items,
        ``contains`` next to ``maxContains``): where a stricter check can widen."""
        self.anchors: dict[str, dict[str, Json]] = {}
        """``$anchor``/``$dynamicAnchor`` names (2019-09 and later) and the nodes they name."""
        self._keywords = KEYWORDS[draft]
        self.regexes: dict[str, Re2Pattern] = {}
        """Every distinct ``pattern``/``patternProperties`` text, compiled with RE2."""
        self._handlers: dict[str, Callable[[object, Path, int], Json]] = {
            "items": self._items,
            "prefixItems": self._prefix_items,
            "patternProperties": self._pattern_properties,
            "dependencies": self._dependencies,
            "dependentRequired": self._dependent_required,
            "required": self._required,
            "type": self._type,
            "enum": self._enum,
            "pattern": self._pattern,
            "multipleOf": self._multiple_of,
            "exclusiveMaximum": self._exclusive,
            "exclusiveMinimum": self._exclusive,
            "uniqueItems": self._bool,
            "$recursiveAnchor": self._bool,
            "$recursiveRef": self._recursive_ref,
            "format": self._format,
        }

    def schema(self, value: object, path: Path, depth: int, *, bool_ok: bool = False) -> Json:
        """Copy a value in a schema position, keeping only the keywords of the draft."""
        if value is True or value is False:
            if self.draft == 4 and not bool_ok:
                raise SchemaRejected(f"boolean schema at {location(path)} needs draft-06 or later")
            self.positions[pointer(path)] = value
            return self.state.scalar(value, path)
        if not is_object(value):
            raise SchemaRejected(f"schema at {location(path)} must be an object or a boolean")
        self.state.enter(value, path, depth)
        out: dict[str, Json] = {}
        self.schema_nodes.append((out, path))
        self.positions[pointer(path)] = out
        keywords = self._keywords
        for raw_key, item in value.items():
            key = self.state.key(raw_key, path)
            if key not in keywords or key in DROPPED_ANNOTATIONS:
                continue  # no meaning in this draft: never read, never seen by an engine
            child = (path, key)
            out[key] = copied = self._keyword(key, item, child, depth + 1)
            if key in REF_KEYWORDS and isinstance(copied, str):
                self.state.ref(key, copied, child)
        self.state.leave(value)
        self._identifiers(out, path)
        self._negated(out)
        return out

    def _negated(self, node: dict[str, Json]) -> None:
        keys = [*_NEGATING, "contains"] if "maxContains" in node else _NEGATING
        for key in keys:
            sub = node.get(key)
            for schema in sub if isinstance(sub, list) else [sub]:
                if isinstance(schema, dict):
                    self.negated_roots.append(schema)

    def _identifiers(self, node: dict[str, Json], path: Path) -> None:
        """``$schema`` and ``$id`` only at the root (one dialect and one base URI for every
        subschema); anchors by name."""
        if path is not None and "$schema" in node:
            raise SchemaRejected(
                f"schema keyword '$schema' at {location((path, '$schema'))} names a dialect "
                "below the root; only the root may (one dialect per schema: a subschema is "
                "never read under another draft's keywords, nor its keywords dropped)"
            )
        for keyword in ("$id", "id"):
            if path is not None and keyword in node:
                raise SchemaRejected(
                    f"schema keyword {keyword!r} at {location((path, keyword))} starts an "
                    "embedded resource; only the root may carry an id (every reference is then "
                    "resolved against one document, the same way on every engine)"
                )
        for keyword in ("$anchor", "$dynamicAnchor"):
            name = node.get(keyword)
            if isinstance(name, str):
                if self.anchors.get(name, node) is not node:
                    raise SchemaRejected(f"anchor {name[:80]!r} is defined twice")
                self.anchors[name] = node

    def _keyword(self, key: str, value: object, path: Path, depth: int) -> Json:
        handler = self._handlers.get(key)
        if handler is not None:
            return handler(value, path, depth)
        if key in _SCHEMA:
            draft4_bool = key in ("additionalProperties", "additionalItems")
            return self.schema(value, path, depth, bool_ok=draft4_bool)
        if key in _SCHEMA_LIST:
            return self._schema_list(value, path, depth, non_empty=True)
        if key in _SCHEMA_MAP:
            return self._schema_map(value, path, depth)
        copied = self.state.data(value, path, depth)
        if key in _COUNTS:
            _expect(_is_count(copied), path, "a non-negative integer")
        elif key in _NUMBERS:
            _expect(_is_number(copied), path, "a number")
        elif key in _STRINGS or (key == "id" and self.draft == 4):
            _expect(isinstance(copied, str), path, "a string")
        return copied

    def _schema_list(self, value: object, path: Path, depth: int, *, non_empty: bool) -> Json:
        if not is_array(value) or (non_empty and not value):
            _reject(path, "a non-empty array of schemas")
        self.state.enter(value, path, depth)
        items = [self.schema(item, (path, str(i)), depth + 1) for i, item in enumerate(value)]
        self.state.leave(value)
        return items

    def _schema_map(self, value: object, path: Path, depth: int) -> Json:
        return self._object_of(
            value, path, depth, "an object whose values are schemas", self.schema
        )

    def _object_of(
        self,
        value: object,
        path: Path,
        depth: int,
        what: str,
        each: Callable[[object, Path, int], Json],
    ) -> dict[str, Json]:
        """Copy an object keyword (``what`` it must be): ``each`` copies every member value."""
        if not is_object(value):
            _reject(path, what)
        self.state.enter(value, path, depth)
        out: dict[str, Json] = {}
        for raw_key, item in value.items():
            key = self.state.key(raw_key, path)
            out[key] = each(item, (path, key), depth + 1)
        self.state.leave(value)
        return out

    def _items(self, value: object, path: Path, depth: int) -> Json:
        if is_array(value):
            if self.draft == 2020:
                _reject(path, "a schema (2020-12 uses prefixItems for tuples)")
            return self._schema_list(value, path, depth, non_empty=False)
        return self.schema(value, path, depth)

    def _prefix_items(self, value: object, path: Path, depth: int) -> Json:
        if self.draft != 2020:
            return self.state.data(value, path, depth)
        return self._schema_list(value, path, depth, non_empty=True)

    def _pattern_properties(self, value: object, path: Path, depth: int) -> Json:
        out = self._schema_map(value, path, depth)
        assert isinstance(out, dict)
        spelled = {self._check_regex(key, (path, key)): schema for key, schema in out.items()}
        if len(spelled) != len(out):
            _reject(path, "an object of distinct patterns")
        return spelled

    def _pattern(self, value: object, path: Path, depth: int) -> Json:
        copied = self.state.data(value, path, depth)
        _expect(isinstance(copied, str), path, "a string")
        return self._check_regex(str(copied), path)

    def _check_regex(self, pattern: str, path: Path) -> str:
        """The pattern with its ECMA-262 classes spelled out, compiled with RE2."""
        limit = self.state.options.max_pattern_length
        if len(pattern) > limit:
            raise SchemaRejected(
                f"pattern at {location(path)} is longer than max_pattern_length={limit}"
            )
        try:
            spelled = translate(pattern)
            if spelled not in self.regexes:
                self.regexes[spelled] = compile_pattern(
                    spelled,
                    self.state.options.max_pattern_input_length,
                    tables=reads_unicode_tables(spelled),
                    where=f" (at {location(path)[:120]})",
                )
        except PatternRefused as exc:
            raise SchemaRejected(
                f"pattern {pattern[:80]!r} at {location(path)} is not a supported regular "
                f"expression: {exc}"
            ) from None
        return spelled

    def _format(self, value: object, path: Path, depth: int) -> Json:
        copied = self.state.data(value, path, depth)
        _expect(isinstance(copied, str), path, "a string")
        options = self.state.options
        if options.validate_formats:
            check_format(str(copied), options.engine, self.draft, path)
        return copied

    def _dependencies(self, value: object, path: Path, depth: int) -> Json:
        return self._object_of(value, path, depth, "an object", self._dependency)

    def _dependency(self, value: object, path: Path, depth: int) -> Json:
        if is_array(value):
            return self._string_array(value, path, depth, unique=False)
        return self.schema(value, path, depth)

    def _dependent_required(self, value: object, path: Path, depth: int) -> Json:
        return self._object_of(
            value, path, depth, "an object whose values are arrays of strings", self._unique_strings
        )

    def _unique_strings(self, value: object, path: Path, depth: int) -> Json:
        return self._string_array(value, path, depth, unique=True)

    def _required(self, value: object, path: Path, depth: int) -> Json:
        copied = self._string_array(value, path, depth, unique=True)
        if self.draft == 4 and not copied:
            _reject(path, "a non-empty array of strings in draft-04")
        return copied

    def _string_array(self, value: object, path: Path, depth: int, *, unique: bool) -> Json:
        copied = self.state.data(value, path, depth)
        ok = isinstance(copied, list) and all(isinstance(s, str) for s in copied)
        _expect(ok, path, "an array of strings")
        if unique and len(set(copied)) != len(copied):  # type: ignore[arg-type]
            _reject(path, "an array of unique strings")
        return copied

    def _type(self, value: object, path: Path, depth: int) -> Json:
        copied = self.state.data(value, path, depth)
        names = copied if isinstance(copied, list) else [copied]
        ok = bool(names) and all(isinstance(n, str) and n in _TYPES for n in names)
        if ok and len(set(names)) != len(names):
            ok = False
        _expect(ok, path, _TYPE_NAMES)
        return copied

    def _enum(self, value: object, path: Path, depth: int) -> Json:
        copied = self.state.data(value, path, depth)
        _expect(isinstance(copied, list), path, "an array")
        if self.draft == 4 and not copied:
            _reject(path, "a non-empty array in draft-04")
        return copied

    def _multiple_of(self, value: object, path: Path, depth: int) -> Json:
        copied = self.state.data(value, path, depth)
        _expect(_is_number(copied) and copied > 0, path, "a number above 0")  # type: ignore[operator]
        return copied

    def _exclusive(self, value: object, path: Path, depth: int) -> Json:
        copied = self.state.data(value, path, depth)
        if self.draft == 4:
            _expect(isinstance(copied, bool), path, "a boolean in draft-04")
        else:
            _expect(_is_number(copied), path, "a number (the boolean form needs draft-04)")
        return copied

    def _recursive_ref(self, value: object, path: Path, depth: int) -> Json:
        # 2019-09 allows only "#"; the reference resolves any value to the dynamic root, an
        # engine reading it as a pointer would check another schema: refused, never guessed.
        copied = self.state.data(value, path, depth)
        if copied != "#":
            raise SchemaRejected(
                f"schema keyword '$recursiveRef' at {location(path)} must be \"#\" (the only "
                f"value 2019-09 allows), got {str(copied)[:80]!r}"
            )
        return copied

    def _bool(self, value: object, path: Path, depth: int) -> Json:
        copied = self.state.data(value, path, depth)
        _expect(isinstance(copied, bool), path, "a boolean")
        return copied


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: object) -> bool:
    if isinstance(value, float) and value.is_integer():
        return value >= 0
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _expect(ok: bool, path: Path, what: str) -> None:
    if not ok:
        _reject(path, what)


def _reject(path: Path, what: str) -> NoReturn:
    keyword = path[1] if path is not None else "schema"
    raise SchemaRejected(f"schema keyword {keyword!r} at {location(path)} must be {what}")

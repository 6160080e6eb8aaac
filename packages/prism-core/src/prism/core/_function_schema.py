"""Type annotation -> JSON Schema, plus the converter that turns matching JSON back into Python.

Each supported annotation compiles once, at decoration time, into a ``SchemaNode``: the schema the
model sees and a converter that checks a JSON value against the annotation while rebuilding the
Python value (Enum members, dataclass instances, tuples). The converter accepts exactly what the
schema accepts, so a tool is safe to call even when no JSON Schema validator is configured.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, NotRequired, Required, Union

from ._docstrings import class_description
from ._function_objects import (
    NO_DEFAULT,
    Field,
    SchemaNode,
    json_default,
    mismatch,
    object_node,
)
from ._function_values import (
    ToolArgumentsError,
    choice_key,
    is_json_scalar,
    json_type,
)

__all__ = ["Scope", "compile_annotation"]


def _scalar(type_name: str, check: Callable[[object], object | None]) -> SchemaNode:
    def convert(value: object) -> object:
        converted = check(value)
        if converted is None:
            raise mismatch(type_name, value)
        return converted

    return SchemaNode({"type": type_name}, convert)


def _check_int(value: object) -> object | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _check_float(value: object) -> object | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an integer beyond float range
            return None
    return None


def _identity(value: object) -> object:
    return value


def _null(value: object) -> object:
    if value is not None:
        raise mismatch("null", value)
    return None


_SCALARS: tuple[tuple[object, SchemaNode], ...] = (
    (str, _scalar("string", lambda v: v if isinstance(v, str) else None)),
    (bool, _scalar("boolean", lambda v: v if isinstance(v, bool) else None)),
    (int, _scalar("integer", _check_int)),
    (float, _scalar("number", _check_float)),
)
_ANY = SchemaNode({}, _identity, nullable=True)
_NULL = SchemaNode({"type": "null"}, _null, nullable=True)


@dataclasses.dataclass(frozen=True, slots=True)
class Scope:
    """Where an annotation sits (for messages), the classes being compiled, and strict mode."""

    where: str
    strict: bool = False
    stack: tuple[type, ...] = ()

    def at(self, where: str) -> Scope:
        """The same scope, described as ``where``."""
        return dataclasses.replace(self, where=where)

    def inside(self, cls: type) -> Scope:
        """The scope for the fields of ``cls`` (to refuse recursive types)."""
        return dataclasses.replace(self, stack=(*self.stack, cls))


def compile_annotation(annotation: object, scope: Scope) -> SchemaNode:
    """Compile ``annotation``; raise ``TypeError`` naming ``scope.where`` if it is unsupported."""
    if annotation is Any:
        return _ANY
    if annotation is None or annotation is type(None):
        return _NULL
    for scalar, node in _SCALARS:
        if annotation is scalar:
            return node
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return _annotated(args, scope)
    if origin is Required or origin is NotRequired:
        return compile_annotation(args[0], scope)
    if origin is Literal:
        return _choices(list(args), list(args), scope, None)
    if origin is Union or origin is types.UnionType:
        return _union(args, scope)
    if origin in (list, Sequence) and len(args) == 1:
        return _array(compile_annotation(args[0], scope), list)
    if origin is tuple and annotation is not typing.Tuple:  # noqa: UP006 (bare Tuple)
        return _tuple(args, scope)
    if origin in (dict, Mapping) and len(args) == 2:
        return _dict(args, scope)
    if isinstance(annotation, type):
        return _class(annotation, scope)
    raise TypeError(f"{scope.where}: unsupported type annotation {annotation!r}")


def _class(cls: type, scope: Scope) -> SchemaNode:
    if cls in scope.stack:
        raise TypeError(f"{scope.where}: recursive type {cls.__qualname__} is not supported")
    if issubclass(cls, enum.Enum):
        members = list(cls)
        node = _choices([m.value for m in members], members, scope, cls.__qualname__)
        return _describe(node, class_description(cls))
    if typing.is_typeddict(cls):
        return _typed_dict(cls, scope.inside(cls))
    if dataclasses.is_dataclass(cls):
        return _dataclass(cls, scope.inside(cls))
    if cls in (list, tuple, dict, Sequence, Mapping):
        raise TypeError(
            f"{scope.where}: {cls.__name__} needs item types, e.g. list[str], tuple[int, ...], "
            "dict[str, int]"
        )
    raise TypeError(f"{scope.where}: unsupported type annotation {cls.__qualname__}")


def _describe(node: SchemaNode, description: str | None) -> SchemaNode:
    if not description:
        return node
    return dataclasses.replace(node, schema={**node.schema, "description": description})


def _annotated(args: tuple[Any, ...], scope: Scope) -> SchemaNode:
    base, *metadata = args
    for item in metadata:
        if not isinstance(item, str):
            raise TypeError(
                f"{scope.where}: Annotated metadata {item!r} is not supported; "
                "only description strings are (Annotated[int, 'what it means'])"
            )
    node = compile_annotation(base, scope)
    return _describe(node, " ".join(m.strip() for m in metadata if m.strip()))


def _choices(
    values: Sequence[object], python_values: Sequence[object], scope: Scope, name: str | None
) -> SchemaNode:
    json_values = [v.value if isinstance(v, enum.Enum) else v for v in values]
    if not json_values:
        raise TypeError(f"{scope.where}: {name or 'Literal'} has no values")
    type_names: list[str] = []
    for value in json_values:
        if not is_json_scalar(value):
            raise TypeError(
                f"{scope.where}: {name or 'Literal'} value {value!r} is not a JSON string, number, "
                "boolean or null"
            )
        if json_type(value) not in type_names:
            type_names.append(json_type(value))
    lookup: dict[object, object] = {}
    for json_value, python_value in zip(json_values, python_values, strict=True):
        lookup.setdefault(choice_key(json_value), python_value)
    shown = ", ".join(repr(v) for v in json_values[:10]) + (
        ", ..." if len(json_values) > 10 else ""
    )

    def convert(value: object) -> object:
        key = choice_key(value)
        if key is None or key not in lookup:
            raise ToolArgumentsError(f"expected one of {shown}")
        return lookup[key]

    type_schema: str | list[str] = type_names[0] if len(type_names) == 1 else type_names
    return SchemaNode(
        {"type": type_schema, "enum": json_values}, convert, nullable=None in json_values
    )


def _union(args: tuple[Any, ...], scope: Scope) -> SchemaNode:
    nodes = [compile_annotation(arg, scope) for arg in args]
    expected = " or ".join(_expected(node.schema) for node in nodes)

    def convert(value: object) -> object:
        near: list[ToolArgumentsError] = []
        for node in nodes:
            try:
                return node.convert(value)
            except ToolArgumentsError as exc:
                if _same_type(node.schema, value):
                    near.append(exc)
        if len(near) == 1:  # one member has the value's JSON type: its message says more
            raise near[0]
        raise ToolArgumentsError(f"expected {expected}, got {json_type(value)}")

    return SchemaNode(
        {"anyOf": [node.schema for node in nodes]},
        convert,
        nullable=any(node.nullable for node in nodes),
    )


def _same_type(schema: Mapping[str, Any], value: object) -> bool:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    actual = json_type(value)
    return actual in kinds or (actual == "integer" and "number" in kinds)


def _expected(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type", "any value")
    return kind if isinstance(kind, str) else "/".join(kind)


def _array(item: SchemaNode, build: Callable[[list[object]], object]) -> SchemaNode:
    def convert(value: object) -> object:
        if not isinstance(value, list | tuple):
            raise mismatch("array", value)
        out: list[object] = []
        try:
            for entry in value:
                out.append(item.convert(entry))
        except ToolArgumentsError as exc:
            raise exc.inside(len(out)) from None
        return build(out)

    return SchemaNode({"type": "array", "items": item.schema}, convert)


def _tuple(args: tuple[Any, ...], scope: Scope) -> SchemaNode:
    if len(args) == 2 and args[1] is Ellipsis:
        return _array(compile_annotation(args[0], scope), tuple)
    if Ellipsis in args:
        raise TypeError(f"{scope.where}: only tuple[T, ...] may use '...'")
    items = [compile_annotation(arg, scope) for arg in args]

    def convert(value: object) -> object:
        if not isinstance(value, list | tuple):
            raise mismatch("array", value)
        if len(value) != len(items):
            raise ToolArgumentsError(f"expected {len(items)} items, got {len(value)}")
        out: list[object] = []
        try:
            for node, entry in zip(items, value, strict=True):
                out.append(node.convert(entry))
        except ToolArgumentsError as exc:
            raise exc.inside(len(out)) from None
        return tuple(out)

    if not items:  # tuple[()]: prefixItems may not be empty
        return SchemaNode({"type": "array", "maxItems": 0}, convert)
    schema = {
        "type": "array",
        "prefixItems": [node.schema for node in items],
        "minItems": len(items),
        "maxItems": len(items),
    }
    return SchemaNode(schema, convert)


def _dict(args: tuple[Any, ...], scope: Scope) -> SchemaNode:
    if args[0] is not str:
        raise TypeError(f"{scope.where}: dict keys must be str (JSON object keys), not {args[0]!r}")
    values = compile_annotation(args[1], scope)

    def convert(value: object) -> object:
        if not isinstance(value, Mapping):
            raise mismatch("object", value)
        out: dict[str, object] = {}
        key: Any = None
        try:
            for key, entry in value.items():
                out[key] = values.convert(entry)
        except ToolArgumentsError as exc:
            raise exc.inside(key) from None
        return out

    return SchemaNode({"type": "object", "additionalProperties": values.schema}, convert)


def _hints(cls: type, scope: Scope) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception as exc:  # NameError for unresolvable forward references, and friends
        raise TypeError(
            f"{scope.where}: cannot resolve the type hints of {cls.__qualname__}: {exc}"
        ) from None


def _typed_dict(cls: type, scope: Scope) -> SchemaNode:
    required_keys: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
    fields = [
        Field(
            name=key,
            node=compile_annotation(
                hint, scope.at(f"{scope.where} (key {key!r} of {cls.__qualname__})")
            ),
            required=key in required_keys,
        )
        for key, hint in _hints(cls, scope).items()
    ]
    return _describe(object_node(fields, dict, strict=scope.strict), class_description(cls))


def _dataclass(cls: type, scope: Scope) -> SchemaNode:
    hints = _hints(cls, scope)
    for key, hint in hints.items():
        if isinstance(hint, dataclasses.InitVar):
            raise TypeError(
                f"{scope.where}: InitVar field {key!r} of {cls.__qualname__} is not supported"
            )
    fields: list[Field] = []
    for item in dataclasses.fields(cls):
        if not item.init:
            continue
        node = compile_annotation(
            hints[item.name],
            scope.at(f"{scope.where} (field {item.name!r} of {cls.__qualname__})"),
        )
        has_default = item.default is not dataclasses.MISSING
        required = not has_default and item.default_factory is dataclasses.MISSING
        default = json_default(item.default, node) if has_default else NO_DEFAULT
        fields.append(Field(name=item.name, node=node, required=required, default=default))

    def build(values: dict[str, object]) -> object:
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise ToolArgumentsError(f"{cls.__qualname__}: {exc}") from None

    return _describe(object_node(fields, build, strict=scope.strict), class_description(cls))

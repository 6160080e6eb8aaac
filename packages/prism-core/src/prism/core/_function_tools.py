"""Function tools: ``@tool`` turns a typed Python function into a ``ToolDefinition``.

The JSON Schema comes from the signature and type hints, descriptions from the docstring. Arguments
are checked and converted back into the annotated Python types before the function runs, and the
return value is normalized into something dispatch understands.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Annotated, Any, overload

from ._docstrings import docstring_params, docstring_summary
from ._function_objects import NO_DEFAULT, Field, json_default, object_node
from ._function_schema import Scope, compile_annotation
from ._function_values import ToolArgumentsError, to_json
from ._strict_schema import to_strict_json_schema
from ._types import (
    CONTENT_TYPES,
    Content,
    JsonObject,
    ToolDefinition,
    ToolExecutionContext,
    ToolHandler,
    ToolResult,
)

__all__ = ["ToolArgumentsError", "to_strict_json_schema", "tool"]

_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
_Outcome = ToolResult | str | Sequence[Content]


@overload
def tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    exclusive: bool = False,
    strict: bool = False,
    read_only: bool = False,
    idempotent: bool = False,
) -> ToolDefinition: ...


@overload
def tool(
    fn: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    exclusive: bool = False,
    strict: bool = False,
    read_only: bool = False,
    idempotent: bool = False,
) -> Callable[[Callable[..., Any]], ToolDefinition]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    exclusive: bool = False,
    strict: bool = False,
    read_only: bool = False,
    idempotent: bool = False,
) -> ToolDefinition | Callable[[Callable[..., Any]], ToolDefinition]:
    """Build a ``ToolDefinition`` from a typed sync or async function (``@tool`` or ``@tool(...)``).

    ``strict=True`` emits the OpenAI strict-mode form of the schema (see ``to_strict_json_schema``).
    ``read_only`` and ``idempotent`` are the side-effect hints of ``ToolDefinition``.
    Unsupported signatures raise ``TypeError`` here, naming the parameter, never at call time.
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"tool.name must be a str or None, got {name!r:.200}")
    if description is not None and not isinstance(description, str):
        raise TypeError(f"tool.description must be a str or None, got {description!r:.200}")
    flags = (
        ("exclusive", exclusive), ("strict", strict),
        ("read_only", read_only), ("idempotent", idempotent),
    )  # fmt: skip
    for option, value in flags:
        if not isinstance(value, bool):
            raise TypeError(f"tool.{option} must be True or False, got {value!r:.200}")

    def decorate(function: Callable[..., Any]) -> ToolDefinition:
        return _build(
            function, name, description, exclusive=exclusive, strict=strict,
            read_only=read_only, idempotent=idempotent,
        )  # fmt: skip

    if fn is None:
        return decorate
    if not callable(fn):
        raise TypeError(
            f"tool.fn must be a function (to set the name use @tool(name=...)), got {fn!r:.200}"
        )
    return decorate(fn)


def _build(
    fn: Callable[..., Any],
    name: str | None,
    description: str | None,
    *,
    exclusive: bool,
    strict: bool,
    read_only: bool = False,
    idempotent: bool = False,
) -> ToolDefinition:
    base = fn
    while isinstance(base, functools.partial):
        base = base.func
    if isinstance(base, type):
        raise TypeError(
            f"tool.fn must be a function, not a class, got the class {base.__qualname__}"
        )
    target = base if inspect.isroutine(base) else type(base).__call__
    tool_name = name if name is not None else getattr(base, "__name__", None)
    if not isinstance(tool_name, str) or not _NAME.match(tool_name):
        raise ValueError(
            f"tool.name must be a name matching {_NAME.pattern} (letters, digits, _ . : -, "
            f"at most 128; pass name=...), got {tool_name!r}"
        )
    if inspect.isasyncgenfunction(target) or inspect.isgeneratorfunction(target):
        raise TypeError(f"tool {tool_name!r}: generator functions are not supported; return a list")
    doc = target.__doc__ if inspect.isroutine(target) else None
    fields, context_names = _parameters(fn, target, tool_name, docstring_params(doc), strict)
    arguments = object_node(fields, dict, strict=strict)
    parameters: dict[str, Any] = arguments.schema
    if strict:
        try:
            parameters = to_strict_json_schema(parameters)
        except ValueError as exc:
            raise TypeError(f"tool {tool_name!r} cannot use strict mode: {exc}") from None
    else:
        parameters = to_json(parameters)  # a private deep copy: no schema node is shared

    def bind(values: JsonObject, context: ToolExecutionContext) -> dict[str, object]:
        kwargs = typing.cast(dict[str, object], arguments.convert(values))
        for context_name in context_names:
            kwargs[context_name] = context
        return kwargs

    return ToolDefinition(
        name=tool_name,
        execute=_handler(fn, _is_async(fn, target), bind, tool_name),
        description=description if description is not None else docstring_summary(doc),
        parameters=parameters,
        exclusive=exclusive,
        read_only=read_only,
        idempotent=idempotent,
        **({"metadata": MappingProxyType({"strict": True})} if strict else {}),
    )


def _is_async(fn: Callable[..., Any], target: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(target)


def _parameters(
    fn: Callable[..., Any], target: Any, tool_name: str, docs: Mapping[str, str], strict: bool
) -> tuple[list[Field], list[str]]:
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # NameError for unresolvable forward references, and friends
        raise TypeError(f"tool {tool_name!r}: cannot resolve the type hints: {exc}") from None
    fields: list[Field] = []
    context_names: list[str] = []
    for parameter in inspect.signature(fn).parameters.values():
        where = f"tool {tool_name!r}: parameter {parameter.name!r}"
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"{where}: *args and **kwargs are not supported; name each argument")
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"{where}: positional-only parameters are not supported")
        if parameter.name not in hints:
            raise TypeError(f"{where}: has no type annotation")
        hint = hints[parameter.name]
        if _is_context(hint):
            context_names.append(parameter.name)
            continue
        node = compile_annotation(hint, Scope(where, strict=strict))
        required = parameter.default is parameter.empty
        fields.append(
            Field(
                name=parameter.name,
                node=node,
                required=required,
                default=NO_DEFAULT if required else json_default(parameter.default, node),
                description=docs.get(parameter.name) or None,
            )
        )
    return fields, context_names


def _is_context(hint: object) -> bool:
    if typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    return hint is ToolExecutionContext


def _handler(
    fn: Callable[..., Any],
    is_async: bool,
    bind: Callable[[JsonObject, ToolExecutionContext], dict[str, object]],
    tool_name: str,
) -> ToolHandler:
    if is_async:

        async def execute_async(arguments: JsonObject, context: ToolExecutionContext) -> _Outcome:
            returned = await fn(**bind(arguments, context))
            return _outcome(returned, context, tool_name)

        return execute_async

    def execute(arguments: JsonObject, context: ToolExecutionContext) -> _Outcome:
        return _outcome(fn(**bind(arguments, context)), context, tool_name)

    return execute


def _outcome(returned: object, context: ToolExecutionContext, tool_name: str) -> _Outcome:
    """``ToolResult``, ``str`` and content blocks go to dispatch as they are; the rest is JSON."""
    if isinstance(returned, ToolResult | str):
        return returned
    if isinstance(returned, CONTENT_TYPES):
        return (returned,)
    if isinstance(returned, list | tuple) and any(isinstance(x, CONTENT_TYPES) for x in returned):
        if all(isinstance(x, CONTENT_TYPES) for x in returned):
            return tuple(returned)
        raise TypeError(
            f"tool {tool_name!r}: returned a list mixing content blocks with other values; "
            "return content blocks alone or JSON data alone"
        )
    try:
        value = to_json(returned)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"tool {tool_name!r}: returned a value that is not JSON ({exc})") from None
    return ToolResult(tool_call_id=context.tool_call_id, name=tool_name, value=value)

"""Whitelist check of the Python source fastjsonschema generates, before it is executed.

The schema copy is already plain JSON and every value fastjsonschema embeds is ``repr``-quoted
or escaped, so nothing should get through; this check is the proof that nothing did. It accepts
only the statements, names, attributes and calls fastjsonschema's templates produce, with
constant (never computed) format strings and no dunder attribute anywhere.
"""

from __future__ import annotations

import ast
import builtins
import re
import string
from typing import Any, Final

__all__ = ["SAFE_BUILTINS", "GeneratedCodeRejected", "check_generated_code"]


class GeneratedCodeRejected(Exception):
    """The generated source contains something outside the whitelist."""


SAFE_BUILTINS: Final[dict[str, object]] = {
    name: getattr(builtins, name)
    for name in (
        "isinstance", "len", "set", "str", "sorted", "frozenset", "dict", "tuple", "list",
        "int", "float", "bool", "bytes", "hasattr", "enumerate", "locals", "repr", "type",
        "Exception",
    )
}  # fmt: skip
"""The only builtins the generated code can see (no ``__import__``, ``open``, ``eval`` ...)."""

_GLOBAL_NAMES: Final = frozenset(
    {*SAFE_BUILTINS, "NoneType", "Decimal", "REGEX_PATTERNS", "prism_multiple_of",
     "prism_unique_items",
     "JsonSchemaValueException", "JsonSchemaValuesException", "custom_formats", "name_prefix",
     "errors", "e", "quotient", "fn", "var", "k", "v"}
)  # fmt: skip
_VARIABLE = re.compile(r"data[A-Za-z0-9_]*|validate[a-z0-9_]*")
_ATTRIBUTES: Final = frozenset(
    {"remove", "format", "keys", "is_integer", "items", "search", "match", "get", "append",
     "extend", "errors"}
)  # fmt: skip
_NODES: Final = frozenset(
    getattr(ast, name)
    for name in (
        "Module", "FunctionDef", "arguments", "arg", "Assign", "AugAssign", "If", "For", "Try",
        "ExceptHandler", "Raise", "Return", "Pass", "Break", "Expr", "BoolOp", "And", "Or",
        "BinOp", "Add", "Sub", "Div", "Mod", "UnaryOp", "Not", "USub", "Compare", "Eq",
        "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn", "Call", "keyword",
        "Name", "Load", "Store", "Attribute", "Subscript", "Slice", "Constant", "Dict", "List",
        "Tuple", "IfExp", "GeneratorExp", "comprehension",
    )
)  # fmt: skip


def check_generated_code(tree: ast.Module) -> list[str]:
    """Raise ``GeneratedCodeRejected`` unless ``tree`` is whitelisted; return the module's
    function names in order (the first is the root validator)."""
    functions: list[str] = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef):
            if statement.name in functions:
                raise GeneratedCodeRejected(
                    f"two schema locations compile to the same function {statement.name}"
                )
            functions.append(statement.name)
        elif not _is_nonetype_assignment(statement):
            raise GeneratedCodeRejected(f"unexpected top-level statement: {ast.dump(statement)}")
    _walk(tree)
    return functions


def _walk(tree: ast.AST) -> None:
    # A plain stack over `_fields`: a few times faster than ast.walk on generated code.
    stack: list[ast.AST] = [tree]
    node_type = ast.AST
    while stack:
        node = stack.pop()
        _check_node(node)
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, node_type))
            elif isinstance(value, node_type):
                stack.append(value)


def _check_node(node: Any) -> None:
    kind = type(node)
    if kind not in _NODES:
        raise GeneratedCodeRejected(f"unexpected construct {kind.__name__}")
    if kind is ast.Name:
        if node.id not in _GLOBAL_NAMES and not _VARIABLE.fullmatch(node.id):
            raise GeneratedCodeRejected(f"unexpected name {node.id!r}")
    elif kind is ast.FunctionDef:
        if node.decorator_list or node.returns is not None:
            raise GeneratedCodeRejected("unexpected function decoration")
        if not (_VARIABLE.fullmatch(node.name) or node.name == "fn"):
            raise GeneratedCodeRejected(f"unexpected function name {node.name!r}")
    elif kind is ast.Attribute:
        if node.attr not in _ATTRIBUTES:
            raise GeneratedCodeRejected(f"unexpected attribute {node.attr!r}")
        if node.attr == "format":
            _check_format_receiver(node.value)
    elif kind is ast.Constant:
        if not isinstance(node.value, str | int | float | bool | type(None)):
            raise GeneratedCodeRejected(f"unexpected constant {type(node.value).__name__}")
    elif kind is ast.arg and node.arg not in (
        "data",
        "custom_formats",
        "name_prefix",
        "var",
    ):
        raise GeneratedCodeRejected(f"unexpected parameter {node.arg!r}")


def _check_format_receiver(value: ast.expr) -> None:
    # `"...{data_x}...".format(**locals())` must only interpolate plain local variable names.
    if not isinstance(value, ast.Constant) or not isinstance(value.value, str):
        raise GeneratedCodeRejected("str.format called on a computed string")
    try:
        fields = list(string.Formatter().parse(value.value))
    except ValueError as exc:
        raise GeneratedCodeRejected(f"malformed format string: {exc}") from None
    for _literal, field, spec, conversion in fields:
        if field is None:
            continue
        if not _VARIABLE.fullmatch(field) or spec or conversion:
            raise GeneratedCodeRejected(f"format field {field!r} is not a plain variable")


def _is_nonetype_assignment(statement: ast.stmt) -> bool:
    return ast.unparse(statement) == "NoneType = type(None)"

"""The message formats of docs/errors.md, checked over every source file and every options class.

Every ``TypeError``/``ValueError`` built in a package's source says either
``<Owner>.<field> must be <rule>, got <value>`` (an option or argument check) or
``<what> <where>: <why>`` (something failed while working). The behaviour of each options class
is checked in test_api_rules.py.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("packages/*/src/**/*.py"), *ROOT.glob("conformance/src/**/*.py")])

# An f-string's replacement fields are rendered as ``{}`` before matching.
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_PLACE = rf"(?:\.{_NAME}|\.\{{\}}|\[[^\]]*\]|\{{\}})"
OPTIONS_FORMAT = re.compile(
    rf"^(?:\{{\}}(?:{_NAME})?{_PLACE}*|{_NAME}{_PLACE}+) must be .+, got .+$", re.S
)
# A command-line flag may stand first as the place: ``--token-file: applies to --http only``.
RUNTIME_FORMAT = re.compile(r"^(?:[a-z][\w'-]*|\{\}\S*|--[a-z][a-z-]*)(?: [^:]+)?: \S.*$", re.S)


def _template(node: ast.expr) -> str | None:
    """The message as text with ``{}`` for each replacement field; None when not literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                parts.append("{}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left), _template(node.right)
        return None if left is None or right is None else left + right
    return None


def _is_type_or_value_error(func: ast.expr) -> bool:
    if isinstance(func, ast.IfExp):
        return _is_type_or_value_error(func.body) and _is_type_or_value_error(func.orelse)
    return isinstance(func, ast.Name) and func.id in {"TypeError", "ValueError"}


def _error_aliases(tree: ast.AST) -> set[str]:
    """Names bound to one of the two, as in ``error = ValueError if ok else TypeError``."""
    return {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_type_or_value_error(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _errors_built(path: Path, root: Path) -> Iterator[tuple[str, str | None]]:
    """``(place, message template)`` for each ``TypeError(...)``/``ValueError(...)`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = _error_aliases(tree)
    for node in ast.walk(tree):
        built = isinstance(node, ast.Call) and (
            _is_type_or_value_error(node.func)
            or (isinstance(node.func, ast.Name) and node.func.id in aliases)
        )
        if built:
            assert isinstance(node, ast.Call)
            place = f"{path.relative_to(root)}:{node.lineno}"
            yield place, _template(node.args[0]) if node.args else None


# Messages that are data, not API errors: the custom keywords of prism-jsonschema raise them
# inside jsonschema-rs, which turns them into the validation error a model reads.
DATA_MESSAGES = {
    ("_exact.py", "{} is not a multiple of {}"),
    ("_exact.py", "{} does not match {}"),
}


def _bad_messages(paths: list[Path], root: Path = ROOT) -> list[str]:
    bad = []
    for path in paths:
        for place, template in _errors_built(path, root):
            if (path.name, template) in DATA_MESSAGES:
                continue
            if template is None:
                bad.append(f"{place}: the message is not a literal or f-string")
            elif not (OPTIONS_FORMAT.match(template) or RUNTIME_FORMAT.match(template)):
                bad.append(f"{place}: {template!r}")
    return bad


def test_every_type_and_value_error_in_the_sources_uses_a_documented_format() -> None:
    assert len(SOURCES) > 100, SOURCES
    assert _bad_messages(SOURCES) == []


@pytest.mark.parametrize(
    "message",
    [
        "options must be QueueOptions, got {x}",  # no Owner.field
        "{x} is not valid JSON",  # neither: no "must be", no "<where>: <why>"
        "ShellOptions.timeout must be positive",  # no ", got <value>"
        "Bad thing happened: {x}",  # a runtime message starts with a lower-case word
    ],
)
def test_the_source_check_fails_on_a_message_in_neither_format(
    message: str, tmp_path: Path
) -> None:
    source = tmp_path / "bad.py"
    source.write_text(f"def f(x):\n    raise ValueError(f{message!r})\n", encoding="utf-8")
    assert _bad_messages([source], root=tmp_path) != []


@pytest.mark.parametrize(
    "message",
    [
        "LoopOptions.tool_concurrency must be an int from 1 to 64 (hard cap), got {}",
        "{}[{}] must be an absolute path, got {}",
        "ShellOperations.exec.cwd must be a str without NUL, got {}",
        "token file {}: {}",
        "{}: unsupported type annotation {}",
        "{}/anyOf: must be a list of schemas",
        "--token-file: applies to --http only (stdio has no network listener)",
        "{}command_rules[{}] must be a CommandRule, got {}",
    ],
)
def test_the_source_check_accepts_both_documented_formats(message: str) -> None:
    assert OPTIONS_FORMAT.match(message) or RUNTIME_FORMAT.match(message)

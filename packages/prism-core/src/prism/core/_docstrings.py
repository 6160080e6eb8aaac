"""Docstring reading for function tools: the summary and per-parameter descriptions.

Understands the three styles Python code uses: Google (``Args:``), NumPy (``Parameters`` underlined
with dashes) and reST/Sphinx (``:param name: ...``). Anything it does not recognise is ignored.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re

__all__ = ["class_description", "docstring_params", "docstring_summary"]

_GOOGLE_PARAM_HEADERS = frozenset(
    {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
)
_GOOGLE_ANY_HEADER = re.compile(r"^[A-Z][A-Za-z ]*:\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(?P<name>\w+)\s*(?:\([^)]*\))?\s*:\s*(?P<text>.*)$")
_NUMPY_UNDERLINE = re.compile(r"^-{3,}\s*$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}(?P<names>\w+(?:\s*,\s*\w+)*)\s*(?::.*)?$")
_REST_PARAM = re.compile(
    r"^:(?:param|parameter|arg|argument|key|keyword)\s+(?:[^:]*\s)?\*{0,2}(?P<name>\w+)\s*:"
    r"\s*(?P<text>.*)$"
)
_REST_FIELD = re.compile(r"^:\w[^:]*:")
_ENUM_GENERATED_DOCS = (
    "An enumeration.",
    "A collection of name/value pairs.",
    "Create a collection of name/value pairs.",
)


def docstring_summary(doc: str | None) -> str | None:
    """The first paragraph of ``doc`` as one line, or ``None`` when there is none."""
    if not doc:
        return None
    lines = inspect.cleandoc(doc).splitlines()
    paragraph: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if _is_section_start(lines, index):
            break
        paragraph.append(stripped)
    return " ".join(paragraph) or None


def _is_section_start(lines: list[str], index: int) -> bool:
    stripped = lines[index].strip()
    if _REST_FIELD.match(stripped):
        return True
    if _GOOGLE_ANY_HEADER.match(stripped) and stripped[:-1].strip().lower() in (
        _GOOGLE_PARAM_HEADERS | {"returns", "raises", "yields", "examples", "example", "note"}
    ):
        return True
    return index + 1 < len(lines) and bool(_NUMPY_UNDERLINE.match(lines[index + 1].strip()))


def docstring_params(doc: str | None) -> dict[str, str]:
    """Map parameter name to its description, from whichever docstring style is present."""
    if not doc:
        return {}
    lines = inspect.cleandoc(doc).splitlines()
    found: dict[str, str] = {}
    for parser in (_google_params, _numpy_params, _rest_params):
        for name, text in parser(lines).items():
            found.setdefault(name, text)
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


def _google_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    index = 0
    while index < len(lines):
        header = lines[index].strip()
        index += 1
        if not (header.endswith(":") and header[:-1].strip().lower() in _GOOGLE_PARAM_HEADERS):
            continue
        base = _indent(lines[index - 1])
        entry_indent: int | None = None
        name: str | None = None
        while index < len(lines):
            line = lines[index]
            if line.strip() and _indent(line) <= base:
                break
            index += 1
            if not line.strip():
                continue
            if entry_indent is None:
                entry_indent = _indent(line)
            match = _GOOGLE_ENTRY.match(line.strip())
            if _indent(line) <= entry_indent and match:
                name = match["name"]
                found[name] = match["text"].strip()
            elif name is not None:
                found[name] = _join([found[name], line.strip()])
    return found


def _numpy_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    index = 0
    while index + 1 < len(lines):
        header = lines[index].strip().lower()
        is_params = header in {"parameters", "other parameters", "keyword arguments"}
        index += 1
        if not (is_params and _NUMPY_UNDERLINE.match(lines[index].strip())):
            continue
        index += 1
        names: list[str] = []
        while index < len(lines):
            line = lines[index]
            if index + 1 < len(lines) and _NUMPY_UNDERLINE.match(lines[index + 1].strip()):
                break
            index += 1
            if not line.strip():
                continue
            match = _NUMPY_ENTRY.match(line)
            if _indent(line) == 0 and match:
                names = [part.strip() for part in match["names"].split(",")]
                for entry in names:
                    found[entry] = ""
            else:
                for entry in names:
                    found[entry] = _join([found[entry], line.strip()])
    return found


def _rest_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    name: str | None = None
    for line in lines:
        stripped = line.strip()
        match = _REST_PARAM.match(stripped)
        if match:
            name = match["name"]
            found[name] = match["text"].strip()
        elif _REST_FIELD.match(stripped) or not stripped or _indent(line) == 0:
            name = None
        elif name is not None:
            found[name] = _join([found[name], stripped])
    return found


def class_description(cls: type) -> str | None:
    """The summary of the docstring ``cls`` itself defines (not a generated one), or ``None``."""
    doc = vars(cls).get("__doc__")
    if not isinstance(doc, str):
        return None
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return None  # the signature dataclasses writes when there is no docstring
    if issubclass(cls, enum.Enum) and doc.startswith(_ENUM_GENERATED_DOCS):
        return None  # the docstring some Python versions generate for an Enum
    return docstring_summary(doc)

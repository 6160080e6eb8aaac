"""Conformance rows owned by prism-jsonschema: 1, 2, 3, E7.

Every row dispatches real calls through ``subjects.dispatch`` with the subject validator behind
``prism.core.create_tool_parameter_validator`` and a canary tool, so "handler not invoked" is
proven by events and the canary. Only row 2 imports prism-jsonschema, for the options object
(``JsonSchemaValidatorOptions(cache_size=2)``) it hands the subject factory.
"""

from __future__ import annotations

import builtins
import shutil
import socket
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from prism.core import (
    ToolCall,
    ToolGates,
    ToolRegistry,
    ToolResult,
    create_tool_parameter_validator,
)

from ._canary import Canary, EventRecorder, canary_tool
from ._registry import conformance_row, require
from ._rows_core import describe_result, expect_blocked
from ._subjects import ConformanceSubjects

__all__ = ["CountingSchema", "LocalListener", "hostile_schemas"]

_VALIDATOR = "a JSON Schema validator (prism-jsonschema)"


class LocalListener:
    """A TCP listener on 127.0.0.1 that nobody should ever connect to."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.setblocking(False)
        self.port: int = self.sock.getsockname()[1]

    def connections(self) -> int:
        """Accept (and close) every pending connection; how many there were."""
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return count
            conn.close()
            count += 1

    def close(self) -> None:
        self.sock.close()


class CountingSchema(Mapping[str, Any]):
    """A schema that counts every read of it: a cache hit must not read it at all."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data
        self.reads = 0

    def __getitem__(self, key: str) -> Any:
        self.reads += 1
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        self.reads += 1
        return iter(self._data)

    def __len__(self) -> int:
        self.reads += 1
        return len(self._data)


async def _dispatch(
    subjects: ConformanceSubjects, validator: Any, tool: Any, call_id: str, args: Any
) -> tuple[ToolCall, Any, EventRecorder]:
    events = EventRecorder()
    call = ToolCall(id=call_id, name=tool.name, arguments=args)
    result = await subjects.dispatch(
        call,
        registry=ToolRegistry([tool]),
        gates=ToolGates(validator=create_tool_parameter_validator(validator)),
        emit=events,
    )
    return call, result, events


_SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "filters": {
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "maximum": 50},
                "tag/name": {"enum": ["a"]},
            },
        },
        "ids": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["query"],
}
_VIOLATIONS: tuple[tuple[dict[str, Any], str], ...] = (
    ({"query": 5}, "/query"),
    ({"query": "x", "filters": {"limit": 500}}, "/filters/limit"),
    ({"query": "x", "filters": {"limit": "ten"}}, "/filters/limit"),
    ({"query": "x", "ids": [1, 2, "three"]}, "/ids/2"),
    ({"query": "x", "filters": {"tag/name": "b"}}, "/filters/tag~1name"),
)


_ROOT = "https://example.com/tool"


def _planted_ids() -> list[tuple[str, dict[str, Any]]]:
    """A schema allowing only ``ls``/``pwd`` with a ``$id`` equal to the root's planted in a
    data position: an engine that reads it as an identifier re-targets ``#/$defs/safe`` to
    ``{}`` and accepts ``rm -rf /`` (issue 25)."""
    plant: dict[str, Any] = {"$id": _ROOT, "$defs": {"safe": {}}}
    schemas = []
    for place in ("const", "default", "examples", "enum", "x-meta"):
        value: Any = [plant] if place in ("examples", "enum") else plant
        schemas.append((place, {
            "$id": _ROOT, "type": "object", "required": ["cmd"],
            "properties": {"cmd": {"$ref": "#/$defs/safe"}, "other": {place: value}},
            "$defs": {"safe": {"type": "string", "pattern": "^(ls|pwd)$"}},
        }))  # fmt: skip
    return schemas


async def _planted_ids_hold(subjects: ConformanceSubjects, validator: Any) -> None:
    """A ``$id`` in a data position is data: the schema still says what its keywords say."""
    for place, schema in _planted_ids():
        canary = Canary(f"the handler of a tool whose schema plants $id in {place}")
        tool = canary_tool("shell", canary, parameters=schema)
        call, result, events = await _dispatch(
            subjects, validator, tool, f"planted-{place}", {"cmd": "rm -rf /"}
        )
        why = f"`rm -rf /` violates the schema (a $id planted in {place} re-targets its $ref)"
        _expect_refused(result, call, events, canary, why, "/cmd", "the JSON Pointer /cmd")
        _, result, _ = await _dispatch(subjects, validator, tool, f"ls-{place}", {"cmd": "ls"})
        if result.error is not None or canary.count != 1:
            raise AssertionError(
                f"`ls` must pass the schema with $id planted in {place}, got "
                f"{describe_result(result)}"
            )


def _expect_refused(
    result: ToolResult,
    call: ToolCall,
    events: EventRecorder,
    canary: Canary,
    why: str,
    needle: str,
    what: str,
) -> None:
    """Blocked as ``validation_failed`` before the handler, with a message naming ``needle``."""
    expect_blocked(
        result, call=call, reason="validation_failed", events=events, canary=canary, why=why
    )
    message = result.error.message if result.error is not None else ""
    if needle not in message:
        raise AssertionError(f"the message {message!r} ({why}) does not name {what}")


@conformance_row("1")
async def schema_violation_blocked(subjects: ConformanceSubjects) -> None:
    """Invalid arguments: blocked ``validation_failed`` naming the JSON Pointer; handler idle,
    also when the schema plants ``$id`` in a data position."""
    validator = require(subjects.json_schema_validator_factory, _VALIDATOR)()
    canary = Canary("the handler of tool 'search'")
    tool = canary_tool("search", canary, parameters=_SEARCH)
    for number, (args, pointer) in enumerate(_VIOLATIONS):
        call, result, events = await _dispatch(subjects, validator, tool, f"bad-{number}", args)
        why = f"arguments {args!r} violate the schema at {pointer}"
        _expect_refused(
            result,
            call,
            events,
            canary,
            why,
            pointer,
            f"the JSON Pointer {pointer} of the bad value",
        )
    _, result, _ = await _dispatch(subjects, validator, tool, "good", {"query": "x", "ids": [1]})
    if result.error is not None or canary.count != 1:
        raise AssertionError(
            f"valid arguments must reach the handler, got {describe_result(result)}"
        )
    await _planted_ids_hold(subjects, validator)


def _schema(number: int) -> CountingSchema:
    return CountingSchema({"type": "object", "properties": {f"p{number}": {"type": "integer"}}})


@conformance_row("2")
async def schema_compile_cache(subjects: ConformanceSubjects) -> None:
    """A repeat call neither compiles nor reads the schema; eviction is least-recently-used."""
    factory = require(subjects.json_schema_validator_factory, _VALIDATOR)
    from prism.jsonschema import JsonSchemaValidatorOptions

    validator = factory(options=JsonSchemaValidatorOptions(cache_size=2))
    canary = Canary("the handler of tool 'cached'")
    schema = _schema(0)
    tool = canary_tool("cached", canary, parameters=schema)
    await _dispatch(subjects, validator, tool, "first", {"p0": 1})
    compiles, reads = validator.cache_info().compiles, schema.reads
    if compiles != 1:
        raise AssertionError(f"the first call should compile once, cache_info() says {compiles}")
    for number, args in enumerate(({"p0": 2}, {"p0": "x"}, {"p0": 3})):
        await _dispatch(subjects, validator, tool, f"again-{number}", args)
    info = validator.cache_info()
    if info.compiles != compiles:
        raise AssertionError(f"repeat calls compiled again: compiles {compiles} -> {info.compiles}")
    if schema.reads != reads:
        raise AssertionError(f"repeat calls re-walked the schema ({schema.reads - reads} reads)")
    if canary.count != 3:
        raise AssertionError(f"the cached validator let {canary.count} of 3 valid calls run")
    await _check_lru(subjects, validator, canary)


async def _check_lru(subjects: ConformanceSubjects, validator: Any, canary: Canary) -> None:
    tools = {n: canary_tool(f"t{n}", canary, parameters=_schema(n)) for n in (1, 2, 3)}

    async def use(n: int) -> int:
        before = validator.cache_info().compiles
        await _dispatch(subjects, validator, tools[n], f"lru-{uuid.uuid4().hex}", {f"p{n}": 1})
        return int(validator.cache_info().compiles - before)

    for n in (1, 2, 1, 3):  # cache_size=2: using 1 again makes 2 the least recent; 3 evicts 2
        await use(n)
    if await use(1):
        raise AssertionError("the most recently used schema was evicted (eviction is not LRU)")
    if await use(3):
        raise AssertionError("the newest schema was evicted (eviction is not LRU)")
    if not await use(2):
        raise AssertionError(
            "a cache of size 2 still held a third schema: nothing was evicted beyond cache_size"
        )


def _malformed(port: int) -> list[tuple[str, Any, str]]:
    base = f"http://127.0.0.1:{port}"
    cycle: dict[str, Any] = {"type": "object", "properties": {}}
    cycle["properties"]["self"] = cycle
    return [
        ("a remote $ref", {"properties": {"q": {"$ref": f"{base}/s.json"}}}, str(port)),
        ("a remote $ref fragment", {"$ref": f"{base}/s.json#/definitions/q"}, str(port)),
        ("an unknown $schema", {"$schema": f"{base}/meta#", "type": "object"}, "$schema"),
        ("an unknown type", {"properties": {"q": {"type": "strin"}}}, "type"),
        ("a broken pattern", {"properties": {"q": {"pattern": "(unclosed"}}}, "pattern"),
        ("a non-finite number", {"properties": {"q": {"maximum": float("nan")}}}, "finite"),
        ("a cyclic schema object", cycle, "cycle"),
    ]


@conformance_row("3")
async def malformed_schema_rejected(subjects: ConformanceSubjects) -> None:
    """Malformed schemas and remote refs block the call before compiling; nothing is fetched."""
    validator = require(subjects.json_schema_validator_factory, _VALIDATOR)()
    listener = LocalListener()
    try:
        for label, schema, cause in _malformed(listener.port):
            canary = Canary(f"the handler of a tool with {label}")
            tool = canary_tool("malformed", canary, parameters=schema)
            call, result, events = await _dispatch(
                subjects, validator, tool, f"malformed-{uuid.uuid4().hex}", {"q": "x"}
            )
            why = f"its schema has {label}"
            _expect_refused(result, call, events, canary, why, cause, f"the cause ({cause!r})")
            if listener.connections():
                raise AssertionError(f"a schema with {label} made the validator open a connection")
        compiles = validator.cache_info().compiles
        if compiles:
            raise AssertionError(f"malformed schemas reached compilation ({compiles} compiles)")
    finally:
        listener.close()


def hostile_schemas(canary_attribute: str, canary_file: Path) -> list[dict[str, Any]]:
    """Schemas carrying code that would set a builtins attribute or create a file if run."""
    calls = (
        f"__import__('builtins').__setattr__('{canary_attribute}', 1)",
        f'__import__("pathlib").Path("{canary_file}").touch()',
    )
    atoms: list[str] = []
    for call in calls:
        atoms += [call, f'"+{call}+"', f"'+{call}+'", f'""" + {call} + """', f"\n{call}\n",
                  f'")\n{call}\n("', f"{{{call}}}", f"\\\n{call}", f"\x00{call}\u2028"]  # fmt: skip
    schemas: list[dict[str, Any]] = []
    for atom in atoms:
        schemas += [
            {"type": "object", "properties": {atom: {"type": "string", "default": atom}},
             "required": [atom], "title": atom, "description": atom},
            {"type": "object", "properties": {"q": {"enum": [atom, {atom: atom}], "const": atom}}},
            {"type": "object", "properties": {"q": {"pattern": "".join("\\" + c if not c.isalnum()
                                                                        else c for c in atom)}}},
            {"type": "object", "patternProperties": {"^" + atom.replace("(", "\\("): {}}},
            {"type": "object", "$id": atom, "properties": {"q": {"format": atom}}},
            {"$defs": {"d": {"examples": [atom]}}, "dependencies": {atom: [atom]}},
        ]  # fmt: skip
    return schemas


@conformance_row("E7")
async def hostile_schema_cannot_run_code(subjects: ConformanceSubjects) -> None:
    """No schema content (names, patterns, enums, defaults, titles ...) runs as code."""
    factory = require(subjects.json_schema_validator_factory, _VALIDATOR)
    attribute = f"PRISM_E7_CANARY_{uuid.uuid4().hex}"
    directory = Path(tempfile.mkdtemp(prefix="prism-e7-"))
    code_ran = directory / "code-ran"
    try:
        validator = factory()
        for number, schema in enumerate(hostile_schemas(attribute, code_ran)):
            canary = Canary(f"the handler of hostile tool #{number}")
            tool = canary_tool("hostile", canary, parameters=schema)
            for args in ({"q": "x"}, {next(iter(schema.get("properties", {"q": 0}))): "x"}, {}):
                _, result, events = await _dispatch(
                    subjects, validator, tool, f"e7-{number}-{uuid.uuid4().hex}", args
                )
                if hasattr(builtins, attribute) or code_ran.exists():
                    raise AssertionError(f"schema content ran as code (hostile schema #{number})")
                ran = bool(events.of_type("tool_execution_started"))
                if ran != (result.error is None):
                    raise AssertionError(
                        f"hostile schema #{number}: {describe_result(result)} but the handler "
                        f"{'ran' if ran else 'did not run'}"
                    )
    finally:
        if hasattr(builtins, attribute):
            delattr(builtins, attribute)
        shutil.rmtree(directory, ignore_errors=True)

"""Every supported annotation: its exact JSON Schema, and JSON that fits converts back exactly.

The hypothesis properties check the schema and the argument converter against each other with an
independent validator (the ``jsonschema`` reference implementation, draft 2020-12) and with
``prism.jsonschema`` when it is installed: everything valid is accepted and arrives with the
annotated Python types, and everything the converter accepts is valid.
"""

import dataclasses
import enum
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Optional,
    Required,
    TypedDict,
    Union,
)

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.core import ToolDefinition, ToolExecutionContext, ToolResult
from prism.core._abort import AbortController
from prism.core._function_values import ToolArgumentsError, to_json
from prism.core.functions import tool


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Size(enum.Enum):
    """How big it is."""

    SMALL = "s"
    LARGE = 10


class Movie(TypedDict):
    title: str
    year: int


class Filters(TypedDict, total=False):
    tag: str
    min_year: int


class Query(TypedDict):
    text: Required[str]
    page: NotRequired[int]
    note: Annotated[NotRequired[str], "Free text."]


class Loose(TypedDict, total=False):
    """Loosely specified."""

    id: Required[int]
    labels: list[str]


@dataclass
class Point:
    x: int
    y: int = 0


@dataclass(frozen=True)
class Box:
    """A box on the page."""

    corners: tuple[Point, Point]
    label: str | None = None
    tags: list[str] = dataclasses.field(default_factory=list)


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
NULL = {"type": "null"}
POINT = {
    "type": "object",
    "properties": {"x": INTEGER, "y": {"type": "integer", "default": 0}},
    "required": ["x"],
    "additionalProperties": False,
}
MOVIE = {
    "type": "object",
    "properties": {"title": STRING, "year": INTEGER},
    "required": ["title", "year"],
    "additionalProperties": False,
}

# (id, annotation, exact schema, a JSON sample, the Python value the function must receive)
CASES: list[tuple[str, Any, dict[str, Any], Any, Any]] = [
    ("str", str, STRING, "hi", "hi"),
    ("int", int, INTEGER, 3, 3),
    ("int-from-integral-float", int, INTEGER, 3.0, 3),
    ("float", float, {"type": "number"}, 3, 3.0),
    ("bool", bool, {"type": "boolean"}, False, False),
    ("None", None, NULL, None, None),
    ("NoneType", type(None), NULL, None, None),
    ("Any", Any, {}, {"a": [1, None]}, {"a": [1, None]}),
    ("list", list[int], {"type": "array", "items": INTEGER}, [1, 2], [1, 2]),
    ("typing.List", typing.List[str], {"type": "array", "items": STRING}, ["a"], ["a"]),  # noqa: UP006
    ("Sequence", Sequence[float], {"type": "array", "items": {"type": "number"}}, [1], [1.0]),
    (
        "tuple-fixed",
        tuple[int, str],
        {"type": "array", "prefixItems": [INTEGER, STRING], "minItems": 2, "maxItems": 2},
        [1, "a"],
        (1, "a"),
    ),
    (
        "tuple-empty",
        tuple[()],
        {"type": "array", "maxItems": 0},
        [],
        (),
    ),
    ("tuple-variadic", tuple[int, ...], {"type": "array", "items": INTEGER}, [1, 2], (1, 2)),
    (
        "dict",
        dict[str, int],
        {"type": "object", "additionalProperties": INTEGER},
        {"a": 1},
        {"a": 1},
    ),
    (
        "Mapping",
        Mapping[str, list[bool]],
        {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "boolean"}}},
        {"k": [True]},
        {"k": [True]},
    ),
    (
        "dict-any",
        dict[str, Any],
        {"type": "object", "additionalProperties": {}},
        {"a": 1},
        {"a": 1},
    ),
    (
        "Literal",
        Literal["asc", "desc"],
        {"type": "string", "enum": ["asc", "desc"]},
        "desc",
        "desc",
    ),
    (
        "Literal-mixed",
        Literal[1, "one", None],
        {"type": ["integer", "string", "null"], "enum": [1, "one", None]},
        1.0,
        1,
    ),
    ("Literal-bool", Literal[True], {"type": "boolean", "enum": [True]}, True, True),
    (
        "Literal-enum-member",
        Literal[Color.RED],
        {"type": "string", "enum": ["red"]},
        "red",
        Color.RED,
    ),
    ("Enum", Color, {"type": "string", "enum": ["red", "green"]}, "green", Color.GREEN),
    ("IntEnum", Priority, {"type": "integer", "enum": [1, 2]}, 2, Priority.HIGH),
    (
        "Enum-documented-mixed",
        Size,
        {"type": ["string", "integer"], "enum": ["s", 10], "description": "How big it is."},
        10,
        Size.LARGE,
    ),
    ("X|None", int | None, {"anyOf": [INTEGER, NULL]}, None, None),
    ("Optional", Optional[str], {"anyOf": [STRING, NULL]}, "a", "a"),  # noqa: UP045
    ("union", int | str, {"anyOf": [INTEGER, STRING]}, "7", "7"),
    (
        "Union-nested",
        Union[Color, list[int], None],  # noqa: UP007
        {
            "anyOf": [
                {"type": "string", "enum": ["red", "green"]},
                {"type": "array", "items": INTEGER},
                NULL,
            ]
        },
        [4],
        [4],
    ),
    ("TypedDict", Movie, MOVIE, {"title": "Up", "year": 2009}, {"title": "Up", "year": 2009}),
    (
        "TypedDict-total-False",
        Filters,
        {
            "type": "object",
            "properties": {"tag": STRING, "min_year": INTEGER},
            "additionalProperties": False,
        },
        {"tag": "a"},
        {"tag": "a"},
    ),
    (
        "TypedDict-Required-NotRequired",
        Query,
        {
            "type": "object",
            "properties": {
                "text": STRING,
                "page": INTEGER,
                "note": {"type": "string", "description": "Free text."},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
        {"text": "q", "page": 2.0},
        {"text": "q", "page": 2},
    ),
    (
        "TypedDict-documented",
        Loose,
        {
            "type": "object",
            "properties": {"id": INTEGER, "labels": {"type": "array", "items": STRING}},
            "required": ["id"],
            "additionalProperties": False,
            "description": "Loosely specified.",
        },
        {"id": 1, "labels": []},
        {"id": 1, "labels": []},
    ),
    ("dataclass", Point, POINT, {"x": 1}, Point(1, 0)),
    (
        "dataclass-nested",
        Box,
        {
            "type": "object",
            "properties": {
                "corners": {
                    "type": "array",
                    "prefixItems": [POINT, POINT],
                    "minItems": 2,
                    "maxItems": 2,
                },
                "label": {"anyOf": [STRING, NULL], "default": None},
                "tags": {"type": "array", "items": STRING},
            },
            "required": ["corners"],
            "additionalProperties": False,
            "description": "A box on the page.",
        },
        {"corners": [{"x": 0}, {"x": 1, "y": 2}], "tags": ["t"]},
        Box(corners=(Point(0, 0), Point(1, 2)), tags=["t"]),
    ),
    (
        "Annotated",
        Annotated[int, "How many."],
        {"type": "integer", "description": "How many."},
        1,
        1,
    ),
    (
        "Annotated-optional",
        Annotated[str | None, "A filter."],
        {"anyOf": [STRING, NULL], "description": "A filter."},
        None,
        None,
    ),
    ("list-of-TypedDict", list[Movie], {"type": "array", "items": MOVIE}, [], []),
]
IDS = [case[0] for case in CASES]


def probe(annotation: Any, strict: bool = False) -> tuple[ToolDefinition, list[object]]:
    """A tool with one required parameter ``x: annotation`` that records and returns ``x``."""
    received: list[object] = []

    def echo(x):  # type: ignore[no-untyped-def]
        received.append(x)
        return x

    echo.__annotations__ = {"x": annotation}
    return tool(echo, strict=strict), received


def context() -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="call-1", signal=AbortController().signal
    )


def run(definition: ToolDefinition, arguments: Mapping[str, object]) -> object:
    """Call the handler; the JSON it hands back (a ``str`` return goes to dispatch as it is)."""
    outcome = definition.execute(arguments, context())
    if isinstance(outcome, str):
        return outcome
    assert isinstance(outcome, ToolResult)
    assert outcome.tool_call_id == "call-1"
    assert outcome.name == "echo"
    return outcome.value


def same_types(left: object, right: object) -> bool:
    """Equal values with identical types all the way down (3 != 3.0, list != tuple here)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_types(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(same_types, left, right))
    if dataclasses.is_dataclass(left) and not isinstance(left, type):
        return all(
            same_types(getattr(left, f.name), getattr(right, f.name))
            for f in dataclasses.fields(left)
        )
    return left == right


@pytest.mark.parametrize(("annotation", "expected"), [(c[1], c[2]) for c in CASES], ids=IDS)
def test_schema_of_each_supported_annotation(annotation: Any, expected: dict[str, Any]) -> None:
    definition, _ = probe(annotation)
    assert definition.parameters == {
        "type": "object",
        "properties": {"x": expected},
        "required": ["x"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("annotation", "sample", "value"), [c[1:2] + c[3:] for c in CASES], ids=IDS
)
def test_arguments_arrive_as_the_annotated_python_types(
    annotation: Any, sample: Any, value: Any
) -> None:
    definition, received = probe(annotation)
    result = run(definition, {"x": sample})
    assert len(received) == 1
    assert same_types(received[0], value), (received[0], value)
    assert result == to_json(value)  # Enums, dataclasses and tuples become JSON again


def test_parameter_schemas_are_fresh_copies_per_tool() -> None:
    first, _ = probe(Movie)
    second, _ = probe(Movie)
    assert first.parameters is not None
    assert second.parameters is not None
    first.parameters["properties"]["x"]["properties"]["title"]["type"] = "integer"  # type: ignore[index]
    assert second.parameters["properties"]["x"]["properties"]["title"] == STRING  # type: ignore[index]


# --- properties ------------------------------------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def from_schema(schema: Mapping[str, Any], noise: bool = False) -> st.SearchStrategy[Any]:
    """Values valid for ``schema`` (keywords function tools emit); with ``noise``, near misses."""
    valid = _valid(schema, noise)
    return st.one_of(valid, _SCALARS, JSON) if noise else valid


def _valid(schema: Mapping[str, Any], noise: bool) -> st.SearchStrategy[Any]:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([from_schema(branch, noise) for branch in schema["anyOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, noise) for k in kind])
    if kind is None:
        return JSON
    if kind == "array":
        if "prefixItems" in schema:
            return st.tuples(*(from_schema(s, noise) for s in schema["prefixItems"])).map(list)
        if schema.get("maxItems") == 0:
            return st.just([])
        return st.lists(from_schema(schema["items"], noise), max_size=3)
    if kind == "object":
        if "properties" not in schema:
            return st.dictionaries(
                st.text(max_size=4), from_schema(schema["additionalProperties"], noise), max_size=3
            )
        properties = {k: from_schema(v, noise) for k, v in schema["properties"].items()}
        required = set(schema.get("required", ()))
        exact = st.fixed_dictionaries(
            {k: v for k, v in properties.items() if k in required},
            optional={k: v for k, v in properties.items() if k not in required},
        )
        if not noise:
            return exact
        loose = st.fixed_dictionaries({}, optional=properties)
        extra = st.dictionaries(st.sampled_from(["x", "y", "zz", "__extra"]), JSON, max_size=1)
        return st.tuples(st.one_of(exact, loose), extra).map(lambda t: {**t[1], **t[0]})
    return {
        "null": st.none(),
        "boolean": st.booleans(),
        "integer": st.integers(min_value=-(2**63), max_value=2**63),
        # integers a float parameter receives as float: exact up to 2**53, like float(x)
        "number": st.integers(min_value=-(2**53), max_value=2**53)
        | st.floats(allow_nan=False, allow_infinity=False),
        "string": st.text(max_size=6),
    }[kind]


def conforms(value: object, annotation: Any) -> bool:
    """An independent runtime check that ``value`` is an instance of ``annotation``."""
    if annotation is Any:
        return True
    if annotation is None or annotation is type(None):
        return value is None
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (Annotated, Required, NotRequired):
        return conforms(value, args[0])
    if origin is Literal:
        return any(type(value) is type(a) and value == a for a in args)
    if origin in (Union, UnionType):
        return any(conforms(value, a) for a in args)
    if origin in (list, Sequence):
        return type(value) is list and all(conforms(v, args[0]) for v in value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return type(value) is tuple and all(conforms(v, args[0]) for v in value)
        return type(value) is tuple and len(value) == len(args) and all(map(conforms, value, args))
    if origin in (dict, Mapping):
        return type(value) is dict and all(conforms(v, args[1]) for v in value.values())
    if typing.is_typeddict(annotation):
        hints = typing.get_type_hints(annotation, include_extras=True)
        return (
            type(value) is dict
            and annotation.__required_keys__ <= value.keys() <= hints.keys()
            and all(conforms(v, hints[k]) for k, v in value.items())
        )
    if dataclasses.is_dataclass(annotation):
        hints = typing.get_type_hints(annotation, include_extras=True)
        return type(value) is annotation and all(
            conforms(getattr(value, f.name), hints[f.name]) for f in dataclasses.fields(annotation)
        )
    return type(value) is annotation


def reference_validator(schema: Mapping[str, Any]) -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def accepts(definition: ToolDefinition, arguments: object) -> bool:
    try:
        definition.execute(arguments, context())  # type: ignore[arg-type]
    except ToolArgumentsError:
        return False
    return True


PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("annotation", [c[1] for c in CASES], ids=IDS)
@PROPERTY
@given(data=st.data())
def test_values_valid_for_the_schema_arrive_with_the_annotated_types(
    annotation: Any, data: st.DataObject
) -> None:
    definition, received = probe(annotation)
    assert definition.parameters is not None
    validator = reference_validator(definition.parameters)
    arguments = data.draw(from_schema(definition.parameters))
    assert validator.is_valid(arguments)
    result = run(definition, arguments)
    assert conforms(received[-1], annotation), (received[-1], annotation)
    assert result == to_json(received[-1])
    if not (dataclasses.is_dataclass(annotation) or typing.get_origin(annotation) is tuple):
        assert result == arguments["x"]


@pytest.mark.parametrize("annotation", [c[1] for c in CASES], ids=IDS)
@PROPERTY
@given(data=st.data())
def test_the_converter_accepts_exactly_what_the_schema_accepts(
    annotation: Any, data: st.DataObject
) -> None:
    definition, _ = probe(annotation)
    assert definition.parameters is not None
    validator = reference_validator(definition.parameters)
    arguments = data.draw(from_schema(definition.parameters, noise=True))
    assert accepts(definition, arguments) == validator.is_valid(arguments), arguments


@pytest.mark.parametrize("annotation", [c[1] for c in CASES], ids=IDS)
@PROPERTY
@given(data=st.data())
def test_values_valid_for_the_schema_pass_prism_jsonschema(
    annotation: Any, data: st.DataObject
) -> None:
    module = pytest.importorskip("prism.jsonschema")
    validator_class = getattr(module, "JsonSchemaArgumentValidator", None)
    if validator_class is None:
        pytest.skip("prism.jsonschema has no JsonSchemaArgumentValidator yet")
    definition, _ = probe(annotation)
    assert definition.parameters is not None
    arguments = data.draw(from_schema(definition.parameters))
    outcome = validator_class().validate(definition.parameters, arguments)
    assert outcome.ok, outcome.errors


NOT_STRICT = {
    "Any",
    "tuple-fixed",
    "tuple-empty",
    "dict",
    "Mapping",
    "dict-any",
    "dataclass-nested",
}
STRICT_CASES = [case for case in CASES if case[0] not in NOT_STRICT]


@pytest.mark.parametrize("annotation", [c[1] for c in CASES if c[0] in NOT_STRICT])
def test_free_form_and_tuple_annotations_cannot_be_strict(annotation: Any) -> None:
    with pytest.raises(TypeError, match="cannot use strict mode"):
        probe(annotation, strict=True)


@pytest.mark.parametrize(
    "annotation", [c[1] for c in STRICT_CASES], ids=[c[0] for c in STRICT_CASES]
)
@PROPERTY
@given(data=st.data())
def test_strict_tools_accept_exactly_what_the_strict_schema_accepts(
    annotation: Any, data: st.DataObject
) -> None:
    definition, received = probe(annotation, strict=True)
    assert definition.parameters is not None
    validator = reference_validator(definition.parameters)
    valid = data.draw(from_schema(definition.parameters))
    assert validator.is_valid(valid)
    assert accepts(definition, valid)
    assert conforms(received[-1], annotation), (received[-1], annotation)
    noisy = data.draw(from_schema(definition.parameters, noise=True))
    assert accepts(definition, noisy) == validator.is_valid(noisy), noisy

"""What ``@tool`` refuses at decoration time, and what the handler refuses at call time."""

import dataclasses
import enum
import functools
import inspect
import re
from typing import Annotated, Any, Literal, TypedDict

import pytest

from prism.core import ToolDefinition, ToolExecutionContext, ToolResult
from prism.core._abort import AbortController
from prism.core.functions import tool


def context() -> ToolExecutionContext:
    return ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="call-1", signal=AbortController().signal
    )


class Empty(enum.Enum):
    pass


class Shape(enum.Enum):
    POINT = (0, 0)


@dataclasses.dataclass
class WithInitVar:
    size: dataclasses.InitVar[int]


@dataclasses.dataclass
class Node:
    children: list["Node"]


@dataclasses.dataclass
class Positive:
    value: int

    def __post_init__(self) -> None:
        if self.value <= 0:
            raise ValueError("value must be positive")


class Unresolvable(TypedDict):
    when: "NoSuchType"  # type: ignore[name-defined]  # noqa: F821


def _named(annotation: Any) -> Any:
    def fn(x):  # type: ignore[no-untyped-def]
        return x

    fn.__annotations__ = {"x": annotation}
    return fn


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (bytes, "unsupported type annotation bytes"),
        (set[int], "unsupported type annotation set[int]"),
        (object, "unsupported type annotation object"),
        (list, "list needs item types"),
        (dict, "dict needs item types"),
        (dict[int, str], "dict keys must be str"),
        (tuple[int, ..., str], "only tuple[T, ...] may use '...'"),
        (Annotated[int, 5], "Annotated metadata 5 is not supported"),
        (Empty, "Empty has no values"),
        (Shape, "value (0, 0) is not a JSON string"),
        (Literal[1.5, float("nan")], "value nan is not a JSON"),
        (WithInitVar, "InitVar field 'size'"),
        (Node, "recursive type Node is not supported"),
        (Unresolvable, "cannot resolve the type hints of Unresolvable"),
        (list[ToolExecutionContext], "unsupported type annotation"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_unsupported_annotations_raise_type_error_naming_the_parameter(
    annotation: Any, message: str
) -> None:
    with pytest.raises(TypeError) as caught:
        tool(_named(annotation))
    assert str(caught.value).startswith("tool 'fn': parameter 'x'")
    assert message in str(caught.value)


def test_nested_field_errors_name_the_field_and_its_class() -> None:
    @dataclasses.dataclass
    class Outer:
        blob: bytes

    with pytest.raises(TypeError, match=r"parameter 'x' \(field 'blob' of .*Outer\)"):
        tool(_named(Outer))


def test_signature_shapes_that_cannot_take_json_arguments() -> None:
    def star(*items: int) -> None: ...

    def double_star(**options: int) -> None: ...

    def positional(a: int, /) -> None: ...

    def bare(a, b: int) -> None: ...  # type: ignore[no-untyped-def]

    with pytest.raises(TypeError, match=r"parameter 'items': \*args and \*\*kwargs"):
        tool(star)
    with pytest.raises(TypeError, match=r"parameter 'options': \*args and \*\*kwargs"):
        tool(double_star)
    with pytest.raises(TypeError, match="parameter 'a': positional-only"):
        tool(positional)
    with pytest.raises(TypeError, match="parameter 'a': has no type annotation"):
        tool(bare)


def test_generators_and_classes_are_refused() -> None:
    def numbers() -> Any:
        yield 1

    async def stream() -> Any:
        yield 1

    with pytest.raises(TypeError, match="generator functions are not supported"):
        tool(numbers)
    with pytest.raises(TypeError, match="generator functions are not supported"):
        tool(stream)
    with pytest.raises(TypeError, match=r"^tool\.fn must be a function, not a class"):
        tool(Positive)


def test_names_are_validated_like_the_registry_does() -> None:
    def größe(x: int) -> int:
        return x

    with pytest.raises(ValueError, match="pass name="):
        tool(größe)
    assert tool(größe, name="size").name == "size"
    with pytest.raises(ValueError, match=re.escape("'<lambda>'")):
        tool(lambda: 1)
    with pytest.raises(ValueError, match=r"^tool\.name must be a name matching .*, got 'xxx"):
        tool(name="x" * 129)(größe)
    assert tool(name="x" * 128)(größe).name == "x" * 128
    assert tool(name="mcp:docs.search-v2")(größe).name == "mcp:docs.search-v2"


def test_option_types_are_checked() -> None:
    def f() -> None: ...

    with pytest.raises(TypeError, match="to set the name use @tool"):
        tool("search")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"^tool\.exclusive must be True or False, got 1$"):
        tool(f, exclusive=1)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"^tool\.strict must be True or False, got 'yes'$"):
        tool(f, strict="yes")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"^tool\.description must be a str or None, got 3$"):
        tool(f, description=3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="name must be a str"):
        tool(f, name=3)  # type: ignore[call-overload]


# --- call time -----------------------------------------------------------------------------


@tool
def place(
    point: tuple[int, int], color: Literal["red", "blue"], target: Positive, weight: float = 1.0
) -> dict[str, Any]:
    """Place a point."""
    return {"point": point, "color": color, "target": target, "weight": weight}


def refusal(definition: ToolDefinition, arguments: dict[str, Any]) -> str:
    with pytest.raises(ValueError) as caught:
        definition.execute(arguments, context())
    assert getattr(caught.value, "code", None) == "invalid_arguments"
    assert type(caught.value).__name__ == "ToolArgumentsError"
    return str(caught.value)


GOOD = {"point": [1, 2], "color": "red", "target": {"value": 3}}


def test_good_arguments_are_converted() -> None:
    result = place.execute(GOOD, context())
    assert isinstance(result, ToolResult)
    assert result.value == {
        "point": [1, 2],
        "color": "red",
        "target": {"value": 3},
        "weight": 1.0,
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"point": [1, True]}, "Invalid arguments: /point/1: expected integer, got boolean"),
        ({"point": [1]}, "Invalid arguments: /point: expected 2 items, got 1"),
        ({"point": "1,2"}, "/point: expected array, got string"),
        ({"color": "green"}, "/color: expected one of 'red', 'blue'"),
        ({"target": {"value": 0}}, "/target: Positive: value must be positive"),
        ({"target": {"value": 1.5}}, "/target/value: expected integer, got number"),
        ({"target": {}}, "/target: missing required property 'value'"),
        ({"target": {"value": 1, "extra": 2}}, "/target: unexpected property 'extra'"),
        ({"weight": "heavy"}, "/weight: expected number, got string"),
        ({"weight": None}, "/weight: expected number, got null"),
        ({"weight": 10**400}, "/weight: expected number, got integer"),
        ({"surprise": 1}, "Invalid arguments: unexpected property 'surprise'"),
        ({"a/b~c": 1}, "unexpected property 'a/b~c'"),
    ],
)
def test_arguments_that_do_not_fit_are_refused_with_a_path(
    change: dict[str, Any], message: str
) -> None:
    assert message in refusal(place, {**GOOD, **change})


def test_missing_required_arguments_are_named() -> None:
    assert refusal(place, {"point": [0, 0]}) == (
        "Invalid arguments: missing required property 'color'"
    )


def test_a_pointer_escapes_slash_and_tilde() -> None:
    @tool
    def tagged(tags: dict[str, int]) -> None: ...

    assert "/tags/a~1b~0c: expected integer" in refusal(tagged, {"tags": {"a/b~c": "x"}})


def test_long_unexpected_keys_are_shortened() -> None:
    message = refusal(place, {**GOOD, "k" * 5000: 1})
    assert len(message) < 200


def test_union_mismatch_lists_the_alternatives() -> None:
    @tool
    def pick(value: int | list[str] | None) -> None: ...

    assert "/value: expected integer or array or null, got string" in refusal(pick, {"value": "x"})


def test_union_mismatch_inside_the_one_member_of_that_type_keeps_its_detail() -> None:
    @tool
    def aim(target: Positive | None = None, targets: list[Positive] | int = 0) -> None: ...

    assert "/target/value: expected integer, got string" in refusal(aim, {"target": {"value": "1"}})
    assert "/targets/1: Positive: value must be positive" in refusal(
        aim, {"targets": [{"value": 1}, {"value": -1}]}
    )


def test_non_json_return_values_raise_a_clear_type_error() -> None:
    @tool
    def odd() -> object:
        return {1, 2}

    @tool
    def mixed() -> object:
        from prism.core import TextContent

        return [TextContent(text="a"), 1]

    @tool
    def nan() -> float:
        return float("nan")

    with pytest.raises(
        TypeError,
        match=re.escape(
            "tool 'odd': returned a value that is not JSON (value of type set: not JSON"
        ),
    ):
        odd.execute({}, context())
    with pytest.raises(TypeError, match="mixing content blocks with other values"):
        mixed.execute({}, context())
    with pytest.raises(TypeError, match="value nan: not a JSON number"):
        nan.execute({}, context())


def test_partials_keep_their_remaining_parameters() -> None:
    def scale(value: int, factor: int) -> int:
        return value * factor

    double = tool(functools.partial(scale, factor=2), name="double")
    assert double.parameters == {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "factor": {"type": "integer", "default": 2}},
        "required": ["value"],
        "additionalProperties": False,
    }
    result = double.execute({"value": 21}, context())
    assert isinstance(result, ToolResult)
    assert result.value == 42


def test_unresolvable_string_annotations_are_reported_at_decoration() -> None:
    def later(when: "NotDefinedAnywhere") -> None: ...  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(TypeError, match="tool 'later': cannot resolve the type hints"):
        tool(later)


def test_callable_objects_need_a_name_and_keep_sync_or_async() -> None:
    class Counter:
        def __call__(self, step: int) -> int:
            return step + 1

    class AsyncCounter:
        async def __call__(self, step: int) -> int:
            return step + 1

    with pytest.raises(ValueError, match="pass name="):
        tool(Counter())
    counter = tool(Counter(), name="counter")
    assert counter.parameters is not None
    assert counter.parameters["required"] == ["step"]
    result = counter.execute({"step": 1}, context())
    assert isinstance(result, ToolResult)
    assert result.value == 2
    assert inspect.iscoroutinefunction(tool(AsyncCounter(), name="async_counter").execute)
    assert not inspect.iscoroutinefunction(counter.execute)

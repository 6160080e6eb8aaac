"""The API rules of docs/errors.md, checked over the ``__all__`` of every public module.

One exception root (``PrismError``), ``…Error`` only for exceptions, immutable public
constants, ``@final`` on the classes not meant for subclassing, and options that refuse a value
of the wrong type with ``TypeError`` and a bad value of the right type with ``ValueError``.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil
import re
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism
from prism.core import PrismError


def _public_modules() -> list[str]:
    names = [
        info.name
        for info in pkgutil.walk_packages(prism.__path__, "prism.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    assert "prism.core" in names and "prism.conformance" in names, names
    return sorted(names)


MODULES = _public_modules()


def _exported() -> Iterator[tuple[str, str, object]]:
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            yield module_name, name, getattr(module, name)


EXPORTED = list(_exported())
CLASSES = {id(value): value for _, _, value in EXPORTED if isinstance(value, type)}
EXCEPTIONS = [
    (f"{module}.{name}", value)
    for module, name, value in EXPORTED
    if isinstance(value, type) and issubclass(value, BaseException)
]


def test_every_public_exception_is_a_prism_error_named_for_what_it_is() -> None:
    assert len(EXCEPTIONS) >= 15, EXCEPTIONS
    for where, exc in EXCEPTIONS:
        assert issubclass(exc, PrismError), f"{where} does not subclass PrismError"
        suffix = "Warning" if issubclass(exc, Warning) else "Error"
        assert exc.__name__.endswith(suffix), f"{where} is an exception not named …{suffix}"


def test_every_public_error_also_subclasses_a_builtin_exception_or_is_a_documented_root() -> None:
    # A family root, and an abort (no built-in means "stopped on request"), subclass only
    # PrismError; everything else also subclasses the built-in it is closest to.
    roots = {"PrismError", "McpBridgeError", "AbortError", "RowSkippedError"}
    for where, exc in EXCEPTIONS:
        builtins = [
            base
            for base in exc.__mro__
            if base.__module__ == "builtins" and base not in (Exception, BaseException, object)
        ]
        assert builtins or exc.__name__ in roots, f"{where} subclasses no built-in error"


def test_no_public_name_that_is_not_an_exception_ends_in_error() -> None:
    for module, name, value in EXPORTED:
        if name.endswith("Error"):
            assert isinstance(value, type) and issubclass(value, BaseException), (
                f"{module}.{name} is named …Error but is not an exception"
            )


_MUTABLE = (dict, list, set, bytearray)


def _mutable_parts(value: object, depth: int = 0) -> Iterator[object]:
    if isinstance(value, _MUTABLE):
        yield value
    elif depth < 3 and isinstance(value, tuple | frozenset):
        for item in value:
            yield from _mutable_parts(item, depth + 1)
    elif depth < 3 and isinstance(value, types.MappingProxyType):
        for item in value.values():
            yield from _mutable_parts(item, depth + 1)


def test_no_public_constant_is_a_mutable_container() -> None:
    constants = [
        (module, name, value)
        for module, name, value in EXPORTED
        if not callable(value) and not isinstance(value, types.ModuleType)
    ]
    assert any(name == "HARD_CAPS" for _, name, _ in constants)
    for module, name, value in constants:
        mutable = list(_mutable_parts(value))
        assert not mutable, f"{module}.{name} holds a mutable {type(mutable[0]).__name__}"


def test_hard_caps_cannot_be_changed() -> None:
    from prism.jsonschema import HARD_CAPS

    with pytest.raises(TypeError):
        HARD_CAPS["max_errors"] = 10**9  # type: ignore[index]


# Classes a user builds or receives but never extends: options, limits, results, reports,
# decisions, verdicts, events, and the exceptions no other public exception derives from.
_LEAF_SUFFIXES = (
    "Options",
    "Limits",
    "Result",
    "Report",
    "Decision",
    "Verdict",
    "Error",
    "Warning",
)


def _meant_final(cls: type) -> bool:
    if cls.__module__.startswith("prism.core.events") or cls.__name__.startswith("ToolExecution"):
        return dataclasses.is_dataclass(cls)
    if not cls.__name__.endswith(_LEAF_SUFFIXES):
        return False
    return not any(other is not cls and issubclass(other, cls) for other in CLASSES.values())


def test_classes_not_meant_for_subclassing_are_final() -> None:
    meant = [cls for cls in CLASSES.values() if _meant_final(cls)]
    assert len(meant) >= 30, meant
    missing = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in meant
        if not getattr(cls, "__final__", False)
    ]
    assert not missing, f"not @typing.final: {sorted(missing)}"


# ---- options: TypeError for a wrong type, ValueError for a wrong value -----------------------


class _Alien:
    """A value of no type any option accepts: not callable, not a number, string or sequence."""

    def __repr__(self) -> str:
        return "<alien>"


def _baselines(tmp: Path) -> dict[str, Callable[[], dict[str, object]]]:
    """Keyword arguments that make each options class valid (empty when all have defaults)."""

    def durable_agent() -> dict[str, object]:
        from prism.core import ToolRegistry
        from prism.core.agent import Agent
        from prism.core.testing import ScriptedProvider
        from prism.dbos import DurableToolset

        toolset = DurableToolset(name="t", tools=ToolRegistry())
        return {"agent": Agent(provider=ScriptedProvider([]), model="m"), "toolset": toolset}

    def features() -> dict[str, object]:
        from prism.core import create_static_permission_policy

        return {"permission": create_static_permission_policy()}

    def http() -> dict[str, object]:
        from prism.mcp.server import BearerTokens

        return {"token_verifier": BearerTokens(["t" * 32])}

    return {
        "DbosBackendOptions": lambda: {"app_name": "a", "database_url": f"sqlite:///{tmp}/db"},
        "DurableAgentOptions": durable_agent,
        "ApprovalOptions": lambda: {"side_effects": True},
        "McpClientFeatures": features,
        "HttpOptions": http,
        "CodingServerOptions": lambda: {"roots": (str(tmp),)},
        "BubblewrapSandbox": lambda: {"root": str(tmp)},
    }


# Fields that take any object by design (opaque values handed back to the host).
_ANY_VALUE = {"CallScope.metadata"}


def _named(*names: str) -> list[type]:
    return [cls for cls in CLASSES.values() if cls.__name__ in names]


def _options_classes() -> list[type]:
    found = [
        cls
        for cls in CLASSES.values()
        if dataclasses.is_dataclass(cls)
        and cls.__name__.endswith(("Options", "Limits", "Features"))
    ]
    # Option classes by another name: the sandbox's settings and the protected-path table.
    found += _named("BubblewrapSandbox", "ProtectedPaths")
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__name__}")


OPTIONS = _options_classes()
FIELDS = [
    pytest.param(cls, field.name, id=f"{cls.__module__}.{cls.__name__}.{field.name}")
    for cls in OPTIONS
    for field in dataclasses.fields(cls)
    if field.init and f"{cls.__name__}.{field.name}" not in _ANY_VALUE
]


def test_every_package_with_options_is_covered() -> None:
    packages = {cls.__module__.split(".")[1] for cls in OPTIONS}
    wanted = {"core", "coding_security", "coding_server", "coding_tools", "dbos", "jsonschema"}
    wanted |= {"mcp", "otel"}
    assert wanted <= packages, sorted(packages)


def _build(cls: type, tmp: Path, **changes: object) -> object:
    make = _baselines(tmp).get(cls.__name__, dict)
    return cls(**(make() | changes))


def test_every_options_class_builds_from_its_baseline(tmp_path: Path) -> None:
    for cls in OPTIONS:
        _build(cls, tmp_path)


@pytest.mark.parametrize(("cls", "field"), FIELDS)
def test_an_option_of_the_wrong_type_is_a_type_error_naming_the_field(
    cls: type, field: str, tmp_path: Path
) -> None:
    with pytest.raises(TypeError) as info:
        _build(cls, tmp_path, **{field: _Alien()})
    assert _options_message(cls, field).match(str(info.value)), str(info.value)


def _wrong_value(default: object) -> object | None:
    """A value of the default's type that no option accepts, or None when there is none."""
    if isinstance(default, bool):
        return None
    if isinstance(default, int):
        return -1
    if isinstance(default, float):
        return math.nan
    return None


VALUE_FIELDS = [
    pytest.param(cls, field.name, wrong, id=f"{cls.__module__}.{cls.__name__}.{field.name}")
    for cls in OPTIONS
    for field in dataclasses.fields(cls)
    if field.init and (wrong := _wrong_value(field.default)) is not None
]


@pytest.mark.parametrize(("cls", "field", "wrong"), VALUE_FIELDS)
def test_a_number_option_out_of_range_is_a_value_error_naming_the_field(
    cls: type, field: str, wrong: object, tmp_path: Path
) -> None:
    with pytest.raises(ValueError) as info:
        _build(cls, tmp_path, **{field: wrong})
    assert not isinstance(info.value, TypeError)
    assert _options_message(cls, field).match(str(info.value)), str(info.value)


_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"

# Each options class refuses a bad value in the format of docs/errors.md, under its own name.

_ODD_VALUES = st.one_of(
    st.builds(_Alien),
    st.sampled_from(
        [None, -1, 0, 2**70, math.nan, math.inf, -0.5, "", "\x00", "x" * 300, (), ("",)]
    ),
    st.text(max_size=5),
)

_FIELDS = [
    pytest.param(cls, field.name, id=f"{cls.__module__}.{cls.__name__}.{field.name}")
    for cls in OPTIONS
    for field in dataclasses.fields(cls)
    if field.init and f"{cls.__name__}.{field.name}" not in _ANY_VALUE
]


def _options_message(cls: type, field: str = _IDENT) -> re.Pattern[str]:
    """``<Class>.<field>[<index>] must be <rule>, got <value>`` (docs/errors.md)."""
    place = rf"{cls.__name__}\.{field}(?:\.{_IDENT}|\[[^\]]*\])*"
    return re.compile(rf"^{place} must be .+, got .+$", re.S)


@pytest.mark.parametrize(("cls", "field"), _FIELDS)
@settings(
    derandomize=True,
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=_ODD_VALUES)
def test_every_option_refuses_a_bad_value_in_the_options_format(
    cls: type, field: str, value: object, tmp_path: Path
) -> None:
    message = None
    try:
        _build(cls, tmp_path, **{field: value})
    except (TypeError, ValueError) as error:
        message = str(error)
    assert message is None or _options_message(cls).match(message), (field, value, message)

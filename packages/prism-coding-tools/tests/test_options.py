"""Option classes: documented defaults, hard caps accepted exactly, the rest refused loudly."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_tools import (
    DEFAULT_MAX_IMAGE_BYTES,
    EditOptions,
    LocalShellOperations,
    ReadOptions,
    ShellOptions,
    SpawnContext,
    WriteOptions,
    create_coding_tools,
    create_edit_tool,
    create_read_tool,
    create_shell_tool,
    create_write_tool,
)

MIB = 1024 * 1024

INT_BOUNDS = [
    (ShellOptions, "max_lines", 2000, 100_000),
    (ShellOptions, "max_bytes", 51_200, 1_048_576),
    (ShellOptions, "max_total_output_bytes", 64 * MIB, 1024 * MIB),
    (ReadOptions, "max_lines", 2000, 100_000),
    (ReadOptions, "max_bytes", 51_200, 1_048_576),
    (ReadOptions, "max_image_bytes", DEFAULT_MAX_IMAGE_BYTES, 32 * MIB),
    (WriteOptions, "max_input_bytes", 8 * MIB, 64 * MIB),
    (EditOptions, "max_input_bytes", 8 * MIB, 64 * MIB),
    (EditOptions, "max_edits", 100, 1000),
    (EditOptions, "max_file_bytes", 16 * MIB, 256 * MIB),
]


def test_design_defaults() -> None:
    assert DEFAULT_MAX_IMAGE_BYTES == 10_000_000
    shell = ShellOptions()
    assert shell.timeout_seconds == 600
    assert (shell.shell_path, shell.env_allowlist, shell.operations) == (None, None, None)
    assert ReadOptions().transform_image is None


@pytest.mark.parametrize(("cls", "name", "default", "cap"), INT_BOUNDS)
def test_int_bound_default_and_exact_cap(cls: Any, name: str, default: int, cap: int) -> None:
    assert getattr(cls(), name) == default
    assert getattr(cls(**{name: cap}), name) == cap
    assert getattr(cls(**{name: 1}), name) == 1


@pytest.mark.parametrize(("cls", "name", "default", "cap"), INT_BOUNDS)
@pytest.mark.parametrize("bad", ["over", 0, -1, True, False, 1.0, "10", None, math.inf])
def test_int_bound_refuses(cls: Any, name: str, default: int, cap: int, bad: object) -> None:
    value = cap + 1 if bad == "over" else bad
    error = ValueError if type(value) is int else TypeError  # a wrong type is a TypeError
    with pytest.raises(
        error, match=rf"{cls.__name__}\.{name} must be an int from 1 to {cap:,} \(hard cap\)"
    ):
        cls(**{name: value})


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, True, "5", None, 3600.001])
def test_timeout_seconds_refuses(bad: object) -> None:
    error = ValueError if type(bad) in (int, float) else TypeError
    with pytest.raises(
        error, match=r"ShellOptions\.timeout_seconds must be .* at most 3600 \(hard cap\)"
    ):
        ShellOptions(timeout_seconds=bad)  # type: ignore[arg-type]


def test_timeout_seconds_accepts_fractions_ints_and_the_cap() -> None:
    assert ShellOptions(timeout_seconds=0.001).timeout_seconds == 0.001
    assert ShellOptions(timeout_seconds=3600).timeout_seconds == 3600
    assert ShellOptions(timeout_seconds=3600.0).timeout_seconds == 3600.0


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-(2**40), max_value=2**40))
def test_bound_property(value: int) -> None:
    if 1 <= value <= 100_000:
        assert ShellOptions(max_lines=value).max_lines == value
    else:
        with pytest.raises(ValueError, match="max_lines"):
            ShellOptions(max_lines=value)


def test_env_allowlist_is_a_tuple_of_names() -> None:
    assert ShellOptions(env_allowlist=["PATH", "HOME"]).env_allowlist == ("PATH", "HOME")
    bad_values: tuple[tuple[object, type[Exception]], ...] = (
        ("PATH", TypeError),
        (["A=B"], ValueError),
        ([""], ValueError),
        ([3], TypeError),
        (3, TypeError),
    )
    for bad, error in bad_values:
        with pytest.raises(error, match="env_allowlist"):
            ShellOptions(env_allowlist=bad)  # type: ignore[arg-type]


def test_plumbing_options_are_checked() -> None:
    with pytest.raises(TypeError, match="operations"):
        ShellOptions(operations=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shell_path"):
        ShellOptions(shell_path="")
    with pytest.raises(TypeError, match="transform_image"):
        ReadOptions(transform_image="resize")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kill_grace_seconds"):
        LocalShellOperations(kill_grace_seconds=0)


def test_spawn_context_keeps_a_read_only_copy_of_its_environment() -> None:
    env = {"A": "1"}
    spawn = SpawnContext(command="true", cwd="/", env=env)
    env["A"] = "changed"
    assert dict(spawn.env) == {"A": "1"}
    with pytest.raises(TypeError):
        spawn.env["B"] = "2"  # type: ignore[index]
    assert dataclasses.replace(spawn, env={"C": "3"}).env == {"C": "3"}


def test_options_are_frozen() -> None:
    options = ShellOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_lines = 5  # type: ignore[misc]


def test_auto_resize_images_is_not_an_option(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="auto_resize_images"):
        ReadOptions(auto_resize_images=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="auto_resize_images"):
        create_read_tool(tmp_path, auto_resize_images=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="auto_resize_images"):
        create_coding_tools(tmp_path, auto_resize_images=True)  # type: ignore[call-arg]


def test_factories_refuse_the_wrong_options_class(tmp_path: Path) -> None:
    for factory in (create_shell_tool, create_read_tool, create_write_tool, create_edit_tool):
        place = re.escape(f"{factory.__name__}.options")
        with pytest.raises(TypeError, match=rf"^{place} must be a \w+Options, got <object"):
            factory(tmp_path, options=object())  # type: ignore[operator]


def test_create_coding_tools_returns_the_four_tools(tmp_path: Path) -> None:
    tools = create_coding_tools(tmp_path)
    assert [t.name for t in tools] == ["shell", "read", "write", "edit"]
    assert [t.exclusive for t in tools] == [True, False, False, False]
    required = [t.parameters["required"] for t in tools if t.parameters]  # type: ignore[index]
    assert required == [["command"], ["path"], ["path", "content"], ["path", "edits"]]
    for tool in tools:
        assert tool.description and str(tmp_path) in tool.description

"""Rows 15, E3, E4, E5, E6 fail against broken subjects (each with a precise message)."""

from __future__ import annotations

import base64
import dataclasses
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_tools import (
    EditOptions,
    ExecResult,
    ReadOptions,
    ShellOptions,
    WriteOptions,
    create_coding_tools,
)
from prism.conformance._registry import registered_checks
from prism.conformance._rows_shell import flood_marker
from prism.conformance._subjects import ConformanceSubjects
from prism.core import (
    AbortSignal,
    ErrorInfo,
    ExecutionAction,
    ImageContent,
    JsonObject,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
)
from prism.core.testing import scaled

# One xdist worker runs the whole module: its last test checks this process's floods.
pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("conformance-coding-tools-rows")]

REAL = ConformanceSubjects(coding_tools_factory=create_coding_tools)
Factory = Callable[..., tuple[ToolDefinition, ...]]


def with_tool(replace: Callable[[str, dict[str, Any]], ToolDefinition], name: str) -> Factory:
    """A factory like the real one, with tool ``name`` swapped for ``replace(cwd, options)``."""

    def factory(cwd: str, **options: Any) -> tuple[ToolDefinition, ...]:
        tools = create_coding_tools(cwd, **options)
        return tuple(replace(cwd, options) if t.name == name else t for t in tools)

    return factory


def with_options(**overrides: Any) -> Factory:
    """A factory that silently replaces some of the options it is given (a bounds bug)."""

    def factory(cwd: str, **options: Any) -> tuple[ToolDefinition, ...]:
        return create_coding_tools(cwd, **{**options, **overrides})

    return factory


def broken(factory: Factory) -> ConformanceSubjects:
    return dataclasses.replace(REAL, coding_tools_factory=factory)


def result(
    context: ToolExecutionContext, name: str, *blocks: Any, error: bool = False
) -> ToolResult:
    return ToolResult(
        tool_call_id=context.tool_call_id,
        name=name,
        content=tuple(blocks),
        error=ErrorInfo(message="refused", code="x") if error else None,
    )


def read_bytes(cwd: str, name: object) -> bytes:
    return Path(cwd, str(name)).read_bytes()


@pytest.fixture
def private_tempdir(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Spill files of this test land in a directory of its own, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="prism-e4-") as directory:
        monkeypatch.setattr(tempfile, "tempdir", directory)
        yield directory


async def run(row: str, subjects: ConformanceSubjects) -> None:
    with anyio.fail_after(scaled(60)):
        await registered_checks()[row](subjects)


# The rows pass against the real subjects once per session, in
# packages/prism-coding-tools/tests/test_conformance.py;
# this module proves each row can fail.


# --------------------------------------------------------------------------- row 15


def image_ignoring_bound(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        data = read_bytes(cwd, arguments["path"])
        image = ImageContent(data=base64.b64encode(data).decode(), mime_type="image/png")
        return result(context, "read", image, error=True)

    return ToolDefinition(name="read", execute=execute)


def reads_before_refusing(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        data = read_bytes(cwd, arguments["path"])  # the whole file, then the size check
        if len(data) <= 65_536:
            image = ImageContent(data=base64.b64encode(data).decode(), mime_type="image/png")
            return result(context, "read", image)
        return result(context, "read", TextContent(text="too large"), error=True)

    return ToolDefinition(name="read", execute=execute)


def transform_unchecked(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    read = options["read"]
    real = create_coding_tools(cwd, read=ReadOptions(max_image_bytes=read.max_image_bytes))[1]

    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        if read.transform_image is None:
            return await real.execute(arguments, context)  # type: ignore[no-any-return, misc]
        from prism.coding_tools import TransformImageInput

        data = read_bytes(cwd, arguments["path"])
        out = read.transform_image(TransformImageInput(data=data, mime_type="image/png"))
        image = ImageContent(data=base64.b64encode(out).decode(), mime_type="image/png")
        return result(context, "read", image)

    return ToolDefinition(name="read", execute=execute)


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        (image_ignoring_bound, "carries an image block"),
        (reads_before_refusing, "without reading the image"),
        (transform_unchecked, "transform_image output over max_image_bytes was not refused"),
    ],
)
async def test_row_15_fails_on_broken_read(replace: Any, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        await run("15", broken(with_tool(replace, "read")))


# --------------------------------------------------------------------------- row E3


class KillsOnlyTheShell:
    """Broken ShellOperations: no own session, kills only the direct child."""

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        env: Mapping[str, str],
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout_seconds: float | None,
    ) -> ExecResult:
        process = await anyio.open_process(
            ["sh", "-c", command], stdin=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=cwd
        )
        assert process.stdout is not None
        stream = process.stdout
        timed_out = False

        async def pump() -> None:
            async for chunk in stream:
                on_data(chunk)

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            with anyio.move_on_after(timeout_seconds or 3600) as scope:
                while process.returncode is None and not (signal and signal.aborted):
                    await anyio.sleep(0.05)
            timed_out = scope.cancelled_caught
            process.send_signal(9)
            await anyio.sleep(0.2)
            group.cancel_scope.cancel()
        await process.aclose()
        return ExecResult(exit_code=None, timed_out=timed_out, aborted=not timed_out)


async def test_row_e3_fails_when_the_grandchild_survives() -> None:
    subjects = broken(with_options(shell=ShellOptions(operations=KillsOnlyTheShell())))
    with pytest.raises(AssertionError, match="processes of the command tree survive"):
        await run("E3", subjects)


# --------------------------------------------------------------------------- row E4


def keeps_everything(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        done = await anyio.run_process(str(arguments["command"]), check=False, cwd=cwd)
        return result(context, "shell", TextContent(text=done.stdout.decode()))

    return ToolDefinition(name="shell", execute=execute)


def spill_readable_by_all(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    real = create_coding_tools(cwd, **options)[0]

    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        out: ToolResult = await real.execute(arguments, context)  # type: ignore[misc]
        path = out.metadata.get("full_output_path")
        if isinstance(path, str):
            os.chmod(path, 0o644)
        return out

    return ToolDefinition(name="shell", execute=execute)


def loose_output_limit(cwd: str, **options: Any) -> tuple[ToolDefinition, ...]:
    """Honours the output limit only 16 times too late."""
    shell = options.get("shell", ShellOptions())
    limit = min(16 * shell.max_total_output_bytes, 1_073_741_824)
    options["shell"] = ShellOptions(max_total_output_bytes=limit)
    return create_coding_tools(cwd, **options)


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        (with_tool(keeps_everything, "shell"), r"peak memory grew|bounded tail"),
        (with_tool(spill_readable_by_all, "shell"), "mode 0o644, expected 0o600"),
        (loose_output_limit, r"passed max_total_output_bytes|was not stopped"),
    ],
)
@pytest.mark.usefixtures("private_tempdir")
async def test_row_e4_fails_on_unbounded_output(factory: Factory, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        await run("E4", broken(factory))


# --------------------------------------------------------------------------- row E5


def unserialized_edit(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        path = os.path.join(cwd, str(arguments["path"]))
        text = read_bytes(cwd, path).decode()
        await anyio.sleep(0.01)  # read-modify-write without a per-file queue
        for edit in arguments["edits"]:  # type: ignore[union-attr]
            text = text.replace(edit["old_text"], edit["new_text"])  # type: ignore[index]
        with open(path, "w") as f:  # truncates first: readers may see a torn file
            f.write(text)
        return result(context, "edit", TextContent(text="ok"))

    return ToolDefinition(name="edit", execute=execute)


async def test_row_e5_fails_on_lost_updates() -> None:
    with pytest.raises(AssertionError, match=r"lost updates|half-written"):
        await run("E5", broken(with_tool(unserialized_edit, "edit")))


# --------------------------------------------------------------------------- row E6


def asks_policy_first(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    real = create_coding_tools(cwd, **options)[2]
    policy = options["execution_policy"]

    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        policy.check(ExecutionAction(kind="write", operation="write", paths=("x",)))
        return await real.execute(arguments, context)  # type: ignore[no-any-return, misc]

    return ToolDefinition(name="write", execute=execute)


def creates_parents_first(cwd: str, options: dict[str, Any]) -> ToolDefinition:
    real = create_coding_tools(cwd, **options)[2]

    async def execute(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        Path(cwd, str(arguments["path"])).parent.mkdir(parents=True, exist_ok=True)
        return await real.execute(arguments, context)  # type: ignore[no-any-return, misc]

    return ToolDefinition(name="write", execute=execute)


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        (with_tool(asks_policy_first, "write"), "policy was asked before the size check"),
        (with_tool(creates_parents_first, "write"), "touched the file system first"),
        (with_options(edit=EditOptions(max_input_bytes=4096)), "edit accepted"),
        (with_options(write=WriteOptions(max_input_bytes=4096)), "write accepted"),
    ],
)
async def test_row_e6_fails_when_oversize_input_gets_through(
    factory: Factory, message: str
) -> None:
    with pytest.raises(AssertionError, match=message):
        await run("E6", broken(factory))


def test_no_flood_this_session_started_survives() -> None:
    """Belt and braces: no flood carrying this process's marker survives the module.

    Only processes this test process started carry ``prism-flood-<our pid>-``; other runs on
    the same machine are never touched.
    """
    ours = flood_marker().rsplit("-", 1)[0].encode() + b"-"
    survivors = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path("/proc", entry, "cmdline").read_bytes()
            except OSError:
                continue
            if ours in cmdline:
                survivors.append(int(entry))
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"flood processes {survivors} survived"

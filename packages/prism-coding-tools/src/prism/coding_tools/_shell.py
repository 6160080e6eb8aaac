"""The ``shell`` tool: one command, bounded output, whole-tree kill on timeout/abort."""

from __future__ import annotations

import os
import signal as signals
from collections.abc import Callable, Mapping

import anyio

from prism.core import (
    AbortController,
    AbortSignal,
    ExecutionAction,
    ExecutionPolicy,
    JsonObject,
    JsonValue,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
)

from ._common import (
    ToolError,
    allowed_action,
    guarded_tool,
    ok_result,
    optional_seconds,
    require_keys,
    require_str,
    tool_root,
)
from ._exec import ExecResult, ShellOperations
from ._local_shell import LocalShellOperations
from ._options import DEFAULT_SHELL_OPTIONS, ShellOptions
from ._output import OutputCollector, Tail
from ._spawn import SpawnContext, prepare_spawn

__all__ = ["create_shell_tool"]

_GUARD_SECONDS = 30.0
"""Extra time a replacement ``ShellOperations`` gets past a timeout/abort before we cancel it."""

_DESCRIPTION = (
    "Run a shell command in {cwd} and return its combined stdout and stderr (the last "
    "{lines} lines / {bytes} bytes; longer output is saved to a file whose path is given). "
    "stdin is empty. Default and maximum timeout: {timeout:g} seconds; on timeout the command "
    "and everything it started are killed. Background processes it leaves behind are stopped "
    "when the command finishes."
)


def create_shell_tool(
    cwd: str | os.PathLike[str],
    *,
    options: ShellOptions = DEFAULT_SHELL_OPTIONS,
    execution_policy: ExecutionPolicy | None = None,
) -> ToolDefinition:
    """The ``shell`` tool (exclusive) bound to ``cwd``; see ``docs/coding-tools.md``."""
    root = tool_root(cwd, options, ShellOptions)
    operations: ShellOperations = options.operations or LocalShellOperations(
        shell_path=options.shell_path
    )

    async def run(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        require_keys(arguments, ("command", "timeout"), ("command",))
        command = require_str(arguments, "command")
        timeout = optional_seconds(arguments, "timeout", options.timeout_seconds)
        timeout = options.timeout_seconds if timeout is None else timeout
        action = ExecutionAction(
            kind="shell",
            operation="execute",
            command=command,
            cwd=root,
            paths=(root,),
            risk="high",
        )
        allowed = await allowed_action(execution_policy, action, context)
        if not isinstance(allowed.command, str) or not allowed.command:
            raise ToolError("execution_denied", "the execution policy left no command to run")
        run_cwd = allowed.cwd if isinstance(allowed.cwd, str) and allowed.cwd else root
        spawn = await prepare_spawn(
            allowed.command,
            run_cwd,
            env=_environment(options.env_allowlist),
            prefix=options.command_prefix,
            hook=options.spawn_hook,
            policy=execution_policy,
            context=context,
        )
        _require_directory(spawn.cwd)
        return await _run(operations, options, spawn, timeout, context)

    return guarded_tool(
        "shell",
        run,
        description=_DESCRIPTION.format(
            cwd=root,
            lines=options.max_lines,
            bytes=options.max_bytes,
            timeout=options.timeout_seconds,
        ),
        properties=_properties(options.timeout_seconds),
        required=("command",),
        exclusive=True,  # not read-only, not idempotent: never re-run after a crash
    )


def _properties(max_timeout: float) -> dict[str, JsonValue]:
    return {
        "command": {"type": "string", "description": "The command line to run."},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": max_timeout,
            "description": "Timeout in seconds (optional).",
        },
    }


def _require_directory(path: str) -> None:
    if not os.path.isdir(path):
        raise ToolError("shell_failed", f"Working directory {path} does not exist")


def _environment(allowlist: tuple[str, ...] | None) -> Mapping[str, str]:
    if allowlist is None:
        return dict(os.environ)
    return {name: os.environ[name] for name in allowlist if name in os.environ}


async def _run(
    operations: ShellOperations,
    options: ShellOptions,
    spawn: SpawnContext,
    timeout: float,
    context: ToolExecutionContext,
) -> ToolResult:
    stop = AbortController()  # aborted by the caller's signal or by the output limit
    remove = context.signal.add_callback(lambda: stop.abort(context.signal.reason))
    collector = OutputCollector(
        max_lines=options.max_lines,
        max_bytes=options.max_bytes,
        max_total_bytes=options.max_total_output_bytes,
        on_limit=lambda: stop.abort("output limit"),
    )
    try:
        outcome = await _exec_guarded(
            operations,
            spawn.command,
            cwd=spawn.cwd,
            env=spawn.env,
            on_data=collector.feed,
            signal=stop.signal,
            timeout=timeout,
        )
    except OSError as exc:
        raise ToolError("shell_failed", f"Could not start the command: {exc}") from None
    finally:
        remove()
        collector.close()
    return _result(context, collector, outcome, timeout, options)


async def _exec_guarded(
    operations: ShellOperations,
    command: str,
    *,
    cwd: str,
    env: Mapping[str, str],
    on_data: Callable[[bytes], None],
    signal: AbortSignal,
    timeout: float,
) -> ExecResult:
    """Call ``operations.exec``; if it overruns its timeout or ignores an abort, cancel it."""
    results: list[ExecResult] = []
    failures: list[Exception] = []
    with anyio.move_on_after(timeout + _GUARD_SECONDS):
        async with anyio.create_task_group() as group:

            async def execute() -> None:
                try:
                    results.append(
                        await operations.exec(
                            command,
                            cwd=cwd,
                            env=env,
                            on_data=on_data,
                            signal=signal,
                            timeout_seconds=timeout,
                        )
                    )
                except Exception as exc:  # re-raised below, outside the task group
                    failures.append(exc)
                group.cancel_scope.cancel()

            async def watchdog() -> None:
                await signal.wait()
                await anyio.sleep(_GUARD_SECONDS)
                group.cancel_scope.cancel()

            group.start_soon(execute)
            group.start_soon(watchdog)
    if failures:
        raise failures[0]
    if results:
        return results[0]
    if signal.aborted:
        return ExecResult(exit_code=None, aborted=True)
    return ExecResult(exit_code=None, timed_out=True)


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signals.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"Command was terminated by {name} (exit code {code})"
    return f"Command exited with code {code}"


def _footer(tail: Tail, collector: OutputCollector) -> list[str]:
    notes: list[str] = []
    if tail.truncated:
        where = f" Full output: {tail.spill_path}" if tail.spill_path else ""
        notes.append(
            f"[Output truncated: showing the last {tail.shown_lines:,} lines "
            f"({tail.shown_bytes:,} bytes) of {tail.total_bytes:,} bytes.{where}]"
        )
    if collector.spill_error:
        notes.append(f"[Note: {collector.spill_error}]")
    return notes


def _result(
    context: ToolExecutionContext,
    collector: OutputCollector,
    outcome: ExecResult,
    timeout: float,
    options: ShellOptions,
) -> ToolResult:
    tail = collector.tail()
    notes = _footer(tail, collector)
    metadata: dict[str, object] = {
        "exit_code": outcome.exit_code,
        "timed_out": outcome.timed_out,
        "aborted": outcome.aborted,
        "output_limit_reached": tail.limit_reached,
        "truncated": tail.truncated,
        "total_bytes": tail.total_bytes,
        "total_lines": tail.total_lines,
        "full_output_path": tail.spill_path,
    }
    error: tuple[str, str] | None = None
    if tail.limit_reached:
        error = (
            "shell_output_limit",
            f"Command stopped: its output passed max_total_output_bytes "
            f"({options.max_total_output_bytes:,} bytes); it and everything it started were "
            "killed",
        )
    elif outcome.timed_out:
        error = (
            "shell_timeout",
            f"Command timed out after {timeout:g}s; it and everything it started were killed",
        )
    elif outcome.aborted:
        error = ("aborted", "Command aborted; it and everything it started were killed")
    elif outcome.exit_code is None:
        error = ("shell_failed", "Command ended without an exit code (it was killed)")
    elif outcome.exit_code != 0:
        notes.append(_describe_exit(outcome.exit_code))
    body = tail.text.removesuffix("\n") if tail.text else "(no output)"
    text = body + ("\n\n" + "\n".join(notes) if notes else "")
    if error is not None:
        raise ToolError(error[0], error[1], content=(TextContent(text=text),), metadata=metadata)
    return ok_result("shell", context, text, metadata)

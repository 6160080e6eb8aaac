"""Builds the served pipeline: coding tools, the coding policy, the sandbox, the ledger."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import final

from prism.coding_security import (
    DEFAULT_DENY_READ,
    BubblewrapSandbox,
    CodingApprovalPolicy,
    SandboxUnavailableError,
    create_sandbox_bash_operations,
)
from prism.coding_tools import ShellOperations, ShellOptions, create_coding_tools
from prism.core import PrismError, SecretRedactor, ToolGates, ToolPipeline, ToolRegistry
from prism.jsonschema import create_json_schema_tool_argument_validator
from prism.mcp.server import McpToolServer, ServeOptions

from ._approver import approval_for
from ._ledger import JsonLinesLedger
from ._options import CodingServerOptions, secrets_from_environment

__all__ = ["BuiltServer", "SandboxRequiredError", "build_server", "probe_sandbox"]

READ_ONLY_TOOLS = ("shell", "read")
SHELL_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TERM")  # host secrets stay away from commands
PROBE_SECONDS = 15.0


@final
class SandboxRequiredError(PrismError, RuntimeError):
    """``--sandbox`` was asked for and bubblewrap does not work on this machine."""


@dataclass(frozen=True, slots=True)
class BuiltServer:
    """The MCP server plus what the console script reports and closes."""

    server: McpToolServer
    sandboxed: bool
    sandbox_note: str
    ledger: JsonLinesLedger | None


async def probe_sandbox(sandbox: BubblewrapSandbox, root: str) -> str | None:
    """``None`` when bubblewrap really runs a command here, else why not (one line)."""
    try:
        probe = await sandbox.exec(
            "true", cwd=root, env={}, on_data=lambda _: None, timeout_seconds=PROBE_SECONDS
        )
    except SandboxUnavailableError as error:
        return str(error).partition("\n")[0] or "bubblewrap is unavailable"
    except OSError as error:
        return f"bubblewrap could not start: {error}"
    return None if probe.exit_code == 0 else f"the probe command exited with {probe.exit_code}"


def _deny_read(options: CodingServerOptions) -> tuple[str, ...]:
    """Credential locations plus ``--deny-read``: masked in the sandbox, refused to every tool."""
    return (*DEFAULT_DENY_READ, *options.deny_read)


async def _shell_operations(options: CodingServerOptions) -> tuple[ShellOperations | None, str]:
    if options.sandbox is False:
        return None, "sandbox: off (--no-sandbox); the shell runs locally, guarded by the policy"
    root, *others = options.roots
    sandbox = BubblewrapSandbox(
        root=root,
        writable=() if options.read_only else tuple(others),
        network=False,
        deny_read=_deny_read(options),
    )
    why = await probe_sandbox(sandbox, root)
    if why is None:
        return create_sandbox_bash_operations(sandbox), "sandbox: bubblewrap"
    if options.sandbox is True:
        raise SandboxRequiredError(f"--sandbox: bubblewrap does not work here ({why})")
    return None, f"sandbox: unavailable ({why}); the shell runs locally, guarded by the policy"


async def build_server(options: CodingServerOptions) -> BuiltServer:
    """Everything the console script serves; raises ``SandboxRequiredError`` (see above)."""
    roots = list(options.roots)
    operations, note = await _shell_operations(options)
    approve = approval_for(
        options.approver_command, options.approval_timeout_seconds, tty=options.approver_tty
    )
    policy = CodingApprovalPolicy(
        roots=roots,
        approve=approve,
        read_only=options.read_only,
        approve_writes=options.approve_writes,
        approval_timeout_seconds=options.approval_timeout_seconds + 5.0,
        deny_read=_deny_read(options),
    )
    shell = ShellOptions(
        timeout_seconds=options.shell_timeout_seconds,
        env_allowlist=SHELL_ENV,
        operations=operations,
    )
    tools = create_coding_tools(roots[0], execution_policy=policy, shell=shell)
    if options.read_only:
        tools = tuple(tool for tool in tools if tool.name in READ_ONLY_TOOLS)
    ledger = None if options.ledger is None else JsonLinesLedger(options.ledger)
    pipeline = ToolPipeline(
        registry=ToolRegistry(tools),
        gates=ToolGates(
            validator=create_json_schema_tool_argument_validator(),
            ledger=ledger,
            redactor=SecretRedactor(secrets_from_environment(os.environ)),
        ),
    )
    serve = ServeOptions(name="prism-coding-server", instructions=_instructions(roots, options))
    return BuiltServer(McpToolServer(pipeline, serve), operations is not None, note, ledger)


def _instructions(roots: list[str], options: CodingServerOptions) -> str:
    mode = "read-only" if options.read_only else "read/write"
    return (
        f"Coding tools ({mode}) confined to {', '.join(roots)}. Paths are relative to "
        f"{roots[0]}. Shell commands are analysed by a policy; some need the user's approval."
    )

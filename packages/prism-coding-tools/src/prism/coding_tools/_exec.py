"""The one command-execution protocol: ``ShellOperations.exec`` runs one shell command.

Local execution implements it, and so does every sandbox (``prism.coding_security.Sandbox``
extends it with ``capabilities``), so a sandbox plugs into the shell tool unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, cast, final, runtime_checkable

from prism.core import AbortSignal
from prism.core.options import check_callable, check_flag, check_seconds

__all__ = ["MAX_EXEC_TIMEOUT_SECONDS", "ExecRequest", "ExecResult", "ShellOperations"]


@final
@dataclass(frozen=True, slots=True)
class ExecResult:
    """How a command ended. ``exit_code`` is ``None`` only when the process was killed
    (timeout, abort or output limit); a timeout is never reported as a success."""

    exit_code: int | None
    timed_out: bool = False
    aborted: bool = False

    def __post_init__(self) -> None:
        code = self.exit_code
        if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
            raise TypeError(f"ExecResult.exit_code must be an int or None, got {code!r:.200}")
        check_flag("ExecResult.timed_out", self.timed_out)
        check_flag("ExecResult.aborted", self.aborted)


MAX_EXEC_TIMEOUT_SECONDS = 86_400.0
"""The longest timeout one command may be given (a day)."""
_WHERE = "ShellOperations.exec."


@dataclass(frozen=True, slots=True)
class ExecRequest:
    """One ``ShellOperations.exec`` call, arguments checked (the error names the bad one)."""

    command: str
    cwd: str
    env: Mapping[str, str]
    on_data: Callable[[bytes], None]
    signal: AbortSignal | None = None
    timeout_seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("command", "cwd"):
            value = getattr(self, name)
            if not isinstance(value, str) or "\x00" in value:
                error = ValueError if isinstance(value, str) else TypeError
                raise error(f"{_WHERE}{name} must be a str without NUL, got {value!r:.200}")
        env = self.env
        if not isinstance(env, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise TypeError(f"{_WHERE}env must be a mapping of str to str, got {env!r:.200}")
        check_callable(_WHERE + "on_data", self.on_data)
        if self.timeout_seconds is not None:
            timeout, cap = self.timeout_seconds, MAX_EXEC_TIMEOUT_SECONDS
            timeout = check_seconds(_WHERE + "timeout_seconds", timeout, cap=cap)
            object.__setattr__(self, "timeout_seconds", timeout)

    async def send(self, operations: ShellOperations) -> ExecResult:
        """Run this same request through ``operations`` (for wrappers that delegate)."""
        return await operations.exec(
            self.command,
            cwd=self.cwd,
            env=self.env,
            on_data=self.on_data,
            signal=self.signal,
            timeout_seconds=self.timeout_seconds,
        )


class _RunsRequests(Protocol):
    async def run(self, request: ExecRequest) -> ExecResult: ...


@runtime_checkable
class ShellOperations(Protocol):
    """Runs a shell command and streams its merged stdout+stderr to ``on_data``.

    The command sees exactly ``env`` (nothing is inherited). ``timeout_seconds`` is in seconds
    (``None``: no timeout). On timeout or abort the implementation kills everything the command
    started and returns ``ExecResult(exit_code=None, timed_out=True)`` /
    ``ExecResult(exit_code=None, aborted=True)``. An implementation that cannot run the command
    at all raises ``OSError`` (a sandbox: ``SandboxUnavailableError``); it never runs it some
    weaker way instead.

    Implement ``exec`` directly, or subclass ``ShellOperations`` and implement
    ``run(request: ExecRequest)``: the inherited ``exec`` checks its arguments into an
    ``ExecRequest`` and calls it, so the signature is written once, here.
    """

    __slots__ = ()

    def __init_subclass__(cls) -> None:
        """A concrete subclass must implement ``run`` or ``exec``: refused when it is defined."""
        super().__init_subclass__()
        is_protocol = cls.__dict__.get("_is_protocol", False)
        if not is_protocol and cls.exec is ShellOperations.exec and not hasattr(cls, "run"):
            raise TypeError(f"{cls.__qualname__} subclasses ShellOperations: implement run or exec")

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        env: Mapping[str, str],
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None = None,
        timeout_seconds: float | None = None,
    ) -> ExecResult:
        """Run ``command`` in ``cwd`` with exactly ``env``; return how it ended."""
        request = ExecRequest(command, cwd, env, on_data, signal, timeout_seconds)
        return await cast(_RunsRequests, self).run(request)

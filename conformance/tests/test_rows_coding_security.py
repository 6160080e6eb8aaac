"""Rows 11-14, E10, E11 and E16-E20 fail with broken subjects (each with a precise message)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import pytest

from prism.conformance._registry import RowSkippedError, registered_checks
from prism.conformance._subjects import ConformanceSubjects
from prism.core import ExecutionAction, ExecutionDecision
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


def _real() -> ConformanceSubjects:
    from prism.coding_security import (
        BubblewrapSandbox,
        CodingApprovalPolicy,
        create_sandbox_bash_operations,
    )
    from prism.coding_tools import create_coding_tools

    return ConformanceSubjects(
        coding_tools_factory=create_coding_tools,
        execution_policy_factory=CodingApprovalPolicy,
        sandbox_factory=BubblewrapSandbox,
        sandbox_operations_factory=create_sandbox_bash_operations,
    )


async def _run(row: str, subjects: ConformanceSubjects) -> None:
    with anyio.fail_after(scaled(60)):
        try:
            await registered_checks()[row](subjects)
        except RowSkippedError as skipped:
            pytest.skip(f"row {row} skipped: {skipped.reason}")


# The rows pass against the real subjects once per session, in
# packages/prism-coding-security/tests/test_conformance.py;
# this module proves each row can fail.


class _AllowAll:
    """A broken policy: allows everything without looking."""

    def check(self, action: ExecutionAction) -> ExecutionDecision:
        return ExecutionDecision(allowed=True)


class _AskAll:
    """A broken policy: every shell command needs approval (false positives on quoting)."""

    def __init__(self, approve: Callable[[Any], Any] | None) -> None:
        self.approve = approve

    async def check(self, action: ExecutionAction) -> ExecutionDecision:
        from prism.coding_security import ApprovalRequest
        from prism.core import AbortController

        if self.approve is None:
            return ExecutionDecision(allowed=False, reason="approval required")
        request = ApprovalRequest(action=action, signal=AbortController().signal)
        answer = self.approve(request)
        if not isinstance(answer, bool):
            answer = await answer
        return ExecutionDecision(allowed=answer is True, reason="asked")


class _RemembersDenials:
    """A broken policy: caches every denial (timeouts and aborts included) forever."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.denied: set[str | None] = set()

    async def check(self, action: ExecutionAction) -> ExecutionDecision:
        if action.command in self.denied:
            return ExecutionDecision(allowed=False, reason="denied before (cached)")
        decision: ExecutionDecision = await maybe_awaited(self.inner.check(action))
        if not decision.allowed:
            self.denied.add(action.command)
        return decision


async def maybe_awaited(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class _RunsTheOriginal:
    """A broken policy: judges like the real one, then lets the shell run the original text
    instead of the rendering it judged."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def check(self, action: ExecutionAction) -> ExecutionDecision:
        decision: ExecutionDecision = await maybe_awaited(self.inner.check(action))
        return dataclasses.replace(decision, modified=None)


def _unrendered(**options: Any) -> Any:
    from prism.coding_security import CodingApprovalPolicy

    return _RunsTheOriginal(CodingApprovalPolicy(**options))


def _with_policy(factory: Callable[..., Any]) -> ConformanceSubjects:
    return dataclasses.replace(_real(), execution_policy_factory=factory)


def _remembering(**options: Any) -> Any:
    from prism.coding_security import CodingApprovalPolicy

    return _RemembersDenials(CodingApprovalPolicy(**options))


class _NoCeiling:
    """A broken policy: hands git back without ``GIT_CEILING_DIRECTORIES``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def check(self, action: ExecutionAction) -> ExecutionDecision:
        decision: ExecutionDecision = await maybe_awaited(self.inner.check(action))
        command = (decision.modified or {}).get("command")
        if not isinstance(command, str) or "GIT_CEILING_DIRECTORIES" not in command:
            return decision
        head, _, tail = command.partition("export GIT_CEILING_DIRECTORIES=")
        stripped = head + tail.split("; ", 1)[1]
        return dataclasses.replace(decision, modified={"command": stripped})


class _NameCache:
    """A broken policy: remembers approvals by command text, whatever the script holds now."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.approved: set[str | None] = set()

    async def check(self, action: ExecutionAction) -> ExecutionDecision:
        if action.command in self.approved:
            return ExecutionDecision(allowed=True, reason="approved before (by name)")
        decision: ExecutionDecision = await maybe_awaited(self.inner.check(action))
        if decision.allowed:
            self.approved.add(action.command)
        return decision


@dataclasses.dataclass
class _RawRequest:
    """What a broken policy asks with: a prompt line carrying the command's raw bytes."""

    action: ExecutionAction
    signal: Any

    def describe(self) -> str:
        return f"shell {self.action.command}"


def _wrapped(wrapper: Callable[[Any], Any]) -> Callable[..., Any]:
    def factory(**options: Any) -> Any:
        from prism.coding_security import CodingApprovalPolicy

        return wrapper(CodingApprovalPolicy(**options))

    return factory


def _raw_prompt(**options: Any) -> Any:
    from prism.coding_security import CodingApprovalPolicy

    approve = options.get("approve")
    if approve is not None:
        options["approve"] = lambda request: approve(_RawRequest(request.action, request.signal))
    return CodingApprovalPolicy(**options)


@pytest.mark.parametrize(
    ("row", "subjects", "message"),
    [
        ("11", lambda: _with_policy(lambda **_: _AllowAll()), "side effect happened"),
        ("11", lambda: _with_policy(_wrapped(_NoCeiling)), "read the enclosing one"),
        ("14", lambda: _with_policy(_wrapped(_NameCache)), "rewritten script"),
        ("14", lambda: _with_policy(_raw_prompt), "raw control characters"),
        ("12", lambda: _with_policy(lambda **_: _AllowAll()), "side effect happened"),
        ("13", lambda: _with_policy(lambda **_: _AllowAll()), "must be denied"),
        (
            "13",
            lambda: _with_policy(lambda **o: _AskAll(o.get("approve"))),
            "must be denied outright",
        ),
        ("13", lambda: _with_policy(_unrendered), "words the policy did not judge"),
        ("14", lambda: _with_policy(_remembering), "was cached"),
    ],
)
async def test_policy_rows_fail_with_a_broken_policy(
    row: str, subjects: Callable[[], ConformanceSubjects], message: str
) -> None:
    with pytest.raises(AssertionError, match=message):
        await _run(row, subjects())


class _Unsandboxed:
    """A broken sandbox: runs the command locally, ignoring every isolation option."""

    def __init__(self, **options: Any) -> None:
        from prism.coding_tools import LocalShellOperations

        self.local = LocalShellOperations()

    async def exec(self, command: str, **kwargs: Any) -> Any:
        return await self.local.exec(command, **kwargs)


def _keeps_capabilities(**options: Any) -> Any:
    """A broken bubblewrap sandbox that forgets ``--cap-drop ALL``."""
    from prism.coding_security import BubblewrapSandbox

    class KeepsCaps(BubblewrapSandbox):
        def argv(self, binary: str, command: str, **where: Any) -> list[str]:
            args = super().argv(binary, command, **where)
            at = args.index("--cap-drop")
            return args[:at] + args[at + 2 :]

    return KeepsCaps(**options)


def _no_seccomp(**options: Any) -> Any:
    """A broken bubblewrap sandbox that never loads its seccomp filter."""
    from prism.coding_security import BubblewrapSandbox

    class NoSeccomp(BubblewrapSandbox):
        def argv(self, binary: str, command: str, **where: Any) -> list[str]:
            args = super().argv(binary, command, **where)
            at = args.index("--seccomp")
            return args[:at] + args[at + 2 :]

    return NoSeccomp(**options)


def _writable_metadata(**options: Any) -> Any:
    """A broken bubblewrap sandbox that binds the workspace read-write as a whole."""
    from prism.coding_security import BubblewrapSandbox

    class WholeWorkspace(BubblewrapSandbox):
        def argv(self, binary: str, command: str, **where: Any) -> list[str]:
            return super().argv(binary, command, **{**where, "protected_binds": ()})

    return WholeWorkspace(**options)


def _reads_secrets(**options: Any) -> Any:
    """A broken bubblewrap sandbox that masks nothing."""
    from prism.coding_security import BubblewrapSandbox

    return BubblewrapSandbox(**{**options, "deny_read": ()})


def _no_ceiling(**options: Any) -> Any:
    """A broken bubblewrap sandbox that claims a process ceiling but applies none."""
    import dataclasses

    from prism.coding_security import BubblewrapSandbox

    class NoCeiling(BubblewrapSandbox):
        def _cgroup(self) -> str | None:
            return None

        @property
        def capabilities(self) -> Any:
            return dataclasses.replace(super().capabilities, process_limit="cgroup")

    import resource

    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    ceiling = 100_000 if hard == resource.RLIM_INFINITY else min(hard, 100_000)
    return NoCeiling(**{**options, "max_processes": ceiling})


def _unsandboxed_operations(sandbox: Any) -> Any:
    from prism.coding_tools import LocalShellOperations

    return LocalShellOperations()


@pytest.mark.parametrize(
    ("row", "changes", "message"),
    [
        ("E10", {"sandbox_operations_factory": _unsandboxed_operations}, "side effect happened"),
        ("E11", {"sandbox_factory": _Unsandboxed}, "write outside the workspace"),
        ("E11", {"sandbox_factory": _keeps_capabilities}, "keeps capabilities"),
        ("E11", {"sandbox_factory": _no_seccomp}, "reached a host Unix socket"),
        ("E11", {"sandbox_factory": _writable_metadata}, "plant a git hook"),
        ("E11", {"sandbox_factory": _reads_secrets}, "read a secret"),
        ("E11", {"sandbox_factory": _no_ceiling}, "process storm reached"),
    ],
)
async def test_sandbox_rows_fail_with_a_broken_sandbox(
    row: str, changes: Mapping[str, Any], message: str
) -> None:
    with pytest.raises(AssertionError, match=message):
        await _run(row, dataclasses.replace(_real(), **changes))


def _no_host_executed_list(**options: Any) -> Any:
    """A broken bubblewrap sandbox that protects git metadata but not host-executed paths."""
    from prism.coding_security import BubblewrapSandbox, ProtectedPaths

    class GitOnly(BubblewrapSandbox):
        @property
        def protected_paths(self) -> ProtectedPaths:
            return ProtectedPaths(git=self.git, host_executed=False)

    return GitOnly(**options)


def _no_credential_list(**options: Any) -> Any:
    """A broken coding policy that checks containment but no credential locations."""
    from prism.coding_security import CodingApprovalPolicy

    return CodingApprovalPolicy(**{**options, "deny_read": ()})


@pytest.mark.parametrize(
    ("row", "changes", "message"),
    [
        ("E16", {"execution_policy_factory": lambda **_: _AllowAll()}, "write tool planting"),
        ("E16", {"sandbox_factory": _no_host_executed_list}, "sandboxed command planting"),
        ("E17", {"execution_policy_factory": lambda **_: _AllowAll()}, "write tool planting"),
        ("E17", {"sandbox_factory": _writable_metadata}, "hook in a bare repository"),
        ("E18", {"sandbox_factory": _no_seccomp}, "opened sockets of families"),
        ("E19", {"sandbox_factory": _reads_secrets}, "read credentials"),
        ("E19", {"execution_policy_factory": _no_credential_list}, "returned the credential"),
        ("E20", {"sandbox_factory": _reads_secrets}, "encoded credential left"),
        ("E20", {"execution_policy_factory": _no_credential_list}, "returned the credential"),
    ],
)
async def test_later_and_leak_rows_fail_with_a_broken_subject(
    row: str, changes: Mapping[str, Any], message: str
) -> None:
    with pytest.raises(AssertionError, match=message):
        await _run(row, dataclasses.replace(_real(), **changes))

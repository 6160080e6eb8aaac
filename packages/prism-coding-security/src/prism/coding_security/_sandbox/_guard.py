"""Around one sandboxed command: protected-path snapshot and check, pids cgroup leaf, notices."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

import anyio

from .._protected import ProtectedPaths
from ._cgroup import CgroupLeaf
from ._protect import ProtectedSnapshot, remove_new_entries, snapshot
from ._protocol import SandboxUnavailableError

__all__ = ["Guard", "guarded", "printable_path"]


@dataclass(slots=True)
class Guard:
    """What the command runs under: the protected snapshot and the cgroup leaf (if any)."""

    before: ProtectedSnapshot
    leaf: CgroupLeaf | None
    notices: list[str] = field(default_factory=list)


def _snapshot(protected: ProtectedPaths, roots: Sequence[str], limit: int) -> ProtectedSnapshot:
    try:
        return snapshot(protected, roots, limit)
    except OSError as error:
        raise SandboxUnavailableError(
            "cannot list the protected paths under the writable roots "
            f"({printable_path(str(error))}); the command was not run "
            "(raise protected_scan_limit or narrow the roots)"
        ) from error


def _leaf(parent: str | None, max_processes: int) -> CgroupLeaf | None:
    if parent is None:
        return None
    try:
        return CgroupLeaf(parent, max_processes)
    except OSError as error:
        raise SandboxUnavailableError(
            f"cannot create the pids cgroup below {parent} ({error.strerror or error}); the "
            "command was not run"
        ) from error


def _after(
    guard: Guard, protected: ProtectedPaths, roots: Sequence[str], limit: int, max_processes: int
) -> None:
    """Runs in a worker thread once the sandbox is gone."""
    if guard.leaf is not None:
        hits = guard.leaf.ceiling_hits()
        guard.leaf.remove()
        if hits:
            guard.notices.append(
                f"prism-sandbox: the process ceiling ({max_processes} processes) was reached; "
                f"{hits} fork(s) were refused"
            )
    try:
        removed = remove_new_entries(protected, roots, guard.before, limit)
    except OSError as error:
        raise SandboxUnavailableError(
            f"after the command, the protected paths could not be fully checked or restored "
            f"({printable_path(str(error))}); treat the workspace as untrusted"
        ) from error
    for path in removed:
        guard.notices.append(
            f"prism-sandbox: removed {printable_path(path)}: the command created or replaced a "
            "protected path "
            "(it would make programs run code outside the sandbox)"
        )


def printable_path(path: str) -> str:
    """``path`` as valid text: bytes that are not UTF-8 (surrogate-escaped) shown as ``\\xNN``."""
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeError:  # a surrogate no file name decodes to
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


@contextlib.asynccontextmanager
async def guarded(
    *,
    protected: ProtectedPaths,
    roots: Sequence[str],
    scan_limit: int,
    cgroup_parent: str | None,
    max_processes: int,
    on_data: Callable[[bytes], None],
) -> AsyncIterator[Guard]:
    """Snapshot and set up before the command; check, clean up and report after it."""
    before = await anyio.to_thread.run_sync(_snapshot, protected, roots, scan_limit)
    guard = Guard(before=before, leaf=_leaf(cgroup_parent, max_processes))
    try:
        yield guard
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(
                _after, guard, protected, roots, scan_limit, max_processes
            )
        for notice in guard.notices:
            on_data(f"\n{notice}\n".encode("utf-8", "backslashreplace"))

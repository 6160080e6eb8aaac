"""The process ceiling: a ``pids`` cgroup leaf per command when the host can create one.

``RLIMIT_NPROC`` inside the fresh user namespace is the fallback; the kernel ignores it when the
sandbox's user is the host's root, so only a cgroup gives root hosts a ceiling. A leaf is made
below the host process's own ``pids`` cgroup (cgroup v1, or v2 when ``pids`` is enabled in its
``cgroup.subtree_control``), or below a directory the host delegates (``cgroup_parent``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import signal
import time
import uuid

__all__ = ["CgroupLeaf", "detect_cgroup_parent", "nproc_rlimit_harmless", "nproc_rlimit_holds"]

_SETTLE_SECONDS = 5.0


def _mounts() -> list[tuple[str, str, str, str]]:
    """(root, mount point, fstype, super options) of every cgroup mount."""
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as handle:
            for line in handle:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                    found.append((fields[3], fields[4], tail[0], tail[2]))
    except OSError:
        return []
    return found


def _own_cgroups() -> dict[str, str]:
    """Controller list (``""`` for v2) -> this process's cgroup path."""
    result = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            for line in handle:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3:
                    result[parts[1]] = parts[2]
    except OSError:
        return {}
    return result


def _under(mount_root: str, point: str, path: str) -> str | None:
    if mount_root != "/" and not (path == mount_root or path.startswith(mount_root + "/")):
        return None
    inner = path[len(mount_root) :] if mount_root != "/" else path
    return os.path.join(point, inner.lstrip("/"))


def _candidate() -> str | None:
    own = _own_cgroups()
    for root, point, fstype, options in _mounts():
        if fstype == "cgroup" and "pids" in options.split(","):
            for controllers, path in own.items():
                if "pids" in controllers.split(","):
                    return _under(root, point, path)
        if fstype == "cgroup2" and "" in own:
            parent = _under(root, point, own[""])
            if parent is not None and _subtree_has_pids(parent):
                return parent
    return None


def _subtree_has_pids(parent: str) -> bool:
    try:
        with open(os.path.join(parent, "cgroup.subtree_control"), encoding="utf-8") as handle:
            return "pids" in handle.read().split()
    except OSError:
        return False


@functools.lru_cache(maxsize=16)
def detect_cgroup_parent(explicit: str | None) -> str | None:
    """A directory where a ``pids`` leaf can be created and limited, or ``None``."""
    parent = explicit if explicit is not None else _candidate()
    if parent is None or not os.path.isdir(parent):
        return None
    probe = os.path.join(parent, f"prism-probe-{uuid.uuid4().hex[:12]}")
    try:
        os.mkdir(probe)
    except OSError:
        return None
    try:
        with open(os.path.join(probe, "pids.max"), "w", encoding="ascii") as handle:
            handle.write("max")
        return parent
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(probe)


def _per_namespace_nproc() -> bool:
    """Linux >= 5.14 counts ``RLIMIT_NPROC`` per user namespace, not per host user."""
    try:
        major, minor = (int(x) for x in platform.release().split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


def nproc_rlimit_holds() -> bool:
    """``RLIMIT_NPROC`` in the fresh user namespace is a real ceiling (non-root, >= 5.14)."""
    return os.getuid() != 0 and _per_namespace_nproc()


def nproc_rlimit_harmless() -> bool:
    """Setting it cannot starve the sandbox: the count starts at zero, or root ignores it.

    On older kernels the count is the host user's whole process count.
    """
    return os.getuid() == 0 or _per_namespace_nproc()


class CgroupLeaf:
    """One command's ``pids`` cgroup: created with ``pids.max``, emptied and removed after."""

    def __init__(self, parent: str, max_processes: int) -> None:
        self.path = os.path.join(parent, f"prism-sandbox-{uuid.uuid4().hex}")
        os.mkdir(self.path)
        try:
            self._write("pids.max", str(max_processes))
        except OSError:
            self.remove()
            raise

    def _write(self, name: str, value: str) -> None:
        with open(os.path.join(self.path, name), "w", encoding="ascii") as handle:
            handle.write(value)

    def wrapper(self) -> list[str]:
        """argv prefix that joins the leaf, then ``exec``s the rest (so bwrap starts inside)."""
        script = 'printf "%s\\n" "$$" > "$0/cgroup.procs" || exit 125; exec "$@"'
        return ["/bin/sh", "-c", script, self.path]

    def ceiling_hits(self) -> int:
        """How many forks the ceiling refused (``pids.events``: ``max N``)."""
        try:
            with open(os.path.join(self.path, "pids.events"), encoding="ascii") as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "max":
                        return int(value)
        except (OSError, ValueError):
            return 0
        return 0

    def _pids(self) -> list[int]:
        try:
            with open(os.path.join(self.path, "cgroup.procs"), encoding="ascii") as handle:
                return [int(line) for line in handle if line.strip()]
        except (OSError, ValueError):
            return []

    def remove(self) -> None:
        """SIGKILL whatever is left in the leaf, then remove it (bounded wait)."""
        deadline = time.monotonic() + _SETTLE_SECONDS
        pause = 0.001
        while True:
            for pid in self._pids():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(pause)
                pause = min(pause * 2, 0.05)

"""What the rows observe about processes through ``/proc``: liveness, markers, process groups
and this process's peak memory growth (Linux; rows skip where ``/proc`` cannot tell)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from prism.core.testing import scaled

from ._registry import RowSkippedError

__all__ = [
    "alive",
    "group_gone",
    "need_proc",
    "peak_rss_growth",
    "pids_with",
    "proc_number",
    "process_group",
]


def need_proc() -> None:
    """Skip the row where there is no ``/proc`` to observe processes and memory through."""
    if not os.path.exists("/proc/self/status"):
        raise RowSkippedError("this row measures processes and memory through /proc (Linux only)")


def proc_number(path: str, field: bytes) -> int | None:
    """A numeric field of a ``/proc`` status-style file (``None`` off Linux)."""
    try:
        with open(path, "rb") as f:
            return next((int(ln.split()[1]) for ln in f if ln.startswith(field + b":")), None)
    except OSError:
        return None


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :][:1] not in (b"Z", b"X")


def pids_with(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker`` (a marker this run made up)."""
    found = []
    for pid in (int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) != os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read() and alive(pid):
                    found.append(pid)
        except OSError:
            continue
    return found


def process_group(pgid: int) -> list[int]:
    """Live (non-zombie) processes in process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != b"Z" and int(fields[2]) == pgid:
                found.append(int(entry))
    return found


async def group_gone(pgid: int, seconds: float = 3.0) -> bool:
    """Whether process group ``pgid`` is empty within ``seconds`` (scaled by the time factor)."""
    import anyio

    deadline = time.monotonic() + scaled(seconds)
    while process_group(pgid):
        if time.monotonic() > deadline:
            return False
        await anyio.sleep(0.02)
    return True


@contextmanager
def peak_rss_growth() -> Iterator[Callable[[], int]]:
    """Yields a function returning this process's peak RSS growth (bytes) since entering."""

    def read(field: str) -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
        raise RowSkippedError(f"/proc/self/status has no {field}")

    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM (the peak) to the current RSS
    except OSError as exc:
        raise RowSkippedError(f"cannot reset the peak RSS: {exc}") from None
    base = read("VmRSS:")
    yield lambda: max(0, read("VmHWM:") - base)

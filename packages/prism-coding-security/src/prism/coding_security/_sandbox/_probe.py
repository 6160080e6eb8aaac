"""Probes of what this machine gives the sandbox: user namespaces, seccomp, a pids cgroup."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess

from ._seccomp import SeccompUnsupportedError, build_filter, filter_fd

__all__ = ["seccomp_available", "userns_available"]

PROBE_SECONDS = 20.0


@functools.lru_cache(maxsize=8)
def userns_available(bwrap_path: str, isolation: tuple[str, ...]) -> bool:
    """Whether ``bwrap`` starts with the sandbox's namespaces and a seccomp filter here."""
    binary = shutil.which(bwrap_path)
    if binary is None:
        return False
    try:
        program = build_filter()
    except SeccompUnsupportedError:
        program = None
    args = [binary, *isolation, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    fds: tuple[int, ...] = ()
    if program is not None:
        fd = filter_fd(program)
        fds = (fd,)
        args += ["--seccomp", str(fd)]
    try:
        completed = subprocess.run(
            [*args, "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_SECONDS,
            check=False,
            pass_fds=fds,
        )
        return completed.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


@functools.lru_cache(maxsize=1)
def seccomp_available() -> bool:
    """Whether a filter can be built for this machine's architecture."""
    try:
        build_filter()
    except SeccompUnsupportedError:
        return False
    return True

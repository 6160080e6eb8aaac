"""``BubblewrapSandbox``: each command in fresh namespaces, read-only host, no caps, rlimits."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence

import attrs

from prism.coding_tools import ExecResult
from prism.core import AbortSignal

from ._bwrap_run import run_supervised
from ._sandbox import SandboxCapabilities, SandboxUnavailableError
from ._validate import check_bool, check_count, check_seconds

__all__ = ["BubblewrapSandbox"]

GIB = 1024**3
MAX_MEMORY_BYTES_CAP = 1024 * GIB
MAX_FILE_SIZE_BYTES_CAP = 1024 * GIB
MAX_CPU_SECONDS_CAP = 86_400.0
MAX_OPEN_FILES_CAP = 1_048_576
STARTED_MARKER = b"prism-sandbox-started\n"

BWRAP_ISOLATION = (
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--new-session",
    "--die-with-parent",
)


def _directory(name: str) -> Callable[[object], str]:
    def convert(value: object) -> str:
        if not isinstance(value, (str, os.PathLike)):
            raise ValueError(f"{name} must be a directory path, got {value!r}")
        text = os.fspath(value)
        if not isinstance(text, str) or not os.path.isabs(text) or "\x00" in text:
            raise ValueError(f"{name} must be an absolute path, got {text!r}")
        try:
            real = os.path.realpath(text, strict=True)
        except OSError as error:
            raise ValueError(f"{name}: {text!r} does not exist ({error.strerror})") from error
        if not os.path.isdir(real):
            raise ValueError(f"{name}: {text!r} is not a directory")
        return real

    return convert


def _root(value: object) -> str:
    return _directory("root")(value)


def _writable(values: object) -> tuple[str, ...]:
    if isinstance(values, (str, bytes, os.PathLike)) or not isinstance(values, Sequence):
        raise ValueError("writable must be a sequence of directories")
    convert = _directory("writable")
    return tuple(dict.fromkeys(convert(v) for v in values))


@attrs.frozen(kw_only=True)
class BubblewrapSandbox:
    """Run each command under ``bwrap``: only ``root`` and ``writable`` are writable.

    New user/pid/ipc/uts/cgroup/net namespaces (network kept only with ``network=True``), all
    capabilities dropped, no nested user namespaces, private ``/tmp``, fresh ``/proc`` and a
    minimal ``/dev``. When bwrap is missing or cannot start, ``exec`` raises
    ``SandboxUnavailableError`` and nothing runs.
    """

    root: str = attrs.field(converter=_root)
    writable: tuple[str, ...] = attrs.field(default=(), converter=_writable)
    network: bool = attrs.field(default=False)
    max_memory_bytes: int = 8 * GIB
    """RLIMIT_AS (address space) of every process in the sandbox."""
    max_cpu_seconds: float = 600.0
    """RLIMIT_CPU, rounded up to whole seconds."""
    max_file_size_bytes: int = 1 * GIB
    """RLIMIT_FSIZE: the largest file a command may write."""
    max_open_files: int = 1024
    """RLIMIT_NOFILE."""
    bwrap_path: str = "bwrap"
    """Executable name or path of bubblewrap."""
    shell_path: str = "/bin/bash"
    """Shell inside the sandbox that runs the command (``-c``)."""

    def __attrs_post_init__(self) -> None:
        check_bool("network", self.network)
        check_count("max_memory_bytes", self.max_memory_bytes, cap=MAX_MEMORY_BYTES_CAP)
        check_seconds("max_cpu_seconds", self.max_cpu_seconds, cap=MAX_CPU_SECONDS_CAP)
        check_count("max_file_size_bytes", self.max_file_size_bytes, cap=MAX_FILE_SIZE_BYTES_CAP)
        check_count("max_open_files", self.max_open_files, cap=MAX_OPEN_FILES_CAP)
        for name in ("bwrap_path", "shell_path"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value or "\x00" in value:
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")

    @property
    def capabilities(self) -> SandboxCapabilities:
        """Filesystem, process and privilege isolation always; network unless granted."""
        return SandboxCapabilities(
            filesystem_isolated=True,
            network_isolated=not self.network,
            process_isolated=True,
            privilege_isolated=True,
        )

    def _binary(self) -> str:
        found = shutil.which(self.bwrap_path)
        if found is None:
            raise SandboxUnavailableError(
                f"bubblewrap ({self.bwrap_path!r}) is not installed or not executable; the "
                "command was not run (install the 'bubblewrap' package)"
            )
        return found

    def _prologue(self, marker_fd: int) -> str:
        """Set hard+soft rlimits, signal the start, close the marker, then run the command."""
        kib = 1024
        cpu = max(1, int(-(-self.max_cpu_seconds // 1)))
        limits = (
            f"ulimit -S -H -v {max(1, self.max_memory_bytes // kib)} -t {cpu} "
            f"-f {max(1, self.max_file_size_bytes // kib)} -n {self.max_open_files}"
        )
        marker = shlex.quote(STARTED_MARKER.decode())
        return (
            f"{limits} || exit 126\n"
            f"printf %s {marker} >&{marker_fd} || exit 126\n"
            f"exec {marker_fd}>&-\n"
            f'exec {shlex.quote(self.shell_path)} -c "$1"'
        )

    def argv(self, binary: str, command: str, *, cwd: str, marker_fd: int) -> list[str]:
        """The full bwrap command line for ``command`` run in ``cwd``."""
        args = [binary, *BWRAP_ISOLATION]
        if self.network:
            args.append("--share-net")
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for path in (self.root, *self.writable):
            args += ["--bind", path, path]
        args += ["--chdir", cwd, "--", self.shell_path, "-c", self._prologue(marker_fd)]
        args += ["prism-sandbox", command]
        return args

    async def exec(
        self,
        command: str,
        *,
        cwd: str,
        env: Mapping[str, str] | None,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None = None,
        timeout_seconds: float | None = None,
    ) -> ExecResult:
        """Run ``command`` sandboxed; raise ``SandboxUnavailableError`` if isolation fails."""
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            raise SandboxUnavailableError(f"sandbox cwd must be an absolute path, got {cwd!r}")
        binary = self._binary()
        marker_read, marker_write = os.pipe()
        try:
            argv = self.argv(binary, command, cwd=cwd, marker_fd=marker_write)
            return await run_supervised(
                argv,
                env=env,
                marker_read=marker_read,
                marker_write=marker_write,
                marker=STARTED_MARKER,
                on_data=on_data,
                signal=signal,
                timeout_seconds=timeout_seconds,
            )
        finally:
            os.close(marker_read)

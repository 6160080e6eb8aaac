"""``BubblewrapSandbox``: fresh namespaces, read-only host, no caps, seccomp, masks, ceilings."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from prism.coding_tools import ExecRequest, ExecResult
from prism.core.options import GIB, check_choice, check_count, check_flag, check_seconds

from .._paths import existing_directories, existing_directory
from .._protected import GitProtection, ProtectedPaths
from ._cgroup import detect_cgroup_parent, nproc_rlimit_harmless, nproc_rlimit_holds
from ._fields import absolute_paths, strings
from ._guard import guarded
from ._probe import seccomp_available, userns_available
from ._protect import protected_args
from ._protocol import CAPABILITY_NAMES, Sandbox, SandboxCapabilities, SandboxUnavailableError
from ._run import run_supervised
from ._seccomp import SeccompUnsupportedError, build_filter, filter_fd
from ._view import DEFAULT_DENY_READ, ReadMode, anchor_args, deny_read_args, view_args

__all__ = ["BubblewrapSandbox"]

MAX_MEMORY_BYTES_CAP = 1024 * GIB
MAX_FILE_SIZE_BYTES_CAP = 1024 * GIB
MAX_CPU_SECONDS_CAP = 86_400.0
MAX_OPEN_FILES_CAP = 1_048_576
MAX_PROCESSES_CAP = 1_048_576
MAX_SCAN_CAP = 10_000_000
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
_WHERE = "BubblewrapSandbox."
_COUNT_CAPS = {
    "max_memory_bytes": MAX_MEMORY_BYTES_CAP,
    "max_file_size_bytes": MAX_FILE_SIZE_BYTES_CAP,
    "max_open_files": MAX_OPEN_FILES_CAP,
    "max_processes": MAX_PROCESSES_CAP,
    "protected_scan_limit": MAX_SCAN_CAP,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class BubblewrapSandbox(Sandbox):
    """Run each command under ``bwrap``: only ``root`` and ``writable`` are writable.

    New user/pid/ipc/uts/cgroup/net namespaces (network kept only with ``network=True``), all
    capabilities dropped, no nested user namespaces, a seccomp filter (socket families by
    allowlist, no io_uring), protected and host-executed paths read-only, git directories found
    by content read-only, credentials masked, a process ceiling, private ``/tmp``,
    fresh ``/proc`` and a minimal ``/dev``. When any of it cannot be set up, ``exec`` raises
    ``SandboxUnavailableError`` and nothing runs. Paths may be given as ``os.PathLike``; they are
    stored as real paths, sequences as tuples.
    """

    root: str
    """The workspace: an existing absolute directory, writable inside the sandbox."""
    writable: Sequence[str] = ()
    """More existing absolute directories the command may write."""
    network: bool = False
    """Keep the host network; also allows ``AF_INET``/``AF_INET6`` sockets (see ``loopback``)."""
    loopback: bool = False
    """With ``network=False``: allow ``AF_INET``/``AF_INET6`` sockets on the sandbox's own
    loopback (test servers); the empty network namespace still has no route out."""
    max_memory_bytes: int = 8 * GIB
    """RLIMIT_AS (address space) of every process in the sandbox."""
    max_cpu_seconds: float = 600.0
    """RLIMIT_CPU, rounded up to whole seconds."""
    max_file_size_bytes: int = 1 * GIB
    """RLIMIT_FSIZE: the largest file a command may write."""
    max_open_files: int = 1024
    """RLIMIT_NOFILE."""
    max_processes: int = 512
    """Process ceiling: ``pids.max`` of a per-command cgroup, else RLIMIT_NPROC (see docs)."""
    cgroup_parent: str | None = None
    """A delegated cgroup directory for the per-command leaf (default: found automatically)."""
    use_cgroup: bool = True
    """``False``: never create a cgroup; only RLIMIT_NPROC applies (not for a root host)."""
    allow_unix_sockets: Sequence[str] = ()
    """Host socket paths the command may use; non-empty lifts the ``AF_UNIX`` filter (see docs)."""
    protected: Sequence[str] = ()
    """More protected names or root-relative paths, beside ``DEFAULT_PROTECTED_NAMES``."""
    git: GitProtection = "all"
    """``"all"``: ``.git`` read-only; ``"code"``: only its parts that make git run code."""
    protected_scan_limit: int = 200_000
    """Directory entries walked per root to find protected paths; more fails closed."""
    deny_read: Sequence[str] = DEFAULT_DENY_READ
    """Paths masked inside the sandbox (``~/`` means every home of the host user; globs ok)."""
    read_mode: ReadMode = "deny"
    """``"deny"``: host visible minus ``deny_read``; ``"allow"``: system dirs and roots only."""
    allow_read: Sequence[str] = ()
    """Extra read-only paths in ``read_mode="allow"``."""
    require: Sequence[str] = ()
    """Capabilities that must be present on this machine, else nothing runs (fail closed)."""
    bwrap_path: str = "bwrap"
    """Executable name or path of bubblewrap."""
    shell_path: str = "/bin/bash"
    """Shell inside the sandbox that runs the command (``-c``)."""

    def __post_init__(self) -> None:
        check_choice(_WHERE + "read_mode", self.read_mode, ("deny", "allow"))
        check_choice(_WHERE + "git", self.git, ("all", "code"))
        self._set_paths()
        check_flag(_WHERE + "network", self.network)
        check_flag(_WHERE + "loopback", self.loopback)
        check_flag(_WHERE + "use_cgroup", self.use_cgroup)
        cpu_cap = MAX_CPU_SECONDS_CAP
        cpu = check_seconds(_WHERE + "max_cpu_seconds", self.max_cpu_seconds, cap=cpu_cap)
        object.__setattr__(self, "max_cpu_seconds", cpu)
        for name, cap in _COUNT_CAPS.items():
            check_count(_WHERE + name, getattr(self, name), cap=cap)
        unknown = sorted(set(self.require) - CAPABILITY_NAMES)
        if unknown:
            known = ", ".join(sorted(CAPABILITY_NAMES))
            raise ValueError(
                f"{_WHERE}require must be names of known capabilities ({known}), got {unknown}"
            )
        cgroup = self.cgroup_parent
        if cgroup is not None and not (isinstance(cgroup, str) and os.path.isabs(cgroup)):
            wrong: type[Exception] = ValueError if isinstance(cgroup, str) else TypeError
            raise wrong(f"{_WHERE}cgroup_parent must be an absolute path, got {cgroup!r:.200}")
        for name in ("bwrap_path", "shell_path"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value or "\x00" in value:
                error = ValueError if isinstance(value, str) else TypeError
                raise error(f"{_WHERE}{name} must be a non-empty string, got {value!r:.200}")

    def _set_paths(self) -> None:
        """Convert the path and name fields in place (a frozen instance, so via ``object``)."""
        sockets = self.allow_unix_sockets
        converted = {
            "root": existing_directory(_WHERE + "root", self.root),
            "writable": existing_directories(_WHERE + "writable", self.writable),
            "allow_unix_sockets": absolute_paths(_WHERE + "allow_unix_sockets", sockets),
            "protected": strings(_WHERE + "protected", self.protected),
            "deny_read": absolute_paths(_WHERE + "deny_read", self.deny_read, home=True),
            "allow_read": absolute_paths(_WHERE + "allow_read", self.allow_read),
            "require": strings(_WHERE + "require", self.require),
        }
        for name, value in converted.items():
            object.__setattr__(self, name, value)
        try:
            ProtectedPaths(extra=tuple(self.protected), git=self.git)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{_WHERE}protected: {error}") from error

    @property
    def protected_paths(self) -> ProtectedPaths:
        """The protected list this sandbox binds read-only (give the same one to the policy)."""
        return ProtectedPaths(extra=tuple(self.protected), git=self.git)

    def _cgroup(self) -> str | None:
        return detect_cgroup_parent(self.cgroup_parent) if self.use_cgroup else None

    @property
    def capabilities(self) -> SandboxCapabilities:
        """Each control as measured on this machine (bwrap and user namespaces probed once)."""
        if not userns_available(self.bwrap_path, BWRAP_ISOLATION):
            return SandboxCapabilities(False, False, False, False)
        seccomp = seccomp_available()
        process_limit = "cgroup" if self._cgroup() else ("rlimit" if nproc_rlimit_holds() else None)
        return SandboxCapabilities(
            filesystem_isolated=True,
            network_isolated=not self.network,
            process_isolated=True,
            privilege_isolated=True,
            user_namespace=True,
            seccomp_filter=seccomp,
            unix_sockets_blocked=seccomp and not self.allow_unix_sockets,
            protected_paths_readonly=True,
            secrets_masked=self.read_mode == "allow"
            or set(DEFAULT_DENY_READ) <= set(self.deny_read),
            process_limit=process_limit,
        )

    def _binary(self) -> str:
        found = shutil.which(self.bwrap_path)
        if found is None:
            raise SandboxUnavailableError(
                f"bubblewrap ({self.bwrap_path!r}) is not installed or not executable; the "
                "command was not run (install the 'bubblewrap' package)"
            )
        return found

    def _check_required(self) -> None:
        if not self.require:
            return
        missing = self.capabilities.missing(self.require)
        if missing:
            raise SandboxUnavailableError(
                f"the sandbox lacks required controls on this machine: {', '.join(missing)}; "
                "the command was not run"
            )

    def _prologue(self, marker_fd: int) -> str:
        """Set hard+soft rlimits, signal the start, close the marker, then run the command."""
        kib = 1024
        cpu = max(1, int(-(-self.max_cpu_seconds // 1)))
        limits = (
            f"ulimit -S -H -v {max(1, self.max_memory_bytes // kib)} -t {cpu} "
            f"-f {max(1, self.max_file_size_bytes // kib)} -n {self.max_open_files}"
        )
        if nproc_rlimit_harmless():
            limits += f" -u {self.max_processes}"
        marker = shlex.quote(STARTED_MARKER.decode())
        return (
            f"{limits} || exit 126\n"
            f"printf %s {marker} >&{marker_fd} || exit 126\n"
            f"exec {marker_fd}>&-\n"
            f'exec {shlex.quote(self.shell_path)} -c "$1"'
        )

    def argv(
        self,
        binary: str,
        command: str,
        *,
        cwd: str,
        marker_fd: int,
        seccomp_fd: int,
        protected_binds: Sequence[str] = (),
    ) -> list[str]:
        """The full bwrap command line for ``command`` run in ``cwd``."""
        args = [binary, *BWRAP_ISOLATION]
        if self.network:
            args.append("--share-net")
        args += view_args(self.read_mode, self.allow_read)
        args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        if self.read_mode == "allow":
            for path in self.allow_unix_sockets:
                args += ["--bind-try", path, path]
        for path in (self.root, *self.writable):
            args += ["--bind", path, path]
        args += anchor_args(self.deny_read, (self.root, *self.writable))
        args += [*protected_binds, *deny_read_args(self.deny_read)]
        args += ["--seccomp", str(seccomp_fd)]
        args += ["--chdir", cwd, "--", self.shell_path, "-c", self._prologue(marker_fd)]
        args += ["prism-sandbox", command]
        return args

    def _filter(self) -> bytes:
        try:
            inet = self.network or self.loopback
            return build_filter(block_unix=not self.allow_unix_sockets, inet=inet)
        except SeccompUnsupportedError as error:
            raise SandboxUnavailableError(str(error)) from error

    async def run(self, request: ExecRequest) -> ExecResult:
        """Run the command sandboxed; raise ``SandboxUnavailableError`` if isolation fails."""
        cwd = request.cwd
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            raise SandboxUnavailableError(
                f"BubblewrapSandbox.run.request.cwd must be an absolute path, got {cwd!r:.200}"
            )
        binary = self._binary()
        await anyio.to_thread.run_sync(self._check_required)  # probes run bwrap once
        program = self._filter()
        async with guarded(
            protected=self.protected_paths,
            roots=(self.root, *self.writable),
            scan_limit=self.protected_scan_limit,
            cgroup_parent=self._cgroup(),
            max_processes=self.max_processes,
            on_data=request.on_data,
        ) as guard:
            seccomp_fd = filter_fd(program)
            marker_read, marker_write = os.pipe()
            try:
                argv = self.argv(
                    binary,
                    request.command,
                    cwd=cwd,
                    marker_fd=marker_write,
                    seccomp_fd=seccomp_fd,
                    protected_binds=protected_args(
                        guard.before, self.git, (self.root, *self.writable)
                    ),
                )
                if guard.leaf is not None:
                    argv = [*guard.leaf.wrapper(), *argv]
                return await run_supervised(
                    argv,
                    request,
                    marker_read=marker_read,
                    marker_write=marker_write,
                    marker=STARTED_MARKER,
                    extra_fds=(seccomp_fd,),
                )
            finally:
                os.close(marker_read)
                os.close(seccomp_fd)

"""The per-command supervisor (Linux): a child subreaper that leaves no descendant behind.

The shell runs as the child of a tiny Python process that first makes itself a *child
subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): every process the command starts, however it
detaches (``setsid``, double fork, closed stdio), is re-parented to the supervisor instead of
init when its parent dies. When the shell ends, or on SIGTERM/SIGINT/SIGHUP (timeout, abort),
the supervisor sends SIGTERM to its remaining children, SIGKILL after the grace, and repeats
until it has no child left; then it exits with the shell's status (re-raising its signal).
The shell leads its own process group, so ``kill 0`` in the command does not reach the
supervisor; a command that SIGKILLs its parent directly still can (documented residual).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping

__all__ = ["SUPERVISOR_MARGIN_SECONDS", "resolve_shell", "supervised_argv", "supervisor_available"]

SUPERVISOR_MARGIN_SECONDS = 1.0
"""Extra time the host gives the supervisor past the grace before it SIGKILLs the group."""

_SOURCE = r"""
import os, signal, sys, time

class Stop(Exception):
    pass

def on_signal(signum, frame):
    raise Stop(signum)

def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True

def children(me):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/" + entry + "/stat", "rb") as f:
                    raw = f.read()
            except OSError:
                continue
            rest = raw[raw.rfind(b")") + 2:].split()
            if len(rest) > 1 and int(rest[1]) == me and rest[0] not in (b"Z", b"X"):
                found.append(int(entry))
    return found

def clean(me, grace):
    # Direct children only: their pids cannot be reused before we reap them; the children
    # of a killed child are re-parented to us and handled in the next round.
    asked = set()
    deadline = time.monotonic() + grace
    while reap():
        for pid in children(me):
            if pid not in asked:
                asked.add(pid)
                try:
                    os.kill(pid, signal.SIGTERM)
                except OSError:
                    pass
        if time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    else:
        return
    for _ in range(2000):
        if not reap():
            return
        for pid in children(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)

def disable_core():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

def finish(status):
    if status is not None and os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        for step in (disable_core, lambda: signal.signal(number, signal.SIG_DFL)):
            try:
                step()
            except (OSError, ValueError):  # SIGKILL's disposition cannot be changed
                pass
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.WEXITSTATUS(status) if status is not None else 143)

def become_subreaper():
    # prctl(PR_SET_CHILD_SUBREAPER, 1) through _ctypes: importing ctypes costs ~5 ms more.
    import _ctypes

    class Libc:
        _handle = _ctypes.dlopen(None)

    class Int(_ctypes._SimpleCData):
        _type_ = "i"

    class Function(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL
        _restype_ = Int

    return Function(("prctl", Libc()))(36, 1, 0, 0, 0)

def main():
    shell, command, grace, ctype = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    if become_subreaper() != 0:
        os.write(2, b"prism: cannot become a child subreaper; the command was not run\n")
        os._exit(125)
    env = dict(os.environ)
    env.pop("LC_CTYPE", None)  # undo Python's C-locale coercion: the command gets its own
    if ctype.startswith("="):
        env["LC_CTYPE"] = ctype[1:]
    stops = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    me, status, child = os.getpid(), None, None
    try:
        for number in stops:
            signal.signal(number, on_signal)
        defaults = stops + (signal.SIGPIPE, signal.SIGXFSZ)
        # The shell leads its own process group: `kill 0` in the command cannot reach us.
        child = os.posix_spawn(
            shell, [shell, "-c", command], env, setsigdef=defaults, setpgroup=0
        )
        while status is None:
            pid, code = os.waitpid(-1, 0)
            if pid == child:
                status = code
    except Stop:
        pass
    except OSError as error:
        os.write(2, ("prism: cannot run %s: %s\n" % (shell, error.strerror)).encode())
        status = 127 << 8
    while True:
        try:
            for number in stops:
                signal.signal(number, signal.SIG_IGN)
            break
        except Stop:
            continue
    if status is None and child is not None:
        # Stopped (timeout, abort): the shell's group first, as the host did with ours. The
        # shell is not reaped yet, so its pid (the group id) cannot have been reused.
        try:
            os.killpg(child, signal.SIGTERM)
        except OSError:
            pass
    clean(me, grace)
    finish(status)

main()
"""


def supervisor_available() -> bool:
    """Whether commands can run under the subreaper supervisor here: Linux, with a real Python
    interpreter (not a frozen application, whose executable is the application itself)."""
    return sys.platform == "linux" and bool(sys.executable) and not getattr(sys, "frozen", False)


def resolve_shell(shell: str, search_path: str) -> str:
    """The absolute path of ``shell`` (searched on ``search_path`` when it has no slash)."""
    found = shutil.which(shell, path=search_path)
    if found is None:
        raise FileNotFoundError(2, "shell not found or not executable", shell)
    return os.path.abspath(found)


def supervised_argv(
    shell: str, command: str, grace_seconds: float, env: Mapping[str, str]
) -> list[str]:
    """The argv that runs ``<shell> -c <command>`` under the supervisor with exactly ``env``
    (Python's C-locale coercion may add ``LC_CTYPE``; the supervisor restores the original)."""
    ctype = env.get("LC_CTYPE")
    original = "-" if ctype is None else "=" + ctype
    return [
        sys.executable,
        "-I",
        "-S",
        "-c",
        _SOURCE,
        shell,
        command,
        repr(grace_seconds),
        original,
    ]

"""Parse, check and compile large generated source in a child interpreter, off the GIL.

``ast.parse`` and ``compile`` are single C calls that hold the GIL for their whole run (about
0.2 and 0.1 µs of CPU per source byte measured, 3x that on a loaded machine): a 400 KB validator
stalled every other thread, the event loop included, for 400 ms and delayed an abort by
seconds. Source up to ``IN_PROCESS_SOURCE`` bytes (each step ≲ 10 ms) is compiled here; larger
source goes to a child ``python -I -S`` that runs the same whitelist check (``_codecheck``,
stdlib only) and returns the code object marshalled (``marshal.loads`` runs at GB/s).
At most ``MAX_CHILDREN`` children run at once, each under ``CHILD_CPU_SECONDS`` of CPU and
``CHILD_ADDRESS_SPACE`` bytes; a child of an aborted call is never started, or is killed.
"""

from __future__ import annotations

import marshal
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType
from typing import Final

from ._codecheck import GeneratedCodeRejected
from ._walk import SchemaRejected

__all__ = [
    "IN_PROCESS_SOURCE",
    "CompileFault",
    "abandoned_when",
    "compile_in_child",
]

IN_PROCESS_SOURCE: Final = 16_384
"""Generated source bytes compiled in this process: ~5 ms of GIL-holding C calls on an idle
core (0.3 µs per byte for parse plus compile), 3x under the 50 ms loop-gap budget at 3x load."""

CHILD_SECONDS: Final = 120.0
"""A child that has not answered by then is killed (an engine fault: this call only)."""

MAX_CHILDREN: Final = 2
"""Compiling children alive at once, process-wide (a child is up to ~1.2 s of CPU and ~105 MiB
measured); further compiles wait their turn in their worker thread."""

CHILD_CPU_SECONDS: Final = 5
"""``RLIMIT_CPU`` of a child: over 4x the most CPU a legal schema's compile was measured to
take; a child killed by it means the schema is too costly to compile (refused, cached)."""

CHILD_ADDRESS_SPACE: Final = 512 * 2**20
"""``RLIMIT_AS`` of a child: about 5x the largest measured child (105 MiB RSS); a child out
of memory refuses the schema as too costly to compile (cached)."""

_POLL: Final = 0.05
"""Seconds between checks of the requesting call's abort while waiting for a turn or a child."""

_CHILDREN: Final = threading.BoundedSemaphore(MAX_CHILDREN)
_ABANDONED = threading.local()


class CompileFault(RuntimeError):
    """The compile failed for a reason other than the schema (a child killed from outside,
    timed out, or its call aborted): this call is refused, the outcome is not cached."""


@contextmanager
def abandoned_when(check: Callable[[], bool]) -> Iterator[None]:
    """While inside, compiles on this thread give up (``CompileFault``) once ``check()``."""
    previous = getattr(_ABANDONED, "check", None)
    _ABANDONED.check = check
    try:
        yield
    finally:
        _ABANDONED.check = previous


def _abandoned() -> bool:
    check: Callable[[], bool] | None = getattr(_ABANDONED, "check", None)
    return check is not None and check()


_CHILD: Final = """
import ast, importlib.util, marshal, resource, sys
for limit, arg in ((resource.RLIMIT_CPU, 2), (resource.RLIMIT_AS, 3)):
    value = int(sys.argv[arg])
    hard = resource.getrlimit(limit)[1]
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(limit, (value, hard))
spec = importlib.util.spec_from_file_location("prism_codecheck", sys.argv[1])
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
source = sys.stdin.buffer.read().decode("utf-8", "surrogatepass")
try:
    tree = ast.parse(source, mode="exec")
    functions = check.check_generated_code(tree)
    code = compile(tree, "<prism-jsonschema>", "exec")
except MemoryError:
    tree = functions = code = None
    answer = ("costly", "compiling it ran out of the child's memory limit", None)
except (SyntaxError, ValueError, RecursionError, check.GeneratedCodeRejected) as exc:
    answer = ("rejected", str(exc)[:300], None)
else:
    answer = ("ok", functions, code)
sys.stdout.buffer.write(marshal.dumps(answer))
"""


def compile_in_child(source: str) -> tuple[list[str], CodeType] | None:
    """``(functions, code)`` of the checked source, compiled by a child interpreter; ``None``
    when no child can be started (the caller compiles here). Raises ``GeneratedCodeRejected``
    when the check fails, ``SchemaRejected`` when the child hits its CPU or memory limit,
    ``CompileFault`` when the child fails otherwise, times out, or the call was aborted."""
    if not sys.executable:
        return None
    while not _CHILDREN.acquire(timeout=_POLL):
        if _abandoned():
            raise CompileFault("compile abandoned: the call was aborted")
    try:
        if _abandoned():
            raise CompileFault("compile abandoned: the call was aborted")
        return _run_child(source)
    finally:
        _CHILDREN.release()


def _run_child(source: str) -> tuple[list[str], CodeType] | None:
    checker = str(Path(__file__).with_name("_codecheck.py"))
    limits = [str(CHILD_CPU_SECONDS), str(CHILD_ADDRESS_SPACE)]
    with tempfile.TemporaryFile() as text:  # stdin from a file: no writer to keep alive
        text.write(source.encode("utf-8", "surrogatepass"))
        text.seek(0)
        try:
            child = subprocess.Popen(  # our own interpreter, a fixed script
                [sys.executable, "-I", "-S", "-c", _CHILD, checker, *limits],
                stdin=text,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError:
            return None
    try:
        out, err = _wait(child)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()  # reaps it and closes the pipes: no zombie
    return _answer(child.returncode, out, err)


def _wait(child: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """The child's output, polling the call's abort and the wall-clock limit meanwhile."""
    ends = time.monotonic() + CHILD_SECONDS
    while True:
        try:
            return child.communicate(timeout=_POLL)
        except subprocess.TimeoutExpired:
            pass
        if _abandoned():
            raise CompileFault("compile abandoned: the call was aborted")
        if time.monotonic() > ends:
            raise CompileFault(f"compiling generated code took over {CHILD_SECONDS:.0f} s")


def _answer(code: int, out: bytes, err: bytes) -> tuple[list[str], CodeType]:
    if code == -signal.SIGXCPU:
        raise SchemaRejected(
            f"compiling its generated code exceeded the child's CPU limit "
            f"({CHILD_CPU_SECONDS} s): too costly to compile"
        )
    if code != 0 or not out:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:]
        detail = tail[0][:200] if tail else f"exit status {code}, no output"
        raise CompileFault(f"the compiling child failed: {detail}")
    status, detail, compiled = marshal.loads(out)  # our own child's output
    if status == "costly":
        raise SchemaRejected(f"{detail}: too costly to compile")
    if status != "ok":
        raise GeneratedCodeRejected(detail)
    return detail, compiled

"""Conformance rows owned by prism-dbos: E13, E14, E15 (durable execution).

DBOS keeps one instance per process, and a crash is a real ``kill -9``: every check drives the
scripted app in ``_durable_child`` in child processes, handing it the subject's durable agent
factory by ``module:qualname`` (or its source file). Durable execution is asyncio-only, so the
rows run on asyncio and report ``skipped`` on trio.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism.core.testing import scaled

from ._aio import current_backend, monotonic, sleep
from ._registry import RowSkippedError, conformance_row, require

if TYPE_CHECKING:
    from ._subjects import ConformanceSubjects

_CHILD_SECONDS = 90.0
_UNKNOWN = "outcome_unknown"


def _where(factory: Any) -> str:
    """How a child process finds ``factory``: its module, or its source file if not importable."""
    module, qualname = getattr(factory, "__module__", None), getattr(factory, "__qualname__", "")
    if not qualname or "<" in qualname:
        raise AssertionError(
            "durable_agent_factory must be a module-level function or class (it is loaded "
            f"again in child processes), got {factory!r}"
        )
    if module and not module.startswith("_") and module in sys.modules and module != "__main__":
        with contextlib.suppress(Exception):
            spec = __import__("importlib.util").util.find_spec(module)
            if spec is not None:
                return f"{module}:{qualname}"
    return f"{inspect.getsourcefile(factory)}:{qualname}"


def _read(path: Path) -> str:
    """A child's output so far (small files, read between polls)."""
    return path.read_text(errors="replace")


class _Durable:
    """One scripted durable app on a fresh SQLite file, driven through child processes."""

    def __init__(self, root: Path, factory: Any) -> None:
        self.root = root
        self.log = root / "log"
        self.log.mkdir()
        self.base = [sys.executable, "-m", "prism.conformance._durable_child"]
        self.common = ["--db", f"sqlite:///{root / 'dbos.sqlite'}", "--log", str(self.log),
                       "--factory", _where(factory)]  # fmt: skip
        self.children: list[subprocess.Popen[bytes]] = []
        self.n = 0

    def spawn(self, role: str, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
        self.n += 1
        out = self.root / f"{role}-{self.n}.out"
        with out.open("wb") as sink:
            child = subprocess.Popen(
                [*self.base, role, *self.common, *args], stdout=sink, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.children.append(child)
        return child, out

    async def wait(self, child: subprocess.Popen[bytes], out: Path, what: str) -> str:
        deadline = monotonic() + scaled(_CHILD_SECONDS)
        while child.poll() is None:
            if monotonic() > deadline:
                self.kill(child)
                raise AssertionError(f"{what} did not finish in {scaled(_CHILD_SECONDS):g} s")
            await sleep(0.05)
        text = _read(out)
        if child.returncode != 0:
            raise AssertionError(f"{what} exited {child.returncode}: {text[-1500:]}")
        return text

    async def result(self, role: str, *args: str) -> dict[str, Any]:
        text = await self.wait(*self.spawn(role, *args), f"the {role} process")
        lines = [ln for ln in text.splitlines() if ln.startswith("RESULT ")]
        if not lines:
            raise AssertionError(f"the {role} process printed no result: {text[-1500:]}")
        found: dict[str, Any] = json.loads(lines[-1][7:])
        return found

    async def crash_at(self, point: str, *args: str) -> None:
        """Run until kill point ``point``, then ``kill -9`` the process."""
        child, out = self.spawn("run", "--hang", point, *args)
        marker = self.log / f"reached-{point}"
        deadline = monotonic() + scaled(_CHILD_SECONDS)
        while not marker.exists():
            if child.poll() is not None or monotonic() > deadline:
                self.kill(child)
                text = _read(out)[-1500:]
                raise AssertionError(f"the run never reached {point}: {text}")
            await sleep(0.05)
        self.kill(child)

    def kill(self, child: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()

    def rows(self, name: str) -> list[dict[str, Any]]:
        path = self.log / name
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []

    def begins(self) -> Counter[str]:
        return Counter(r["call"] for r in self.rows("executions.jsonl") if r["at"] == "begin")

    def close(self) -> None:
        for child in self.children:
            if child.poll() is None:
                self.kill(child)


@contextlib.contextmanager
def _app(subjects: ConformanceSubjects) -> Iterator[_Durable]:
    factory = require(subjects.durable_agent_factory, "durable agent (prism-dbos)")
    if current_backend() != "asyncio":
        raise RowSkippedError(
            "durable execution runs on asyncio only; the row is checked on asyncio"
        )
    with tempfile.TemporaryDirectory(prefix="prism-durable-") as tmp:
        app = _Durable(Path(tmp), factory)
        try:
            yield app
        finally:
            app.close()


def _results(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [m["result"] for m in result["messages"] if m["role"] == "tool"]


def _expect_order(result: dict[str, Any], ids: list[str]) -> None:
    got = [r["tool_call_id"] for r in _results(result)]
    if got != ids:
        raise AssertionError(f"recovered transcript has tool results {got}, expected {ids}")


@conformance_row("E13", timeout_seconds=300)
async def replay_never_reexecutes(subjects: ConformanceSubjects) -> None:
    """Crash before a model step, recover, then replay the finished run: no call runs again."""
    with _app(subjects) as app:
        await app.crash_at("model-1")
        ledger_before = len(app.rows("ledger.jsonl"))
        first = await app.result("recover")
        _expect_order(first, ["s1", "p1", "s2"])
        again = await app.result("recover")
        twice = {c: n for c, n in app.begins().items() if n > 1}
        if twice:
            raise AssertionError(
                f"finished calls executed again on recovery or replay: {twice} "
                "(a replay must return the recorded result)"
            )
        if again != first:
            raise AssertionError("replaying the finished run returned a different transcript")
        repeated = [
            r for r in app.rows("ledger.jsonl")[ledger_before:] if r["call"] in ("s1", "p1")
        ]
        if repeated:
            raise AssertionError(f"replay wrote ledger rows again for finished calls: {repeated}")


@conformance_row("E14", timeout_seconds=300)
async def interrupted_side_effect_not_rerun(subjects: ConformanceSubjects) -> None:
    """Kill inside a non-idempotent call; recovery must not run it again: ``outcome_unknown``."""
    with _app(subjects) as app:
        await app.crash_at("s2")
        result = await app.result("recover")
        _expect_order(result, ["s1", "p1", "s2"])
        if app.begins()["s2"] != 1:
            raise AssertionError(
                f"the interrupted non-idempotent call s2 started {app.begins()['s2']} times; "
                "it must never run again after a crash"
            )
        error = _results(result)[2].get("error") or {}
        if error.get("code") != _UNKNOWN:
            raise AssertionError(f"the interrupted call's result must be {_UNKNOWN}, got {error}")
        rows = [(r["status"], r["reason"]) for r in app.rows("ledger.jsonl") if r["call"] == "s2"]
        if ("error", _UNKNOWN) not in rows:
            raise AssertionError(f"the ledger must record {_UNKNOWN} for s2, has {rows}")


@conformance_row("E15", timeout_seconds=300)
async def approval_survives_restart(subjects: ConformanceSubjects) -> None:
    """Kill while awaiting approval; approve from another process; the recovered run resumes."""
    with _app(subjects) as app:
        run, _ = app.spawn("run", "--script", "approval")
        waiter, wout = app.spawn("await", "--run-id", "conformance-run")
        while waiter.poll() is None:
            if app.begins()["d1"]:
                raise AssertionError("the call that needs approval ran before any decision")
            await sleep(0.05)
        awaited = await app.wait(waiter, wout, "waiting for the approval request")
        if app.begins()["d1"]:
            raise AssertionError("the call that needs approval ran before any decision")
        if json.loads(awaited.splitlines()[-1]).get("call_id") != "d1":
            raise AssertionError(f"the published approval request is not d1's: {awaited[-500:]}")
        app.kill(run)
        recovering, rout = app.spawn("recover", "--script", "approval")
        await app.wait(*app.spawn("approve", "--run-id", "conformance-run", "--call-id", "d1"),
                       "approve")  # fmt: skip
        text = await app.wait(recovering, rout, "the recovering process")
        result = json.loads([ln for ln in text.splitlines() if ln.startswith("RESULT ")][-1][7:])
        d1 = _results(result)[0]
        if d1.get("error") is not None or app.begins()["d1"] != 1:
            raise AssertionError(
                f"after the approval the call must run exactly once; it started "
                f"{app.begins()['d1']} times with result error {d1.get('error')}"
            )

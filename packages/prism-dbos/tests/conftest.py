"""Child-process harness: DBOS holds one instance per process, so each scenario role runs in
its own interpreter (which also gives the tests real ``kill -9`` points)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

APP = Path(__file__).with_name("scenario_app.py")
CHILD_TIMEOUT = 90.0


@dataclass
class App:
    """One durable app on one database, with its JSONL logs in ``log``."""

    db: str
    log: Path
    children: list[subprocess.Popen[str]] = field(default_factory=list)

    def _env(self, role: str, hang: str = "", **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(PRISM_TEST_LOG=str(self.log), PRISM_TEST_ROLE=role, PRISM_TEST_HANG=hang)
        env.update(extra)
        return env

    def spawn(self, role: str, *args: str, hang: str = "", **extra: str) -> subprocess.Popen[str]:
        """Start a role in the background (its own session, so it can be killed whole)."""
        child = subprocess.Popen(
            [sys.executable, str(APP), role, "--db", self.db, *args],
            env=self._env(role, hang, **extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.children.append(child)
        return child

    def kill_at(self, point: str, role: str, *args: str, **extra: str) -> None:
        """Start ``role``, wait until it reaches kill point ``point``, then ``kill -9`` it."""
        child = self.spawn(role, *args, hang=point, **extra)
        marker = self.log / f"reached-{point}"
        deadline = time.monotonic() + CHILD_TIMEOUT
        while not marker.exists():
            if child.poll() is not None:
                _, err = child.communicate()
                raise AssertionError(f"{role} exited {child.returncode} before {point}: {err}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{role} did not reach {point} in {CHILD_TIMEOUT} s")
            time.sleep(0.05)
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate(timeout=CHILD_TIMEOUT)
        marker.unlink()

    def finish(self, child: subprocess.Popen[str]) -> dict[str, Any]:
        """Wait for a ``run``/``recover`` child and return its recorded ``RunResult``."""
        try:
            out, err = child.communicate(timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            out, err = child.communicate()
            raise AssertionError(f"child timed out: {err[-3000:]}") from None
        lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        assert child.returncode == 0 and lines, f"child failed ({child.returncode}): {err[-3000:]}"
        result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
        return result

    def run(self, role: str, *args: str, **extra: str) -> dict[str, Any]:
        return self.finish(self.spawn(role, *args, **extra))

    def call(self, role: str, *args: str) -> str:
        """Run a short helper role to completion; its stdout."""
        done = subprocess.run(
            [sys.executable, str(APP), role, "--db", self.db, *args],
            env=self._env(role), capture_output=True, text=True, timeout=CHILD_TIMEOUT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def rows(self, name: str) -> list[dict[str, Any]]:
        path = self.log / name
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def begins(self) -> Counter[str]:
        return Counter(r["call"] for r in self.rows("executions.jsonl") if r["at"] == "begin")

    def ends(self) -> Counter[str]:
        return Counter(r["call"] for r in self.rows("executions.jsonl") if r["at"] == "end")

    def ledger(self, call_id: str) -> list[tuple[str, str | None]]:
        return [
            (r["status"], r["reason"]) for r in self.rows("ledger.jsonl") if r["call"] == call_id
        ]

    def stop(self) -> None:
        for child in self.children:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.communicate()


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Iterator[App]:
    log = tmp_path / "log"
    log.mkdir()
    app = App(db=f"sqlite:///{tmp_path / 'dbos.sqlite'}", log=log)
    try:
        yield app
    finally:
        app.stop()

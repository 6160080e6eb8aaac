"""Child-process harness: DBOS holds one instance per process, so each scenario role runs in
its own interpreter (which also gives the tests real ``kill -9`` points)."""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
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
    outputs: dict[int, tuple[Path, Path]] = field(default_factory=dict)

    def _env(self, role: str, hang: str = "", **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(PRISM_TEST_LOG=str(self.log), PRISM_TEST_ROLE=role, PRISM_TEST_HANG=hang)
        env.update(extra)
        return env

    def spawn(self, role: str, *args: str, hang: str = "", **extra: str) -> subprocess.Popen[str]:
        """Start a role in the background (its own session, so it can be killed whole)."""
        n = len(self.outputs)
        out, err = self.log / f"{role}-{n}.out", self.log / f"{role}-{n}.err"
        with out.open("w") as stdout, err.open("w") as stderr:  # files never fill up and block
            child = subprocess.Popen(
                [sys.executable, str(APP), role, "--db", self.db, *args],
                env=self._env(role, hang, **extra), stdout=stdout, stderr=stderr, text=True,
                start_new_session=True,
            )  # fmt: skip
        self.children.append(child)
        self.outputs[child.pid] = (out, err)
        return child

    def output(self, child: subprocess.Popen[str]) -> tuple[str, str]:
        """What ``child`` wrote to stdout and stderr so far."""
        out, err = self.outputs[child.pid]
        return out.read_text(), err.read_text()

    def wait_reached(self, point: str) -> subprocess.Popen[str]:
        """Wait until some child reaches kill point ``point``; that child."""
        marker = self.log / f"reached-{point}"
        deadline = time.monotonic() + CHILD_TIMEOUT
        while not marker.exists():
            for child in self.children:
                if child.poll() not in (None, 0):
                    _, err = self.output(child)
                    raise AssertionError(f"a child exited {child.returncode}: {err[-3000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no child reached {point} in {CHILD_TIMEOUT} s")
            time.sleep(0.05)
        time.sleep(0.05)  # the pid is written right after the file is created
        pid = int(marker.read_text())
        marker.unlink()
        return next(c for c in self.children if c.pid == pid)

    def kill(self, child: subprocess.Popen[str]) -> None:
        """``kill -9`` a child and its whole session."""
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=CHILD_TIMEOUT)
        self.children.remove(child)

    def kill_at(self, point: str, role: str, *args: str, **extra: str) -> None:
        """Start ``role``, wait until it reaches kill point ``point``, then ``kill -9`` it."""
        self.spawn(role, *args, hang=point, **extra)
        self.kill(self.wait_reached(point))

    def finish(self, child: subprocess.Popen[str]) -> dict[str, Any]:
        """Wait for a ``run``/``recover`` child and return its recorded ``RunResult``."""
        try:
            child.wait(timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            raise AssertionError(f"child timed out: {self.output(child)[1][-3000:]}") from None
        out, err = self.output(child)
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
                child.wait()


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Iterator[App]:
    log = tmp_path / "log"
    log.mkdir()
    app = App(db=f"sqlite:///{tmp_path / 'dbos.sqlite'}", log=log)
    try:
        yield app
    finally:
        app.stop()


def _postgres_bindir() -> Path | None:
    """Where initdb and pg_ctl live: ``pg_config --bindir``, Debian's layout, or PATH."""
    candidates: list[Path] = []
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            candidates.append(Path(out.stdout.strip()))
    except (OSError, subprocess.TimeoutExpired):
        pass
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    found = shutil.which("initdb")
    if found:
        candidates.append(Path(found).resolve().parent)
    for bindir in candidates:
        if (bindir / "initdb").exists() and (bindir / "pg_ctl").exists():
            return bindir
    return None


def _as_server_user(cmd: list[str]) -> list[str]:
    """initdb refuses root: run the server tools as ``postgres`` when we are root."""
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@dataclass
class Postgres:
    """A private PostgreSQL server on a Unix socket in a temp dir."""

    root: Path
    port: int

    def url(self, database: str) -> str:
        return f"postgresql://postgres@localhost:{self.port}/{database}?host={self.root}"


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    bindir = _postgres_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found; .ci/run installs them")
    root = Path(tempfile.mkdtemp(prefix="prism-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    port = random.randint(20_000, 60_000)
    run = functools.partial(subprocess.run, capture_output=True, text=True, timeout=120)
    done = run(_as_server_user([str(bindir / "initdb"), "-D", str(data), "-U", "postgres",
                                "-A", "trust", "--no-sync"]))  # fmt: skip
    assert done.returncode == 0, done.stderr
    options = f"-p {port} -k {root} -c listen_addresses='' -c fsync=off -c max_connections=200"
    done = run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-o", options,
                                "-l", str(root / "server.log"), "-w", "start"]))  # fmt: skip
    assert done.returncode == 0, done.stderr + (root / "server.log").read_text()
    try:
        yield Postgres(root=root, port=port)
    finally:
        run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]))
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_app(postgres: Postgres, tmp_path: Path) -> Iterator[App]:
    log = tmp_path / "log"
    log.mkdir()
    app = App(db=postgres.url(f"prism_{os.urandom(4).hex()}"), log=log)
    try:
        yield app
    finally:
        app.stop()

"""Child-process harness: DBOS holds one instance per process, so each scenario role runs in
its own process (which also gives the tests real ``kill -9`` points).

Importing DBOS takes seconds, so children are forked from a fork server that imported it once
(``multiprocessing``'s ``forkserver`` with a preload); each child is still a fresh process of
its own session, running ``scenario_app.py`` as ``__main__`` with its own environment.
"""

from __future__ import annotations

import contextlib
import functools
import json
import multiprocessing
import multiprocessing.context
import os
import random
import runpy
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

APP = Path(__file__).with_name("scenario_app.py")
BOOT = Path(__file__).with_name("forked_child.py")
CHILD_TIMEOUT = 90.0


@functools.cache
def _fork_server() -> multiprocessing.context.ForkServerContext:
    """The fork server children come from (started with the first child, DBOS preloaded)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["dbos", "prism.core", "prism.dbos"])
    return context


class Child:
    """A forked scenario process, with the parts of ``subprocess.Popen`` the tests use."""

    def __init__(self, args: list[str], env: dict[str, str], out: Path, err: Path) -> None:
        self.args = args
        boot = {"argv": args, "env": env, "out": str(out), "err": str(err)}
        self._process = _fork_server().Process(
            target=runpy.run_path, args=(str(BOOT),), kwargs={"init_globals": {"BOOT": boot}}
        )
        self._process.start()
        assert self._process.pid is not None
        self.pid: int = self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code, ``-signal`` if killed, ``None`` while running (as with ``Popen``)."""
        return self._process.exitcode

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self._process.exitcode

    def kill_session(self) -> None:
        """``kill -9`` the child's session (just the child if it has not made one yet)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


@dataclass
class App:
    """One durable app on one database, with its JSONL logs in ``log``."""

    db: str
    log: Path
    children: list[Child] = field(default_factory=list)
    outputs: dict[int, tuple[Path, Path]] = field(default_factory=dict)

    def _env(self, role: str, hang: str = "", **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(PRISM_TEST_LOG=str(self.log), PRISM_TEST_ROLE=role, PRISM_TEST_HANG=hang)
        env.update(extra)
        return env

    def spawn(self, role: str, *args: str, hang: str = "", **extra: str) -> Child:
        """Start a role in the background (its own session, so it can be killed whole)."""
        n = len(self.outputs)
        out, err = self.log / f"{role}-{n}.out", self.log / f"{role}-{n}.err"
        out.touch()  # output goes to files: they never fill up and block
        err.touch()
        argv = [str(APP), role, "--db", self.db, *args]
        child = Child(argv, self._env(role, hang, **extra), out, err)
        self.children.append(child)
        self.outputs[child.pid] = (out, err)
        return child

    def output(self, child: Child) -> tuple[str, str]:
        """What ``child`` wrote to stdout and stderr so far."""
        out, err = self.outputs[child.pid]
        return out.read_text(), err.read_text()

    def wait_reached(self, point: str) -> Child:
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

    def release(self, point: str) -> None:
        """Let a child paused at ``point`` (``PRISM_TEST_PAUSE``) go on."""
        (self.log / f"release-{point}").touch()

    def line(self, child: Child, prefix: str) -> str:
        """Wait (bounded) until a running ``child`` printed a line starting with ``prefix``."""
        deadline = time.monotonic() + CHILD_TIMEOUT
        while True:
            out, err = self.output(child)
            found = [ln for ln in out.splitlines() if ln.startswith(prefix)]
            if found:
                return found[-1][len(prefix) :].strip()
            if child.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no {prefix!r} line from the child: {err[-3000:]}")
            time.sleep(0.05)

    def approve(self, call_id: str, *extra: str, run_id: str = "run-1") -> str:
        """Send a decision from a fresh process; what ``send_approval`` said happened."""
        out = self.call("approve", "--run-id", run_id, "--call-id", call_id, *extra)
        return next(ln for ln in out.splitlines() if ln.startswith("DELIVERY ")).split()[1]

    def kill(self, child: Child) -> None:
        """``kill -9`` a child and its whole session."""
        child.kill_session()
        child.wait(timeout=CHILD_TIMEOUT)
        self.children.remove(child)

    def kill_at(self, point: str, role: str, *args: str, **extra: str) -> None:
        """Start ``role``, wait until it reaches kill point ``point``, then ``kill -9`` it."""
        self.spawn(role, *args, hang=point, **extra)
        self.kill(self.wait_reached(point))

    def finish(self, child: Child) -> dict[str, Any]:
        """Wait for a ``run``/``recover`` child and return its recorded ``RunResult``."""
        out, err = self.completed(child)
        lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        assert child.returncode == 0 and lines, f"child failed ({child.returncode}): {err[-3000:]}"
        result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
        return result

    def run(self, role: str, *args: str, **extra: str) -> dict[str, Any]:
        return self.finish(self.spawn(role, *args, **extra))

    def completed(self, child: Child) -> tuple[str, str]:
        """Wait (bounded) for ``child`` to exit; its stdout and stderr."""
        try:
            child.wait(timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill_session()
            child.wait()
            raise AssertionError(f"child timed out: {self.output(child)[1][-3000:]}") from None
        return self.output(child)

    def call(self, role: str, *args: str) -> str:
        """Run a short helper role to completion; its stdout."""
        child = self.spawn(role, *args)
        out, err = self.completed(child)
        assert child.returncode == 0, f"{role} failed ({child.returncode}): {err[-3000:]}"
        return out

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

    def outcomes(self, call_id: str) -> list[str]:
        """The outcome rows the ledger's keyed SQLite table (row id unique) holds for a call."""
        with contextlib.closing(sqlite3.connect(self.log / "ledger.sqlite")) as db:
            rows = db.execute(
                "SELECT status FROM rows WHERE call = ? AND id LIKE '%/outcome'", (call_id,)
            ).fetchall()
        return [status for (status,) in rows]

    def stop(self) -> None:
        for child in self.children:
            if child.poll() is None:
                child.kill_session()
                child.wait(timeout=CHILD_TIMEOUT)


@contextlib.contextmanager
def memory_folder(prefix: str) -> Iterator[Path]:
    """A fresh folder on tmpfs when there is one, removed after: SQLite fsyncs every commit,
    which a disk makes slow (E7 on the durable host: 12 s -> 2 s), and what a ``kill -9`` of a
    test's process leaves is the same in memory (a killed process loses no written page)."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=shm if os.access(shm, os.W_OK) else None))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def sqlite_app() -> Iterator[App]:
    with memory_folder("prism-dbos-app-") as folder:
        log = folder / "log"
        log.mkdir()
        app = App(db=f"sqlite:///{folder / 'dbos.sqlite'}", log=log)
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
def postgres_app(postgres: Postgres) -> Iterator[App]:
    with memory_folder("prism-dbos-app-") as folder:  # the ledger is a SQLite file in it
        log = folder / "log"
        log.mkdir()
        app = App(db=postgres.url(f"prism_{os.urandom(4).hex()}"), log=log)
        try:
            yield app
        finally:
            app.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def each_app(request: pytest.FixtureRequest) -> App:
    """The same scenario on an embedded SQLite file and on a private PostgreSQL server."""
    app: App = request.getfixturevalue(f"{request.param}_app")
    return app


@pytest.fixture(scope="session")
def durable_host_poll_seconds() -> float:
    """The ``notification_poll_seconds`` the session's ``durable_host`` launches with."""
    return 0.05


@pytest.fixture(scope="session")
def durable_host(durable_host_poll_seconds: float) -> Iterator[None]:
    """DBOS in this process on a SQLite file, launched once for the session (DBOS keeps one
    instance per process); for tests that run durable turns here rather than in children."""
    from dbos import DBOS

    from prism.dbos import launch_dbos

    with memory_folder("prism-durable-host-") as folder:
        url = f"sqlite:///{folder / 'dbos.sqlite'}"
        launch_dbos(
            app_name="prism-tests",
            database_url=url,
            notification_poll_seconds=durable_host_poll_seconds,
        )
        try:
            yield
        finally:
            DBOS.destroy(destroy_registry=False)

"""Process ceiling against a fork bomb, a truthful capability report, ``require`` fails closed."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import pytest

from prism.coding_security import BubblewrapSandbox, SandboxUnavailableError
from prism.coding_security._sandbox import _probe, _seccomp
from prism.coding_tools import ExecResult

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap_ready")]


def _matching(marker: bytes) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    count += marker in handle.read()
            except OSError:
                continue
    return count


class _Counter:
    """Polls the host's /proc for processes carrying ``marker``; keeps the peak."""

    def __init__(self, marker: str) -> None:
        self.marker = marker.encode()
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, _matching(self.marker))
            time.sleep(0.05)

    def __enter__(self) -> _Counter:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(5)


async def test_a_fork_bomb_hits_the_ceiling_and_the_host_stays_responsive(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    sandbox = BubblewrapSandbox(root=host_dir, max_processes=48)
    kind = sandbox.capabilities.process_limit
    if kind is None:
        pytest.skip("no process ceiling holds here: root host without a writable pids cgroup")
    marker = f"bomb{os.getpid()}x{time.time_ns() % 100000}"
    responsive: list[bool] = []

    async def host_work() -> None:
        await anyio.sleep(1.0)
        done = await anyio.run_process(["true"], check=False)
        responsive.append(done.returncode == 0)

    with _Counter(marker) as counter:
        async with anyio.create_task_group() as group:
            group.start_soon(host_work)
            result, output = await run_sandboxed(
                sandbox,
                f"bomb() {{ bomb | bomb & }}; bomb; sleep 30 # {marker}",
                host_dir,
                timeout_seconds=3,
            )
    assert result.timed_out or result.exit_code not in (0, None)
    assert responsive == [True]
    assert counter.peak <= 48 + 4, counter.peak  # two bwrap processes carry the marker too
    if kind == "cgroup":
        assert "process ceiling (48 processes) was reached" in output
    await anyio.sleep(0.3)
    assert _matching(marker.encode()) == 0


async def test_the_ceiling_is_set_inside(host_dir: Path, run_sandboxed: RunSandbox) -> None:
    _, output = await run_sandboxed(
        BubblewrapSandbox(root=host_dir, max_processes=77), "ulimit -u", host_dir
    )
    assert output.split() == ["77"]


def test_the_capability_report_names_each_control(host_dir: Path) -> None:
    capabilities = BubblewrapSandbox(root=host_dir).capabilities
    assert capabilities.user_namespace
    assert capabilities.seccomp_filter == (_seccomp.native_arch() in ("x86_64", "aarch64"))
    assert capabilities.unix_sockets_blocked == capabilities.seccomp_filter
    assert capabilities.protected_paths_readonly
    assert capabilities.secrets_masked
    no_cgroup = BubblewrapSandbox(root=host_dir, use_cgroup=False).capabilities
    expected = None if os.getuid() == 0 else "rlimit"
    assert no_cgroup.process_limit == expected
    broken = BubblewrapSandbox(root=host_dir, bwrap_path="/bin/false").capabilities
    assert not broken.user_namespace
    assert not broken.filesystem_isolated


@pytest.mark.parametrize(
    ("options", "missing"),
    [
        ({"bwrap_path": "/bin/false", "require": ["user_namespace"]}, "user_namespace"),
        ({"network": True, "require": ["network_isolated"]}, "network_isolated"),
        ({"deny_read": [], "require": ["secrets_masked"]}, "secrets_masked"),
        (
            {"allow_unix_sockets": ["/run/x.sock"], "require": ["unix_sockets_blocked"]},
            "unix_sockets_blocked",
        ),
        ({"use_cgroup": False, "require": ["cgroup"]}, "cgroup"),
    ],
)
async def test_require_fails_closed_when_a_control_is_missing(
    host_dir: Path, run_sandboxed: RunSandbox, options: dict[str, object], missing: str
) -> None:
    sandbox = BubblewrapSandbox(root=host_dir, **options)  # type: ignore[arg-type]
    with pytest.raises(SandboxUnavailableError, match=f"lacks required controls.*{missing}"):
        await run_sandboxed(sandbox, "touch ran", host_dir)
    assert not (host_dir / "ran").exists()


def test_unknown_required_controls_are_refused(host_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"BubblewrapSandbox\.require must be names of known"):
        BubblewrapSandbox(root=host_dir, require=["landlock"])


@pytest.fixture
def foreign_arch(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(_seccomp, "native_arch", lambda: "riscv64")
    _probe.seccomp_available.cache_clear()
    yield
    monkeypatch.undo()
    _probe.seccomp_available.cache_clear()


@pytest.mark.usefixtures("foreign_arch")
async def test_an_architecture_without_a_filter_fails_closed(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    sandbox = BubblewrapSandbox(root=host_dir)
    assert not sandbox.capabilities.seccomp_filter
    assert not sandbox.capabilities.unix_sockets_blocked
    with pytest.raises(SandboxUnavailableError, match="riscv64"):
        await run_sandboxed(sandbox, "touch ran", host_dir)
    assert not (host_dir / "ran").exists()


async def test_no_cgroup_is_left_behind(
    host_dir: Path, run_sandboxed: RunSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leaves this test's commands created are gone (not a machine-wide count, which
    sandboxes of other test processes running at the same time would change)."""
    from prism.coding_security._sandbox._cgroup import CgroupLeaf, detect_cgroup_parent

    if detect_cgroup_parent(None) is None:
        pytest.skip("no writable pids cgroup on this host")
    created: list[str] = []
    original = CgroupLeaf.__init__

    def recording(self: CgroupLeaf, parent: str, max_processes: int) -> None:
        original(self, parent, max_processes)
        created.append(self.path)

    monkeypatch.setattr(CgroupLeaf, "__init__", recording)
    sandbox = BubblewrapSandbox(root=host_dir)
    _, output = await run_sandboxed(sandbox, "sleep 2 & echo started", host_dir)
    assert "started" in output
    result, _ = await run_sandboxed(sandbox, "sleep 20", host_dir, timeout_seconds=0.5)
    assert result.timed_out
    assert len(created) == 2, created
    assert not [path for path in created if await anyio.Path(path).exists()]

"""The sandbox seam: option validation, the bwrap command line, and the ShellOperations adapter."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from prism.coding_security._sandbox import _protocol
from prism.coding_security._sandbox._bwrap import BubblewrapSandbox
from prism.coding_security._sandbox._protocol import (
    Sandbox,
    SandboxCapabilities,
    SandboxUnavailableError,
    create_sandbox_bash_operations,
)
from prism.coding_tools import ExecResult
from prism.core import AbortController, AbortSignal
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("max_memory_bytes", 0, "max_memory_bytes"),
        ("max_memory_bytes", 1024**4 + 1, "1,099,511,627,776"),
        ("max_memory_bytes", True, "max_memory_bytes"),
        ("max_memory_bytes", 1.5, "max_memory_bytes"),
        ("max_cpu_seconds", 0, "max_cpu_seconds"),
        ("max_cpu_seconds", float("inf"), "max_cpu_seconds"),
        ("max_cpu_seconds", 86_400.5, "86400"),
        ("max_file_size_bytes", -1, "max_file_size_bytes"),
        ("max_open_files", 1_048_577, "1,048,576"),
        ("network", 1, "network"),
        ("bwrap_path", "", "bwrap_path"),
    ],
)
def test_invalid_limits_raise_naming_the_option(
    tmp_path: Path, option: str, value: object, message: str
) -> None:
    wrong_type = value is True or value == 1.5 or option == "network"
    with pytest.raises(TypeError if wrong_type else ValueError, match=message):
        BubblewrapSandbox(root=tmp_path, **{option: value})  # type: ignore[arg-type]


def test_limits_at_the_cap_are_accepted(tmp_path: Path) -> None:
    BubblewrapSandbox(
        root=tmp_path,
        max_memory_bytes=1024**4,
        max_cpu_seconds=86_400,
        max_file_size_bytes=1024**4,
        max_open_files=1_048_576,
    )


def test_root_and_writable_must_be_existing_absolute_directories(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="root"):
        BubblewrapSandbox(root=tmp_path / "missing")
    with pytest.raises(ValueError, match="absolute"):
        BubblewrapSandbox(root="relative")
    with pytest.raises(ValueError, match="writable"):
        BubblewrapSandbox(root=tmp_path, writable=[tmp_path / "missing"])
    with pytest.raises(TypeError, match="writable"):
        BubblewrapSandbox(root=tmp_path, writable=str(tmp_path))
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    assert BubblewrapSandbox(root=link).root == str(tmp_path.resolve())


def test_command_line_isolates_everything(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    sandbox = BubblewrapSandbox(root=tmp_path, writable=[extra])
    argv = sandbox.argv("/usr/bin/bwrap", "make test", cwd=str(tmp_path), marker_fd=9, seccomp_fd=8)
    joined = " ".join(argv)
    for flag in (
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--cap-drop ALL",
        "--new-session",
        "--die-with-parent",
        "--ro-bind / /",
        "--dev /dev",
        "--proc /proc",
        "--tmpfs /tmp",
        f"--bind {tmp_path.resolve()} {tmp_path.resolve()}",
        f"--bind {extra.resolve()} {extra.resolve()}",
        "--seccomp 8",
        "--ro-bind /dev/null /etc/shadow",
    ):
        assert flag in joined, flag
    assert "--share-net" not in argv
    assert argv[-1] == "make test"  # the command is an argument, never spliced into a script
    assert joined.index("--tmpfs /tmp") < joined.index("--bind ")
    granted = BubblewrapSandbox(root=tmp_path, network=True)
    assert "--share-net" in granted.argv("bwrap", "x", cwd="/", marker_fd=9, seccomp_fd=8)
    assert not granted.capabilities.network_isolated
    assert isinstance(sandbox, Sandbox)


class _FakeSandbox:
    """A scripted Sandbox: records calls, then behaves per ``mode``."""

    capabilities = SandboxCapabilities(
        filesystem_isolated=False,
        network_isolated=False,
        process_isolated=False,
        privilege_isolated=False,
    )

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.timeouts: list[float | None] = []

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
        self.timeouts.append(timeout_seconds)
        on_data(b"chunk")
        if self.mode == "hang":
            await anyio.sleep_forever()
        if self.mode == "late-none":
            await anyio.sleep(timeout_seconds or 0)
            return ExecResult(exit_code=None)
        if self.mode == "none":
            return ExecResult(exit_code=None)
        if self.mode == "unavailable":
            raise SandboxUnavailableError("no sandbox")
        return ExecResult(exit_code=0)


async def _exec(sandbox: Any, timeout: float | None, signal: AbortSignal | None = None) -> Any:
    operations = create_sandbox_bash_operations(sandbox)
    chunks: list[bytes] = []
    with anyio.fail_after(scaled(10)):
        result = await operations.exec(
            "cmd",
            cwd=os.getcwd(),
            env={},
            on_data=chunks.append,
            signal=signal,
            timeout_seconds=timeout,
        )
    assert chunks == [b"chunk"]
    return result


async def test_seconds_pass_through_unchanged() -> None:
    fake = _FakeSandbox("ok")
    assert (await _exec(fake, 600.0)).exit_code == 0
    assert (await _exec(fake, None)).exit_code == 0
    assert fake.timeouts == [600.0, None]


async def test_a_sandbox_ignoring_its_timeout_is_cut_off_as_a_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_protocol, "RESULT_GRACE_SECONDS", 0.1)
    result = await _exec(_FakeSandbox("hang"), 0.2)
    assert result == ExecResult(exit_code=None, timed_out=True)


async def test_exit_code_none_after_the_timeout_is_a_timeout_not_a_success() -> None:
    result = await _exec(_FakeSandbox("late-none"), 0.1)
    assert result == ExecResult(exit_code=None, timed_out=True)


async def test_exit_code_none_after_abort_is_an_abort() -> None:
    controller = AbortController()
    controller.abort("x")
    result = await _exec(_FakeSandbox("none"), 5.0, controller.signal)
    assert result == ExecResult(exit_code=None, aborted=True)


async def test_unexplained_exit_code_none_is_a_failure() -> None:
    with pytest.raises(SandboxUnavailableError, match="neither an exit code"):
        await _exec(_FakeSandbox("none"), 5.0)


async def test_unavailable_sandbox_propagates() -> None:
    with pytest.raises(SandboxUnavailableError, match="no sandbox"):
        await _exec(_FakeSandbox("unavailable"), 5.0)


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), True])
async def test_invalid_timeouts_are_refused(timeout: float) -> None:
    operations = create_sandbox_bash_operations(_FakeSandbox("ok"))
    with pytest.raises(TypeError if timeout is True else ValueError, match="timeout_seconds"):
        await operations.exec(
            "x", cwd="/", env={}, on_data=lambda _: None, signal=None, timeout_seconds=timeout
        )


def test_non_sandbox_is_refused() -> None:
    with pytest.raises(TypeError, match="Sandbox protocol"):
        create_sandbox_bash_operations(object())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"allow_unix_sockets": "/run/x.sock"}, "allow_unix_sockets must be a sequence of"),
        ({"allow_unix_sockets": ["relative.sock"]}, "allow_unix_sockets[0] must be an absolute"),
        ({"allow_read": ["~/.cache"]}, "allow_read[0] must be an absolute path, got '~/.cache'"),
        (
            {"deny_read": ["secrets"]},
            "deny_read[0] must be absolute or start with ~/, got 'secrets'",
        ),
        ({"protected": [""]}, "protected[0] must be a non-empty string, got ''"),
        ({"protected": ["/abs"]}, "ProtectedPaths.extra[0] must be a relative name or path, got"),
        ({"git": "none"}, "git must be one of 'all', 'code', got 'none'"),
        ({"read_mode": "open"}, "read_mode must be one of 'allow', 'deny', got 'open'"),
        (
            {"max_processes": 0},
            "max_processes must be an int from 1 to 1,048,576 (hard cap), got 0",
        ),
        ({"use_cgroup": 1}, "use_cgroup must be True or False, got 1"),
        ({"cgroup_parent": "sys/fs/cgroup"}, "cgroup_parent must be an absolute path, got 'sys/"),
        ({"protected_scan_limit": 0}, "protected_scan_limit must be an int from 1 to 10,000,000"),
        ({"require": ["landlock"]}, "require must be names of known capabilities"),
    ],
)
def test_new_options_are_validated_with_the_field_named(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    wrong_type = options in ({"allow_unix_sockets": "/run/x.sock"}, {"use_cgroup": 1})
    with pytest.raises(TypeError if wrong_type else ValueError, match=re.escape(message)) as raised:
        BubblewrapSandbox(root=tmp_path, **options)  # type: ignore[arg-type]
    assert str(raised.value).startswith("BubblewrapSandbox.")

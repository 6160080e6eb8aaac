"""No host Unix sockets from inside the sandbox: the seccomp filter, observed from the host."""

from __future__ import annotations

import shlex
import socket
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from prism.coding_security import BubblewrapSandbox, SandboxUnavailableError
from prism.coding_security._sandbox._seccomp import SeccompUnsupportedError, build_filter
from prism.coding_tools import ExecResult
from prism.conformance._unix_listener import UnixListener

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap_ready")]


def _client(path: Path, family: str = "AF_UNIX") -> str:
    code = (
        "import socket,sys\n"
        f"s = socket.socket(socket.{family}, socket.SOCK_STREAM)\n"
        f"s.connect({str(path)!r}); s.sendall(b'SECRET-PAYLOAD'); print('CONNECTED')\n"
    )
    return f"/usr/bin/python3 -c {shlex.quote(code)}"


@pytest.mark.parametrize("network", [False, True])
async def test_a_host_unix_socket_in_the_workspace_receives_nothing(
    host_dir: Path, run_sandboxed: RunSandbox, network: bool
) -> None:
    listener = UnixListener(host_dir / "agent.sock")
    try:
        sandbox = BubblewrapSandbox(root=host_dir, network=network)
        tries = [_client(host_dir / "agent.sock"), f"nc -U {host_dir}/agent.sock </dev/null"]
        result, output = await run_sandboxed(sandbox, "; ".join(tries) + "; true", host_dir)
    finally:
        listener.close()
    assert result.exit_code == 0
    assert "CONNECTED" not in output
    assert listener.accepted == 0
    assert bytes(listener.received) == b""


async def test_socketpair_and_inet_sockets_still_work(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    code = (
        "import socket\n"
        "a, b = socket.socketpair(); a.sendall(b'ping'); print(b.recv(4).decode())\n"
        "socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(); print('INET-OK')\n"
    )
    result, output = await run_sandboxed(
        BubblewrapSandbox(root=host_dir, loopback=True),
        f"/usr/bin/python3 -c {shlex.quote(code)}",
        host_dir,
    )
    assert result.exit_code == 0, output
    assert "ping" in output
    assert "INET-OK" in output


async def test_io_uring_cannot_be_set_up(host_dir: Path, run_sandboxed: RunSandbox) -> None:
    """io_uring can open sockets without passing through seccomp, so it is refused outright."""
    code = (
        "import ctypes, ctypes.util\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "params = ctypes.create_string_buffer(120)\n"
        "fd = libc.syscall(425, 4, params)\n"
        "print('URING', fd, ctypes.get_errno())\n"
    )
    _, output = await run_sandboxed(
        BubblewrapSandbox(root=host_dir), f"/usr/bin/python3 -c {shlex.quote(code)}", host_dir
    )
    assert "URING -1 1" in output  # EPERM


async def test_an_allowlisted_socket_is_reachable_and_reported_as_unblocked(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    path = host_dir / "allowed.sock"
    listener = UnixListener(path)
    try:
        sandbox = BubblewrapSandbox(root=host_dir, allow_unix_sockets=[str(path)])
        assert not sandbox.capabilities.unix_sockets_blocked
        assert sandbox.capabilities.seccomp_filter
        result, output = await run_sandboxed(sandbox, _client(path), host_dir)
    finally:
        listener.close()
    assert "CONNECTED" in output, output
    assert result.exit_code == 0


def test_the_filter_checks_the_architecture_first() -> None:
    program = build_filter("x86_64")
    first = struct.unpack("=HBBI", program[:8])
    assert first == (0x20, 0, 0, 4)  # load seccomp_data.arch
    assert len(program) % 8 == 0
    assert build_filter("arm64") == build_filter("aarch64")
    assert build_filter("x86_64", block_unix=False) != program


def test_an_unsupported_architecture_fails_closed() -> None:
    with pytest.raises(SeccompUnsupportedError, match=r"'riscv64'.*not run"):
        build_filter("riscv64")
    assert issubclass(SeccompUnsupportedError, OSError)
    assert issubclass(SandboxUnavailableError, OSError)


@pytest.mark.parametrize("kind", ["SOCK_DGRAM", "SOCK_SEQPACKET", "SOCK_STREAM"])
async def test_a_socketpair_cannot_be_pointed_at_a_host_socket(
    host_dir: Path, run_sandboxed: RunSandbox, kind: str
) -> None:
    """A datagram socket can sendto/re-connect anywhere, so only tied pairs are allowed."""
    target = host_dir / "log.sock"
    host = socket.socket(socket.AF_UNIX, getattr(socket, kind))
    host.bind(str(target))
    if kind != "SOCK_DGRAM":
        host.listen(4)
    host.setblocking(False)
    code = (
        "import socket\n"
        "try:\n"
        f"    a, b = socket.socketpair(socket.AF_UNIX, socket.{kind} | socket.SOCK_CLOEXEC)\n"
        "except OSError as error:\n"
        "    raise SystemExit(f'PAIR-DENIED {error.errno}')\n"
        "a.sendall(b'x'); print('PAIR-OK', b.recv(1))\n"
        "for attempt in ('sendto', 'connect'):\n"
        "    try:\n"
        f"        a.sendto(b'ESCAPED', {str(target)!r}) if attempt == 'sendto' else "
        f"a.connect({str(target)!r})\n"
        "        print('returned', attempt)\n"
        "    except OSError as error:\n"
        "        print('refused', attempt, error.errno)\n"
    )
    try:
        _, output = await run_sandboxed(
            BubblewrapSandbox(root=host_dir), f"/usr/bin/python3 -c {shlex.quote(code)}", host_dir
        )
        received = b""
        try:
            received = host.recv(100) if kind == "SOCK_DGRAM" else host.accept()[0].recv(100)
        except BlockingIOError:
            pass
    finally:
        host.close()
    assert received == b""  # a seqpacket sendto ignores the address and goes to the pair
    assert "returned connect" not in output
    if kind == "SOCK_DGRAM":
        assert "PAIR-DENIED 97" in output
    else:
        assert "PAIR-OK" in output


async def test_allow_read_mode_shows_only_the_allowlisted_socket(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    workspace = host_dir / "ws"
    workspace.mkdir()
    allowed, other = UnixListener(host_dir / "allowed.sock"), UnixListener(host_dir / "other.sock")
    try:
        sandbox = BubblewrapSandbox(
            root=workspace, read_mode="allow", allow_unix_sockets=[str(host_dir / "allowed.sock")]
        )
        _, output = await run_sandboxed(
            sandbox,
            f"{_client(host_dir / 'allowed.sock')}; {_client(host_dir / 'other.sock')}; true",
            workspace,
        )
    finally:
        allowed.close()
        other.close()
    assert allowed.accepted == 1
    assert other.accepted == 0
    assert bytes(other.received) == b""
    assert output.count("CONNECTED") == 1

"""Socket families by allowlist: every family outside it is refused inside the real sandbox.

Each denied family is tried twice with real ``socket()`` calls: under the same bwrap isolation
without Prism's filter (what a host without the allowlist gives a command) and through
``BubblewrapSandbox``. A family the bare isolation opens (``AF_VSOCK`` reaches a VM host's
services, ``AF_ALG`` the kernel crypto API) must be refused by the sandbox with ``EAFNOSUPPORT``.
"""

from __future__ import annotations

import errno
import json
import shlex
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from prism.coding_security import BubblewrapSandbox
from prism.coding_security._sandbox._bwrap import BWRAP_ISOLATION
from prism.coding_tools import ExecResult

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap_ready")]

DENIED: dict[str, tuple[int, int, int]] = {
    "AF_VSOCK": (40, 1, 0),
    "AF_PACKET": (17, 2, 0),
    "AF_BLUETOOTH": (31, 5, 0),
    "AF_ALG": (38, 5, 0),
    "AF_TIPC": (30, 5, 0),
    "AF_CAN": (29, 2, 1),
    "AF_RDS": (21, 5, 0),
    "AF_KEY": (15, 3, 2),
    "AF_XDP": (44, 3, 0),
    "AF_LLC": (26, 2, 0),
    "AF_APPLETALK": (5, 2, 0),
    "AF_X25": (9, 5, 0),
    "AF_QIPCRTR": (42, 2, 0),
    "AF_SMC": (43, 1, 0),
    "AF_NETLINK audit": (16, 3, 9),
    "AF_NETLINK uevent": (16, 2, 15),
    "AF_UNIX": (1, 1, 0),
}
"""Family name -> (family, type, protocol) tried with ``socket()``."""

_PROBE = """
import json, socket, sys
out = {}
for name, (family, kind, proto) in json.loads(sys.argv[1]).items():
    try:
        socket.socket(family, kind, proto).close()
        out[name] = 0
    except OSError as error:
        out[name] = error.errno
print("PROBE " + json.dumps(out))
"""


def _command(families: dict[str, tuple[int, int, int]]) -> str:
    return f"/usr/bin/python3 -c {shlex.quote(_PROBE)} {shlex.quote(json.dumps(families))}"


def _parse(output: str) -> dict[str, int]:
    line = next(line for line in output.splitlines() if line.startswith("PROBE "))
    return {name: int(code) for name, code in json.loads(line[len("PROBE ") :]).items()}


def _unfiltered(root: Path, families: dict[str, tuple[int, int, int]]) -> dict[str, int]:
    """The same isolation without Prism's seccomp filter: what the kernel alone allows."""
    binary = shutil.which("bwrap")
    assert binary is not None
    argv = [binary, *BWRAP_ISOLATION, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    done = subprocess.run(
        [*argv, "--chdir", str(root), "bash", "-c", _command(families)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return _parse(done.stdout)


@pytest.mark.parametrize("network", [False, True])
async def test_every_family_outside_the_allowlist_is_refused(
    host_dir: Path, run_sandboxed: RunSandbox, network: bool
) -> None:
    bare = _unfiltered(host_dir, DENIED)
    sandbox = BubblewrapSandbox(root=host_dir, network=network)
    result, output = await run_sandboxed(sandbox, _command(DENIED), host_dir)
    assert result.exit_code == 0, output
    boxed = _parse(output)
    for name in DENIED:
        assert boxed[name] == errno.EAFNOSUPPORT, (name, boxed[name], bare[name])
    # The attack is real here: the bare isolation opens some of these families (vsock, alg,
    # netlink audit, unix), so the refusals above come from the allowlist, not the kernel.
    assert [name for name, code in bare.items() if code == 0], bare


async def test_the_allowed_families_open(host_dir: Path, run_sandboxed: RunSandbox) -> None:
    allowed = {"AF_INET": (2, 1, 0), "AF_INET6": (10, 2, 0), "AF_NETLINK route": (16, 3, 0)}
    online = BubblewrapSandbox(root=host_dir, network=True)
    result, output = await run_sandboxed(online, _command(allowed), host_dir)
    assert result.exit_code == 0, output
    opened = _parse(output)
    assert opened["AF_INET"] == 0
    assert opened["AF_NETLINK route"] == 0
    assert opened["AF_INET6"] in (0, errno.EAFNOSUPPORT if _no_ipv6() else 0)
    pair = "import socket; a, b = socket.socketpair(); a.sendall(b'ok'); print('PAIR', b.recv(2))"
    _, output = await run_sandboxed(online, f"/usr/bin/python3 -c {shlex.quote(pair)}", host_dir)
    assert "PAIR b'ok'" in output


@pytest.mark.parametrize("loopback", [False, True])
async def test_inet_sockets_need_the_network_or_the_loopback_option(
    host_dir: Path, run_sandboxed: RunSandbox, loopback: bool
) -> None:
    inet = {"AF_INET": (2, 1, 0), "AF_INET6": (10, 1, 0)}
    sandbox = BubblewrapSandbox(root=host_dir, loopback=loopback)
    _, output = await run_sandboxed(sandbox, _command(inet), host_dir)
    opened = _parse(output)
    if loopback:
        assert opened["AF_INET"] == 0
    else:
        assert opened == {"AF_INET": errno.EAFNOSUPPORT, "AF_INET6": errno.EAFNOSUPPORT}


async def test_a_loopback_server_works_inside_with_the_loopback_option(
    host_dir: Path, run_sandboxed: RunSandbox
) -> None:
    code = (
        "import socket\n"
        "s = socket.create_server(('127.0.0.1', 0)); port = s.getsockname()[1]\n"
        "c = socket.create_connection(('127.0.0.1', port)); a, _ = s.accept()\n"
        "c.sendall(b'hi'); print('LOOP', a.recv(2))\n"
    )
    sandbox = BubblewrapSandbox(root=host_dir, loopback=True)
    result, output = await run_sandboxed(
        sandbox, f"/usr/bin/python3 -c {shlex.quote(code)}", host_dir
    )
    assert result.exit_code == 0, output
    assert "LOOP b'hi'" in output


def _no_ipv6() -> bool:
    return not Path("/proc/net/if_inet6").exists()

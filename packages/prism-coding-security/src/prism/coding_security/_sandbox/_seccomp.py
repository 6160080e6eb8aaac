"""The sandbox's seccomp filter: a classic BPF program built here for ``bwrap --seccomp FD``.

Sockets are allowed by family (an allowlist): ``AF_INET``/``AF_INET6`` only when the command may
use the network, ``AF_NETLINK`` only for routing queries (``NETLINK_ROUTE``), ``AF_UNIX`` only
as a ``socketpair`` (unless host sockets are allowlisted); every other family (``AF_VSOCK``,
``AF_PACKET``, ``AF_ALG``, ``AF_BLUETOOTH`` ...) is refused with ``EAFNOSUPPORT``. The filter also
refuses ``io_uring_setup`` (io_uring can open sockets without passing through seccomp) and x32
system calls, and kills any process that calls in with a foreign architecture (32-bit compat
entry points, where ``socketcall`` would bypass the socket rules). A ``socketpair`` stays
allowed for stream and seqpacket sockets, which stay tied to their pair; a datagram pair is
refused, because a datagram socket can ``sendto`` or re-``connect`` to any socket path.
"""

from __future__ import annotations

import errno
import os
import platform
import struct
from dataclasses import dataclass

from prism.core import PrismError

__all__ = [
    "AF_INET",
    "AF_INET6",
    "AF_NETLINK",
    "AF_UNIX",
    "SeccompUnsupportedError",
    "build_filter",
    "filter_fd",
    "native_arch",
]

# BPF instruction classes and fields (linux/bpf_common.h).
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
_AND_K = 0x04 | 0x50 | 0x00  # BPF_ALU | BPF_AND | BPF_K
_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K

# seccomp return actions (linux/seccomp.h).
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000

# struct seccomp_data offsets: int nr; u32 arch; u64 ip; u64 args[6] (little-endian low word).
_OFFSET_NR = 0
_OFFSET_ARCH = 4
_OFFSET_ARG0 = 16
_OFFSET_ARG1 = 24
_OFFSET_ARG2 = 32

AF_UNIX = 1
AF_INET = 2
AF_INET6 = 10
AF_NETLINK = 16
NETLINK_ROUTE = 0
_SOCK_TYPE_MASK = 0xF
_SOCK_STREAM = 1
_SOCK_SEQPACKET = 5
_X32_SYSCALL_BIT = 0x40000000


@dataclass(frozen=True, slots=True)
class _Arch:
    audit: int
    socket: int
    socketpair: int
    io_uring_setup: int
    x32_bit: bool


_ARCHES = {
    "x86_64": _Arch(audit=0xC000003E, socket=41, socketpair=53, io_uring_setup=425, x32_bit=True),
    "aarch64": _Arch(
        audit=0xC00000B7, socket=198, socketpair=199, io_uring_setup=425, x32_bit=False
    ),
}
_ALIASES = {"amd64": "x86_64", "arm64": "aarch64"}


class SeccompUnsupportedError(PrismError, OSError):
    """No filter can be built for this machine's architecture (the sandbox fails closed)."""


def native_arch() -> str:
    """This machine's architecture name, normalised (``x86_64``, ``aarch64``...)."""
    machine = platform.machine().lower()
    return _ALIASES.get(machine, machine)


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _assemble(program: list[tuple[int, str | int, str | int, int]]) -> bytes:
    """Resolve jump labels (``"@name"`` entries mark positions; a label names the next one)."""
    labels: dict[str, int] = {}
    real: list[tuple[int, str | int, str | int, int]] = []
    for insn in program:
        if insn[0] == -1:
            labels[str(insn[1])] = len(real)
        else:
            real.append(insn)
    out = []
    for index, (code, jt, jf, k) in enumerate(real):
        t = labels[jt] - index - 1 if isinstance(jt, str) else jt
        f = labels[jf] - index - 1 if isinstance(jf, str) else jf
        out.append(_insn(code, t, f, k))
    return b"".join(out)


def _label(name: str) -> tuple[int, str, int, int]:
    return (-1, name, 0, 0)


def build_filter(arch: str | None = None, *, block_unix: bool = True, inet: bool = True) -> bytes:
    """The BPF program (``struct sock_filter[]``) for ``arch`` (default: this machine).

    ``block_unix=False`` (a host allowlist of socket paths) allows ``AF_UNIX`` sockets;
    ``inet=False`` (no network) refuses ``AF_INET``/``AF_INET6`` too.
    """
    name = native_arch() if arch is None else _ALIASES.get(arch, arch)
    spec = _ARCHES.get(name)
    if spec is None:
        supported = ", ".join(sorted(_ARCHES))
        raise SeccompUnsupportedError(
            f"no seccomp filter for architecture {name!r} (supported: {supported}); the sandbox "
            "cannot restrict sockets here, so the command was not run"
        )
    allow, refuse = "allow", "refuse"
    program: list[tuple[int, str | int, str | int, int]] = [
        (_LD_W_ABS, 0, 0, _OFFSET_ARCH),
        (_JEQ_K, 1, 0, spec.audit),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _OFFSET_NR),
    ]
    if spec.x32_bit:
        program += [(_JGE_K, "eperm", 0, _X32_SYSCALL_BIT)]
    program += [
        (_JEQ_K, "eperm", 0, spec.io_uring_setup),
        (_JEQ_K, "pair", 0, spec.socketpair),
        (_JEQ_K, 0, allow, spec.socket),
        (_LD_W_ABS, 0, 0, _OFFSET_ARG0),
        (_JEQ_K, allow if inet else refuse, 0, AF_INET),
        (_JEQ_K, allow if inet else refuse, 0, AF_INET6),
        (_JEQ_K, allow if not block_unix else refuse, 0, AF_UNIX),
        (_JEQ_K, 0, refuse, AF_NETLINK),
        (_LD_W_ABS, 0, 0, _OFFSET_ARG2),
        (_JEQ_K, allow, refuse, NETLINK_ROUTE),
        _label("pair"),
        (_LD_W_ABS, 0, 0, _OFFSET_ARG0),
        (_JEQ_K, 0, refuse, AF_UNIX),
    ]
    if block_unix:
        program += [
            (_LD_W_ABS, 0, 0, _OFFSET_ARG1),
            (_AND_K, 0, 0, _SOCK_TYPE_MASK),
            (_JEQ_K, allow, 0, _SOCK_STREAM),
            (_JEQ_K, allow, refuse, _SOCK_SEQPACKET),
        ]
    program += [
        _label(allow),
        (_RET_K, 0, 0, _RET_ALLOW),
        _label(refuse),
        (_RET_K, 0, 0, _RET_ERRNO | errno.EAFNOSUPPORT),
        _label("eperm"),
        (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM),
    ]
    return _assemble(program)


def filter_fd(program: bytes) -> int:
    """A readable fd holding ``program`` (bwrap reads it to EOF); the caller closes it."""
    read_end, write_end = os.pipe()
    try:
        if len(program) > 65536:
            raise SeccompUnsupportedError("the seccomp program does not fit in a pipe")
        os.write(write_end, program)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return read_end

"""The seccomp BPF program, run through a small classic-BPF interpreter against its spec."""

from __future__ import annotations

import errno
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_security._sandbox._seccomp import build_filter

KILL, ALLOW = 0x80000000, 0x7FFF0000
ERRNO = 0x00050000
ARCHES = {
    "x86_64": {"audit": 0xC000003E, "socket": 41, "socketpair": 53, "x32": True},
    "aarch64": {"audit": 0xC00000B7, "socket": 198, "socketpair": 199, "x32": False},
}
IO_URING_SETUP = 425


def run_bpf(program: bytes, data: bytes) -> int:
    """Interpret the classic BPF subset the filter uses; fail on anything else."""
    insns = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    for _ in range(len(insns) + 1):
        code, jt, jf, k = insns[pc]
        if code == 0x20:  # LD W ABS
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x54:  # ALU AND K
            acc &= k
        elif code in (0x15, 0x35):  # JEQ K / JGE K
            taken = acc == k if code == 0x15 else acc >= k
            pc += jt if taken else jf
        elif code == 0x06:  # RET K
            return int(k)
        else:
            raise AssertionError(f"unexpected BPF opcode {code:#x} at {pc}")
        pc += 1
    raise AssertionError("the program did not return")


def seccomp_data(nr: int, arch: int, arg0: int, arg1: int, arg2: int = 0) -> bytes:
    return struct.pack("=iIQ6Q", nr, arch, 0, arg0, arg1, arg2, 0, 0, 0)


def expected(
    name: str, arch: int, nr: int, args: tuple[int, int, int], block_unix: bool, inet: bool
) -> int:
    """The filter's specification, written independently of its instructions."""
    spec = ARCHES[name]
    family, kind, protocol = (a & 0xFFFFFFFF for a in args)
    refused = ERRNO | errno.EAFNOSUPPORT
    if arch != spec["audit"]:
        return KILL
    if spec["x32"] and nr >= 0x40000000:
        return ERRNO | errno.EPERM
    if nr == IO_URING_SETUP:
        return ERRNO | errno.EPERM
    if nr == spec["socketpair"]:
        if family != 1:
            return refused
        return ALLOW if not block_unix or (kind & 0xF) in (1, 5) else refused
    if nr == spec["socket"]:
        allowed = (
            (family in (2, 10) and inet)
            or (family == 1 and not block_unix)
            or (family == 16 and protocol == 0)
        )
        return ALLOW if allowed else refused
    return ALLOW


interesting_nr = st.one_of(
    st.sampled_from([41, 53, 198, 199, 425, 0, 1, 59, 0x40000000 + 41, 0xFFFFFFFF]),
    st.integers(0, 0xFFFFFFFF),
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(sorted(ARCHES)),
    foreign=st.booleans(),
    nr=interesting_nr,
    arg0=st.one_of(
        st.sampled_from([1, 2, 10, 16, 17, 38, 40, 0x100000001]), st.integers(0, 2**64 - 1)
    ),
    arg1=st.one_of(
        st.sampled_from([1, 2, 5, 2 | 0x80000, 1 | 0x800, 3]), st.integers(0, 2**64 - 1)
    ),
    arg2=st.one_of(st.sampled_from([0, 9, 15, 2**32]), st.integers(0, 2**64 - 1)),
    block_unix=st.booleans(),
    inet=st.booleans(),
)
def test_the_filter_matches_its_specification(
    name: str, foreign: bool, nr: int, arg0: int, arg1: int, arg2: int, block_unix: bool, inet: bool
) -> None:
    arch = 0x40000003 if foreign else ARCHES[name]["audit"]  # i386 compat entry on x86-64
    program = build_filter(name, block_unix=block_unix, inet=inet)
    signed = nr if nr < 2**31 else nr - 2**32
    got = run_bpf(program, seccomp_data(signed, arch, arg0, arg1, arg2))
    assert got == expected(name, arch, nr, (arg0, arg1, arg2), block_unix, inet)


@pytest.mark.parametrize("name", sorted(ARCHES))
def test_af_unix_socket_and_datagram_pairs_are_refused(name: str) -> None:
    spec = ARCHES[name]
    program = build_filter(name)

    def verdict(nr: int, arg0: int, arg1: int) -> int:
        return run_bpf(program, seccomp_data(nr, spec["audit"], arg0, arg1))

    assert verdict(spec["socket"], 1, 1) == ERRNO | errno.EAFNOSUPPORT
    assert verdict(spec["socket"], 2, 1) == ALLOW  # AF_INET
    assert verdict(spec["socketpair"], 1, 1 | 0x80000) == ALLOW  # stream, SOCK_CLOEXEC
    assert verdict(spec["socketpair"], 1, 2) == ERRNO | errno.EAFNOSUPPORT  # datagram

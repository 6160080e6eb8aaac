"""Rows E18, E19 and E20: what leaves the sandbox. Socket families outside the allowlist,
credentials at their usual locations, and encoded forms of those credentials.

Credentials are planted in a fake ``HOME`` (a real directory); the row fails when any planted
secret, or its base64, hex or reversed form, reaches a tool result.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shlex
import shutil
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass

from prism.core import ToolDefinition

from . import _coding_kit as kit
from ._registry import RowSkippedError, conformance_row, require
from ._subjects import ConformanceSubjects

__all__: list[str] = []

_FAMILIES = {
    "AF_VSOCK": (40, 1, 0),
    "AF_PACKET": (17, 2, 0),
    "AF_ALG": (38, 5, 0),
    "AF_BLUETOOTH": (31, 5, 0),
    "AF_XDP": (44, 3, 0),
    "AF_TIPC": (30, 5, 0),
    "AF_NETLINK audit": (16, 3, 9),
    "AF_NETLINK uevent": (16, 2, 15),
}
"""Families a coding command never needs: (family, type, protocol) for ``socket()``."""
_PROBE = (
    "import json, socket, sys\n"
    "print('PROBE-RAN')\n"
    "for name, (f, t, p) in json.loads(sys.argv[1]).items():\n"
    "    try:\n"
    "        socket.socket(f, t, p).close(); print('OPENED', name)\n"
    "    except OSError:\n"
    "        pass\n"
)
_CREDENTIALS = (
    ".git-credentials",
    ".config/gh/hosts.yml",
    ".npmrc",
    ".pypirc",
    ".vault-token",
    ".cargo/credentials.toml",
    ".docker/config.json",
    ".kube/config",
    ".config/gcloud/application_default_credentials.json",
    ".azure/msal_token_cache.json",
    ".netrc",
    ".terraform.d/credentials.tfrc.json",
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".gnupg/private-keys-v1.d/key.key",
)
"""Where tools keep credentials, relative to ``HOME`` (a sample of docs/security.md's list)."""


@conformance_row("E18", timeout_seconds=120)
async def socket_families_by_allowlist(subjects: ConformanceSubjects) -> None:
    if shutil.which("python3") is None:
        raise RowSkippedError("python3 is not installed; the row opens sockets with it")
    # `python3` as the sandbox's PATH finds it: a virtual environment's interpreter (under a
    # directory the sandbox does not show) would fail to start, and prove nothing.
    command = f"python3 -c {shlex.quote(_PROBE)} {shlex.quote(json.dumps(_FAMILIES))}; true"
    with kit.dirs(kit.outside_base()) as d:
        for network in (False, True):
            tools = kit.sandboxed_tools(subjects, d.root, network=network)
            await kit.sandbox_up(subjects, tools, d.root)
            text = await kit.shell(subjects, tools, command)
            if "PROBE-RAN" not in text:
                raise AssertionError(
                    f"the socket probe did not run in the sandbox (network={network}), so "
                    f"nothing was proven: {text[-300:]!r}"
                )
            opened = [
                line.split(" ", 1)[1] for line in text.splitlines() if line.startswith("OPENED ")
            ]
            if opened:
                raise AssertionError(
                    f"the sandbox (network={network}) opened sockets of families outside the "
                    f"allowlist: {', '.join(opened)}"
                )


@contextlib.contextmanager
def _fake_home(base: str) -> Iterator[tuple[str, dict[str, str]]]:
    """``HOME`` pointing at a directory with one distinct secret per credential file."""
    home = os.path.join(base, "home")
    secrets: dict[str, str] = {}
    for index, relative in enumerate(_CREDENTIALS):
        path = os.path.join(home, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        secrets[relative] = f"prism-e19-{index:02d}-{os.urandom(6).hex()}"
        kit.write(path, f"token = {secrets[relative]}\n")
    saved = os.environ.get("HOME")
    os.environ["HOME"] = home
    try:
        yield home, secrets
    finally:
        if saved is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = saved


def _read_tool(subjects: ConformanceSubjects, root: str) -> Sequence[ToolDefinition]:
    tools_factory = require(subjects.coding_tools_factory, "the coding tools (prism-coding-tools)")
    policy_factory = require(subjects.execution_policy_factory, "a coding execution policy")
    return tools_factory(root, execution_policy=policy_factory(roots=[root]))


async def _read_tool_refuses(
    subjects: ConformanceSubjects, home: str, secrets: dict[str, str]
) -> None:
    """Even with ``HOME`` as the root, the read tool returns no credential file."""
    tools = _read_tool(subjects, home)
    for relative, secret in secrets.items():
        result = await kit.call(subjects, tools, "read", {"path": relative})
        if result.error is None or secret in kit.text(result):
            raise AssertionError(f"the read tool returned the credential file ~/{relative}")


@dataclass(frozen=True, slots=True)
class _Planted:
    """A running sandbox's tools, the fake ``HOME``, its secrets, its credential files quoted."""

    tools: Sequence[ToolDefinition]
    home: str
    secrets: dict[str, str]
    files: str


@contextlib.asynccontextmanager
async def _credentials_planted(subjects: ConformanceSubjects) -> AsyncIterator[_Planted]:
    """A fresh workspace with the sandbox up, and ``HOME`` holding one secret per credential."""
    with kit.dirs(kit.outside_base()) as d, _fake_home(d.outside) as (home, secrets):
        tools = kit.sandboxed_tools(subjects, d.root)
        await kit.sandbox_up(subjects, tools, d.root)
        files = " ".join(shlex.quote(os.path.join(home, r)) for r in _CREDENTIALS)
        yield _Planted(tools, home, secrets, files)


@conformance_row("E19", timeout_seconds=120)
async def credential_locations_are_unreadable(subjects: ConformanceSubjects) -> None:
    async with _credentials_planted(subjects) as planted:
        command = f"cat {planted.files} 2>&1; grep -rh prism-e19 ~; true"
        text = await kit.shell(subjects, planted.tools, command)
        leaked = [f"~/{r}" for r, secret in planted.secrets.items() if secret in text]
        if leaked:
            raise AssertionError(f"a sandboxed command read credentials: {', '.join(leaked)}")
        await _read_tool_refuses(subjects, planted.home, planted.secrets)


def _encodings(secret: str) -> list[str]:
    raw = secret.encode()
    forms = [secret, secret[::-1], raw.hex()]
    for shift in range(3):
        encoded = base64.b64encode(b"=" * shift + raw).decode()
        forms.append(encoded[4 + 4 * bool(shift) : -4])
    return forms


@conformance_row("E20", timeout_seconds=120)
async def encoded_credentials_do_not_leave(subjects: ConformanceSubjects) -> None:
    async with _credentials_planted(subjects) as planted:
        text = ""
        for encode in ("base64 -w0", "rev", "od -An -tx1 | tr -d ' \\n'"):
            command = f"cat {planted.files} 2>/dev/null | {encode}; true"
            text += await kit.shell(subjects, planted.tools, command)
        secrets = planted.secrets
        leaked = [f"~/{r}" for r, s in secrets.items() if any(f in text for f in _encodings(s))]
        if leaked:
            raise AssertionError(f"an encoded credential left the sandbox: {', '.join(leaked)}")
        await _read_tool_refuses(subjects, planted.home, secrets)

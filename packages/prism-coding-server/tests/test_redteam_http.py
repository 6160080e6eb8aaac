"""Red-team variants against ``prism-coding-server --http`` that HOLD: the real console script,
driven by raw HTTP bytes, httpx2 and the official MCP SDK client. Kept as regression tests."""

from __future__ import annotations

import json
import re
import stat
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from prism.core.testing import scaled

from .conftest import http_server, sdk_client, text_of

pytestmark = pytest.mark.anyio

TOKEN = "redteam-caller-token-7a1b2c3d4e"
APPROVER_TOKEN = "redteam-approver-token-9f8e7d6c5b"
ENV = {"PRISM_CODING_SERVER_TOKEN": TOKEN}
AUTH: dict[str, str | None] = {
    "Authorization": f"Bearer {TOKEN}", "mcp-protocol-version": "2025-11-25"
}  # fmt: skip
INIT = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "0"}},
})  # fmt: skip
LIST = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
RUN = 'python3 -c \'open("ran.txt", "w").write("ran")\''


async def exchange(port: int, data: bytes) -> bytes:
    """Send raw bytes on a fresh connection; everything the server answers before closing (or
    resetting) it."""
    received = b""
    with anyio.move_on_after(scaled(10)):
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            try:
                await stream.send(data)
                while len(received) < 1_000_000:
                    received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                pass  # closed, or reset while refusing a request: what came before is the answer
    return received


def request(
    port: int,
    *,
    method: str = "POST",
    path: str = "/mcp",
    headers: dict[str, str | None] | None = None,
    extra: tuple[str, ...] = (),
    body: str | None = INIT,
    version: str = "HTTP/1.1",
) -> bytes:
    """One raw HTTP request as bytes: defaults are a well-formed MCP ``initialize`` POST."""
    base: dict[str, str | None] = {
        "Host": f"127.0.0.1:{port}", "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json", "Connection": "close",
    }  # fmt: skip
    merged = {**base, **(headers or {})}
    lines = [f"{method} {path} {version}"]
    lines += [f"{k}: {v}" for k, v in merged.items() if v is not None] + list(extra)
    payload = b"" if body is None else body.encode()
    if body is not None:
        lines.append(f"Content-Length: {len(payload)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def status(answer: bytes) -> int:
    head = answer.split(b"\r\n", 1)[0].split()
    return int(head[1]) if len(head) > 1 else 0


def session_id(answer: bytes) -> str:
    found = re.search(rb"mcp-session-id: (\S+)", answer, re.IGNORECASE)
    assert found, answer[:500]
    return found.group(1).decode()


def project(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    return root


def unauthenticated_variants(port: int) -> dict[str, bytes]:
    """Ways to reach the MCP endpoint without the valid bearer token."""
    bad = {"Authorization": f"Bearer {TOKEN[:-1]}"}
    return {
        "no header": request(port),
        "empty bearer": request(port, headers={"Authorization": "Bearer "}),
        "bare scheme": request(port, headers={"Authorization": "Bearer"}),
        "two spaces": request(port, headers={"Authorization": f"Bearer  {TOKEN}"}),
        "tab": request(port, headers={"Authorization": f"Bearer\t{TOKEN}"}),
        "basic scheme": request(port, headers={"Authorization": f"Basic {TOKEN}"}),
        "prefix of token": request(port, headers=bad),
        "token plus char": request(port, headers={"Authorization": f"Bearer {TOKEN}x"}),
        "comma list": request(port, headers={"Authorization": f"Bearer {TOKEN}, Bearer {TOKEN}"}),
        "bad then good": request(
            port, headers={"Authorization": "Bearer x"}, extra=(f"Authorization: Bearer {TOKEN}",)
        ),
        "query access_token": request(port, path=f"/mcp?access_token={TOKEN}"),
        "query token": request(port, path=f"/mcp?token={TOKEN}"),
        "proxy-authorization": request(port, headers={"Proxy-Authorization": f"Bearer {TOKEN}"}),
        "x-authorization": request(port, headers={"X-Authorization": f"Bearer {TOKEN}"}),
        "url-encoded path": request(port, path="/%6dcp"),
        "GET": request(port, method="GET", body=None),
        "DELETE": request(port, method="DELETE", body=None, headers={"mcp-session-id": "x"}),
        "OPTIONS": request(port, method="OPTIONS", body=None),
        "HEAD": request(port, method="HEAD", body=None),
        "PUT": request(port, method="PUT"),
        "HTTP/1.0": request(port, version="HTTP/1.0"),
        "2026 tools/list": request(port, body=LIST, headers={"mcp-protocol-version": "2026-07-28"}),
        "server/discover": request(
            port, body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover"})
        ),
    }


async def test_no_variant_of_a_missing_or_wrong_token_reaches_the_endpoint(tmp_path: Path) -> None:
    root = project(tmp_path)
    async with http_server(root, env=ENV, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(120)):
            answers = {
                name: await exchange(server.port, data)
                for name, data in unauthenticated_variants(server.port).items()
            }
            other_paths = {
                path: await exchange(server.port, request(server.port, path=path))
                for path in ("/mcp/", "//mcp", "/MCP", "/./mcp", "/mcp/.", "/", "/mcp/x")
            }
            well_known = {
                path: await exchange(server.port, request(server.port, method="GET", path=path))
                for path in (
                    "/.well-known/oauth-protected-resource/mcp",
                    "/.well-known/oauth-protected-resource",
                    "/.well-known/oauth-authorization-server",
                )
            }
            control = await exchange(
                server.port, request(server.port, headers={"Authorization": f"Bearer {TOKEN}"})
            )
    for name, answer in answers.items():
        assert status(answer) == 401, (name, answer[:300])
        assert b"www-authenticate: bearer" in answer.lower(), name
        assert b"mcp-session-id" not in answer.lower(), name
        assert b"prism-coding-server" not in answer, name
    for path, answer in {**other_paths, **well_known}.items():
        assert status(answer) in (307, 401, 404), (path, answer[:300])
        assert b"serverInfo" not in answer and b"mcp-session-id" not in answer.lower(), path
    assert status(control) == 200 and b"prism-coding-server" in control


async def test_the_scheme_is_case_insensitive_but_the_token_is_not(tmp_path: Path) -> None:
    # RFC 9110: the auth scheme is case-insensitive; the credential itself must match exactly.
    root = project(tmp_path)
    async with http_server(root, env=ENV, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(60)):
            scheme = {
                s: await exchange(
                    server.port, request(server.port, headers={"Authorization": f"{s} {TOKEN}"})
                )
                for s in ("bearer", "BEARER", "Bearer")
            }
            upper = await exchange(
                server.port,
                request(server.port, headers={"Authorization": f"Bearer {TOKEN.upper()}"}),
            )
    assert all(status(a) == 200 for a in scheme.values())
    assert status(upper) == 401


async def test_a_session_id_without_the_token_is_refused_and_survives(tmp_path: Path) -> None:
    root = project(tmp_path)
    auth = {"Authorization": f"Bearer {TOKEN}", "mcp-protocol-version": "2025-11-25"}
    async with http_server(root, env=ENV, tmp=tmp_path) as server:
        port = server.port
        with anyio.fail_after(scaled(60)):
            sid = session_id(await exchange(port, request(port, headers=auth)))
            await exchange(
                port, request(port, body=INITIALIZED, headers={**auth, "mcp-session-id": sid})
            )
            stolen: dict[str, str | None] = {"mcp-session-id": sid, "Authorization": None}
            wrong: dict[str, str | None] = {"mcp-session-id": sid, "Authorization": "Bearer no"}
            attempts = [
                await exchange(port, request(port, body=LIST, headers=stolen)),
                await exchange(port, request(port, body=LIST, headers=wrong)),
                await exchange(port, request(port, method="GET", body=None, headers=stolen)),
                await exchange(port, request(port, method="DELETE", body=None, headers=stolen)),
                await exchange(port, request(port, method="DELETE", body=None, headers=wrong)),
            ]
            still = await exchange(
                port, request(port, body=LIST, headers={**auth, "mcp-session-id": sid})
            )
    assert [status(a) for a in attempts] == [401] * 5
    assert not any(b'"tools"' in a for a in attempts)
    assert status(still) == 200 and b'"shell"' in still


async def test_sessions_are_bound_to_the_token_that_opened_them(tmp_path: Path) -> None:
    root = project(tmp_path)
    approver_file = tmp_path / "approver.token"
    approver_file.write_text(APPROVER_TOKEN + "\n")
    approver_file.chmod(0o600)
    caller = {"Authorization": f"Bearer {TOKEN}", "mcp-protocol-version": "2025-11-25"}
    owner = {**caller, "Authorization": f"Bearer {APPROVER_TOKEN}"}
    flags = ("--approver-token-file", str(approver_file))
    async with http_server(root, *flags, env=ENV, tmp=tmp_path) as server:
        port = server.port
        with anyio.fail_after(scaled(60)):
            owner_sid = session_id(await exchange(port, request(port, headers=owner)))
            caller_sid = session_id(await exchange(port, request(port, headers=caller)))
            for sid, h in ((owner_sid, owner), (caller_sid, caller)):
                await exchange(
                    port, request(port, body=INITIALIZED, headers={**h, "mcp-session-id": sid})
                )
            borrowed = await exchange(
                port, request(port, body=LIST, headers={**caller, "mcp-session-id": owner_sid})
            )
            lent = await exchange(
                port, request(port, body=LIST, headers={**owner, "mcp-session-id": caller_sid})
            )
            killed = await exchange(
                port,
                request(
                    port,
                    method="DELETE",
                    body=None,
                    headers={**caller, "mcp-session-id": owner_sid},
                ),
            )
            own = await exchange(
                port, request(port, body=LIST, headers={**owner, "mcp-session-id": owner_sid})
            )
    assert status(borrowed) == 404 and status(lent) == 404 and status(killed) == 404
    assert status(own) == 200 and b'"shell"' in own


async def test_host_and_origin_tricks_are_refused_even_with_the_token(tmp_path: Path) -> None:
    root = project(tmp_path)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with http_server(root, env=ENV, tmp=tmp_path) as server:
        port = server.port
        tricks: list[dict[str, str | None]] = [
            {"Host": "evil.example"},
            {"Host": f"evil.example:{port}"},
            {"Host": f"127.0.0.1.evil.example:{port}"},
            {"Origin": "http://evil.example"},
            {"Origin": "null"},
            {"Origin": f"http://127.0.0.1.evil.example:{port}"},
        ]
        with anyio.fail_after(scaled(60)):
            answers = [await exchange(port, request(port, headers={**auth, **t})) for t in tricks]
    assert [status(a) for a in answers] == [421, 421, 421, 403, 403, 403]


async def test_unauthenticated_requests_open_no_session(tmp_path: Path) -> None:
    """With a cap of one session, any request that opened a session would evict the only one."""
    root = project(tmp_path)
    auth = {"Authorization": f"Bearer {TOKEN}", "mcp-protocol-version": "2025-11-25"}
    async with http_server(root, "--max-sessions", "1", env=ENV, tmp=tmp_path) as server:
        port = server.port
        with anyio.fail_after(scaled(120)):
            sid = session_id(await exchange(port, request(port, headers=auth)))
            await exchange(
                port, request(port, body=INITIALIZED, headers={**auth, "mcp-session-id": sid})
            )
            refused = [await exchange(port, request(port)) for _ in range(50)]
            refused += [
                await exchange(port, request(port, headers={"Authorization": "Bearer x"}))
                for _ in range(50)
            ]
            still = await exchange(
                port, request(port, body=LIST, headers={**auth, "mcp-session-id": sid})
            )
    assert {status(a) for a in refused} == {401}
    assert status(still) == 200 and b'"shell"' in still


async def test_the_stateless_protocol_does_not_let_a_caller_approve(tmp_path: Path) -> None:
    root = project(tmp_path)
    asked: list[str] = []

    async def answer_yes(_: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    async with http_server(root, env=ENV, tmp=tmp_path) as server:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        with anyio.fail_after(scaled(60)):
            async with (
                http,
                Client(
                    streamable_http_client(server.url, http_client=http),
                    elicitation_callback=answer_yes, read_timeout_seconds=scaled(30),
                ) as client,
            ):  # fmt: skip
                version = client.protocol_version
                ran = await client.call_tool("shell", {"command": RUN})
    assert version == "2026-07-28"
    assert ran.is_error and "may not approve its own calls" in text_of(ran)
    assert asked == [] and not (root / "ran.txt").exists()


async def test_a_caller_cannot_read_the_approver_token_through_the_tools(tmp_path: Path) -> None:
    root = project(tmp_path)
    approver_file = tmp_path / "approver.token"
    approver_file.write_text(APPROVER_TOKEN + "\n")
    approver_file.chmod(0o600)
    reads = [f"cat {approver_file}", f"base64 {approver_file}", "cat ../approver.token",
             f"ln -s {approver_file} link", f"cp {approver_file} copy",
             "cat $(echo ../approver.token)", "cat /proc/self/environ"]  # fmt: skip
    flags = ("--approver-token-file", str(approver_file))
    async with http_server(root, *flags, env=ENV, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(90)):
            async with sdk_client(server.url, TOKEN) as session:
                results = [await session.call_tool("shell", {"command": c}) for c in reads]
                tool_read = await session.call_tool("read", {"path": str(approver_file)})
                env = await session.call_tool("shell", {"command": "env"})
    for command, result in zip(reads, results, strict=True):
        assert result.is_error, command
        assert APPROVER_TOKEN not in text_of(result) and TOKEN not in text_of(result), command
    assert tool_read.is_error and APPROVER_TOKEN not in text_of(tool_read)
    assert not (root / "link").exists() and not (root / "copy").exists()
    assert not env.is_error and "PATH=" in text_of(env)
    assert TOKEN not in text_of(env) and "PRISM_CODING_SERVER_TOKEN" not in text_of(env)


APPROVER = """\
import json, os, pathlib, sys
log = pathlib.Path(__file__).with_name("asked.jsonl")
with log.open("a") as f:
    f.write(json.dumps([os.environ["PRISM_APPROVAL_REQUEST"], sys.stdin.read()]) + "\\n")
sys.exit(1)
"""


async def test_the_approver_sees_control_characters_escaped_on_one_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    script = tmp_path / "approve.py"
    script.write_text(APPROVER)
    commands = [f"{RUN}\necho harmless", f"{RUN} #\x1b[2K\rls", f"{RUN}\r\nls",
                f"{RUN} # \u202e sl", f"{RUN} #\x08\x08\x9b2K\u2028ls"]  # fmt: skip
    flags = ("--approver", f"{sys.executable} {script}")
    async with http_server(root, *flags, env=ENV, tmp=tmp_path) as server:
        with anyio.fail_after(scaled(90)):
            async with sdk_client(server.url, TOKEN) as session:
                results = [await session.call_tool("shell", {"command": c}) for c in commands]
    assert all(r.is_error for r in results) and not (root / "ran.txt").exists()
    asked = [json.loads(line) for line in (tmp_path / "asked.jsonl").read_text().splitlines()]
    assert len(asked) == len(commands)
    controls = ("\r", "\x1b", "\x08", "\x9b", "\u202e", "\u2028")
    for env_text, stdin_text in asked:
        assert stdin_text == env_text + "\n" and "\n" not in env_text
        assert not any(c in env_text for c in controls), env_text


async def test_the_generated_token_is_not_printed_nor_on_the_command_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    async with http_server(root, tmp=tmp_path) as server:
        token_file = server.token_file()
        token = token_file.read_text().strip()
        file_mode = stat.S_IMODE(token_file.stat().st_mode)
        dir_mode = stat.S_IMODE(token_file.parent.stat().st_mode)
        cmdline = await anyio.Path(f"/proc/{server.process.pid}/cmdline").read_bytes()
        with anyio.fail_after(scaled(30)):
            async with httpx2.AsyncClient() as raw:
                refused = await raw.post(
                    server.url, content=INIT, headers={"Authorization": "Bearer x"}
                )
        stderr = server.stderr()
    assert len(token) >= 32 and file_mode == 0o600 and dir_mode == 0o700
    assert token not in stderr and token.encode() not in cmdline
    assert token not in refused.text and token not in str(refused.headers)
    assert str(token_file) in stderr
    assert token_file.parent.name != "prism-mcp"  # a fresh, unpredictable directory


async def test_huge_headers_never_reach_the_endpoint(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    async with http_server(root, env=ENV, tmp=tmp_path) as server:
        port = server.port
        with anyio.fail_after(scaled(60)):
            big = await exchange(port, request(port, headers={"X-Big": "a" * 100_000}))
            many = await exchange(
                port, request(port, headers={f"X-H{i}": "v" for i in range(5000)})
            )
            long_token = await exchange(
                port, request(port, headers={"Authorization": "Bearer " + "a" * 60_000})
            )
            control = await exchange(
                port, request(port, headers={"Authorization": f"Bearer {TOKEN}"})
            )
    assert status(big) in (0, 400, 401, 431) and status(many) in (0, 400, 401, 431)
    assert status(long_token) in (0, 400, 401, 431)
    assert b"serverInfo" not in big + many + long_token
    assert status(control) == 200


async def test_an_idle_session_expires_and_its_id_is_dead(tmp_path: Path) -> None:
    root = project(tmp_path)
    flags = ("--session-idle-seconds", "1")
    async with http_server(root, *flags, env=ENV, tmp=tmp_path) as server:
        port = server.port
        with anyio.fail_after(scaled(60)):
            sid = session_id(await exchange(port, request(port, headers=AUTH)))
            headers = {**AUTH, "mcp-session-id": sid}
            await exchange(port, request(port, body=INITIALIZED, headers=headers))
            alive = await exchange(port, request(port, body=LIST, headers=headers))
            await anyio.sleep(scaled(4))  # untouched for several idle periods (what is tested)
            expired = await exchange(port, request(port, body=LIST, headers=headers))
    assert status(alive) == 200 and status(expired) == 404

"""CodingServerOptions: roots resolved once, every field checked, bad input named by field."""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_server import CodingServerOptions
from prism.coding_server._cli import parse_options


def test_roots_are_resolved_and_lists_become_tuples(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    options = CodingServerOptions(
        roots=(str(tmp_path / "link"),),
        deny_read=["/etc/shadow"],  # type: ignore[arg-type]
    )
    assert options.roots == (os.path.realpath(real),)
    assert options.deny_read == ("/etc/shadow",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.port = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("roots", (), ValueError),
        ("roots", "/tmp", TypeError),
        ("roots", ("",), ValueError),
        ("roots", ("/no/such/dir/anywhere",), ValueError),
        ("deny_read", "/etc", TypeError),
        ("deny_read", ("a\0b",), ValueError),
        ("read_only", 1, TypeError),
        ("sandbox", "yes", TypeError),
        ("approve_writes", None, TypeError),
        ("transport", "tcp", ValueError),
        ("port", -1, ValueError),
        ("port", 65_536, ValueError),
        ("port", True, TypeError),
        ("ledger", "", ValueError),
        ("approval_timeout_seconds", 0, ValueError),
        ("approval_timeout_seconds", math.inf, ValueError),
        ("shell_timeout_seconds", 3600.5, ValueError),
        ("shell_timeout_seconds", "60", TypeError),
        ("auth", "no", TypeError),
        ("token_file", "", ValueError),
        ("approver_token_file", "a\0b", ValueError),
        ("approver_command", (), ValueError),
        ("approver_command", "notify-send", TypeError),
        ("sessions", {"max_sessions": 8}, TypeError),
        ("approver_tty", "yes", TypeError),
    ],
)
def test_a_bad_field_is_refused_naming_it(
    tmp_path: Path, field: str, value: object, error: type[Exception]
) -> None:
    given_values: dict[str, object] = {"roots": (str(tmp_path),), field: value}
    with pytest.raises(error, match=rf"^CodingServerOptions\.{field} must be"):
        CodingServerOptions(**given_values)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-(2**20), max_value=2**20))
def test_any_port_from_0_to_65535_is_accepted_and_no_other(port: int) -> None:
    root = os.getcwd()
    if 0 <= port <= 65_535:
        assert CodingServerOptions(roots=(root,), port=port).port == port
    else:
        with pytest.raises(ValueError, match=r"CodingServerOptions\.port"):
            CodingServerOptions(roots=(root,), port=port)


def test_the_command_line_fills_the_options(tmp_path: Path) -> None:
    argv = ["--root", str(tmp_path), "--read-only", "--no-sandbox", "--http", "0"]
    options = parse_options([*argv, "--deny-read", "/x", "--ledger", str(tmp_path / "l")])
    assert options.roots == (os.path.realpath(tmp_path),)
    assert (options.read_only, options.sandbox, options.transport, options.port) == (
        True,
        False,
        "http",
        0,
    )
    assert options.deny_read == ("/x",)


def test_a_bad_command_line_exits_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_options(["--root", str(tmp_path), "--http", "70000"])
    assert exited.value.code == 2
    assert "CodingServerOptions.port must be an int from 0 to 65,535" in capsys.readouterr().err


def test_the_command_line_fills_the_access_options(tmp_path: Path) -> None:
    argv = ["--root", str(tmp_path), "--http", "0", "--token-file", "/t", "--approver",
            "ask --title 'Prism approval'", "--max-sessions", "8", "--session-idle-seconds", "30",
            "--max-requests-per-session", "4", "--max-request-bytes", "65536"]  # fmt: skip
    options = parse_options(argv)
    assert options.auth and options.token_file == "/t"
    assert options.approver_command == ("ask", "--title", "Prism approval")
    limits = options.sessions
    assert (limits.max_sessions, limits.idle_seconds) == (8, 30.0)
    assert (limits.max_requests_per_session, limits.max_request_bytes) == (4, 65536)
    defaults = parse_options(["--root", str(tmp_path)])
    assert defaults.auth and defaults.sessions.max_sessions == 64


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--http", "0", "--no-auth"], "add --i-understand-anyone-local-can-run-commands"),
        (["--http", "0", "--i-understand-anyone-local-can-run-commands"], "only goes with"),
        (["--token-file", "/t"], "--token-file: applies to --http only"),
        (["--max-sessions", "8"], "--max-sessions: applies to --http only"),
        (["--http", "0", "--max-sessions", "0"], "SessionLimits.max_sessions must be an int"),
        (["--http", "0", "--session-idle-seconds", "nan"], "SessionLimits.idle_seconds must"),
    ],
)
def test_bad_access_flags_exit_2_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_options(["--root", str(tmp_path), *extra])
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_one_out_of_band_approver_at_a_time(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^CodingServerOptions\.approver_tty must be False"):
        CodingServerOptions(roots=(str(tmp_path),), approver_command=("ask",), approver_tty=True)

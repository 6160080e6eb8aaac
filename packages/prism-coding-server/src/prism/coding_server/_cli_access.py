"""Command-line flags of HTTP access: tokens, the no-auth acknowledgement, approvers, sessions."""

from __future__ import annotations

import argparse
import os
import shlex
from typing import Any

from prism.mcp.server import SessionLimits

__all__ = ["ACKNOWLEDGE_FLAG", "access_options", "add_access_arguments", "check_access_arguments"]

ACKNOWLEDGE_FLAG = "--i-understand-anyone-local-can-run-commands"
"""What ``--no-auth`` must come with: the operator says they know what it opens."""
_SESSION_FLAGS = (
    ("max_sessions", "--max-sessions", int, "N", "open HTTP sessions at most (default 64); "
     "the longest-idle one is closed to admit a new client"),
    ("idle_seconds", "--session-idle-seconds", float, "S", "close a session idle this long "
     "(default 600)"),
    ("max_requests_per_session", "--max-requests-per-session", int, "N",
     "requests one session may have in flight (default 16)"),
    ("max_request_bytes", "--max-request-bytes", int, "N", "largest request body (default 4 MiB)"),
    ("credential_share", "--sessions-per-token", int, "N", "sessions each token is guaranteed "
     "(default: half of --max-sessions); beyond it, a token's sessions make room for others"),
)  # fmt: skip
_HTTP_ONLY = ("token_file", "no_auth", "approver_token_file", *(f[0] for f in _SESSION_FLAGS))


def add_access_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags on ``parser``."""
    group = parser.add_argument_group("HTTP access (with --http)")
    group.add_argument("--token-file", metavar="FILE", help="read the bearer token from FILE "
                       "(mode 0600); default: $PRISM_CODING_SERVER_TOKEN, else a generated "
                       "token written to a new 0600 file whose path is printed")  # fmt: skip
    group.add_argument("--no-auth", action="store_true", help="serve without authentication; "
                       f"only together with {ACKNOWLEDGE_FLAG}")  # fmt: skip
    group.add_argument(ACKNOWLEDGE_FLAG, dest="acknowledge_no_auth", action="store_true",
                       help="acknowledge that with --no-auth anyone who can reach the port "
                       "can use the tools")  # fmt: skip
    group.add_argument(
        "--approver-token-file",
        metavar="FILE",
        help="a second token (mode "
        "0600): clients using it may approve their own calls by elicitation",
    )
    for dest, flag, kind, metavar, text in _SESSION_FLAGS:
        group.add_argument(flag, dest=dest, type=kind, metavar=metavar, help=text)
    parser.add_argument("--approver", metavar="COMMAND", help="the operator's approver: "
                        "COMMAND runs per approval with the request on stdin and in "
                        "$PRISM_APPROVAL_REQUEST; exit status 0 approves")  # fmt: skip
    parser.add_argument("--approver-tty", action="store_true", help="the operator's approver "
                        "is this terminal: each approval is asked on /dev/tty ([y/N])")  # fmt: skip


def check_access_arguments(args: argparse.Namespace) -> None:
    """``ValueError`` for flags that make no sense together."""
    if args.no_auth and not args.acknowledge_no_auth:
        raise ValueError(
            f"--no-auth: lets anyone who can reach the port write files and run commands; "
            f"add {ACKNOWLEDGE_FLAG} to confirm"
        )
    if args.acknowledge_no_auth and not args.no_auth:
        raise ValueError(f"{ACKNOWLEDGE_FLAG}: only goes with --no-auth")
    if args.approver_tty:
        try:
            os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
        except OSError as error:
            raise ValueError(f"--approver-tty: this process has no terminal ({error})") from None
    if args.http is None:
        given = [name for name in _HTTP_ONLY if getattr(args, name) not in (None, False)]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise ValueError(f"{flag}: applies to --http only (stdio has no network listener)")


def access_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``CodingServerOptions`` fields the flags set."""
    limits = {dest: getattr(args, dest) for dest, *_ in _SESSION_FLAGS}
    approver = None if args.approver is None else tuple(shlex.split(args.approver))
    return {
        "auth": not args.no_auth,
        "token_file": args.token_file,
        "approver_command": approver,
        "approver_tty": args.approver_tty,
        "approver_token_file": args.approver_token_file,
        "sessions": SessionLimits(**{k: v for k, v in limits.items() if v is not None}),
    }

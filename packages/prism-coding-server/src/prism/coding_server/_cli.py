"""The ``prism-coding-server`` console script."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

import anyio

from prism.mcp.server import serve_tools

from ._access import AccessError, http_access
from ._build import SandboxRequiredError, build_server
from ._cli_access import access_options, add_access_arguments, check_access_arguments
from ._options import CodingServerOptions

__all__ = ["main", "parse_options"]


def _version() -> str:
    try:
        return version("prism-coding-server")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return "unknown"


def _listening(url: str) -> None:
    _say(f"listening on {url}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="prism-coding-server",
        allow_abbrev=False,  # a prefix such as ``--i`` must not stand for the no-auth flag
        description="Serve shell/read/write/edit confined to --root over MCP, under Prism's "
        "coding policy, with the shell in a bubblewrap sandbox when available.",
    )
    parser.add_argument("--version", action="version", version=f"prism-coding-server {_version()}")
    parser.add_argument(
        "--root",
        action="append",
        required=True,
        metavar="DIR",
        help="directory the tools may use (repeatable; the first is the cwd)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="no write/edit tools; the shell may only run read-only commands",
    )
    parser.add_argument(
        "--sandbox",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="require bubblewrap (--sandbox) or run the shell locally "
        "(--no-sandbox); default: bubblewrap when it works",
    )
    parser.add_argument(
        "--approve-writes",
        action="store_true",
        help="every write/edit asks the user for approval too",
    )
    parser.add_argument(
        "--deny-read",
        action="append",
        default=[],
        metavar="PATH",
        help="hide PATH from sandboxed commands and the file tools (repeatable; adds to defaults)",
    )
    parser.add_argument(
        "--http",
        type=int,
        metavar="PORT",
        help="serve Streamable HTTP on 127.0.0.1:PORT instead of stdio",
    )
    parser.add_argument(
        "--ledger",
        metavar="FILE",
        help="append a redacted JSON-lines audit record per call to FILE",
    )
    add_access_arguments(parser)
    return parser  # fmt: skip


def parse_options(argv: Sequence[str] | None = None) -> CodingServerOptions:
    """Command-line arguments to options; exits with status 2 and a message on bad input."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        check_access_arguments(args)
        return CodingServerOptions(
            roots=tuple(args.root),
            read_only=args.read_only,
            sandbox=args.sandbox,
            approve_writes=args.approve_writes,
            deny_read=tuple(args.deny_read),
            transport="stdio" if args.http is None else "http",
            port=8000 if args.http is None else args.http,
            ledger=args.ledger,
            **access_options(args),
        )
    except ValueError as error:
        parser.error(str(error))


def _say(line: str) -> None:
    print(f"prism-coding-server: {line}", file=sys.stderr, flush=True)


async def _serve(options: CodingServerOptions) -> None:
    built = await build_server(options)
    _say(built.sandbox_note)
    try:
        if options.transport == "http":
            with http_access(options) as access:
                for note in access.notes:
                    _say(note)
                await serve_tools(
                    built.server, transport="http", http=access.http, on_listening=_listening
                )
        else:
            await serve_tools(built.server)
    finally:
        if built.ledger is not None:
            built.ledger.close()


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: stdout carries only MCP messages; notes and errors go to stderr."""
    options = parse_options(argv)
    # SIGTERM unwinds like Ctrl-C (uvicorn re-raises it after its graceful shutdown), so a
    # generated token file is removed on the way out.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        anyio.run(_serve, options)
    except (SandboxRequiredError, AccessError) as error:
        _say(str(error))
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None

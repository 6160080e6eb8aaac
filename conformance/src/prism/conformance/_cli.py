"""``prism-conformance``: run the threat matrix and print it as a table.

Exit status: 0 when nothing failed, 1 when a row failed (or a required row, or with
``--fail-on-skip`` any row, was skipped), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from prism.core.testing import set_time_factor, time_factor

from ._matrix import THREAT_MATRIX, describe_rows
from ._registry import MAX_ROW_TIMEOUT_SECONDS
from ._report import ConformanceReport, RowResult
from ._runner import BACKENDS, RunProgress, parse_row_ids, run_conformance

__all__ = ["main"]

THREATS_URL = "https://github.com/prism-python/prism/blob/main/docs/threats.md"
"""The threat matrix page: every row, what it proves, which check holds it, how to run it."""
PACKAGES = (
    "prism-core",
    "prism-jsonschema",
    "prism-mcp",
    "prism-coding-tools",
    "prism-coding-security",
    "prism-dbos",
)
"""The distributions that own rows, in dependency order (``--package`` accepts these; a test
checks them against the row table)."""
_EXIT_STATUS = (
    "Exit status: 0 when nothing failed, 1 when a row failed or a required row (--require; "
    "every row with --fail-on-skip) was skipped, 2 on bad arguments."
)
_SCENARIO_WIDTH = 44
_CELL = {"passed": "pass", "failed": "FAIL", "skipped": "skip"}
_COLOUR = {"passed": "32", "failed": "1;31", "skipped": "33"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="prism-conformance",
        allow_abbrev=False,  # "--req" must not silently stand for "--require"
        description=(
            f"Run the Prism threat matrix ({describe_rows()}, {len(THREAT_MATRIX)} rows) "
            "against the installed packages, on asyncio and trio."
        ),
        epilog=f"Every row, what it proves and which check holds it: {THREATS_URL}. {_EXIT_STATUS}",
    )
    parser.add_argument("--version", action="version", version=_version_text())
    parser.add_argument(
        "--backend",
        choices=("asyncio", "trio", "both"),
        default="both",
        help="async backend(s) to run each row on (default: both)",
    )
    parser.add_argument("--rows", help="comma-separated row ids to run, e.g. 1,5,E3 (default: all)")
    parser.add_argument(
        "--package",
        action="append",
        metavar="NAME",
        help=(
            "run only the rows of this distribution (repeatable; combines with --rows): "
            + ", ".join(PACKAGES)
        ),
    )
    parser.add_argument(
        "--json", metavar="PATH", help="also write the report as JSON ('-': stdout)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="outer deadline per row and backend (default: each row's own, 60 s)",
    )
    parser.add_argument(
        "--time-factor",
        metavar="X",
        help=(
            "multiply every wall-clock bound (outer deadlines and the bounds inside the rows) "
            "by X, a number from 1 to 100, for a slow machine (default: $PRISM_TEST_TIME_FACTOR "
            "or 1)"
        ),
    )
    parser.add_argument(
        "--require",
        action="append",
        metavar="IDS",
        help=(
            "comma-separated rows that must run: exit 1 when one was skipped on a selected "
            "backend (repeatable; the rows are added to the selection)"
        ),
    )
    parser.add_argument(
        "--fail-on-skip", action="store_true", help="exit 1 when any selected row was skipped"
    )
    parser.add_argument("--list", action="store_true", help="list the rows and exit")
    return parser


def _version_text() -> str:
    """``prism-conformance X (prism-core Y)``: what a bug report needs."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return f"prism-conformance {version('prism-conformance')} (prism-core {version('prism-core')})"


def _colour_enabled(stream: TextIO) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR")


def _paint(text: str, status: str, colour: bool) -> str:
    return f"\033[{_COLOUR[status]}m{text}\033[0m" if colour else text


def _clip(text: str, width: int) -> str:
    text = text.replace("`", "")
    return text if len(text) <= width else text[: width - 1] + "…"


def _cell(result: RowResult) -> str:
    if result.status == "skipped":
        return "skip"
    return f"{_CELL[result.status]} {result.duration_seconds:.2f}s"


def render_table(report: ConformanceReport, *, colour: bool = False) -> str:
    """The matrix as a text table: one line per row, one column per backend, then details."""
    row_ids = list(dict.fromkeys(r.row.id for r in report.results))
    package_width = max([len("Package")] + [len(r.row.package) for r in report.results])
    header = f"{'Row':<4} {'Package':<{package_width}} {'Scenario':<{_SCENARIO_WIDTH}}"
    header += "".join(f" {b:<12}" for b in report.backends)
    lines = [header.rstrip(), "-" * len(header.rstrip())]
    for row_id in row_ids:
        first = report.result(row_id, report.backends[0]).row
        line = f"{first.id:<4} {first.package:<{package_width}} "
        line += f"{_clip(first.scenario, _SCENARIO_WIDTH):<{_SCENARIO_WIDTH}}"
        for backend in report.backends:
            result = report.result(row_id, backend)
            line += " " + _paint(f"{_cell(result):<12}", result.status, colour)
        lines.append(line.rstrip())
    lines.extend(_details(report, colour))
    lines.append("")
    status = "failed" if report.failed else "passed"
    lines.append(_paint(report.summary(), status, colour))
    return "\n".join(lines)


def _details(report: ConformanceReport, colour: bool) -> list[str]:
    lines: list[str] = []
    failures = [r for r in report.results if r.status == "failed"]
    if failures:
        lines += ["", _paint("Failures:", "failed", colour)]
        for r in failures:
            message = (r.message or "").replace("\n", "\n      ")
            lines.append(f"  {r.row.id} [{r.backend}] {r.row.package}: {message}")
    skips: dict[str, list[str]] = {}
    for r in report.results:
        if r.status == "skipped":
            label = r.row.id if len(report.backends) == 1 else f"{r.row.id}[{r.backend}]"
            skips.setdefault(r.message or "skipped", []).append(label)
    if skips:
        lines += ["", _paint("Skipped:", "skipped", colour)]
        for reason, labels in skips.items():
            collapsed = _collapse(labels, report.backends)
            lines.append(f"  {collapsed}: {reason}")
    return lines


def _collapse(labels: list[str], backends: Sequence[str]) -> str:
    """``4[asyncio], 4[trio]`` → ``4`` when a row is skipped for the same reason everywhere."""
    out: list[str] = []
    for label in labels:
        row = label.split("[", 1)[0]
        if all(f"{row}[{b}]" in labels for b in backends):
            if row not in out:
                out.append(row)
        else:
            out.append(label)
    return ", ".join(out)


class _Progress:
    """Progress on stderr: a rewritten line on a terminal, one line per result otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._tty = stream.isatty()

    def __call__(self, event: RunProgress) -> None:
        if event.result is None:
            where = f"[{event.index + 1}/{event.total}]"
            if self._tty:
                text = f"{where} row {event.row.id} on {event.backend} …"
                self._stream.write(f"\r\033[K{text}")
                self._stream.flush()
            return
        where = f"[{event.index}/{event.total}]"
        text = f"{where} row {event.row.id} on {event.backend}: {event.result.status}"
        if self._tty:
            self._stream.write(f"\r\033[K{text}")
            if event.index == event.total:
                self._stream.write("\r\033[K")
        else:
            self._stream.write(text + "\n")
        self._stream.flush()


def _list_rows() -> str:
    return "\n".join(f"{r.id:<4} {r.package:<22} {r.scenario}" for r in THREAT_MATRIX)


def _rows_of_packages(
    parser: argparse.ArgumentParser, packages: Sequence[str], rows: tuple[str, ...] | None
) -> tuple[str, ...]:
    """The rows owned by ``packages`` (narrowed to ``rows``); exits 2 naming a bad name."""
    unknown = [name for name in packages if name not in PACKAGES]
    if unknown:
        parser.error(
            f"--package: unknown distribution {', '.join(map(repr, unknown))}; "
            f"rows belong to: {', '.join(PACKAGES)}"
        )
    chosen = [
        r.id for r in THREAT_MATRIX if r.package in packages and (rows is None or r.id in rows)
    ]
    if not chosen:
        parser.error(
            f"--package {', '.join(packages)} has no row among --rows {','.join(rows or ())}"
        )
    return tuple(chosen)


def _selection(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """(rows to run, ``None`` for all; rows that must not be skipped); exits 2 on a bad id."""
    rows = None
    if args.rows is not None:
        try:
            rows = parse_row_ids(args.rows)
        except ValueError as exc:
            parser.error(f"--rows: {exc}")
    if args.package is not None:
        rows = _rows_of_packages(parser, args.package, rows)
    required: tuple[str, ...] = ()
    if args.require is not None:
        try:
            required = parse_row_ids(",".join(args.require))
        except ValueError as exc:
            parser.error(f"--require: {exc}")
        if rows is not None:
            rows = parse_row_ids([*rows, *required])
    return rows, required


def _verdict(
    report: ConformanceReport, required: Sequence[str], fail_on_skip: bool
) -> tuple[int, list[str]]:
    """The exit status and the loud lines that explain a run where skips matter."""
    lines: list[str] = []
    status = 0 if report.ok else 1
    if report.nothing_ran:
        lines.append(
            f"prism-conformance: NOTHING RAN: all {len(report.results)} selected row × backend "
            "results were skipped, and a skip proves nothing (see Skipped: above; "
            "--require ROWS or --fail-on-skip turn this into a failure)"
        )
    skipped = report.skipped_of(report.results_rows()) if fail_on_skip else ()
    missing = skipped or report.skipped_of(required)
    if missing:
        labels = ", ".join(f"{r.row.id}[{r.backend}]" for r in missing)
        why = "--fail-on-skip" if fail_on_skip else "--require"
        lines.append(f"prism-conformance: FAILED ({why}): skipped, so not shown to hold: {labels}")
        status = 1
    return status, lines


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``prism-conformance`` script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        print(_list_rows())
        return 0
    rows, required = _selection(parser, args)
    if args.timeout is not None and not 0 < args.timeout <= MAX_ROW_TIMEOUT_SECONDS:
        parser.error(f"--timeout must be in (0, {MAX_ROW_TIMEOUT_SECONDS:g}] seconds")
    try:
        if args.time_factor is not None:
            set_time_factor(args.time_factor, where="--time-factor")
        else:
            time_factor()
    except ValueError as exc:
        parser.error(str(exc))
    if args.json not in (None, "-") and not Path(args.json).resolve().parent.is_dir():
        parser.error(f"--json: directory of {args.json} does not exist")
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    try:
        report = run_conformance(
            backends=backends,
            rows=rows,
            timeout_seconds=args.timeout,
            progress=_Progress(sys.stderr),
        )
    except KeyboardInterrupt:
        print("\nprism-conformance: interrupted", file=sys.stderr)
        return 130
    status, loud = _verdict(report, required, args.fail_on_skip)
    if args.json == "-":
        print(report.to_json())
    else:
        print(render_table(report, colour=_colour_enabled(sys.stdout)))
        if args.json is not None:
            try:
                Path(args.json).write_text(report.to_json() + "\n", encoding="utf-8")
            except OSError as exc:
                print(f"prism-conformance: cannot write {args.json}: {exc}", file=sys.stderr)
                return 2
    stream = sys.stderr if args.json == "-" else sys.stdout
    for line in loud:
        print(_paint(line, "failed" if status else "skipped", _colour_enabled(stream)), file=stream)
    return status

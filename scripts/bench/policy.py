"""Coding-security benchmark: policy decisions per second and sandbox overhead per command.

Run: ``uv run --group bench python scripts/bench/policy.py [--quick] [--policy-only]``.

1. Decisions/s of ``CodingApprovalPolicy`` over every command of the package's test
   corpus (``tests/corpus/commands.jsonl``, or the Codex differential data when the corpus is not
   there) next to a bare tree-sitter-bash parse of the same commands.
2. Worst cases: analysis time and peak memory (tracemalloc, separate run) of the largest legal
   adversarial inputs (65,536 characters) built against each bounded part of the analysis.
3. Wall time of ``true`` run through ``BubblewrapSandbox`` next to the same ``bash -c true``
   spawned locally (both through anyio subprocesses, output streamed); skipped by
   ``--policy-only``.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import tempfile
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
import tree_sitter
import tree_sitter_bash
from _common import (
    Batch,
    Figures,
    bench_parser,
    header,
    markdown_table,
    measure_async,
    measure_sync,
    time_async_calls,
    time_calls,
)

from prism.coding_security import (
    BubblewrapSandbox,
    CodingApprovalPolicy,
    analyze_command,
    check_path,
)
from prism.core import ExecutionAction, ExecutionDecision

TESTS = Path(__file__).resolve().parents[2] / "packages" / "prism-coding-security" / "tests"
CORPORA = (TESTS / "corpus" / "commands.jsonl", TESTS / "data" / "codex_differential.jsonl")
LIMIT = 65_536
COMMAND = "uv run --group bench python scripts/bench/policy.py"

WORST_CASES: dict[str, str] = {
    "variable doubling (`x=$x$x` x24, the 204-char report)": "x=a; " + "x=$x$x; " * 24 + "echo $x",
    "variable doubling to the input limit": "x=a; " + "x=$x$x; " * 8_000,
    "wide variable used 1,500 times": "x=" + "a" * 60_000 + "; echo " + "$x " * 1_500,
    "60,000 open braces": "echo " + "{" * 60_000,
    "12,000 brace groups": "echo " + "{a,b}" * 12_000,
    "stray `$!` x20,000 in one word": "echo a" + "$!b" * 20_000,
    "21,000 simple commands": "ls;" * 21_000,
    "30,000 words in `bash -c`": "bash -c '" + "x " * 30_000 + "'",
    "9,000 assignments": "".join(f"a{i}=1;" for i in range(9_000)),
    "1,000-stage pipeline": "ls" + " | cat" * 1_000,
    "nested `bash -c` six deep": "bash -c " * 6 + "ls " * 20_000,
}
"""Inputs built against each bounded part of the analysis (cut to the input limit)."""


def _commands() -> list[str]:
    corpus = next(path for path in CORPORA if path.exists())
    with corpus.open(encoding="utf-8") as handle:
        return [json.loads(line)["cmd"] for line in handle if line.strip()]


def _worst_cases(root: str, repeats: int) -> list[list[str]]:
    """(input, decision, median analysis ms, peak MiB) for each adversarial input: timed runs
    interleaved across inputs, then one run under tracemalloc for the peak."""
    commands = {name: command[:LIMIT] for name, command in WORST_CASES.items()}

    def analysis(command: str) -> Callable[[], float]:
        return lambda: time_calls(lambda: analyze_command(command, cwd=root, roots=[root],
                                                          home=None), 1)  # fmt: skip

    figures = measure_sync({name: analysis(c) for name, c in commands.items()}, repeats)
    rows = []
    for name, command in commands.items():
        tracemalloc.start()
        decision = analyze_command(command, cwd=root, roots=[root], home=None).decision
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append([name, decision, f"{figures[name].median * 1000:,.0f}",
                     f"{peak / 2**20:.1f}"])  # fmt: skip
    return rows


@dataclass(frozen=True, slots=True)
class Plan:
    """How much to measure: rounds over the corpus per batch, timed batches, commands per
    sandbox batch."""

    rounds: int
    repeats: int
    commands: int


FULL = Plan(rounds=20, repeats=5, commands=30)
QUICK = Plan(rounds=2, repeats=2, commands=5)
PATHS = ("src/app.py", "src/new/deep/file.py", "link/app.py", "{root}/src/../src/app.py")
"""In-root paths for the path check: existing, new, through a symlink, with ``..``."""


def _throughput_subjects(root: str, commands: list[str], rounds: int) -> dict[str, Batch]:
    """Seconds per decision, per parse, per path check and per ``realpath``, as batches."""
    policy = CodingApprovalPolicy(roots=[root])
    actions = [
        ExecutionAction(kind="shell", operation="execute", command=c, cwd=root, paths=(root,))
        for c in commands
    ]
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    encoded = [c.encode() for c in commands]
    paths = [path.format(root=root) for path in PATHS]

    async def decide() -> None:
        for action in actions:
            decision = policy.check(action)
            if not isinstance(decision, ExecutionDecision):
                await decision  # needs approval: resolves to a denial

    def parse() -> None:
        for source in encoded:
            parser.parse(source)

    def check() -> None:
        for path in paths:
            assert check_path(path, cwd=root, roots=(root,), mutating=True) is None

    def realpath() -> None:
        for path in paths:
            os.path.realpath(os.path.join(root, path))

    def per_item(run: Callable[[], object], items: int, times: int) -> Batch:
        async def batch() -> float:
            if inspect.iscoroutinefunction(run):
                return await time_async_calls(run, times) / items
            return time_calls(run, times) / items

        return batch

    return {
        "decide": per_item(decide, len(actions), rounds),
        "parse": per_item(parse, len(encoded), rounds),
        "check_path": per_item(check, len(paths), rounds * 100),
        "realpath": per_item(realpath, len(paths), rounds * 100),
    }


def _rate(seconds: float) -> str:
    return f"{1 / seconds:,.0f}"


def _throughput_rows(figures: dict[str, Figures], count: int) -> list[list[str]]:
    """Operations per second from the median batch, best batch in brackets."""
    decide, parse = figures["decide"], figures["parse"]
    ours, real = figures["check_path"], figures["realpath"]
    return [
        [f"decisions/s over {count} corpus commands",
         f"{_rate(decide.median)} (best {_rate(decide.best)})",
         f"{_rate(parse.median)} (tree-sitter parse only)",
         f"{decide.median / parse.median:.1f}x slower"],
        ["path checks/s (existing, new, symlinked, `..`)",
         f"{_rate(ours.median)} (check_path; best {_rate(ours.best)})",
         f"{_rate(real.median)} (os.path.realpath)",
         f"{ours.median / real.median:.1f}x slower"],
    ]  # fmt: skip


async def _local_true(root: str) -> None:
    process = await anyio.open_process(
        ["bash", "-c", "true"], stdin=subprocess.DEVNULL, cwd=root, start_new_session=True
    )
    async with process:
        assert process.stdout is not None
        async for _ in process.stdout:
            pass
        await process.wait()


async def _sandbox_true(sandbox: BubblewrapSandbox, root: str) -> None:
    result = await sandbox.exec("true", cwd=root, env=dict(os.environ), on_data=lambda _: None)
    assert result.exit_code == 0, result


def _workspace(tmp: str) -> str:
    root = os.path.realpath(tmp)
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "src", "app.py"), "w") as handle:
        handle.write("x = 1\n")
    os.symlink(os.path.join(root, "src"), os.path.join(root, "link"))
    return root


async def _sandbox_row(root: str, plan: Plan) -> list[str]:
    """``true`` per command in ``BubblewrapSandbox`` beside a local ``bash -c true``."""
    subjects: dict[str, Batch] = {
        "local": lambda: time_async_calls(lambda: _local_true(root), plan.commands)
    }
    if shutil.which("bwrap"):
        sandbox = BubblewrapSandbox(root=root)
        subjects["boxed"] = lambda: time_async_calls(
            lambda: _sandbox_true(sandbox, root), plan.commands
        )
    figures = await measure_async(subjects, plan.repeats)
    local = figures["local"].median
    if "boxed" not in figures:
        return ["`true` per command", "bwrap not installed", f"{local * 1000:.1f} ms", "-"]
    boxed = figures["boxed"].median
    return ["`true` per command",
            f"{boxed * 1000:.1f} ms (BubblewrapSandbox; best {figures['boxed'].best * 1000:.1f})",
            f"{local * 1000:.1f} ms (local bash -c true)",
            f"{boxed / local:.1f}x (+{(boxed - local) * 1000:.1f} ms)"]  # fmt: skip


async def report(plan: Plan, policy_only: bool) -> str:
    """Both tables: throughput (and sandbox cost), then the worst-case inputs."""
    commands = _commands()
    with tempfile.TemporaryDirectory() as tmp:
        root = _workspace(tmp)
        subjects = _throughput_subjects(root, commands, plan.rounds)
        rows = _throughput_rows(await measure_async(subjects, plan.repeats), len(commands))
        worst = _worst_cases(root, max(plan.repeats // 2, 1))
        if not policy_only:
            rows.append(await _sandbox_row(root, plan))
    first = markdown_table(["measure", "prism-coding-security", "baseline", "ratio"], rows)
    second = markdown_table(["worst-case input (65,536 chars max)", "decision", "ms (median)",
                             "peak MiB"], worst)  # fmt: skip
    return f"{first}\n\n{second}"


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--policy-only", action="store_true", help="skip the sandbox row")
    args = parser.parse_args()
    table = anyio.run(report, QUICK if args.quick else FULL, args.policy_only)
    flags = (" --quick" if args.quick else "") + (" --policy-only" if args.policy_only else "")
    print(header(COMMAND + flags) + "\n" + table)


if __name__ == "__main__":
    main()

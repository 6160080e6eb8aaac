"""Coding-security benchmark: policy decisions per second and sandbox overhead per command.

Run: uv run --group bench python scripts/bench/policy.py [--policy-only]

1. Decisions/s of ``create_coding_approval_policy`` over every command of the package's test
   corpus (``tests/corpus/commands.jsonl``, or the Codex differential data when the corpus is not
   there) next to a bare tree-sitter-bash parse of the same commands.
2. Worst cases: analysis time and peak memory (tracemalloc, separate run) of the largest legal
   adversarial inputs (65,536 characters) built against each bounded part of the analysis.
3. Wall time of ``true`` run through ``BubblewrapSandbox`` next to the same ``bash -c true``
   spawned locally (both through anyio subprocesses, output streamed); skipped by
   ``--policy-only``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import tree_sitter
import tree_sitter_bash
from _common import machine_line, markdown_table, median

from prism.coding_security import (
    BubblewrapSandbox,
    analyze_command,
    check_path,
    create_coding_approval_policy,
)
from prism.core import ExecutionAction, ExecutionDecision

TESTS = Path(__file__).resolve().parents[2] / "packages" / "prism-coding-security" / "tests"
CORPORA = (TESTS / "corpus" / "commands.jsonl", TESTS / "data" / "codex_differential.jsonl")
LIMIT = 65_536

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


def _worst_cases(root: str) -> list[tuple[str, str, str, str]]:
    """(input, decision, median analysis ms, peak MiB) for each adversarial input."""
    rows = []
    for name, command in WORST_CASES.items():
        command = command[:LIMIT]
        times = []
        decision = ""
        for _ in range(3):
            started = time.perf_counter()
            decision = analyze_command(command, cwd=root, roots=[root], home=None).decision
            times.append(time.perf_counter() - started)
        tracemalloc.start()
        analyze_command(command, cwd=root, roots=[root], home=None)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append((name, decision, f"{median(times) * 1000:,.0f}", f"{peak / 2**20:.1f}"))
    return rows


def _best(fn: Callable[[], float], repeats: int = 5) -> float:
    return min(fn() for _ in range(repeats))


async def _decisions_per_second(root: str, commands: list[str], rounds: int) -> float:
    policy = create_coding_approval_policy(roots=[root])
    actions = [
        ExecutionAction(kind="shell", operation="execute", command=c, cwd=root, paths=(root,))
        for c in commands
    ]
    started = time.perf_counter()
    for _ in range(rounds):
        for action in actions:
            decision = policy.check(action)
            if not isinstance(decision, ExecutionDecision):
                await decision  # needs approval: resolves to a denial
    return rounds * len(actions) / (time.perf_counter() - started)


def _parses_per_second(commands: list[str], rounds: int) -> float:
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    encoded = [c.encode() for c in commands]
    started = time.perf_counter()
    for _ in range(rounds):
        for source in encoded:
            parser.parse(source)
    return rounds * len(encoded) / (time.perf_counter() - started)


def _path_rates(root: str, rounds: int) -> tuple[float, float]:
    """``check_path`` on in-root paths (existing, new, symlinked) vs ``os.path.realpath``."""
    paths = ["src/app.py", "src/new/deep/file.py", "link/app.py", f"{root}/src/../src/app.py"]
    started = time.perf_counter()
    for _ in range(rounds):
        for path in paths:
            assert check_path(path, cwd=root, roots=(root,), mutating=True) is None
    ours = rounds * len(paths) / (time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(rounds):
        for path in paths:
            os.path.realpath(os.path.join(root, path))
    return ours, rounds * len(paths) / (time.perf_counter() - started)


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


async def _per_call(run: Callable[[], Awaitable[None]], count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        await run()
    return (time.perf_counter() - started) / count


def _workspace(tmp: str) -> str:
    root = os.path.realpath(tmp)
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "src", "app.py"), "w") as handle:
        handle.write("x = 1\n")
    os.symlink(os.path.join(root, "src"), os.path.join(root, "link"))
    return root


async def main() -> None:
    commands = _commands()
    with tempfile.TemporaryDirectory() as tmp:
        root = _workspace(tmp)
        policy_rate = max([await _decisions_per_second(root, commands, 20) for _ in range(3)])
        parse_rate = _best(lambda: _parses_per_second(commands, 20), 3)
        rows = [
            (
                f"decisions/s over {len(commands)} corpus commands",
                f"{policy_rate:,.0f}",
                f"{parse_rate:,.0f} (tree-sitter parse only)",
                f"{parse_rate / policy_rate:.1f}x slower",
            )
        ]
        ours, real = _path_rates(root, 2000)
        rows.append(
            (
                "path checks/s (existing, new, symlinked, `..`)",
                f"{ours:,.0f} (check_path)",
                f"{real:,.0f} (os.path.realpath)",
                f"{real / ours:.1f}x slower",
            )
        )
        worst = _worst_cases(root)
        local = min([await _per_call(lambda: _local_true(root), 30) for _ in range(3)])
        if "--policy-only" in sys.argv:
            pass
        elif shutil.which("bwrap"):
            sandbox = BubblewrapSandbox(root=root)
            boxed = min(
                [await _per_call(lambda: _sandbox_true(sandbox, root), 30) for _ in range(3)]
            )
            rows.append(
                (
                    "`true` per command",
                    f"{boxed * 1000:.1f} ms (BubblewrapSandbox)",
                    f"{local * 1000:.1f} ms (local bash -c true)",
                    f"{boxed / local:.1f}x (+{(boxed - local) * 1000:.1f} ms)",
                )
            )
        else:
            rows.append(
                ("`true` per command", "bwrap not installed", f"{local * 1000:.1f} ms", "-")
            )
    print(machine_line() + "\n")
    print(markdown_table(["measure", "prism-coding-security", "baseline", "ratio"], rows))
    print()
    print(
        markdown_table(["worst-case input (65,536 chars max)", "decision", "ms", "peak MiB"], worst)
    )


if __name__ == "__main__":
    anyio.run(main)

"""Every elapsed-time upper bound in a test goes through ``scaled()``.

A bare ``assert elapsed < 2`` is a flake on a loaded 2-core CI machine; ``scaled(2)`` lets
``PRISM_TEST_TIME_FACTOR`` stretch it. This walks every test file's syntax tree and names each
assertion that compares a measured duration against a bare number.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_CLOCKS = {"monotonic", "perf_counter", "time"}
_DURATION_NAMES = {"elapsed", "took", "duration", "spent", "wall"}


def _measures_time(node: ast.expr) -> bool:
    """True for ``clock() - x`` or a variable named like a duration."""
    if isinstance(node, ast.Name):
        return node.id in _DURATION_NAMES
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        call = node.left
        return (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in _CLOCKS
        )
    return False


def _bare_number(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _bare_number(node.left) and _bare_number(node.right)
    return False


def unscaled_bounds(source: str) -> list[int]:
    """Line numbers of asserts bounding a measured time above by a bare number."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assert) or not isinstance(node.test, ast.Compare):
            continue
        left = node.test.left
        for op, right in zip(node.test.ops, node.test.comparators, strict=True):
            if isinstance(op, (ast.Lt, ast.LtE)) and _measures_time(left) and _bare_number(right):
                lines.append(node.lineno)
            left = right
    return lines


def test_the_check_finds_a_bare_bound_and_accepts_a_scaled_one() -> None:
    assert unscaled_bounds("assert time.monotonic() - t0 < 2\nassert elapsed <= 1 + 3\n") == [1, 2]
    assert unscaled_bounds("assert time.monotonic() - t0 < scaled(2)\n") == []
    assert unscaled_bounds("assert 0.5 <= elapsed < 0.5 + scaled(2)\n") == []


def test_no_test_bounds_elapsed_time_by_a_bare_number() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in ("packages", "conformance", "docs", "scripts")
        for path in sorted((ROOT / folder).rglob("test_*.py"))
        if ".venv" not in path.parts
        for line in unscaled_bounds(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "wrap these bounds in prism.core.testing.scaled(): " + ", ".join(
        offenders
    )

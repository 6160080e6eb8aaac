"""Every row of the threat matrix has a test that runs it against a broken subject and expects
it to fail: a row nothing can fail proves nothing.

The tests are found by reading this folder's modules: a test function whose name says ``fail``
breaks the rows it names as the first argument of a call (``expect_failure("8", ...)``,
``run("E3", ...)``) or in the ``row`` column of its ``parametrize`` table.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from prism.conformance import THREAT_MATRIX

HERE = Path(__file__).parent
ROWS = frozenset(row.id for row in THREAT_MATRIX)


def _first_string(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _table_rows(decorator: ast.expr, tables: dict[str, ast.expr]) -> set[str]:
    """Row ids in the ``row`` column of a ``parametrize(("row", ...), table)`` decorator."""
    if not (isinstance(decorator, ast.Call) and len(decorator.args) >= 2):
        return set()
    names, table = decorator.args[0], decorator.args[1]
    columns = names.elts if isinstance(names, ast.Tuple | ast.List) else [names]
    if not columns or _first_string(columns[0]) != "row":
        return set()
    if isinstance(table, ast.Name):
        table = tables.get(table.id, table)
    found: set[str] = set()
    for entry in table.elts if isinstance(table, ast.List | ast.Tuple) else []:
        if isinstance(entry, ast.Tuple) and entry.elts:
            first = _first_string(entry.elts[0])
        elif isinstance(entry, ast.Call) and entry.args:  # pytest.param("4", ...)
            first = _first_string(entry.args[0])
        else:
            first = _first_string(entry)
        if first is not None:
            found.add(first)
    return found


def rows_failed_by(source: str) -> dict[str, set[str]]:
    """{row id: names of the tests in ``source`` that run it against a broken subject}."""
    module = ast.parse(source)
    tables = {
        target.id: node.value
        for node in module.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: dict[str, set[str]] = defaultdict(set)
    for node in module.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if not (node.name.startswith("test_") and "fail" in node.name):
            continue
        named: set[str] = set()
        for decorator in node.decorator_list:
            named |= _table_rows(decorator, tables)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and inner.args:
                first = _first_string(inner.args[0])
                if first is not None:
                    named.add(first)
        for row in named & ROWS:
            found[row].add(node.name)
    return found


def test_every_row_has_a_broken_subject_that_fails_it() -> None:
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(HERE.glob("test_*.py")):
        for row, tests in rows_failed_by(path.read_text(encoding="utf-8")).items():
            found[row] |= {f"{path.name}::{test}" for test in tests}
    missing = sorted(ROWS - found.keys(), key=lambda r: (r.startswith("E"), int(r.lstrip("E"))))
    assert not missing, f"rows no broken subject fails: {missing}"


def test_the_reader_counts_only_tests_that_expect_a_failure() -> None:
    source = """
TABLE = [pytest.param("4", None, id="x"), ("E2", None)]

@pytest.mark.parametrize(("row", "subject"), TABLE)
def test_the_row_fails(row, subject):
    expect_failure(row, subject)

@pytest.mark.parametrize("row", ["5"])
def test_the_row_passes(row):
    run_row(row)

def test_row_8_fails():
    expect_failure("8", None, "asyncio", "phrase")

def test_row_9_skips():
    run_row("9")
"""
    assert rows_failed_by(source) == {
        "4": {"test_the_row_fails"},
        "E2": {"test_the_row_fails"},
        "8": {"test_row_8_fails"},
    }

"""Each public prism.core module says what it exports once: `__all__`, the imports and (for the
package itself) the lazy table name the same names from the same private modules."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import prism.core

CORE_DIR = Path(prism.core.__file__).parent
SUBMODULES = ["agent", "functions", "extensions", "lowlevel"]


def _all(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return []


def _imported(nodes: list[ast.stmt]) -> dict[str, str]:
    """Relative imports ``from .mod import name`` as ``{name: ".mod"}``."""
    found: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                found[alias.asname or alias.name] = "." + (node.module or "")
        elif isinstance(node, ast.If):
            found.update(_imported(node.body))
    return found


def _lazy(tree: ast.Module) -> dict[str, str] | None:
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_LAZY":
            assert node.value is not None
            table: dict[str, str] = ast.literal_eval(node.value)
            return table
    return None


def surface_mismatches(source: str) -> list[str]:
    """Every disagreement between ``__all__``, the imports and the lazy table (if any)."""
    tree = ast.parse(source)
    exported = _all(tree)
    imported = {n: m for n, m in _imported(tree.body).items() if not n.startswith("_")}
    problems = [f"{n} is listed twice in __all__" for n in set(exported) if exported.count(n) > 1]
    problems += [f"{n} is exported but not imported" for n in exported if n not in imported]
    problems += [f"{n} is imported but not exported" for n in imported if n not in exported]
    lazy = _lazy(tree)
    if lazy is not None:
        problems += [f"{n} is exported but has no lazy entry" for n in exported if n not in lazy]
        problems += [f"{n} has a lazy entry but is not exported" for n in lazy if n not in exported]
        problems += [
            f"{n} loads from {lazy[n]} but is imported from {imported[n]}"
            for n in lazy
            if n in imported and lazy[n] != imported[n]
        ]
    return sorted(problems)


@pytest.mark.parametrize("name", ["__init__", *SUBMODULES])
def test_all_imports_and_lazy_table_agree(name: str) -> None:
    assert surface_mismatches((CORE_DIR / f"{name}.py").read_text()) == []


@pytest.mark.parametrize("name", SUBMODULES)
def test_every_submodule_name_resolves(name: str) -> None:
    module = importlib.import_module(f"prism.core.{name}")
    for exported in module.__all__:
        assert getattr(module, exported) is not None


def test_no_name_is_exported_from_two_public_modules() -> None:
    seen: dict[str, str] = {}
    for name in ["", *[f".{m}" for m in [*SUBMODULES, "events", "testing", "options"]]]:
        module = importlib.import_module(f"prism.core{name}")
        for exported in module.__all__:
            assert exported not in seen, f"{exported} in prism.core{name} and {seen[exported]}"
            seen[exported] = f"prism.core{name}"


BROKEN = """
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._a import A, B
    from ._c import C
__all__ = ["A", "B", "D"]
_LAZY: dict[str, str] = {"A": "._a", "B": "._b", "E": "._e"}
"""


def test_the_check_catches_every_kind_of_disagreement() -> None:
    assert surface_mismatches(BROKEN) == [
        "B loads from ._b but is imported from ._a",
        "C is imported but not exported",
        "D is exported but has no lazy entry",
        "D is exported but not imported",
        "E has a lazy entry but is not exported",
    ]

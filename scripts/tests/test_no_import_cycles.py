"""No distribution's modules import each other in a cycle.

A cycle works only as long as import order happens to suit it, or through a function-local
import that hides it: both count here. Imports under ``if TYPE_CHECKING:`` are types only.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module_name(path: Path) -> str:
    parts = list(path.with_suffix("").parts)
    start = parts.index("prism")
    name = parts[start:]
    return ".".join(name[:-1] if name[-1] == "__init__" else name)


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node except what sits under ``if TYPE_CHECKING:``."""
    out: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                pending.extend(child.orelse)
            else:
                pending.append(child)
    return out


def _runtime_imports(tree: ast.Module, module: str, package: bool) -> set[str]:
    """Modules ``module`` imports at run time, at any depth (not under TYPE_CHECKING)."""
    base = module if package else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base.rsplit(".", node.level - 1)[0] if node.level > 1 else base
                target = f"{anchor}.{node.module}" if node.module else anchor
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in node.names)
            elif node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def cycles(sources: dict[str, tuple[str, bool]]) -> list[list[str]]:
    """Import cycles among ``{module: (source text, is_package)}``."""
    graph = {
        name: sorted(
            target
            for target in _runtime_imports(ast.parse(text), name, package)
            if target in sources and target != name
        )
        for name, (text, package) in sources.items()
    }
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in graph[node]:
            if state.get(target) == 1:
                found.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    return found


def test_the_check_finds_a_cycle_and_ignores_type_checking_imports() -> None:
    cyclic = {
        "prism.x._a": ("from ._b import B\n", False),
        "prism.x._b": ("from ._a import A\n", False),
    }
    assert cycles(cyclic) == [["prism.x._a", "prism.x._b", "prism.x._a"]]
    typed = {
        "prism.x._a": ("from ._b import B\n", False),
        "prism.x._b": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._a import A\n",
            False,
        ),
    }
    assert cycles(typed) == []


def test_no_distribution_has_an_import_cycle() -> None:
    for src in sorted([*ROOT.glob("packages/*/src"), ROOT / "conformance" / "src"]):
        sources = {
            _module_name(path.relative_to(src)): (
                path.read_text("utf-8"),
                path.name == "__init__.py",
            )
            for path in src.glob("prism/**/*.py")
        }
        # A module importing names from its own package's __init__ (`prism.core`) is the usual
        # re-export pattern, not a cycle between concern modules: only those are counted.
        found = [c for c in cycles(sources) if all(m.count(".") >= 2 for m in c)]
        assert found == [], f"import cycles in {src.parent.name}: {found}"

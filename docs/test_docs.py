"""Run every ```python block of the docs (``docs/**/*.md``, the root and package READMEs).

Blocks of one page run in order in one shared namespace (a throwaway module), so a later block may
use what an earlier one defined. A block whose code has a top-level ``await`` runs under
``asyncio.run``. A block right after ``<!-- docs-test: skip -->`` is skipped: keep that for blocks
that need an external service. A page importing a ``prism.*`` package that is not installed is
skipped with the reason. Tracebacks point at the Markdown file and line.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import inspect
import re
import sys
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "docs").rglob("*.md"),
        *(ROOT / "packages").glob("*/README.md"),
        ROOT / "conformance" / "README.md",
    ],
    key=lambda page: page.relative_to(ROOT).as_posix(),
)
PAGES = [page for page in PAGES if page.is_file() and "_build" not in page.parts]

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")
_SKIP = re.compile(r"^\s*<!--\s*docs-test:\s*skip\b.*-->\s*$")
_PYTHON = frozenset({"python", "py", "python3"})
_PRIVATE_PATH = re.compile(r"\bprism(?:\.[A-Za-z]\w*)*\.(_[A-Za-z]\w*)")
"""A dotted ``prism`` path with a private part (``prism.conformance._hostile_mcp``), anywhere."""


@dataclass(frozen=True)
class Block:
    """One fenced Python block: where it starts (1-based line of its first code line)."""

    line: int
    code: str
    skip: bool


def fenced_blocks(text: str) -> list[tuple[str, Block]]:
    """Every fenced block of a Markdown text with its language (lower case), in order."""
    lines = text.splitlines()
    blocks: list[tuple[str, Block]] = []
    index = 0
    while index < len(lines):
        opening = _OPEN.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, indent = opening["fence"], opening["indent"]
        language = (opening["info"].split() or [""])[0].lower()
        start = index + 1
        end = start
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        previous = next((ln for ln in reversed(lines[:index]) if ln.strip()), "")
        body = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in lines[start:end]]
        code = textwrap.dedent("\n".join(body))
        blocks.append(
            (language, Block(line=start + 1, code=code, skip=bool(_SKIP.match(previous))))
        )
        index = end + 1
    return blocks


def python_blocks(text: str) -> list[Block]:
    """The ```python blocks of a Markdown text, in order, with their skip markers."""
    return [block for language, block in fenced_blocks(text) if language in _PYTHON]


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}


def prism_imports(blocks: list[Block]) -> set[str]:
    """``prism.<package>`` modules the blocks import (to skip pages whose package is missing)."""
    found: set[str] = set()
    for block in blocks:
        try:
            tree = ast.parse(block.code)
        except SyntaxError:
            continue  # reported when the block runs
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            found.update(".".join(n.split(".")[:2]) for n in names if n.startswith("prism."))
    return found


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def run_block(block: Block, page: Path, namespace: dict[str, object]) -> None:
    """Compile with the page's line numbers and run; top-level ``await`` runs under asyncio."""
    source = "\n" * (block.line - 1) + block.code
    code = compile(
        source, str(page), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
    )
    if code.co_flags & inspect.CO_COROUTINE:
        asyncio.run(eval(code, namespace))
    else:
        exec(code, namespace)


CODE_PAGES = [page for page in PAGES if python_blocks(page.read_text(encoding="utf-8"))]
"""Pages with at least one python block (a page without any has nothing to run, so no test)."""


def test_every_package_readme_has_a_runnable_example() -> None:
    """The package READMEs are the index pages of the distributions: their code must run."""
    readmes = [ROOT / "packages" / name / "README.md" for name in ("prism-core", "prism-jsonschema",
               "prism-mcp", "prism-coding-tools", "prism-coding-security", "prism-otel",
               "prism-pydantic-ai", "prism-openai-agents")]  # fmt: skip
    for readme in readmes:
        blocks = python_blocks(readme.read_text(encoding="utf-8"))
        assert [b for b in blocks if not b.skip], f"{readme} has no runnable python block"


@pytest.mark.parametrize(
    "page", CODE_PAGES, ids=[p.relative_to(ROOT).as_posix() for p in CODE_PAGES]
)
def test_python_blocks_run(page: Path) -> None:
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    runnable = [block for block in blocks if not block.skip]
    if not runnable:
        pytest.skip("no runnable python blocks")
    missing = sorted(m for m in prism_imports(runnable) if not _installed(m))
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    name = "docs_page_" + re.sub(r"\W", "_", page.relative_to(ROOT).as_posix())
    module = types.ModuleType(name)
    module.__file__ = str(page)
    sys.modules[name] = module  # dataclasses and typing look classes' modules up here
    try:
        for block in runnable:
            run_block(block, page, module.__dict__)
    finally:
        sys.modules.pop(name, None)


def private_uses(language: str, code: str) -> list[str]:
    """What a docs example uses that is not public API: ``_private`` modules and names.

    Any block: a dotted ``prism`` path with a ``_part`` (an import, ``python -m``, a string).
    Python blocks also: ``from m import _name``, ``import m._part`` and ``obj._attribute``
    (dunders such as ``__name__`` are public protocol, not private).
    """
    found = [f"{match[0]}" for match in _PRIVATE_PATH.finditer(code)]
    if language not in _PYTHON:
        return found
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return found  # reported when the block runs
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            found += [f"from {node.module} import {a.name}" for a in node.names if _private(a.name)]
            found += [f"from {node.module}" for part in parts if _private(part)][:1]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if any(map(_private, a.name.split(".")))]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            found.append(f".{node.attr}")
    return sorted(set(found))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_examples_use_only_public_api(page: Path) -> None:
    """A user copies examples: every module and name they use must be public."""
    text = page.read_text(encoding="utf-8")
    uses = [
        f"line {block.line}: {use}"
        for language, block in fenced_blocks(text)
        for use in private_uses(language, block.code)
    ]
    assert not uses, f"{page.relative_to(ROOT)} examples use private API: " + "; ".join(uses)


EXAMPLE_PROGRAMS = sorted(
    p for p in (ROOT / "docs" / "examples").glob("*.py") if not p.name.startswith("test_")
)


@pytest.mark.parametrize("program", EXAMPLE_PROGRAMS, ids=[p.name for p in EXAMPLE_PROGRAMS])
def test_example_programs_use_only_public_api(program: Path) -> None:
    uses = private_uses("python", program.read_text(encoding="utf-8"))
    assert not uses, f"{program.relative_to(ROOT)} uses private API: {uses}"


# --- the runner's own behaviour ------------------------------------------------------------

SAMPLE = """\
Intro.

```python
x = 1
```

<!-- docs-test: skip -->
```python
raise SystemExit("needs a server")
```

- a list item:

  ```python
  y = x + 1
  ```

~~~py title="async"
import asyncio
await asyncio.sleep(0)
z = y * 10
~~~

```sh
echo not python
```
"""


def test_the_runner_finds_blocks_skips_marked_ones_and_keeps_line_numbers() -> None:
    blocks = python_blocks(SAMPLE)
    assert [(b.line, b.skip) for b in blocks] == [(4, False), (9, True), (15, False), (19, False)]
    assert blocks[2].code == "y = x + 1"
    namespace: dict[str, object] = {}
    for block in blocks:
        if not block.skip:
            run_block(block, Path("sample.md"), namespace)
    assert namespace["z"] == 20


def test_a_failing_block_points_at_the_markdown_line() -> None:
    block = python_blocks("text\n\n```python\nok = 1\nraise ValueError('boom')\n```\n")[0]
    with pytest.raises(ValueError, match="boom") as caught:
        run_block(block, Path("page.md"), {})
    frame = caught.traceback[-1]
    assert (Path(str(frame.path)).name, frame.lineno + 1) == ("page.md", 5)


def test_pages_importing_missing_packages_are_detected() -> None:
    blocks = python_blocks("```python\nfrom prism.nothing_here import x\nimport prism.core\n```\n")
    assert prism_imports(blocks) == {"prism.nothing_here", "prism.core"}
    assert not _installed("prism.nothing_here")
    assert _installed("prism.core")


HOSTILE = "prism.conformance._hostile_mcp"


@pytest.mark.parametrize(
    ("language", "code", "expected"),
    [
        (
            "python",
            "from prism.core._abort import X",
            ["from prism.core._abort", "prism.core._abort"],
        ),
        ("python", "from prism.core import _helper", ["from prism.core import _helper"]),
        ("python", "import prism.mcp._bridge", ["prism.mcp._bridge"]),
        ("python", "bridge._connection.close()", ["._connection"]),
        ("python", f'args = ("-m", "{HOSTILE}")', [HOSTILE]),
        ("sh", f"python -m {HOSTILE} --mode ok", [HOSTILE]),
        ("python", "print(tool.__name__, prism.core.__all__)", []),
        ("python", 'args = ("-m", "prism.mcp.demo")', []),
    ],
)
def test_private_uses_are_found(language: str, code: str, expected: list[str]) -> None:
    assert private_uses(language, code) == expected

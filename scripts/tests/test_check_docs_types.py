"""scripts/check-docs-types: the docs' examples type-check; an error names its page line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-docs-types"

PAGE = """# A page

Some prose.

```python
import asyncio

from prism.core import ToolCall, ToolRegistry, dispatch_tool_call

call = ToolCall(id="1", name="missing", arguments={})
result = asyncio.run(dispatch_tool_call(call, registry=ToolRegistry()))
```

More prose, then a block that awaits at the top level.

```python
again = await dispatch_tool_call(call, registry=ToolRegistry())
WRONG
```
"""


def _check(page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(page)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip


def test_a_typed_example_passes(tmp_path: Path) -> None:
    page = tmp_path / "good.md"
    page.write_text(PAGE.replace("WRONG", "assert again.error is not None"))
    run = _check(page)
    assert run.returncode == 0, run.stdout + run.stderr


def test_an_example_misusing_a_type_fails_at_its_page_line(tmp_path: Path) -> None:
    page = tmp_path / "bad.md"
    page.write_text(PAGE.replace("WRONG", "print(again.error.code)"))  # error may be None
    run = _check(page)
    assert run.returncode == 1
    assert f"{page}:18: error:" in run.stdout, run.stdout
    assert "union-attr" in run.stdout

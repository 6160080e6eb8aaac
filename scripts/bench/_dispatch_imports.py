"""Section 4 of the dispatch benchmark: import time in fresh interpreters.

The judged figure is first use: what a program that dispatches tools and runs an agent pays to
import those names. The agent's home comes from ``AGENT_HOMES`` (one line to edit on a move).
"""

from __future__ import annotations

from _common import Target, fmt_ms, fmt_ratio, markdown_table, measure_imports
from _dispatch_prism import Plan, agent_home

JSON, CORE = "import json", "import prism.core"
DISPATCH_NAMES = "from prism.core import dispatch_tool_call, ToolDefinition"


def first_use_statements() -> tuple[str, ...]:
    """The import statements of first use: the dispatch names, then the agent from its home."""
    module, name = agent_home()
    return DISPATCH_NAMES, f"from {module} import {name}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def import_report(plan: Plan) -> tuple[str, list[Target]]:
    """The import table and its targets (first use ≤ 1.5× ``import json``, no event loop)."""
    first_use = "; ".join(first_use_statements())
    figures = measure_imports([JSON, CORE, DISPATCH_NAMES, first_use], plan.import_reps)
    base = figures[JSON]
    rows = [
        [f"`{statement}`", fmt_ms(f.import_seconds),
         fmt_ratio(f.import_seconds / base.import_seconds), fmt_ms(f.process_seconds),
         fmt_ratio(f.process_seconds / base.process_seconds), _yes(f.asyncio), _yes(f.trio)]
        for statement, f in figures.items()
    ]  # fmt: skip
    table = markdown_table(
        ["import (fresh interpreter, bytecode cached)", "import ms", "÷ json", "process ms",
         "÷ json", "asyncio imported", "trio imported"],
        rows,
    )  # fmt: skip
    core, names = figures[CORE], figures[first_use]
    return table, [
        (f"first use (`{first_use}`) ≤ 1.5× `import json`",
         fmt_ratio(names.import_seconds / base.import_seconds),
         names.import_seconds <= 1.5 * base.import_seconds),
        ("bare `import prism.core` (lazy names, reference) ≤ 1.5× `import json`",
         fmt_ratio(core.import_seconds / base.import_seconds),
         core.import_seconds <= 1.5 * base.import_seconds),
        ("`import prism.core` imports neither asyncio nor trio",
         f"asyncio {_yes(core.asyncio)}, trio {_yes(core.trio)}",
         not core.asyncio and not core.trio),
        ("... nor does first use (the dispatch and agent names)",
         f"asyncio {_yes(names.asyncio)}, trio {_yes(names.trio)}",
         not names.asyncio and not names.trio),
    ]  # fmt: skip

"""Section 4 of the dispatch benchmark: import time in fresh interpreters.

The judged figure is first use: ``import prism.core`` and one dispatch of a no-op tool (driven
without an event loop, as a no-op tool never suspends), against ``import dataclasses`` (what
any program built from frozen dataclasses pays first). The agent's home comes from
``AGENT_HOMES`` (one line to edit on a move); importing it is a context row.
"""

from __future__ import annotations

from _common import Target, fmt_ms, fmt_ratio, markdown_table, measure_imports
from _dispatch_prism import Plan, agent_home

JSON, DATACLASSES, CORE = "import json", "import dataclasses", "import prism.core"
DISPATCH_NAMES = "from prism.core import dispatch_tool_call, ToolDefinition"
FIRST_USE = (
    "from prism.core import ToolCall, ToolDefinition, ToolRegistry, dispatch_tool_call\n"
    "async def noop(arguments, context): return 'ok'\n"
    "registry = ToolRegistry([ToolDefinition(name='noop', execute=noop)])\n"
    "step = dispatch_tool_call(ToolCall(id='1', name='noop', arguments={}), registry=registry)\n"
    "try: step.send(None)\n"
    "except StopIteration as done: assert done.value.content[0].text == 'ok'\n"
    "else: raise SystemExit('the no-op dispatch suspended')"
)
FIRST_USE_LABEL = "`import prism.core` + first dispatch (a no-op tool)"


def agent_statement() -> str:
    """The dispatch names, then the agent from its home (context row)."""
    module, name = agent_home()
    return f"{DISPATCH_NAMES}; from {module} import {name}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _label(statement: str) -> str:
    return FIRST_USE_LABEL if statement == FIRST_USE else f"`{statement}`"


def import_report(plan: Plan) -> tuple[str, list[Target]]:
    """The import table and its targets (first use ≤ 2× ``import dataclasses``, no event loop)."""
    agent = agent_statement()
    statements = [JSON, DATACLASSES, CORE, FIRST_USE, DISPATCH_NAMES, agent]
    figures = measure_imports(statements, plan.import_reps)
    base, json_ = figures[DATACLASSES], figures[JSON]
    rows = [
        [_label(statement), fmt_ms(f.import_seconds),
         fmt_ratio(f.import_seconds / base.import_seconds),
         fmt_ratio(f.import_seconds / json_.import_seconds), fmt_ms(f.process_seconds),
         fmt_ratio(f.process_seconds / base.process_seconds), _yes(f.asyncio), _yes(f.trio)]
        for statement, f in figures.items()
    ]  # fmt: skip
    table = markdown_table(
        ["import (fresh interpreter, bytecode cached)", "import ms", "÷ dataclasses", "÷ json",
         "process ms", "÷ dataclasses", "asyncio imported", "trio imported"],
        rows,
    )  # fmt: skip
    core, first = figures[CORE], figures[FIRST_USE]
    return table, [
        (f"first use ({FIRST_USE_LABEL}) ≤ 2× `import dataclasses`",
         fmt_ratio(first.import_seconds / base.import_seconds),
         first.import_seconds <= 2 * base.import_seconds),
        ("bare `import prism.core` (lazy names, reference) ≤ 1.5× `import json`",
         fmt_ratio(core.import_seconds / json_.import_seconds),
         core.import_seconds <= 1.5 * json_.import_seconds),
        ("`import prism.core` imports neither asyncio nor trio",
         f"asyncio {_yes(core.asyncio)}, trio {_yes(core.trio)}",
         not core.asyncio and not core.trio),
        ("... nor does first use, nor the agent",
         f"asyncio {_yes(first.asyncio or figures[agent].asyncio)}, "
         f"trio {_yes(first.trio or figures[agent].trio)}",
         not (first.asyncio or first.trio or figures[agent].asyncio or figures[agent].trio)),
    ]  # fmt: skip

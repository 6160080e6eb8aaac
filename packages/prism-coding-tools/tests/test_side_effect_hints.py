"""The coding tools declare their side effects: only ``read`` may be re-run after a crash."""

from __future__ import annotations

from pathlib import Path

from prism.coding_tools import create_coding_tools


def test_read_is_read_only_and_shell_is_neither(tmp_path: Path) -> None:
    tools = {t.name: t for t in create_coding_tools(str(tmp_path))}
    assert (tools["read"].read_only, tools["read"].idempotent) == (True, False)
    assert (tools["shell"].read_only, tools["shell"].idempotent) == (False, False)
    for name in set(tools) - {"read"}:
        assert tools[name].read_only is False, name

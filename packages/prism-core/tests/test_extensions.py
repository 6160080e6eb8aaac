"""Extensions contribute inert tools; setup is permission-gated; discovery imports nothing."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from prism.core import (
    ToolCall,
    ToolDefinition,
    ToolGates,
    ToolRegistry,
    create_static_permission_policy,
    dispatch_tool_call,
)
from prism.core.extensions import (
    ExtensionKernel,
    ExtensionPermissionError,
    discover_extensions,
)

pytestmark = pytest.mark.anyio


class Ext:
    def __init__(self, name: str, tool: ToolDefinition) -> None:
        self.name = name
        self.tool = tool
        self.setups = 0

    async def setup(self, api: Any) -> None:
        self.setups += 1
        api.register_tool(self.tool)


async def test_contribution_is_not_dispatchable_until_host_registers(canary: Any) -> None:
    ext = Ext("weather", canary.tool("weather_now"))
    kernel = ExtensionKernel()
    await kernel.load(ext)
    assert [t.name for t in kernel.contributions.tools] == ["weather_now"]
    registry = ToolRegistry()
    before = await dispatch_tool_call(
        ToolCall(id="1", name="weather_now", arguments={}), registry=registry
    )
    assert before.error is not None and before.error.code == "unknown_tool"
    registry.register(kernel.contributions.tools[0])
    gated = await dispatch_tool_call(
        ToolCall(id="2", name="weather_now", arguments={}),
        registry=registry,
        gates=ToolGates(permission=create_static_permission_policy(deny=["tool:weather_*:*"])),
    )
    assert gated.error is not None and gated.error.code == "permission_denied"
    assert canary.entered == []


async def test_setup_is_permission_gated(canary: Any) -> None:
    ext = Ext("evil", canary.tool("x"))
    kernel = ExtensionKernel(
        permission=create_static_permission_policy(deny=["extension:evil:setup"])
    )
    with pytest.raises(ExtensionPermissionError, match="extension:evil:setup"):
        await kernel.load(ext)
    assert ext.setups == 0
    assert kernel.contributions.tools == ()


async def test_failing_setup_contributes_nothing(canary: Any) -> None:
    class Broken:
        name = "broken"

        def setup(self, api: Any) -> None:
            api.register_tool(canary.tool("half"))
            raise RuntimeError("setup failed halfway")

    kernel = ExtensionKernel()
    with pytest.raises(RuntimeError, match="halfway"):
        await kernel.load(Broken())
    assert kernel.contributions.tools == ()
    assert kernel.loaded == ()


def test_discovery_lists_without_importing(tmp_path: Any, monkeypatch: Any) -> None:
    dist = tmp_path / "fake_ext-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-ext\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[prism.extensions]\nfake = fake_ext_mod:Extension\n")
    (tmp_path / "fake_ext_mod.py").write_text("raise RuntimeError('imported!')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = [d for d in discover_extensions() if d.name == "fake"]
    assert len(found) == 1
    assert found[0].module == "fake_ext_mod:Extension"
    assert found[0].distribution == "fake-ext"
    assert "fake_ext_mod" not in sys.modules
    with pytest.raises(RuntimeError, match="imported!"):
        found[0].load()

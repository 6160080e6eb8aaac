"""``python -m prism.mcp.demo``: the public demo server the docs' examples start."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

from prism.core.testing import scaled
from prism.mcp import StdioTransport, connect_mcp_tools
from prism.mcp.demo import demo_tools

from .conftest import Kit

pytestmark = pytest.mark.anyio


async def test_the_demo_serves_echo_search_and_adds_tools_at_run_time(kit: Kit) -> None:
    server = StdioTransport(
        sys.executable, args=("-m", "prism.mcp.demo", "--label", "alpha"), env=kit.env
    )
    with anyio.fail_after(scaled(30)):
        async with connect_mcp_tools(server_id="demo", transport=server) as bridge:
            names = [tool.name for tool in bridge.tools]
            assert names == ["mcp:demo:echo", "mcp:demo:search", "mcp:demo:add_tool"]
            echo = await kit.call(bridge, "echo", {"text": "hello"})
            assert echo.error is None and echo.content[0].text == "hello"  # type: ignore[union-attr]
            found = await kit.call(bridge, "search", {"query": "q"})
            assert found.content[0].text == "alpha:q"  # type: ignore[union-attr]
            await kit.call(bridge, "add_tool", {"name": "fresh"})
            assert await kit.until(lambda: bridge.stale, seconds=scaled(10))
            assert "mcp:demo:fresh" in {tool.name for tool in await bridge.refresh()}
            again = await kit.call(bridge, "add_tool", {"name": "fresh"})
            assert again.error is not None  # a name already taken is refused


def test_a_bad_label_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^demo_tools\.label must be a str matching"):
        demo_tools("no spaces")
    done = subprocess.run(
        [sys.executable, "-m", "prism.mcp.demo", "--label", "../x"],
        capture_output=True, text=True, timeout=scaled(30), check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--label: demo_tools.label must be a str matching" in done.stderr

"""ServeOptions.version is what the installed prism-mcp says, never a number written by hand."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from prism.core import ToolPipeline, ToolRegistry
from prism.mcp.server import McpToolServer, ServeOptions


def test_the_default_version_is_the_installed_distributions() -> None:
    installed = version("prism-mcp")
    assert ServeOptions().version == installed
    server = McpToolServer(ToolPipeline(registry=ToolRegistry()))
    assert server.lowlevel.version == installed


def test_a_host_may_name_its_own_version_and_a_bad_one_is_refused_by_name() -> None:
    assert ServeOptions(version="2.4.1").version == "2.4.1"
    with pytest.raises(ValueError, match=r"^ServeOptions\.version must be a non-empty str"):
        ServeOptions(version="")
    with pytest.raises(TypeError, match=r"^ServeOptions\.version must be a non-empty str"):
        ServeOptions(version=2)  # type: ignore[arg-type]

"""Importing prism.core is cheap and backend-neutral: no asyncio or trio at import time."""

from __future__ import annotations

import subprocess
import sys

import pytest

import prism.core


def test_import_does_not_load_async_backends() -> None:
    code = (
        "import sys, prism.core\n"
        "from prism.core import dispatch_tool_call, dispatch_tool_calls_in_order\n"
        "from prism.core.agent import Agent\n"
        "print(sorted(m for m in ('asyncio', 'trio', 'anyio', 'sniffio') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def test_every_public_name_resolves_and_unknown_names_fail() -> None:
    for name in prism.core.__all__:
        assert getattr(prism.core, name) is not None
    with pytest.raises(AttributeError, match="no_such_thing"):
        prism.core.no_such_thing  # type: ignore[attr-defined]  # noqa: B018
    assert set(prism.core.__all__) <= set(dir(prism.core))

"""Shell output: rolling tail, spill file, hard stop, bounded memory, UTF-8 across chunks."""

from __future__ import annotations

import itertools
import os
import stat
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_tools import ShellOptions, create_shell_tool
from prism.coding_tools._output import OutputCollector
from prism.core.testing import scaled

MIB = 1024 * 1024


def size(path: object) -> int:
    return os.path.getsize(str(path))


def content(path: object) -> str:
    return Path(str(path)).read_text()


def names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def reset_peak_rss() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM restarts from the current RSS


def text_of(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.anyio
async def test_200_mb_of_output_keeps_memory_bounded_and_spills_everything(
    tmp_path: Path, context: Any, proc_number: Callable[[str, bytes], int]
) -> None:
    total = 200_000_000
    shell = create_shell_tool(tmp_path, options=ShellOptions(max_total_output_bytes=256 * MIB))
    command = f"yes 'flood line 0123456789 abcdefghij' | head -c {total}"
    before = proc_number("/proc/self/status", b"VmRSS")
    reset_peak_rss()
    with anyio.fail_after(scaled(60)):
        result = await shell.execute({"command": command}, context())
    growth = (proc_number("/proc/self/status", b"VmHWM") - before) * 1024
    assert growth < 32 * MIB, f"peak RSS grew {growth / MIB:.1f} MiB"
    assert not result.is_error
    spill = result.metadata["full_output_path"]
    assert isinstance(spill, str) and spill in text_of(result)
    assert size(spill) == total
    assert stat.S_IMODE(os.stat(spill).st_mode) == 0o600
    assert len(text_of(result).encode()) < 51_200 + 500
    assert result.metadata["total_bytes"] == total and result.metadata["truncated"] is True


@pytest.mark.anyio
async def test_hard_stop_at_max_total_output_bytes(
    tmp_path: Path, context: Any, is_alive: Callable[[int], bool]
) -> None:
    marker = f"endless-{uuid.uuid4().hex}"
    shell = create_shell_tool(tmp_path, options=ShellOptions(max_total_output_bytes=MIB))
    with anyio.fail_after(scaled(30)):
        result = await shell.execute({"command": f"echo $$ > pid; exec yes {marker}"}, context())
    assert result.error is not None and result.error.code == "shell_output_limit"
    assert "1,048,576" in result.error.message
    assert marker in text_of(result)  # the error still carries the tail
    assert size(result.metadata["full_output_path"]) == MIB
    assert not is_alive(int((tmp_path / "pid").read_text()))


@pytest.mark.anyio
async def test_multibyte_character_split_across_chunks(tmp_path: Path, context: Any) -> None:
    command = r"printf '\342\202'; sleep 0.2; printf '\254 euro\n'"
    with anyio.fail_after(scaled(10)):
        result = await create_shell_tool(tmp_path).execute({"command": command}, context())
    assert text_of(result) == "€ euro"


@pytest.mark.anyio
async def test_spill_file_is_private_even_with_a_permissive_umask(
    tmp_path: Path, context: Any
) -> None:
    old = os.umask(0)
    try:
        shell = create_shell_tool(tmp_path, options=ShellOptions(max_lines=10))
        with anyio.fail_after(scaled(10)):
            result = await shell.execute({"command": "seq 1 100"}, context())
    finally:
        os.umask(old)
    spill = str(result.metadata["full_output_path"])
    assert stat.S_IMODE(os.stat(spill).st_mode) == 0o600
    assert content(spill) == "".join(f"{i}\n" for i in range(1, 101))


@pytest.mark.anyio
async def test_tail_bounds_and_footer(tmp_path: Path, context: Any, private_tempdir: Path) -> None:
    by_lines = create_shell_tool(tmp_path, options=ShellOptions(max_lines=100))
    by_bytes = create_shell_tool(tmp_path, options=ShellOptions(max_bytes=50))
    with anyio.fail_after(scaled(10)):
        small = await by_lines.execute({"command": "seq 1 100"}, context())
        assert names(private_tempdir) == []  # nothing spilled while nothing is cut
        lines = await by_lines.execute({"command": "seq 1 5000"}, context())
        long_line = await by_bytes.execute({"command": "printf 'a%.0s' $(seq 1 300)"}, context())
        some = await by_bytes.execute({"command": "seq 1 100"}, context())
    assert small.metadata["full_output_path"] is None and not small.metadata["truncated"]
    body, footer = text_of(lines).split("\n\n")
    assert body.split("\n") == [str(i) for i in range(4901, 5001)]
    assert "last 100 lines" in footer and "of 23,893 bytes" in footer
    assert text_of(long_line).split("\n\n")[0] == "a" * 50
    assert text_of(some).split("\n\n")[0] == "\n".join(str(i) for i in range(85, 101))  # 49 bytes


def feed_all(collector: OutputCollector, data: bytes, cuts: list[int]) -> None:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    for start, end in itertools.pairwise(points):
        collector.feed(data[start:end])


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="aé€😀 x", max_size=30), max_size=60),
    trailing_newline=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=20),
    max_lines=st.integers(min_value=1, max_value=20),
    max_bytes=st.integers(min_value=4, max_value=200),
)
def test_tail_is_the_last_lines_within_bounds(
    lines: list[str],
    trailing_newline: bool,
    cuts: list[int],
    max_lines: int,
    max_bytes: int,
) -> None:
    data = "\n".join(lines).encode() + (b"\n" if trailing_newline and lines else b"")
    collector = OutputCollector(
        max_lines=max_lines, max_bytes=max_bytes, max_total_bytes=10**9, on_limit=lambda: None
    )
    feed_all(collector, data, cuts)
    collector.close()
    tail = collector.tail()
    assert tail.total_bytes == len(data)
    assert tail.shown_bytes <= max_bytes and tail.shown_lines <= max_lines
    assert "\ufffd" not in tail.text  # never cut inside a character
    assert data.decode().endswith(tail.text)
    if tail.truncated:
        assert tail.spill_path is not None
        assert Path(tail.spill_path).read_bytes() == data
        os.unlink(tail.spill_path)
    else:
        assert tail.text == data.decode() and tail.spill_path is None


def test_collector_memory_is_bounded_whatever_the_chunks() -> None:
    collector = OutputCollector(
        max_lines=10, max_bytes=1000, max_total_bytes=10**9, on_limit=lambda: None
    )
    for size in (1, 10_000_000, 3, 999, 1001, 2500):
        collector.feed(b"x" * size)
        assert len(collector._buffer) <= 2 * 1000
    collector.close()
    assert collector.spill_path is not None
    os.unlink(collector.spill_path)


def test_collector_hard_stop_calls_on_limit_once() -> None:
    calls: list[int] = []
    collector = OutputCollector(
        max_lines=10, max_bytes=10, max_total_bytes=25, on_limit=lambda: calls.append(1)
    )
    for _ in range(5):
        collector.feed(b"0123456789")
    collector.close()
    assert calls == [1] and collector.limit_reached
    assert collector.tail().total_bytes == 25
    assert collector.spill_path is not None
    assert Path(collector.spill_path).read_bytes() == b"0123456789" * 2 + b"01234"
    os.unlink(collector.spill_path)

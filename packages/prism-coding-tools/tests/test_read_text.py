"""read, text: streamed pages, footers with offset=N, bounds, and clear errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.coding_tools import ReadOptions, create_read_tool

pytestmark = pytest.mark.anyio


def text_of(result: Any) -> str:
    assert not result.is_error, result.error
    return str(result.content[0].text)


def page_body(text: str) -> str:
    return text.split("\n\n[Showing lines")[0].split("\n\n[Line ")[0]


async def read_all(tool: Any, context: Any, path: str, limit: int | None = None) -> list[str]:
    """Follow the footers from offset 1 to the end; return each page's body."""
    pages, offset = [], 1
    for _ in range(10_000):
        arguments: dict[str, object] = {"path": path, "offset": offset}
        if limit:
            arguments["limit"] = limit
        text = text_of(await tool.execute(arguments, context()))
        pages.append(page_body(text))
        found = re.search(r"offset=(\d+)", text)
        if not found:
            return pages
        offset = int(found.group(1))
    raise AssertionError("paging never ended")


async def test_paging_across_a_large_file_reassembles_it(tmp_path: Path, context: Any) -> None:
    lines = [f"line {i} " + "x" * (i % 50) for i in range(1, 20_001)]
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n")
    tool = create_read_tool(tmp_path, options=ReadOptions(max_lines=700, max_bytes=20_000))
    pages = await read_all(tool, context, "big.txt")
    assert "\n".join(pages).split("\n") == lines
    first = text_of(await tool.execute({"path": "big.txt"}, context()))
    assert first.startswith("line 1 x\nline 2 xx\n")
    assert re.search(r"\[Showing lines 1-\d+ \(.*\)\. More lines remain: use offset=\d+", first)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(st.text(alphabet="ab é\t€", max_size=40), min_size=1, max_size=80),
    trailing=st.booleans(),
    max_lines=st.integers(min_value=1, max_value=30),
    limit=st.one_of(st.none(), st.integers(min_value=1, max_value=30)),
)
async def test_paging_property(
    tmp_path: Path,
    context: Any,
    lines: list[str],
    trailing: bool,
    max_lines: int,
    limit: int | None,
) -> None:
    data = "\n".join(lines) + ("\n" if trailing else "")
    path = tmp_path / "p.txt"
    path.write_text(data)
    tool = create_read_tool(tmp_path, options=ReadOptions(max_lines=max_lines, max_bytes=200))
    pages = await read_all(tool, context, "p.txt", limit)
    if not data:
        assert pages == ["[empty file]"]
    else:
        assert "\n".join(pages) == (data.removesuffix("\n") if data != "\n" else "")


async def test_limit_and_the_last_page(tmp_path: Path, context: Any) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\nd\n")
    tool = create_read_tool(tmp_path)
    two = text_of(await tool.execute({"path": "f.txt", "limit": 2}, context()))
    assert (
        two
        == "a\nb\n\n[Showing lines 1-2 (line limit). More lines remain: use offset=3 to continue.]"
    )
    rest = text_of(await tool.execute({"path": "f.txt", "offset": 3}, context()))
    assert rest == "c\nd"


@pytest.mark.parametrize(
    ("content", "offset", "lines"),
    [("a\nb\n", 3, 2), ("a\nb", 3, 2), ("a\nb\n", 99, 2), ("", 2, 0), ("x", 2, 1)],
)
async def test_offset_past_the_end_is_an_error(
    tmp_path: Path, context: Any, content: str, offset: int, lines: int
) -> None:
    (tmp_path / "f.txt").write_text(content)
    result = await create_read_tool(tmp_path).execute(
        {"path": "f.txt", "offset": offset}, context()
    )
    assert result.error is not None and result.error.code == "offset_past_end"
    assert f"offset={offset} is past the end" in result.error.message
    assert f"has {lines} line" in result.error.message


async def test_empty_file_and_last_line_offsets(tmp_path: Path, context: Any) -> None:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "f.txt").write_text("a\nb")
    tool = create_read_tool(tmp_path)
    assert text_of(await tool.execute({"path": "empty.txt"}, context())) == "[empty file]"
    assert text_of(await tool.execute({"path": "f.txt", "offset": 2}, context())) == "b"


async def test_a_line_longer_than_a_page_gets_a_hint(tmp_path: Path, context: Any) -> None:
    huge = "é" * 100_000  # 200,000 bytes, multi-byte: the cut must not split a character
    (tmp_path / "f.txt").write_text(f"{huge}\nnext line\n")
    (tmp_path / "last.txt").write_text(huge)
    tool = create_read_tool(tmp_path, options=ReadOptions(max_bytes=1001))
    text = text_of(await tool.execute({"path": "f.txt"}, context()))
    body = page_body(text)
    assert body == "é" * 500
    assert "Line 1 is 200,000 bytes, longer than the 1,001-byte page limit" in text
    assert "sed -n '1p' f.txt | cut -b 1001-2001" in text
    assert "offset=2" in text
    assert text_of(await tool.execute({"path": "f.txt", "offset": 2}, context())) == "next line"
    last = text_of(await tool.execute({"path": "last.txt"}, context()))
    assert "Line 1 is 200,000 bytes" in last and "offset=" not in last


async def test_first_page_of_a_large_file_reads_only_a_page(
    tmp_path: Path, context: Any, proc_number: Callable[[str, bytes], int]
) -> None:
    block = ("0123456789" * 9 + "\n").encode() * 10_000  # 1 MB of 91-byte lines
    with open(tmp_path / "big.txt", "wb") as f:
        for _ in range(64):
            f.write(block)
    tool = create_read_tool(tmp_path)
    before = proc_number("/proc/self/io", b"rchar")
    text = text_of(await tool.execute({"path": "big.txt"}, context()))
    consumed = proc_number("/proc/self/io", b"rchar") - before
    assert "offset=563" in text  # 51,200 // 91 = 562 whole lines fit in the page
    assert consumed < 512 * 1024, f"read {consumed:,} bytes for one page of a 64 MB file"


@pytest.mark.parametrize(
    ("setup", "arguments", "code"),
    [
        (lambda p: (p / "bin.dat").write_bytes(b"text\0more"), {"path": "bin.dat"}, "binary_file"),
        (lambda p: (p / "d").mkdir(), {"path": "d"}, "not_a_file"),
        (lambda p: None, {"path": "missing.txt"}, "file_not_found"),
        (lambda p: None, {"path": "f", "offset": 0}, "invalid_arguments"),
        (lambda p: None, {"path": "f", "limit": "all"}, "invalid_arguments"),
        (lambda p: None, {"path": "a\0b"}, "invalid_arguments"),
        (lambda p: None, {"path": "f", "mode": "raw"}, "invalid_arguments"),
    ],
)
async def test_read_errors(
    tmp_path: Path, context: Any, setup: Any, arguments: dict[str, object], code: str
) -> None:
    setup(tmp_path)
    result = await create_read_tool(tmp_path).execute(arguments, context())
    assert result.error is not None and result.error.code == code, result.error


async def test_crlf_and_invalid_utf8_are_shown(tmp_path: Path, context: Any) -> None:
    (tmp_path / "f.txt").write_bytes(b"one\r\ntwo \xff\r\n")
    text = text_of(await create_read_tool(tmp_path).execute({"path": "f.txt"}, context()))
    assert text == "one\r\ntwo \ufffd"

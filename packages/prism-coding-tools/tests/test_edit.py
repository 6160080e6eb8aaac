"""edit: matching against the original, exact before fuzzy, endings/BOM kept, diff, errors."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.coding_tools import EditOptions, create_edit_tool
from prism.core.testing import scaled

pytestmark = pytest.mark.anyio


async def edit(
    tmp_path: Path, context: Any, content: bytes, *pairs: tuple[str, str], **opts: Any
) -> Any:
    (tmp_path / "f.txt").write_bytes(content)
    tool = create_edit_tool(tmp_path, options=EditOptions(**opts))
    edits = [{"old_text": old, "new_text": new} for old, new in pairs]
    return await tool.execute({"path": "f.txt", "edits": edits}, context())


def after(tmp_path: Path) -> bytes:
    return (tmp_path / "f.txt").read_bytes()


async def test_all_edits_match_against_the_original(tmp_path: Path, context: Any) -> None:
    result = await edit(
        tmp_path, context, b"alpha\nbeta\ngamma\n", ("alpha", "beta"), ("beta\n", "B\n")
    )
    assert not result.is_error, result.error
    assert after(tmp_path) == b"beta\nB\ngamma\n"
    assert result.content[0].text == "Edited f.txt: 2 replacements."
    assert result.metadata["fuzzy"] == () and result.metadata["first_changed_line"] == 1


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        ("x = 1   \ny = 2\n", "x = 1\ny = 2", "x = 3\ny = 4", "x = 3\ny = 4\n"),
        ("say “hi” now\n", 'say "hi"', "say 'yo'", "say 'yo' now\n"),
        ("a — b\n", "a - b", "a+b", "a+b\n"),
        ("a\u00a0b\n", "a b", "ab", "ab\n"),
        ("ﬁle = 1\n", "file = 1", "file = 2", "file = 2\n"),
    ],
)
async def test_fuzzy_match_is_a_fallback_and_reported(
    tmp_path: Path, context: Any, content: str, old: str, new: str, expected: str
) -> None:
    result = await edit(tmp_path, context, content.encode(), (old, new))
    assert not result.is_error, result.error
    assert after(tmp_path) == expected.encode()
    assert result.metadata["fuzzy"] == (1,) and "fuzzy" in result.content[0].text


async def test_fuzzy_edit_leaves_untouched_text_in_its_original_form(
    tmp_path: Path, context: Any
) -> None:
    content = "keep “this”   \nchange “that”   \nkeep — too\n"
    result = await edit(tmp_path, context, content.encode(), ('change "that"', "changed"))
    assert not result.is_error
    assert after(tmp_path).decode() == "keep “this”   \nchanged   \nkeep — too\n"


async def test_duplicates_are_counted_where_they_matched(tmp_path: Path, context: Any) -> None:
    # Exactly one exact match, although two lines are equal once normalized: accepted, not fuzzy.
    result = await edit(tmp_path, context, "it's\nit’s\n".encode(), ("it's", "it is"))
    assert not result.is_error and result.metadata["fuzzy"] == ()
    assert after(tmp_path).decode() == "it is\nit’s\n"
    exact = await edit(tmp_path, context, b"x\ny\nx\n", ("x", "z"))
    assert exact.error is not None and exact.error.code == "edit_ambiguous"
    assert "occurs 2 times in f.txt (at lines 1, 3)" in exact.error.message
    fuzzy = await edit(tmp_path, context, "a “q”\na ”q“\n".encode(), ('a "q"', "b"))
    assert fuzzy.error is not None and "after normalizing" in fuzzy.error.message
    assert after(tmp_path) == "a “q”\na ”q“\n".encode()


async def test_overlapping_and_noop_edits_are_refused(tmp_path: Path, context: Any) -> None:
    overlap = await edit(tmp_path, context, b"abcdef\n", ("abcd", "X"), ("cdef", "Y"))
    assert overlap.error is not None and overlap.error.code == "edit_overlap"
    assert "Edits 1 and 2 overlap" in overlap.error.message
    adjacent = await edit(tmp_path, context, b"abcdef\n", ("abc", "X"), ("def", "Y"))
    assert not adjacent.is_error and after(tmp_path) == b"XY\n"
    same = await edit(tmp_path, context, b"abc\n", ("abc", "abc"))
    assert same.error is not None and same.error.code == "edit_noop"
    unchanged = await edit(tmp_path, context, "it’s\n".encode(), ("it's", "it’s"))
    assert unchanged.error is not None and unchanged.error.code == "edit_noop"
    empty = await edit(tmp_path, context, b"abc\n", ("", "x"))
    assert empty.error is not None and empty.error.code == "invalid_arguments"


async def test_crlf_mixed_lone_cr_and_bom_are_preserved(tmp_path: Path, context: Any) -> None:
    crlf = await edit(
        tmp_path, context, b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n", ("two\nthree", "2\n3\n4")
    )
    assert not crlf.is_error
    assert after(tmp_path) == b"\xef\xbb\xbfone\r\n2\r\n3\r\n4\r\n"
    mixed = b"top\ncrlf\r\nlone\rcr\nend\r\n"
    result = await edit(tmp_path, context, mixed, ("crlf", "a\nb"), ("end", "x\ny"))
    assert not result.is_error
    assert after(tmp_path) == b"top\na\r\nb\r\nlone\rcr\nx\r\ny\r\n"
    lf_region = await edit(tmp_path, context, mixed, ("top\n", "t\no\n"))
    assert after(tmp_path) == b"t\no\ncrlf\r\nlone\rcr\nend\r\n" and not lf_region.is_error


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(st.text(alphabet="abc “”—\t ", max_size=12), min_size=1, max_size=30),
    endings=st.lists(st.sampled_from(["\n", "\r\n"]), min_size=30, max_size=30),
    index=st.integers(min_value=0, max_value=29),
    replacement=st.text(alphabet="xyz\n", max_size=10),
)
async def test_untouched_bytes_stay_identical(
    tmpfs_path: Path,
    context: Any,
    lines: list[str],
    endings: list[str],
    index: int,
    replacement: str,
) -> None:
    index %= len(lines)
    lines[index] = f"MARK{index}"
    raw = "".join(line + end for line, end in zip(lines, endings, strict=False)).encode()
    result = await edit(tmpfs_path, context, raw, (f"MARK{index}", replacement))
    if replacement == f"MARK{index}":
        return
    assert not result.is_error, result.error
    marker = f"MARK{index}".encode()
    start = raw.index(marker)
    new = after(tmpfs_path)
    assert new[:start] == raw[:start]
    assert new.endswith(raw[start + len(marker) :])


async def test_diff_is_a_unified_diff_that_patch_applies(tmp_path: Path, context: Any) -> None:
    original = "".join(f"line {i}\n" for i in range(1, 41)).encode()
    result = await edit(
        tmp_path,
        context,
        original,
        ("line 2\n", "two\n2b\n"),
        ("line 20\nline 21\n", ""),
        ("line 40\n", "forty"),
    )
    diff = str(result.metadata["diff"])
    assert diff.startswith("--- f.txt\n+++ f.txt\n@@ -1,5 +1,6 @@\n line 1\n-line 2\n+two\n+2b\n")
    assert "\\ No newline at end of file" in diff
    (tmp_path / "orig.txt").write_bytes(original)
    with anyio.fail_after(scaled(10)):
        applied = await anyio.run_process(
            ["patch", "-s", "-o", "-", str(tmp_path / "orig.txt")], input=diff.encode()
        )
    assert applied.stdout == after(tmp_path)


async def test_not_found_lists_nearby_lines(tmp_path: Path, context: Any) -> None:
    content = b"def handler(event):\n    return process(event)\n\ndef other():\n    pass\n"
    result = await edit(tmp_path, context, content, ("    return proccess(evnt)", "x"))
    assert result.error is not None and result.error.code == "edit_not_found"
    assert "Edit 1: old_text was not found in f.txt" in result.error.message
    assert "line 2:     return process(event)" in result.error.message
    assert after(tmp_path) == content


@pytest.mark.parametrize(
    ("content", "edits", "options", "code"),
    [
        (b"\xff\xfe bad utf-8", [("bad", "good")], {}, "not_utf8"),
        (b"x" * 2000, [("x", "y")], {"max_file_bytes": 1000}, "file_too_large"),
        (b"short\n", [("short", "s" * 2000)], {"max_file_bytes": 1000}, "file_too_large"),
        (b"a b c", [("a", "1"), ("b", "2"), ("c", "3")], {"max_edits": 2}, "input_too_large"),
        (b"a", [("a", "é" * 600)], {"max_input_bytes": 1024}, "input_too_large"),
    ],
)
async def test_bounds_and_bad_files(
    tmp_path: Path,
    context: Any,
    content: bytes,
    edits: list[tuple[str, str]],
    options: Any,
    code: str,
) -> None:
    result = await edit(tmp_path, context, content, *edits, **options)
    assert result.error is not None and result.error.code == code, result.error
    assert after(tmp_path) == content


@pytest.mark.parametrize(
    "arguments",
    [
        {"path": "f.txt", "edits": []},
        {"path": "f.txt", "edits": "old->new"},
        {"path": "f.txt", "edits": [{"old_text": "a"}]},
        {"path": "f.txt", "edits": [{"old_text": "a", "new_text": 1}]},
        {"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}]},
    ],
)
async def test_malformed_edits_are_error_results(
    tmp_path: Path, context: Any, arguments: dict[str, Any]
) -> None:
    (tmp_path / "f.txt").write_text("a\n")
    result = await create_edit_tool(tmp_path).execute(arguments, context())
    assert result.error is not None and result.error.code == "invalid_arguments"


async def test_missing_file_mode_and_symlink(tmp_path: Path, context: Any) -> None:
    tool = create_edit_tool(tmp_path)
    missing = await tool.execute(
        {"path": "nope.txt", "edits": [{"old_text": "a", "new_text": "b"}]}, context()
    )
    assert missing.error is not None and missing.error.code == "file_not_found"
    (tmp_path / "real.sh").write_text("echo a\n")
    (tmp_path / "real.sh").chmod(0o750)
    (tmp_path / "link.sh").symlink_to("real.sh")
    done = await tool.execute(
        {"path": "link.sh", "edits": [{"old_text": "a", "new_text": "b"}]}, context()
    )
    assert not done.is_error and (tmp_path / "link.sh").is_symlink()
    assert (tmp_path / "real.sh").read_text() == "echo b\n"
    assert stat.S_IMODE((tmp_path / "real.sh").stat().st_mode) == 0o750


async def test_fifty_concurrent_edits_to_one_file_are_all_applied(
    tmp_path: Path, context: Any
) -> None:
    target = tmp_path / "shared.txt"
    target.write_text("".join(f"item {i}: todo\n" for i in range(50)))
    tool = create_edit_tool(tmp_path)
    results = []

    async def change(i: int) -> None:
        edits = [{"old_text": f"item {i}: todo", "new_text": f"item {i}: done"}]
        results.append(await tool.execute({"path": "shared.txt", "edits": edits}, context()))

    with anyio.fail_after(scaled(60)):
        async with anyio.create_task_group() as group:
            for i in range(50):
                group.start_soon(change, i)
    assert [r.error for r in results if r.is_error] == []
    assert target.read_text() == "".join(f"item {i}: done\n" for i in range(50))


def test_patch_is_available() -> None:
    assert subprocess.run(["patch", "--version"], capture_output=True, check=False).returncode == 0

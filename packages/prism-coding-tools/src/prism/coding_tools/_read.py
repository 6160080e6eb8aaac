"""The ``read`` tool: a page of a text file, or an image recognized by its magic bytes."""

from __future__ import annotations

import base64
import functools
import inspect
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from prism.core import (
    ExecutionPolicy,
    ImageContent,
    JsonObject,
    TextContent,
    ToolDefinition,
    ToolExecutionContext,
    ToolResult,
)

from ._common import (
    ToolError,
    guarded_tool,
    in_worker,
    ok_result,
    optional_int,
    require_keys,
    require_str,
    tool_root,
)
from ._fs import fs_error, lstat_in, open_directory, open_regular, split_target
from ._images import SNIFF_BYTES, detect_image, is_animated_png
from ._options import DEFAULT_READ_OPTIONS, ReadOptions, TransformImageInput
from ._paging import CHUNK, Page, Readable, read_page, read_up_to
from ._paths import allowed_path, path_schema

__all__ = ["create_read_tool"]

_BINARY_SNIFF = 8192

_DESCRIPTION = (
    "Read a file. Text comes back one page at a time (at most {lines} lines and {bytes} bytes); "
    "when more lines remain the footer says which offset to pass next. PNG, JPEG, GIF, WebP and "
    "BMP images (recognized by content, not name, up to {image} bytes) come back as images. "
    "Relative paths are resolved against {cwd}."
)


@dataclass(frozen=True, slots=True)
class _Image:
    data: bytes
    mime_type: str


def create_read_tool(
    cwd: str | os.PathLike[str],
    *,
    options: ReadOptions = DEFAULT_READ_OPTIONS,
    execution_policy: ExecutionPolicy | None = None,
) -> ToolDefinition:
    """The ``read`` tool bound to ``cwd``; see ``docs/coding-tools.md``."""
    root = tool_root(cwd, options, ReadOptions)

    async def run(arguments: JsonObject, context: ToolExecutionContext) -> ToolResult:
        require_keys(arguments, ("path", "offset", "limit"), ("path",))
        raw = require_str(arguments, "path")
        offset = optional_int(arguments, "offset") or 1
        limit = min(optional_int(arguments, "limit") or options.max_lines, options.max_lines)
        target = await allowed_path(execution_policy, context, root, raw, kind="read", risk="low")
        work = functools.partial(_read_file, target, raw, offset, limit, options)
        found = await in_worker(work, context, abandon_on_cancel=True)
        if isinstance(found, Page):
            return _page_result(context, raw, target, found, options)
        return await _image_result(context, raw, target, found, options)

    return guarded_tool(
        "read",
        run,
        read_only=True,
        description=_DESCRIPTION.format(
            lines=options.max_lines,
            bytes=options.max_bytes,
            image=options.max_image_bytes,
            cwd=root,
        ),
        properties={
            "path": path_schema("read"),
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "1-based line to start from (default 1).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": f"Most lines to return (default and cap {options.max_lines}).",
            },
        },
        required=("path",),
    )


def _read_file(
    path: str,
    shown: str,
    offset: int,
    limit: int,
    options: ReadOptions,
    should_stop: Callable[[], bool],
) -> Page | _Image:
    try:
        fd, info = _open_checked(path, shown)
    except FileNotFoundError:
        raise ToolError("file_not_found", f"File not found: {shown}") from None
    except OSError as exc:
        raise fs_error(exc, "read", shown) from None
    try:
        with open(fd, "rb", buffering=0) as f:
            head = read_up_to(f, SNIFF_BYTES)
            mime = detect_image(head)
            if mime is not None:
                return _read_image(f, head, mime, info.st_size, shown, options)
            first = head + (f.read(CHUNK) or b"")
            if b"\0" in first[:_BINARY_SNIFF]:
                raise ToolError(
                    "binary_file",
                    f"{shown} is a binary file ({info.st_size:,} bytes) and not a PNG, JPEG, GIF,"
                    " WebP or BMP image; read shows text and images only",
                )
            return read_page(
                f,
                first,
                offset=offset,
                limit=limit,
                max_bytes=options.max_bytes,
                should_stop=should_stop,
            )
    except OSError as exc:
        raise fs_error(exc, "read", shown) from None


def _open_checked(path: str, shown: str) -> tuple[int, os.stat_result]:
    """An fd for the regular file at the checked ``path``, reached without symlinks."""
    if path == "/" or os.path.basename(path) in ("", ".", ".."):
        raise ToolError("not_a_file", f"{shown} is a directory; list it with the shell tool")
    parent, name = split_target(path, shown)
    dir_fd = open_directory(parent, create=False)
    try:
        info = lstat_in(dir_fd, name, path)
        if info is None:
            raise FileNotFoundError(path)
        if stat.S_ISDIR(info.st_mode):
            raise ToolError("not_a_file", f"{shown} is a directory; list it with the shell tool")
        if not stat.S_ISREG(info.st_mode):
            raise ToolError("not_a_file", f"{shown} is not a regular file")
        return open_regular(dir_fd, name, path, info), info
    finally:
        os.close(dir_fd)


def _too_large(shown: str, mime: str, size: int, limit: int, what: str) -> ToolError:
    return ToolError(
        "image_too_large",
        f"{shown} is a {mime} image of {size:,} bytes{what}, over the max_image_bytes limit of "
        f"{limit:,}; it was not returned. Use a smaller image or a host that resizes images.",
        metadata={"mime_type": mime, "bytes": size, "max_image_bytes": limit},
    )


def _read_image(
    f: Readable, head: bytes, mime: str, size: int, shown: str, options: ReadOptions
) -> _Image:
    limit = options.max_image_bytes
    if size > limit:  # decided from stat alone: the image body is never read
        raise _too_large(shown, mime, size, limit, "")
    data = head + read_up_to(f, limit + 1 - len(head))
    if len(data) > limit:
        raise _too_large(shown, mime, len(data), limit, " (it grew while being read)")
    _check_image(data, mime, shown)
    return _Image(data=data, mime_type=mime)


def _check_image(data: bytes, mime: str | None, shown: str) -> None:
    if detect_image(data[:SNIFF_BYTES]) != mime or mime is None:
        raise ToolError("unsupported_image", f"{shown} is not a PNG, JPEG, GIF, WebP or BMP image")
    if mime == "image/png" and is_animated_png(data):
        raise ToolError(
            "unsupported_image",
            f"{shown} is an animated PNG (APNG); read returns still images only",
        )


async def _image_result(
    context: ToolExecutionContext, shown: str, path: str, image: _Image, options: ReadOptions
) -> ToolResult:
    data, mime = image.data, image.mime_type
    transform = options.transform_image
    if transform is not None:
        try:
            produced = transform(TransformImageInput(data=data, mime_type=mime))
            if inspect.isawaitable(produced):
                produced = await produced
        except Exception as exc:
            raise ToolError(
                "transform_failed",
                f"transform_image failed on {shown}: {type(exc).__name__}: {exc}",
            ) from None
        if not isinstance(produced, bytes | bytearray | memoryview):
            raise ToolError(
                "transform_failed",
                f"transform_image returned {type(produced).__name__}, not bytes",
            )
        if len(produced) > options.max_image_bytes:
            new_mime = detect_image(bytes(produced[:SNIFF_BYTES])) or mime
            raise _too_large(
                shown, new_mime, len(produced), options.max_image_bytes, " after transform_image"
            )
        data = bytes(produced)
        mime = detect_image(data[:SNIFF_BYTES]) or ""
        _check_image(data, mime or None, f"the transform_image output for {shown}")
    note = f"Read image file {shown} [{mime}, {len(data):,} bytes]"
    return ok_result(
        "read",
        context,
        (
            TextContent(text=note),
            ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime),
        ),
        {
            "path": path,
            "mime_type": mime,
            "bytes": len(data),
            "transformed": transform is not None,
        },
    )


def _page_result(
    context: ToolExecutionContext, shown: str, path: str, page: Page, options: ReadOptions
) -> ToolResult:
    last = page.first_line + page.line_count - 1
    notes: list[str] = []
    if page.long_line_bytes is not None:
        cut = len(page.text.encode("utf-8"))
        notes.append(
            f"[Line {page.first_line} is {page.long_line_bytes:,} bytes, longer than the "
            f"{options.max_bytes:,}-byte page limit; this shows its first {cut:,} bytes. "
            f"See the rest with the shell tool, e.g. "
            f"`sed -n '{page.first_line}p' {shown} | cut -b {cut + 1}-{cut + options.max_bytes}`.]"
        )
    if page.next_offset is not None:
        reason = (
            f"{options.max_bytes:,}-byte page limit" if page.stopped_by == "bytes" else "line limit"
        )
        notes.append(
            f"[Showing lines {page.first_line}-{last} ({reason}). More lines remain: "
            f"use offset={page.next_offset} to continue.]"
        )
    if page.line_count == 0:
        text = "[empty file]"
    else:
        text = page.text + ("\n\n" + "\n".join(notes) if notes else "")
    return ok_result(
        "read",
        context,
        text,
        {
            "path": path,
            "first_line": page.first_line,
            "last_line": last,
            "next_offset": page.next_offset,
            "truncated_line_bytes": page.long_line_bytes,
        },
    )

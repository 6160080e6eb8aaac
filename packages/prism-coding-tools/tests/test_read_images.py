"""read, images: magic bytes only, stat before reading, re-checks after read and transform."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from prism.coding_tools import ReadOptions, TransformImageInput, create_read_tool
from prism.core import ImageContent, TextContent, render_tool_result

pytestmark = pytest.mark.anyio


def chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + b"\0\0\0\0"


def png(size: int = 200, *, animated: bool = False) -> bytes:
    head = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", b"\0\0\0\x10\0\0\0\x10\x08\x02\0\0\0")
    if animated:
        head += chunk(b"acTL", b"\0\0\0\x02\0\0\0\0")
    pad = max(0, size - len(head) - 24)
    return head + chunk(b"IDAT", b"\x78" * pad) + chunk(b"IEND", b"")


IMAGES = {
    "image/png": png(),
    "image/jpeg": b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01" + b"\0" * 100 + b"\xff\xd9",
    "image/gif": b"GIF89a\x10\0\x10\0\x80\0\0" + b"\0" * 60 + b";",
    "image/webp": b"RIFF\x40\0\0\0WEBPVP8 " + b"\0" * 60,
    "image/bmp": b"BM\x46\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0" + b"\0" * 60,
}


def no_base64_in(result: Any, data: bytes) -> None:
    text = render_tool_result(result) + repr(result)
    assert not any(isinstance(block, ImageContent) for block in result.content)
    assert base64.b64encode(data[:24]).decode()[:24] not in text


@pytest.mark.parametrize("mime", sorted(IMAGES))
async def test_every_image_type_is_recognized_by_content_not_name(
    tmp_path: Path, context: Any, mime: str
) -> None:
    data = IMAGES[mime]
    (tmp_path / "looks-like.txt").write_bytes(data)
    result = await create_read_tool(tmp_path).execute({"path": "looks-like.txt"}, context())
    assert not result.is_error, result.error
    note, image = result.content
    assert isinstance(note, TextContent) and mime in note.text
    assert isinstance(image, ImageContent) and image.mime_type == mime
    assert base64.b64decode(image.data) == data
    assert result.metadata["mime_type"] == mime and result.metadata["bytes"] == len(data)


@pytest.mark.parametrize(
    ("name", "content"),
    [("fake.png", b"just text\n"), ("fake.bmp", b"BMW makes cars\nBM is not enough\n")],
)
async def test_text_with_an_image_name_is_text(
    tmp_path: Path, context: Any, name: str, content: bytes
) -> None:
    (tmp_path / name).write_bytes(content)
    result = await create_read_tool(tmp_path).execute({"path": name}, context())
    assert result.content == (TextContent(text=content.decode().removesuffix("\n")),)


async def test_animated_png_is_not_an_image(tmp_path: Path, context: Any) -> None:
    (tmp_path / "anim.png").write_bytes(png(animated=True))
    result = await create_read_tool(tmp_path).execute({"path": "anim.png"}, context())
    assert result.error is not None and result.error.code == "unsupported_image"
    assert "animated PNG" in result.error.message


async def test_oversize_image_is_refused_from_stat_without_reading(
    tmp_path: Path, context: Any, proc_number: Callable[[str, bytes], int]
) -> None:
    data = png(3_000_000)
    (tmp_path / "big.png").write_bytes(data)
    tool = create_read_tool(tmp_path, options=ReadOptions(max_image_bytes=1_000_000))
    before = proc_number("/proc/self/io", b"rchar")
    result = await tool.execute({"path": "big.png"}, context())
    consumed = proc_number("/proc/self/io", b"rchar") - before
    assert consumed < 64 * 1024, f"{consumed:,} bytes read for a refused image"
    assert result.error is not None and result.error.code == "image_too_large"
    assert "3,000,000 bytes" in result.error.message and "1,000,000" in result.error.message
    no_base64_in(result, data)


async def test_an_image_of_exactly_the_limit_is_returned(tmp_path: Path, context: Any) -> None:
    data = png(5000)
    (tmp_path / "edge.png").write_bytes(data)
    tool = create_read_tool(tmp_path, options=ReadOptions(max_image_bytes=len(data)))
    result = await tool.execute({"path": "edge.png"}, context())
    assert not result.is_error


async def test_transform_sync_and_async_with_recheck_of_the_output(
    tmp_path: Path, context: Any
) -> None:
    (tmp_path / "in.png").write_bytes(png())
    seen: list[TransformImageInput] = []

    def to_jpeg(image: TransformImageInput) -> bytes:
        seen.append(image)
        return IMAGES["image/jpeg"]

    async def to_gif(image: TransformImageInput) -> bytes:
        return IMAGES["image/gif"]

    for transform, mime in ((to_jpeg, "image/jpeg"), (to_gif, "image/gif")):
        tool = create_read_tool(tmp_path, options=ReadOptions(transform_image=transform))
        result = await tool.execute({"path": "in.png"}, context())
        assert result.content[1] == ImageContent(
            data=base64.b64encode(IMAGES[mime]).decode(), mime_type=mime
        )
        assert result.metadata["transformed"] is True
    assert seen == [TransformImageInput(data=png(), mime_type="image/png")]


@pytest.mark.parametrize(
    ("output", "code"),
    [
        (png(50_000), "image_too_large"),
        (b"not an image", "unsupported_image"),
        ("a string", "transform_failed"),
        (ValueError("cannot decode"), "transform_failed"),
        (png(animated=True), "unsupported_image"),
    ],
)
async def test_transform_outputs_are_checked(
    tmp_path: Path, context: Any, output: object, code: str
) -> None:
    (tmp_path / "in.png").write_bytes(png())

    def transform(image: TransformImageInput) -> bytes:
        if isinstance(output, Exception):
            raise output
        return output  # type: ignore[return-value]

    tool = create_read_tool(
        tmp_path, options=ReadOptions(max_image_bytes=10_000, transform_image=transform)
    )
    result = await tool.execute({"path": "in.png"}, context())
    assert result.error is not None and result.error.code == code, result.error
    if isinstance(output, bytes):
        no_base64_in(result, output)

"""Image recognition by magic bytes only (the file name never matters)."""

from __future__ import annotations

__all__ = ["SNIFF_BYTES", "detect_image", "is_animated_png"]

SNIFF_BYTES = 32
"""Bytes ``detect_image`` needs to decide."""

_PNG = b"\x89PNG\r\n\x1a\n"
_BMP_DIB_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})


def detect_image(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF, WebP or BMP header, else ``None``."""
    if head.startswith(_PNG) and head[12:16] == b"IHDR":
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and head[12:15] == b"VP8":
        return "image/webp"
    if head[:2] == b"BM" and len(head) >= 18:
        # A text file may well start with "BM": require a known DIB header size too.
        dib = int.from_bytes(head[14:18], "little")
        if dib in _BMP_DIB_SIZES and head[6:10] == b"\0\0\0\0":
            return "image/bmp"
    return None


def is_animated_png(data: bytes) -> bool:
    """True when a PNG has an ``acTL`` chunk before its first ``IDAT`` (an APNG)."""
    pos = len(_PNG)
    while pos + 8 <= len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        if kind == b"acTL":
            return True
        if kind in (b"IDAT", b"IEND"):
            return False
        pos += 12 + length
    return False

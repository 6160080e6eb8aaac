"""Option classes: frozen, validated at construction, with their defaults and hard caps."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import attrs

from ._bounds import GIB, MIB, bounded_int, bounded_seconds
from ._exec import ShellOperations
from ._spawn import SpawnHook

__all__ = [
    "DEFAULT_MAX_IMAGE_BYTES",
    "EditOptions",
    "ReadOptions",
    "ShellOptions",
    "TransformImageInput",
    "WriteOptions",
]

DEFAULT_MAX_IMAGE_BYTES = 10_000_000
"""Largest image ``read`` returns by default (hard cap 32 MiB)."""

LINES_CAP = 100_000
TAIL_BYTES_CAP = 1_048_576


def _env_allowlist(value: Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str | bytes):
        raise ValueError("ShellOptions.env_allowlist must be a collection of names, not a string")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str) or not name or "=" in name:
            raise ValueError(f"ShellOptions.env_allowlist holds an invalid name: {name!r}")
    return names


def _optional_str(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and (not isinstance(value, str) or not value or "\0" in value):
        raise ValueError(f"{type(instance).__name__}.{attribute.name} must be a path or None")


def _operations(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not callable(getattr(value, "exec", None)):
        raise ValueError("ShellOptions.operations must implement ShellOperations (an async exec)")


def _prefix(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip() or "\0" in value):
        raise ValueError("ShellOptions.command_prefix must be non-blank text without NUL, or None")


def _optional_callable(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not callable(value):
        raise ValueError(f"{type(instance).__name__}.{attribute.name} must be callable or None")


@attrs.frozen(kw_only=True)
class ShellOptions:
    """Bounds and plumbing of the ``shell`` tool."""

    timeout_seconds: float = attrs.field(default=600.0, validator=bounded_seconds(3600.0))
    """Default and largest timeout; the model may ask for less (hard cap 3600)."""
    max_lines: int = attrs.field(default=2000, validator=bounded_int(LINES_CAP))
    """Lines of output tail shown to the model (hard cap 100,000)."""
    max_bytes: int = attrs.field(default=51_200, validator=bounded_int(TAIL_BYTES_CAP))
    """Bytes of output tail shown to the model (hard cap 1 MiB)."""
    max_total_output_bytes: int = attrs.field(default=64 * MIB, validator=bounded_int(GIB))
    """Output after which the command is stopped (hard cap 1 GiB)."""
    shell_path: str | None = attrs.field(default=None, validator=_optional_str)
    """Shell run as ``<shell_path> -c <command>``; default ``bash`` from PATH, else ``/bin/sh``."""
    env_allowlist: tuple[str, ...] | None = attrs.field(default=None, converter=_env_allowlist)
    """Names of the variables the command inherits; ``None`` passes the full environment."""
    operations: ShellOperations | None = attrs.field(default=None, validator=_operations)
    """Replaces local execution (e.g. a sandbox); ``None`` uses ``LocalShellOperations``."""
    command_prefix: str | None = attrs.field(default=None, validator=_prefix)
    """Host text run before every command (joined with a newline), e.g. a profile."""
    spawn_hook: SpawnHook | None = attrs.field(default=None, validator=_optional_callable)
    """``(SpawnContext) -> SpawnContext`` (sync or async): adjusts command, cwd and environment
    before the spawn; a changed result is checked by the execution policy again."""


@attrs.frozen
class TransformImageInput:
    """What ``ReadOptions.transform_image`` receives: the image bytes and their MIME type."""

    data: bytes
    mime_type: str


TransformImage = Callable[[TransformImageInput], "bytes | Awaitable[bytes]"]


@attrs.frozen(kw_only=True)
class ReadOptions:
    """Bounds of the ``read`` tool (no ``auto_resize_images``: use ``transform_image``)."""

    max_lines: int = attrs.field(default=2000, validator=bounded_int(LINES_CAP))
    """Lines per page (hard cap 100,000)."""
    max_bytes: int = attrs.field(default=51_200, validator=bounded_int(TAIL_BYTES_CAP))
    """Bytes per page (hard cap 1 MiB)."""
    max_image_bytes: int = attrs.field(
        default=DEFAULT_MAX_IMAGE_BYTES, validator=bounded_int(32 * MIB)
    )
    """Largest image file read, and largest transform output accepted (hard cap 32 MiB)."""
    transform_image: TransformImage | None = attrs.field(default=None, validator=_optional_callable)
    """Optional ``(TransformImageInput) -> bytes`` (sync or async), e.g. a resizer."""


@attrs.frozen(kw_only=True)
class WriteOptions:
    """Bounds of the ``write`` tool."""

    max_input_bytes: int = attrs.field(default=8 * MIB, validator=bounded_int(64 * MIB))
    """Largest ``content`` in UTF-8 bytes (hard cap 64 MiB)."""


@attrs.frozen(kw_only=True)
class EditOptions:
    """Bounds of the ``edit`` tool."""

    max_input_bytes: int = attrs.field(default=8 * MIB, validator=bounded_int(64 * MIB))
    """Largest total UTF-8 size of all ``old_text`` + ``new_text`` (hard cap 64 MiB)."""
    max_edits: int = attrs.field(default=100, validator=bounded_int(1000))
    """Most edits in one call (hard cap 1,000)."""
    max_file_bytes: int = attrs.field(default=16 * MIB, validator=bounded_int(256 * MIB))
    """Largest file edit loads, before and after the edit (hard cap 256 MiB)."""


DEFAULT_SHELL_OPTIONS = ShellOptions()
DEFAULT_READ_OPTIONS = ReadOptions()
DEFAULT_WRITE_OPTIONS = WriteOptions()
DEFAULT_EDIT_OPTIONS = EditOptions()

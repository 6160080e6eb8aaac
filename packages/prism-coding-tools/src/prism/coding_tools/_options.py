"""Option classes: frozen, validated at construction, with their defaults and hard caps."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import final

from prism.core.options import GIB, MIB, check_callable, check_count, check_seconds

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
TAIL_BYTES_CAP = 1 * MIB
INPUT_BYTES_CAP = 64 * MIB


def _env_allowlist(value: Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    where = "ShellOptions.env_allowlist"
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{where} must be a collection of names, got {value!r:.200}")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str) or not name or "=" in name:
            error = ValueError if isinstance(name, str) else TypeError
            rule = "names that are non-empty str without '='"
            raise error(f"{where} must be {rule}, got {name!r:.200}")
    return names


def _check_text(where: str, value: object, rule: str, *, blank_ok: bool) -> None:
    """``None`` or non-empty text without NUL (non-blank unless ``blank_ok``)."""
    if value is None:
        return
    if not isinstance(value, str) or not (value if blank_ok else value.strip()) or "\0" in value:
        error = ValueError if isinstance(value, str) else TypeError
        raise error(f"{where} must be {rule} or None, got {value!r:.200}")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ShellOptions:
    """Bounds and plumbing of the ``shell`` tool."""

    timeout_seconds: float = 600.0
    """Default and largest timeout; the model may ask for less (hard cap 3600)."""
    max_lines: int = 2000
    """Lines of output tail shown to the model (hard cap 100,000)."""
    max_bytes: int = 51_200
    """Bytes of output tail shown to the model (hard cap 1 MiB)."""
    max_total_output_bytes: int = 64 * MIB
    """Output after which the command is stopped (hard cap 1 GiB)."""
    shell_path: str | None = None
    """Shell run as ``<shell_path> -c <command>``; default ``bash`` from PATH, else ``/bin/sh``."""
    env_allowlist: tuple[str, ...] | None = None
    """Names of the variables the command inherits (any iterable, kept as a tuple); ``None``
    passes the full environment."""
    operations: ShellOperations | None = None
    """Replaces local execution (e.g. a sandbox); ``None`` uses ``LocalShellOperations``."""
    command_prefix: str | None = None
    """Host text run before every command (joined with a newline), e.g. a profile."""
    spawn_hook: SpawnHook | None = None
    """``(SpawnContext) -> SpawnContext`` (sync or async): adjusts command, cwd and environment
    before the spawn; a changed result is checked by the execution policy again."""

    def __post_init__(self) -> None:
        check_seconds("ShellOptions.timeout_seconds", self.timeout_seconds, cap=3600.0)
        check_count("ShellOptions.max_lines", self.max_lines, cap=LINES_CAP)
        check_count("ShellOptions.max_bytes", self.max_bytes, cap=TAIL_BYTES_CAP)
        check_count("ShellOptions.max_total_output_bytes", self.max_total_output_bytes, cap=GIB)
        _check_text("ShellOptions.shell_path", self.shell_path, "a path", blank_ok=True)
        object.__setattr__(self, "env_allowlist", _env_allowlist(self.env_allowlist))
        if self.operations is not None and not callable(getattr(self.operations, "exec", None)):
            raise TypeError(
                "ShellOptions.operations must be a ShellOperations (an async exec) or None, "
                f"got {self.operations!r:.200}"
            )
        _check_text(
            "ShellOptions.command_prefix", self.command_prefix, "non-blank text", blank_ok=False
        )
        check_callable("ShellOptions.spawn_hook", self.spawn_hook, optional=True)


@dataclass(frozen=True, slots=True)
class TransformImageInput:
    """What ``ReadOptions.transform_image`` receives: the image bytes and their MIME type."""

    data: bytes
    mime_type: str


TransformImage = Callable[[TransformImageInput], "bytes | Awaitable[bytes]"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ReadOptions:
    """Bounds of the ``read`` tool (no ``auto_resize_images``: use ``transform_image``)."""

    max_lines: int = 2000
    """Lines per page (hard cap 100,000)."""
    max_bytes: int = 51_200
    """Bytes per page (hard cap 1 MiB)."""
    max_image_bytes: int = DEFAULT_MAX_IMAGE_BYTES
    """Largest image file read, and largest transform output accepted (hard cap 32 MiB)."""
    transform_image: TransformImage | None = None
    """Optional ``(TransformImageInput) -> bytes`` (sync or async), e.g. a resizer."""

    def __post_init__(self) -> None:
        check_count("ReadOptions.max_lines", self.max_lines, cap=LINES_CAP)
        check_count("ReadOptions.max_bytes", self.max_bytes, cap=TAIL_BYTES_CAP)
        check_count("ReadOptions.max_image_bytes", self.max_image_bytes, cap=32 * MIB)
        check_callable("ReadOptions.transform_image", self.transform_image, optional=True)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class WriteOptions:
    """Bounds of the ``write`` tool."""

    max_input_bytes: int = 8 * MIB
    """Largest ``content`` in UTF-8 bytes (hard cap 64 MiB)."""

    def __post_init__(self) -> None:
        check_count("WriteOptions.max_input_bytes", self.max_input_bytes, cap=INPUT_BYTES_CAP)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class EditOptions:
    """Bounds of the ``edit`` tool."""

    max_input_bytes: int = 8 * MIB
    """Largest total UTF-8 size of all ``old_text`` + ``new_text`` (hard cap 64 MiB)."""
    max_edits: int = 100
    """Most edits in one call (hard cap 1,000)."""
    max_file_bytes: int = 16 * MIB
    """Largest file edit loads, before and after the edit (hard cap 256 MiB)."""

    def __post_init__(self) -> None:
        check_count("EditOptions.max_input_bytes", self.max_input_bytes, cap=INPUT_BYTES_CAP)
        check_count("EditOptions.max_edits", self.max_edits, cap=1000)
        check_count("EditOptions.max_file_bytes", self.max_file_bytes, cap=256 * MIB)


DEFAULT_SHELL_OPTIONS = ShellOptions()
DEFAULT_READ_OPTIONS = ReadOptions()
DEFAULT_WRITE_OPTIONS = WriteOptions()
DEFAULT_EDIT_OPTIONS = EditOptions()

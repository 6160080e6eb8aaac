"""The tool registry: the only place dispatch finds tools."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Literal, Protocol, final

from ._errors import PrismError
from ._types import ToolDefinition
from .options import check_choice

__all__ = [
    "ToolLookup",
    "ToolRegistry",
    "UnknownToolError",
    "validate_tool_name",
]

TOOL_NAME_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


class ToolLookup(Protocol):
    """What dispatch needs of a registry: ``get(name)``."""

    def get(self, name: str) -> ToolDefinition | None:
        """The tool called ``name``, or ``None``."""
        ...


@final
class UnknownToolError(PrismError, KeyError):
    """``resolve`` found no tool by that name."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(name)

    def __str__(self) -> str:
        return f"Unknown tool: {self.name}"


def validate_tool_name(name: object) -> str:
    """Return ``name`` if it matches ``^[A-Za-z0-9_.:-]{1,128}$``; else ``ValueError``."""
    if not isinstance(name, str) or TOOL_NAME_PATTERN.fullmatch(name) is None:
        raise ValueError(f"invalid tool name {name!r}: must match ^[A-Za-z0-9_.:-]{{1,128}}$")
    return name


class ToolRegistry:
    """Tools by name, in registration order. Replacing a tool keeps its position.

    ``subscribe`` lets a host (an MCP server, a UI) hear of every change.
    """

    __slots__ = ("_duplicate", "_listeners", "_tools")

    def __init__(
        self,
        tools: Iterable[ToolDefinition] = (),
        *,
        duplicate: Literal["replace", "error"] = "replace",
    ) -> None:
        check_choice("ToolRegistry.duplicate", duplicate, ("replace", "error"))
        self._duplicate = duplicate
        self._tools: dict[str, ToolDefinition] = {}
        self._listeners: dict[object, Callable[[], None]] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: ToolDefinition) -> None:
        """Add ``tool``; a same-named tool is replaced in place, or ``ValueError`` in error mode."""
        if not isinstance(tool, ToolDefinition):
            raise TypeError(
                f"ToolRegistry.register.tool must be a ToolDefinition, got {tool!r:.200}"
            )
        validate_tool_name(tool.name)
        if tool.name in self._tools and self._duplicate == "error":
            raise ValueError(f"tool {tool.name!r}: already registered")
        self._tools[tool.name] = tool
        self._changed()

    def unregister(self, name: str) -> bool:
        """Remove the tool called ``name``; ``False`` when there was none."""
        if self._tools.pop(name, None) is None:
            return False
        self._changed()
        return True

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` after every change; returns an idempotent unsubscribe.

        Listeners run synchronously in the changing thread and must not block; one that raises
        is logged and skipped.
        """
        if not callable(listener):
            raise TypeError(
                f"ToolRegistry.subscribe.listener must be callable, got {listener!r:.200}"
            )
        token = object()
        self._listeners[token] = listener

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe

    def _changed(self) -> None:
        for listener in tuple(self._listeners.values()):
            try:
                listener()
            except Exception:
                import logging  # only on the rare failure path

                logging.getLogger("prism.core").warning("registry listener raised", exc_info=True)

    def get(self, name: str) -> ToolDefinition | None:
        """The tool called ``name``, or ``None``."""
        return self._tools.get(name)

    def resolve(self, name: str) -> ToolDefinition:
        """The tool called ``name``; raises ``UnknownToolError`` if there is none."""
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name) from None

    def list(self) -> tuple[ToolDefinition, ...]:
        """All tools in registration order."""
        return tuple(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(tuple(self._tools.values()))

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._tools)!r})"

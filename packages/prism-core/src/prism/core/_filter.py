"""Allow/deny filters over tool names (with globs such as ``mcp:docs:*``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from ._globs import GlobSet
from ._types import ToolDefinition

__all__ = ["ToolFilter", "admission", "filter_tools", "tool_allowed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFilter:
    """``deny`` always wins; a non-empty ``allow`` admits only the names it matches."""

    allow: Collection[str] = ()
    deny: Collection[str] = ()
    _allow: GlobSet = field(init=False, repr=False, compare=False, hash=False)
    _deny: GlobSet = field(init=False, repr=False, compare=False, hash=False)
    _seen: dict[str, bool] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "allow", tuple(self.allow))
        object.__setattr__(self, "deny", tuple(self.deny))
        object.__setattr__(self, "_allow", GlobSet(self.allow))
        object.__setattr__(self, "_deny", GlobSet(self.deny))
        object.__setattr__(self, "_seen", {})

    def admits(self, name: str) -> bool:
        """Whether this filter alone lets ``name`` through (remembered per name, bounded)."""
        seen = self._seen.get(name)
        if seen is None:
            if len(self._seen) >= 4096:
                self._seen.clear()
            seen = self._seen[name] = name not in self._deny and (
                not self._allow or name in self._allow
            )
        return seen


def tool_allowed(name: str, tool_filter: ToolFilter | Sequence[ToolFilter] | None) -> bool:
    """Every filter must admit ``name`` (deny union wins; every non-empty allow must match)."""
    if tool_filter is None:
        return True
    if isinstance(tool_filter, ToolFilter):
        return tool_filter.admits(name)
    return all(f.admits(name) for f in tool_filter)


def admission(
    tool_filter: ToolFilter | Sequence[ToolFilter] | None,
) -> Callable[[str], bool] | None:
    """``tool_allowed`` for this filter as one callable (``None``: no filter), resolved once by
    whoever holds the filter rather than on every call."""
    if tool_filter is None:
        return None
    if isinstance(tool_filter, ToolFilter):
        return tool_filter.admits
    return functools.partial(tool_allowed, tool_filter=tool_filter)


def filter_tools(
    tools: Iterable[ToolDefinition], tool_filter: ToolFilter | Sequence[ToolFilter] | None
) -> tuple[ToolDefinition, ...]:
    """The tools the filter admits, in their original order."""
    return tuple(t for t in tools if tool_allowed(t.name, tool_filter))

"""Extensions: inert contributions. Nothing an extension registers is dispatchable until the
host copies it into a ``ToolRegistry`` itself."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, final, runtime_checkable

from ._backend import maybe_await
from ._errors import PrismError
from ._permission import PermissionPolicy, PermissionRequest, check_permission
from ._registry import validate_tool_name
from ._types import ToolDefinition

if TYPE_CHECKING:
    from importlib import metadata

# The public names are listed once, in prism.core.extensions.


@final
class ExtensionPermissionError(PrismError, PermissionError):
    """The permission policy refused ``extension:<name>:setup``."""

    code = "permission_denied"


@runtime_checkable
class ExtensionAPI(Protocol):
    """What an extension may do during setup: record contributions."""

    def register_tool(self, tool: ToolDefinition) -> None:
        """Record ``tool`` as a contribution (it does not become dispatchable)."""
        ...


@runtime_checkable
class Extension(Protocol):
    """A named bundle of contributions, set up once by the host."""

    name: str

    def setup(self, api: ExtensionAPI) -> Awaitable[None] | None:
        """Register contributions through ``api``."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtensionContributions:
    """Everything the loaded extensions contributed, as immutable data."""

    tools: tuple[ToolDefinition, ...] = ()


class _Recorder:
    __slots__ = ("_tools", "closed", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._tools: list[ToolDefinition] = []
        self.closed = False

    def register_tool(self, tool: ToolDefinition) -> None:
        if self.closed:
            raise RuntimeError(f"extension {self.name!r}: registered a tool after setup ended")
        if not isinstance(tool, ToolDefinition):
            raise TypeError(
                f"ExtensionAPI.register_tool.tool must be a ToolDefinition, got {tool!r:.200}"
            )
        validate_tool_name(tool.name)
        self._tools.append(tool)


class ExtensionKernel:
    """Loads extensions behind a permission check and keeps their contributions inert."""

    __slots__ = ("_loaded", "_permission", "_tools")

    def __init__(self, *, permission: PermissionPolicy | None = None) -> None:
        self._permission = permission
        self._tools: list[ToolDefinition] = []
        self._loaded: list[str] = []

    @property
    def contributions(self) -> ExtensionContributions:
        """What the loaded extensions contributed so far."""
        return ExtensionContributions(tools=tuple(self._tools))

    @property
    def loaded(self) -> tuple[str, ...]:
        """Names of the extensions set up so far."""
        return tuple(self._loaded)

    async def load(self, extension: Extension) -> ExtensionContributions:
        """Check ``extension:<name>:setup``, run ``setup``, keep what it registered.

        A denied or failing setup contributes nothing (all or nothing).
        """
        name = getattr(extension, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(
                "ExtensionKernel.load.extension must be an Extension with a non-empty str name, "
                f"got {name!r:.200}"
            )
        if name in self._loaded:
            raise ValueError(f"extension {name!r}: already loaded")
        if self._permission is not None:
            request = PermissionRequest(kind="extension", target=name, action="setup")
            decision = await check_permission(self._permission, request)
            if not decision.allowed:
                raise ExtensionPermissionError(decision.reason or f"Permission denied: {name}")
        recorder = _Recorder(name)
        try:
            await maybe_await(extension.setup(recorder))
        finally:
            recorder.closed = True
        self._tools.extend(recorder._tools)
        self._loaded.append(name)
        return ExtensionContributions(tools=tuple(recorder._tools))


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtensionDescriptor:
    """An installed extension entry point, not yet imported."""

    name: str
    module: str
    distribution: str | None
    _entry_point: metadata.EntryPoint | None = None

    def load(self) -> object:
        """Import the entry point (an explicit host decision) and return what it names."""
        if self._entry_point is None:
            raise RuntimeError(f"extension {self.name!r}: has no entry point to load")
        return self._entry_point.load()


def discover_extensions(group: str = "prism.extensions") -> tuple[ExtensionDescriptor, ...]:
    """List installed extension entry points in ``group`` without importing any of them."""
    from importlib import metadata

    found = []
    for ep in metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        found.append(
            ExtensionDescriptor(
                name=ep.name,
                module=ep.value,
                distribution=dist.name if dist is not None else None,
                _entry_point=ep,
            )
        )
    return tuple(sorted(found, key=lambda d: d.name))

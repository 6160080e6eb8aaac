"""``McpToolServer``: a Prism pipeline served through the MCP SDK's low-level ``Server``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from mcp import types
from mcp.server import NotificationOptions, Server
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ListenHandler
from prism.core import ToolDefinition, ToolPipeline

from ._announce import AnnouncingServer, ChangeAnnouncer
from ._calls import call_tool
from ._client_io import set_log_level
from ._options import ServeOptions

__all__ = ["McpToolServer"]

_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


def tool_annotations(tool: ToolDefinition) -> types.ToolAnnotations:
    """MCP hints from the tool's side-effect hints: read-only tools are not destructive."""
    read_only = bool(getattr(tool, "read_only", False))
    idempotent = bool(getattr(tool, "idempotent", False))
    return types.ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=not read_only,
        idempotent_hint=read_only or idempotent,
    )


def describe_tool(tool: ToolDefinition) -> types.Tool:
    """A Prism tool as MCP lists it."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=dict(tool.parameters or _EMPTY_OBJECT),
        annotations=tool_annotations(tool),
    )


class McpToolServer:
    """Serves ``pipeline``'s tools: every client call passes Prism's whole pipeline.

    ``lowlevel`` is the SDK server (run it over any transport); ``run_stdio`` and ``run_http``
    serve it directly. A registry with ``subscribe`` (``ToolRegistry``) makes the server
    announce ``list_changed`` to legacy sessions and ``subscriptions/listen`` streams.
    """

    def __init__(self, pipeline: ToolPipeline, options: ServeOptions | None = None) -> None:
        if not isinstance(pipeline, ToolPipeline):
            raise TypeError(f"McpToolServer.pipeline must be a ToolPipeline, got {pipeline!r:.200}")
        pipeline.visible_tools()  # fail now if the registry cannot list
        self.pipeline = pipeline
        self.options = options if options is not None else ServeOptions()
        self._announcer = ChangeAnnouncer()
        self._changed: list[anyio.Event] = []
        subscribe = getattr(pipeline.registry, "subscribe", None)
        self._unsubscribe = subscribe(self._registry_changed) if callable(subscribe) else None
        self.lowlevel: AnnouncingServer = AnnouncingServer(
            self.options.name,
            version=self.options.version,
            instructions=self.options.instructions,
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._announcer.bus),
        )
        self.lowlevel.middleware.append(self._announcer)
        # served tools may log to the client (log_to_client); registered here, not through the
        # constructor, which warns that logging is deprecated at 2026-07-28 (still in 2025-11-25)
        self.lowlevel.add_request_handler(
            "logging/setLevel", types.SetLevelRequestParams, set_log_level
        )

    def initialization_options(self) -> Any:
        """What ``Server.run`` needs: capabilities including ``tools.listChanged``."""
        return self.lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[describe_tool(t) for t in self.pipeline.visible_tools()]
        )

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await call_tool(self.pipeline, self.options, ctx, params)

    def _registry_changed(self) -> None:
        for event in self._changed:
            event.set()

    @asynccontextmanager
    async def _lifespan(self, _: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as group:
            group.start_soon(self._relay_changes)
            try:
                yield {}
            finally:
                group.cancel_scope.cancel()

    async def _relay_changes(self) -> None:
        """Announce registry changes: one event per burst, to every session and listener."""
        while True:
            event = anyio.Event()
            self._changed.append(event)
            try:
                await event.wait()
            finally:
                self._changed.remove(event)
            await self._announcer.announce()

    def close(self) -> None:
        """Stop listening to the registry."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

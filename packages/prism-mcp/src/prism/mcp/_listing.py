"""Turning a server's tool listing into Prism ``ToolDefinition``s: names, schemas, bounds."""

from __future__ import annotations

import json
import logging
import re
import warnings
from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any

import pydantic_core

from mcp import types
from prism.core import ToolDefinition, ToolHandler

from ._deep import MAX_SCHEMA_DEPTH, REFUSED_KEY, depth
from ._errors import McpToolListError, McpToolNameCollisionError, McpToolSkippedWarning, clip
from ._options import McpBridgeOptions

__all__ = ["REMOTE_NAME", "build_definitions"]

logger = logging.getLogger("prism.mcp")

REMOTE_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")
_PRISM_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def _skip(server_id: str, what: str) -> None:
    message = f"MCP server {server_id!r}: skipped {what}"
    logger.warning(message)
    warnings.warn(McpToolSkippedWarning(message), stacklevel=4)


def _parameters(tool: types.Tool, options: McpBridgeOptions) -> dict[str, Any] | str:
    """A fresh plain-dict copy of the input schema, or why it was refused."""
    schema = tool.input_schema
    if not isinstance(schema, dict):
        return "its inputSchema is not a JSON object"
    try:
        encoded = pydantic_core.to_json(schema)
    except pydantic_core.PydanticSerializationError:
        return "its inputSchema is not JSON"
    if len(encoded) > options.max_schema_bytes:
        cap = options.max_schema_bytes
        return f"its inputSchema is {len(encoded)} bytes (max_schema_bytes={cap})"
    for refused in (schema.get(REFUSED_KEY), (tool.output_schema or {}).get(REFUSED_KEY)):
        if isinstance(refused, str):
            return refused
    if depth(schema) > MAX_SCHEMA_DEPTH:
        return f"its inputSchema nests deeper than {MAX_SCHEMA_DEPTH} levels"
    copy: dict[str, Any] = json.loads(encoded)
    return copy


def _metadata(server_id: str, tool: types.Tool) -> MappingProxyType[str, object]:
    meta: dict[str, object] = {"mcp_server_id": server_id, "mcp_tool_name": tool.name}
    if tool.title:
        meta["mcp_title"] = tool.title
    if tool.annotations is not None:
        meta["mcp_annotations"] = tool.annotations.model_dump(
            mode="json", by_alias=True, exclude_none=True
        )  # the spec's camelCase keys, as documented
    if tool.output_schema is not None:
        meta["mcp_output_schema"] = tool.output_schema
    return MappingProxyType(meta)


def _hint(tool: types.Tool, name: str) -> bool:
    """A side-effect hint (``readOnlyHint``, ``idempotentHint``): only ``true`` counts."""
    return tool.annotations is not None and getattr(tool.annotations, name, None) is True


def build_definitions(
    listed: Sequence[types.Tool],
    *,
    server_id: str,
    prefix: str,
    options: McpBridgeOptions,
    make_handler: Callable[[str, str], ToolHandler],
) -> tuple[ToolDefinition, ...]:
    """One ``ToolDefinition`` per valid remote tool; a name collision raises and builds nothing."""
    if len(listed) > options.max_tools:
        raise McpToolListError(
            f"tools/list of MCP server {server_id!r}: lists {len(listed)} tools, "
            f"over max_tools={options.max_tools}"
        )
    seen: set[str] = set()
    out: list[ToolDefinition] = []
    for tool in listed:
        remote = tool.name
        if REMOTE_NAME.fullmatch(remote) is None:
            rule = "name must match ^[A-Za-z0-9._-]{1,128}$"
            _skip(server_id, f"tool {clip(remote, 200)!r}: {rule}")
            continue
        name = prefix + remote
        if _PRISM_NAME.fullmatch(name) is None:
            _skip(server_id, f"tool {remote!r}: {name!r} is longer than 128 characters")
            continue
        if name in seen:
            raise McpToolNameCollisionError(name, server_id)
        seen.add(name)
        parameters = _parameters(tool, options)
        if isinstance(parameters, str):
            _skip(server_id, f"tool {remote!r}: {parameters}")
            continue
        description = tool.description
        if description is not None and len(description) > options.max_description_bytes // 4:
            cut = clip(description, options.max_description_bytes)
            if cut != description:
                _skip(server_id, f"part of the description of tool {remote!r} (too long)")
            description = cut
        out.append(
            ToolDefinition(
                name=name,
                execute=make_handler(remote, name),
                description=description,
                parameters=parameters,
                read_only=_hint(tool, "read_only_hint"),
                idempotent=_hint(tool, "idempotent_hint"),
                metadata=_metadata(server_id, tool),
            )
        )
    return tuple(out)

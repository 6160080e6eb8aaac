"""Serve a server's elicitation, sampling and roots requests through the host, fail-closed.

One ``FeatureCallbacks`` per connection turns ``McpClientFeatures`` into the SDK's callbacks.
Every request is size-checked, counted against ``max_concurrent``, checked by the permission
policy, and answered within ``timeout_seconds``; anything else (denial, oversize, a host
handler that raises or returns garbage) answers the server with a JSON-RPC error instead.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from prism.core import PermissionDecision, PermissionRequest

from ._errors import clip
from ._feature_types import (
    ElicitationRequest,
    ElicitationResponse,
    McpClientFeatures,
    SamplingRequest,
    SamplingResponse,
)

__all__ = ["DENIED", "FeatureCallbacks"]

logger = logging.getLogger("prism.mcp")

DENIED = -1
"""JSON-RPC code for a request the host refused (the spec's "user rejected" code)."""
_INVALID_PARAMS = -32602
_INTERNAL_ERROR = -32603


class _Refusal(Exception):
    """Answer the server with this error instead of a result."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = clip(message, 1024)


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


class FeatureCallbacks:
    """The SDK callbacks for one connection to ``server_id`` (only the declared ones)."""

    def __init__(self, server_id: str, features: McpClientFeatures) -> None:
        self.server_id = server_id
        self.features = features
        self._active = 0

    def client_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``mcp.Client``: a callback per feature the host provided."""
        out: dict[str, Any] = {}
        if self.features.elicitation is not None:
            out["elicitation_callback"] = self.elicit
        if self.features.sampling is not None:
            out["sampling_callback"] = self.sample
        if self.features.roots is not None:
            out["list_roots_callback"] = self.list_roots
        return out

    # -- the three callbacks (SDK signatures) -------------------------------------------

    async def elicit(self, _context: Any, params: Any) -> Any:
        return await self._serve("elicit", params, self._elicit)

    async def sample(self, _context: Any, params: Any) -> Any:
        return await self._serve("sample", params, self._sample)

    async def list_roots(self, _context: Any) -> Any:
        return await self._serve("roots", None, self._roots)

    # -- shared bounds -------------------------------------------------------------------

    async def _serve(
        self, action: str, params: Any, work: Callable[[dict[str, Any]], Awaitable[Any]]
    ) -> Any:
        from mcp import types

        opts = self.features
        try:
            wire = {} if params is None else _wire(params)
            size = _size(wire)
            if size > opts.max_request_bytes:
                raise _Refusal(
                    _INVALID_PARAMS,
                    f"the {action} request is {size} bytes, over the client's "
                    f"max_request_bytes={opts.max_request_bytes}",
                )
            if self._active >= opts.max_concurrent:
                raise _Refusal(
                    _INTERNAL_ERROR,
                    f"too many {action} requests at once (max_concurrent={opts.max_concurrent})",
                )
            self._active += 1
            try:
                with anyio.move_on_after(opts.timeout_seconds) as scope:
                    await self._allow(action, wire)
                    result = await work(wire)
                if scope.cancelled_caught:
                    raise _Refusal(
                        _INTERNAL_ERROR,
                        f"the host did not answer the {action} request within "
                        f"timeout_seconds={opts.timeout_seconds}",
                    )
            finally:
                self._active -= 1
            size = _size(result.model_dump(by_alias=True, mode="json", exclude_none=True))
            if size > opts.max_response_bytes:
                raise _Refusal(
                    _INTERNAL_ERROR,
                    f"the host's {action} answer is {size} bytes, over "
                    f"max_response_bytes={opts.max_response_bytes}",
                )
            return result
        except _Refusal as refusal:
            logger.info("MCP server %r %s request refused: %s", self.server_id, action, refusal)
            return types.ErrorData(code=refusal.code, message=refusal.message)

    async def _allow(self, action: str, wire: Mapping[str, Any]) -> None:
        request = PermissionRequest(
            kind="mcp",
            target=self.server_id,
            action=action,
            metadata={"mcp_server_id": self.server_id, "params": wire},
        )
        denied = f"Permission denied: {request.key}"
        try:
            outcome: Any = self.features.permission.check(request)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:  # a policy that fails denies
            raise _Refusal(DENIED, f"{denied} (the check raised {type(exc).__name__})") from None
        if outcome is True:
            return
        if isinstance(outcome, PermissionDecision) and outcome.allowed is True:
            return
        reason = outcome.reason if isinstance(outcome, PermissionDecision) else None
        raise _Refusal(DENIED, reason or denied)

    async def _host(self, action: str, call: Callable[[], Any]) -> Any:
        """Run a host handler; its exception becomes an error naming only its type."""
        try:
            outcome = call()
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:
            logger.warning("the host's %s handler raised %s", action, type(exc).__name__)
            raise _Refusal(
                _INTERNAL_ERROR, f"the host's {action} handler failed ({type(exc).__name__})"
            ) from None
        return outcome

    # -- per feature ---------------------------------------------------------------------

    async def _elicit(self, wire: dict[str, Any]) -> Any:
        from mcp import types

        handler = self.features.elicitation
        assert handler is not None
        request = ElicitationRequest(
            server_id=self.server_id,
            message=str(wire.get("message", "")),
            mode="url" if wire.get("mode") == "url" else "form",
            requested_schema=wire.get("requestedSchema"),
            url=wire.get("url"),
            elicitation_id=wire.get("elicitationId"),
        )
        answer = await self._host("elicit", lambda: handler(request))
        if not isinstance(answer, ElicitationResponse):
            raise _Refusal(_INTERNAL_ERROR, "the host's elicit handler returned no response")
        content = None if answer.content is None else dict(answer.content)
        return _build(lambda: types.ElicitResult(action=answer.action, content=content), "elicit")

    async def _sample(self, wire: dict[str, Any]) -> Any:
        from mcp import types

        handler = self.features.sampling
        assert handler is not None
        max_tokens = wire.get("maxTokens")
        request = SamplingRequest(
            server_id=self.server_id,
            messages=tuple(wire.get("messages", ())),
            max_tokens=max_tokens if isinstance(max_tokens, int) else 0,
            system_prompt=wire.get("systemPrompt"),
            params=wire,
        )
        answer = await self._host("sample", lambda: handler(request))
        if not isinstance(answer, SamplingResponse):
            raise _Refusal(_INTERNAL_ERROR, "the host's sample handler returned no response")
        return _build(
            lambda: types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text=answer.text),
                model=answer.model,
                stop_reason=answer.stop_reason,
            ),
            "sample",
        )

    async def _roots(self, _wire: dict[str, Any]) -> Any:
        from mcp import types

        source = self.features.roots
        paths: Any = await self._host("roots", source) if callable(source) else source
        if isinstance(paths, (str, bytes, os.PathLike)) or not isinstance(paths, Sequence):
            raise _Refusal(_INTERNAL_ERROR, "the host's roots provider returned no sequence")
        roots: list[Any] = []
        for item in paths:
            if len(roots) >= self.features.max_roots:
                raise _Refusal(
                    _INTERNAL_ERROR, f"more than max_roots={self.features.max_roots} roots"
                )
            text = os.fspath(item) if isinstance(item, (str, os.PathLike)) else None
            if not isinstance(text, str) or not os.path.isabs(text) or "\x00" in text:
                raise _Refusal(_INTERNAL_ERROR, "the host's roots provider gave a relative path")
            path = Path(text)
            root = {"uri": path.as_uri(), "name": path.name or text}
            roots.append(types.Root.model_validate(root))
        return types.ListRootsResult(roots=roots)


def _wire(params: Any) -> dict[str, Any]:
    dumped = params.model_dump(by_alias=True, mode="json", exclude_none=True)
    dumped.pop("_meta", None)
    return dict(dumped)


def _build(make: Callable[[], Any], action: str) -> Any:
    """Build the SDK result; a host value the protocol cannot carry becomes an error."""
    try:
        return make()
    except ValueError as exc:  # pydantic.ValidationError is a ValueError
        count = exc.error_count() if hasattr(exc, "error_count") else 1
        raise _Refusal(
            _INTERNAL_ERROR, f"the host's {action} answer is not valid MCP ({count} problem(s))"
        ) from None

"""Elicitation, sampling and roots against a real SDK server: declared only when given,
permission-checked per request, bounded in size, time and concurrency, refusals answered as
JSON-RPC errors the server sees."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from prism.core import PermissionDecision, PermissionRequest, create_static_permission_policy
from prism.core.testing import scaled
from prism.mcp import (
    ElicitationRequest,
    ElicitationResponse,
    InMemoryTransport,
    McpBridgeOptions,
    McpClientFeatures,
    SamplingRequest,
    SamplingResponse,
    StreamableHttpTransport,
    connect_mcp_tools,
)

from .conftest import SERVERS, load_server

pytestmark = pytest.mark.anyio

ALLOW = create_static_permission_policy()


class Host:
    """Scripted host handlers that record what they were asked."""

    def __init__(self) -> None:
        self.elicited: list[ElicitationRequest] = []
        self.sampled: list[SamplingRequest] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationResponse:
        self.elicited.append(request)
        return ElicitationResponse(action="accept", content={"name": "Ada", "age": 36})

    async def sample(self, request: SamplingRequest) -> SamplingResponse:
        self.sampled.append(request)
        return SamplingResponse(text="a short answer", model="scripted-model")


def _server(kit: Any) -> InMemoryTransport:
    """A fresh ``features_server.py`` in this process: the features are protocol, not process;
    the HTTP test below runs it as a real server."""
    return InMemoryTransport(load_server("features_server").mcp)


async def _run(kit: Any, features: McpClientFeatures | None, *calls: tuple[str, dict[str, Any]]):
    out = []
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="feat",
            transport=_server(kit),
            options=McpBridgeOptions(protocol_mode="legacy", client_features=features),
        ) as bridge:
            for name, args in calls:
                result = await kit.call(bridge, name, args)
                assert result.error is None, result.error
                out.append(result.value)
    return out


async def test_features_are_declared_only_when_the_host_gives_a_handler(kit) -> None:
    host = Host()
    none, *undeclared = await _run(
        kit,
        None,
        ("capabilities", {}),
        ("ask", {"question": "who?"}),
        ("sample", {"prompt": "hi"}),
        ("roots", {}),
    )
    only = McpClientFeatures(permission=ALLOW, elicitation=host.elicit)
    (one,) = await _run(kit, only, ("capabilities", {}))
    every = McpClientFeatures(
        permission=ALLOW, elicitation=host.elicit, sampling=host.sample, roots=["/tmp"]
    )
    (three,) = await _run(kit, every, ("capabilities", {}))
    assert not {"elicitation", "sampling", "roots"} & set(none["caps"] or {})
    for outcome in undeclared:  # the SDK answers undeclared features with an error
        assert isinstance(outcome.get("error"), int), outcome
    assert set(one["caps"]) & {"elicitation", "sampling", "roots"} == {"elicitation"}
    assert {"elicitation", "sampling", "roots"} <= set(three["caps"])
    assert every.declared == ("elicitation", "sampling", "roots")


async def test_elicitation_sampling_and_roots_reach_the_host_and_back(kit, tmp_path) -> None:
    host = Host()
    features = McpClientFeatures(
        permission=ALLOW, elicitation=host.elicit, sampling=host.sample, roots=[str(tmp_path)]
    )
    asked, sampled, rooted = await _run(
        kit,
        features,
        ("ask", {"question": "Who are you?"}),
        ("sample", {"prompt": "Say hi"}),
        ("roots", {}),
    )
    assert asked == {"action": "accept", "data": {"name": "Ada", "age": 36}}
    (request,) = host.elicited
    assert request.server_id == "feat" and request.message == "Who are you?"
    assert request.mode == "form" and request.requested_schema is not None
    assert request.requested_schema["properties"]["age"]["default"] == 30
    assert sampled == {"text": "a short answer", "model": "scripted-model", "stop": "endTurn"}
    (sample,) = host.sampled
    assert sample.max_tokens == 50 and sample.system_prompt == "be brief"
    assert sample.messages[0]["content"]["text"] == "Say hi"
    assert rooted == {"roots": [[tmp_path.as_uri(), tmp_path.name]]}


async def test_roots_can_come_from_the_coding_security_roots(kit, tmp_path) -> None:
    security = pytest.importorskip("prism.coding_security")
    (tmp_path / "a").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "a")
    canonical = security.canonicalize_roots([str(link)])

    async def provider() -> tuple[str, ...]:
        return canonical

    features = McpClientFeatures(permission=ALLOW, roots=provider)
    (rooted,) = await _run(kit, features, ("roots", {}))
    assert rooted == {"roots": [[(tmp_path / "a").as_uri(), "a"]]}


class Recorder:
    """A permission policy that records its requests and applies ``decide``."""

    def __init__(self, decide: Any) -> None:
        self.decide = decide
        self.keys: list[str] = []

    def check(self, request: PermissionRequest) -> Any:
        self.keys.append(request.key)
        return self.decide(request)


def _boom(_request: PermissionRequest) -> Any:
    raise RuntimeError("policy store unavailable")


async def _async_allow(_request: PermissionRequest) -> PermissionDecision:
    return PermissionDecision(allowed=True)


DECISIONS = [
    (lambda r: PermissionDecision(allowed=False, reason="no sampling here"), False),
    (lambda r: "yes", False),  # anything but True / an allowed decision denies
    (lambda r: None, False),
    (_boom, False),
    (lambda r: True, True),
    (_async_allow, True),
]


async def test_each_request_passes_the_permission_check(kit) -> None:
    host = Host()
    policy = Recorder(None)
    features = McpClientFeatures(
        permission=policy, elicitation=host.elicit, sampling=host.sample, roots=["/tmp"]
    )
    calls = (("ask", {"question": "q"}), ("sample", {"prompt": "p"}), ("roots", {}))
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(
            server_id="feat",
            transport=_server(kit),
            options=McpBridgeOptions(protocol_mode="legacy", client_features=features),
        ) as bridge:
            for decide, allowed in DECISIONS:
                policy.decide, policy.keys = decide, []
                host.elicited, host.sampled = [], []
                asked, sampled, rooted = [
                    (await kit.call(bridge, name, args)).value for name, args in calls
                ]
                assert policy.keys == ["mcp:feat:elicit", "mcp:feat:sample", "mcp:feat:roots"]
                if allowed:
                    assert asked["action"] == "accept" and sampled["text"] and rooted["roots"]
                    continue
                assert host.elicited == [] and host.sampled == []
                for outcome in (asked, sampled, rooted):
                    assert outcome["error"] == -1, outcome
                    message = outcome["message"]
                    assert "policy store unavailable" not in message
                    assert message == "no sampling here" or message.startswith(
                        "Permission denied: mcp:feat:"
                    )


async def test_denying_one_feature_leaves_the_others_working(kit) -> None:
    host = Host()
    policy = create_static_permission_policy(deny=["mcp:feat:sample"])
    features = McpClientFeatures(permission=policy, elicitation=host.elicit, sampling=host.sample)
    asked, sampled = await _run(
        kit, features, ("ask", {"question": "q"}), ("sample", {"prompt": "p"})
    )
    assert asked["action"] == "accept"
    assert sampled == {"error": -1, "message": "Permission denied: mcp:feat:sample"}


async def test_a_host_that_never_answers_is_cut_off_at_timeout_seconds(kit) -> None:
    async def forever(_request: ElicitationRequest) -> ElicitationResponse:
        await anyio.sleep_forever()
        raise AssertionError

    features = McpClientFeatures(permission=ALLOW, elicitation=forever, timeout_seconds=0.5)
    started = time.monotonic()
    asked, again = await _run(kit, features, ("ask", {"question": "q"}), ("ask", {"question": "q"}))
    assert asked["error"] == -32603 and "timeout_seconds=0.5" in asked["message"]
    assert again == asked
    assert time.monotonic() - started < scaled(20)


async def test_oversized_requests_and_answers_are_refused(kit) -> None:
    host = Host()

    async def chatty(_request: SamplingRequest) -> SamplingResponse:
        return SamplingResponse(text="x" * 5_000, model="m")

    small = McpClientFeatures(permission=ALLOW, sampling=host.sample, max_request_bytes=1_000)
    (big_prompt,) = await _run(kit, small, ("sample", {"prompt": "y" * 2_000}))
    assert big_prompt["error"] == -32602 and "max_request_bytes=1000" in big_prompt["message"]
    assert host.sampled == []
    capped = McpClientFeatures(permission=ALLOW, sampling=chatty, max_response_bytes=1_000)
    (big_answer,) = await _run(kit, capped, ("sample", {"prompt": "p"}))
    assert big_answer["error"] == -32603 and "max_response_bytes=1000" in big_answer["message"]


async def test_concurrent_requests_beyond_the_bound_are_refused_at_once(kit) -> None:
    seen: list[str] = []

    async def slow(request: ElicitationRequest) -> ElicitationResponse:
        seen.append(request.message)
        await anyio.sleep(1.0)  # the other requests arrive meanwhile
        return ElicitationResponse(action="decline")

    features = McpClientFeatures(permission=ALLOW, elicitation=slow, max_concurrent=2)
    (many,) = await _run(kit, features, ("ask_many", {"count": 5}))
    outcomes = many["outcomes"]
    assert outcomes.count("decline") == 2 and len(seen) == 2
    refused = [o for o in outcomes if o != "decline"]
    assert len(refused) == 3
    assert all(o["error"] == -32603 and "max_concurrent=2" in o["message"] for o in refused)


async def test_a_failing_or_lying_host_handler_becomes_an_error_without_its_text(kit) -> None:
    async def raises(_request: ElicitationRequest) -> ElicitationResponse:
        raise RuntimeError("secret-internal-detail")

    async def lies(_request: SamplingRequest) -> Any:
        return {"text": "not a SamplingResponse"}

    def bad_roots() -> list[str]:
        return ["relative/dir"]

    features = McpClientFeatures(
        permission=ALLOW, elicitation=raises, sampling=lies, roots=bad_roots
    )
    asked, sampled, rooted = await _run(
        kit, features, ("ask", {"question": "q"}), ("sample", {"prompt": "p"}), ("roots", {})
    )
    assert asked["error"] == -32603 and "RuntimeError" in asked["message"]
    assert "secret-internal-detail" not in asked["message"]
    assert sampled["error"] == -32603 and rooted["error"] == -32603


async def test_features_work_over_streamable_http_and_denials_reach_the_server(kit) -> None:
    host = Host()
    policy = create_static_permission_policy(deny=["mcp:web:sample"])
    features = McpClientFeatures(permission=policy, elicitation=host.elicit, sampling=host.sample)
    with anyio.fail_after(scaled(60)):
        async with (
            kit.http_script(str(SERVERS / "features_server.py")) as url,
            connect_mcp_tools(
                server_id="web",
                transport=StreamableHttpTransport(url),
                options=McpBridgeOptions(protocol_mode="legacy", client_features=features),
            ) as bridge,
        ):
            asked = (await kit.call(bridge, "ask", {"question": "name?"})).value
            sampled = (await kit.call(bridge, "sample", {"prompt": "p"})).value
    assert asked == {"action": "accept", "data": {"name": "Ada", "age": 36}}
    assert sampled == {"error": -1, "message": "Permission denied: mcp:web:sample"}
    assert host.sampled == []


def test_feature_options_are_validated_with_the_field_name() -> None:
    with pytest.raises(TypeError, match="permission"):
        McpClientFeatures(permission=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout_seconds"):
        McpClientFeatures(permission=ALLOW, timeout_seconds=0)
    with pytest.raises(ValueError, match="max_concurrent"):
        McpClientFeatures(permission=ALLOW, max_concurrent=65)
    with pytest.raises(ValueError, match="roots"):
        McpClientFeatures(permission=ALLOW, roots=["relative"])
    with pytest.raises(TypeError, match="roots"):
        McpClientFeatures(permission=ALLOW, roots="/tmp")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="elicitation"):
        McpClientFeatures(permission=ALLOW, elicitation="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="client_features"):
        McpBridgeOptions(client_features={"elicitation": None})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="content"):
        ElicitationResponse(action="decline", content={"a": 1})
    with pytest.raises(ValueError, match="model"):
        SamplingResponse(text="t", model="")

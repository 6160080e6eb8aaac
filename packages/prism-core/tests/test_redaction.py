"""Secrets never leave dispatch unredacted: arguments, results, errors, events, ledger rows."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from prism.core import (
    InMemoryRunLedger,
    SecretRedactor,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolGates,
    ToolRegistry,
    ToolResult,
    dispatch_tool_call,
)

pytestmark = pytest.mark.anyio

SECRET = "hunter2-SECRET"


def test_nested_values_and_mapping_keys_are_redacted() -> None:
    redactor = SecretRedactor([SECRET, ""])
    value = {SECRET: [f"x{SECRET}y", (1, {"k": SECRET})], "n": 3, "s": {SECRET}}
    out = redactor.redact(value)
    assert SECRET not in repr(out)
    assert out == {
        "[REDACTED]": ["x[REDACTED]y", (1, {"k": "[REDACTED]"})],
        "n": 3,
        "s": {"[REDACTED]"},
    }
    assert SECRET in repr(value), "the input is not mutated"


def test_dataclasses_cycles_and_depth() -> None:
    @dataclasses.dataclass(frozen=True)
    class Box:
        text: str
        other: object = None

    redactor = SecretRedactor([SECRET])
    assert redactor.redact(Box(text=SECRET)).text == "[REDACTED]"
    cyclic: list[Any] = [SECRET]
    cyclic.append(cyclic)
    out = redactor.redact(cyclic)
    assert out[0] == "[REDACTED]" and out[1] == "[CYCLE]"
    deep: Any = SECRET
    for _ in range(200):
        deep = [deep]
    assert SECRET not in repr(redactor.redact(deep))
    untouched = {"a": 1}
    assert redactor.redact(untouched) is untouched


def test_overlapping_secrets_longest_first() -> None:
    assert SecretRedactor(["abc", "abcdef"]).redact("xabcdefx") == "x[REDACTED]x"
    with pytest.raises(TypeError):
        SecretRedactor("single-string")


@pytest.mark.parametrize(
    ("secrets", "text", "expected"),
    [
        # The marker's own tail completes a secret after the first pass: the whole text goes.
        (["aaaaaaaa", "ED]bbbbb"], "xaaaaaaaabbbbb", "[REDACTED]"),
        # Overlapping occurrences are masked as one span.
        (["aaaaaaaa", "ED]bbbbb"], "aaaaaaaa ED]bbbbb", "[REDACTED] [REDACTED]"),
        # A secret inside the marker itself cannot be hidden by the marker: nothing is left.
        (["REDACTED"], "xREDACTEDx", ""),
    ],
)
def test_no_secret_survives_the_marker(secrets: list[str], text: str, expected: str) -> None:
    out = SecretRedactor(secrets).redact(text)
    assert out == expected
    assert all(secret not in out for secret in secrets)


@pytest.mark.parametrize("fails", [False, True])
async def test_dispatch_redacts_everything(events: Any, fails: bool) -> None:
    async def leaky(args: Any, ctx: ToolExecutionContext) -> ToolResult:
        if fails:
            raise RuntimeError(f"token {args['token']} rejected")
        return ToolResult(
            tool_call_id="", name="", value={"echo": args["token"], args["token"]: "as key"}
        )

    ledger = InMemoryRunLedger()
    result = await dispatch_tool_call(
        ToolCall(id="c", name="leaky", arguments={"token": SECRET}),
        registry=ToolRegistry([ToolDefinition(name="leaky", execute=leaky)]),
        emit=events,
        gates=ToolGates(ledger=ledger, redactor=SecretRedactor([SECRET])),
    )
    assert SECRET not in repr(result)
    assert "[REDACTED]" in repr(result)
    assert len(events.events) == 2
    assert all(SECRET not in repr(e) for e in events.events)
    assert all(SECRET not in repr(r) for r in ledger.records)


async def test_blocked_results_are_redacted_too(events: Any) -> None:
    result = await dispatch_tool_call(
        ToolCall(id="c", name=f"x{SECRET}"[:20].replace("-", "_"), arguments={"t": SECRET}),
        registry=ToolRegistry(),
        emit=events,
        gates=ToolGates(validator=None, redactor=SecretRedactor(["hunter2"])),
    )
    assert "hunter2" not in repr(result)
    assert "hunter2" not in repr(events.events)

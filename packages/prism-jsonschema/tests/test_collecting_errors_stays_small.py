"""Collecting errors about a long string stays within 64 MiB and 100 ms of CPU.

Outside red team, round 2 (issue 25): ``allOf`` of 250 ``{"type": "integer"}`` against a
1,000,000-character string was within both collection bounds, and jsonschema-rs built every
error quoting the whole string (955 MiB of RSS, 788 ms). The collection bound now counts what
the messages may quote: expanded size x nodes x the value's weight.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from prism.core.testing import scaled

_ERRORS_SCRIPT = """
import json, resource, sys, time
from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
options = JsonSchemaValidatorOptions(engine=sys.argv[1], max_errors=64)
v = JsonSchemaArgumentValidator(options=options)
schema = {"type": "object", "properties": {"x": {"allOf": [{"type": "integer"}] * 250}}}
assert v.validate(schema, {"x": 1}).ok
value = {"x": "a" * 1_000_000}
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.thread_time()
result = v.validate(schema, value)
cpu = time.thread_time() - start
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
messages = [e.message for e in result.errors]
print(json.dumps({"ok": result.ok, "messages": messages, "cpu": cpu, "kib": grown}))
"""


@pytest.mark.parametrize("engine", ["fastjsonschema", "jsonschema-rs"])
def test_collecting_errors_about_one_long_string_stays_within_64_mib_and_100_ms(
    engine: str,
) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _ERRORS_SCRIPT, engine],
        capture_output=True,
        text=True,
        timeout=scaled(120),
        check=True,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["ok"] is False
    messages = report["messages"]
    assert 1 <= len(messages) <= 2
    assert all(len(message) <= 300 for message in messages)  # quoted values clipped
    assert report["kib"] <= 64 * 1024, f"peak RSS grew by {report['kib'] // 1024} MiB"
    assert report["cpu"] < scaled(0.1), f"took {report['cpu'] * 1000:.0f} ms of CPU"

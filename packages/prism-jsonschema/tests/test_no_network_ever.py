"""No schema makes either engine open a connection: a real local listener sees nothing."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions
from prism.jsonschema._fastjsonschema import (
    REFUSE_EVERY_SCHEME,
    RemoteRefRefused,
    compile_fastjsonschema,
)
from prism.jsonschema._rs import compile_rs
from prism.jsonschema._walk import SchemaRejected


class Listener:
    """A TCP listener on 127.0.0.1; ``connections()`` drains whatever connected so far."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]

    def connections(self) -> int:
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return count
            conn.close()
            count += 1


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    try:
        yield server
    finally:
        server.sock.close()


def test_the_listener_does_detect_a_connection(listener: Listener) -> None:
    with socket.create_connection(("127.0.0.1", listener.port), timeout=5):
        pass
    assert listener.connections() == 1
    assert listener.connections() == 0


def _hostile(port: int) -> list[tuple[dict[str, Any], object]]:
    base = f"http://127.0.0.1:{port}"
    return [
        ({"$ref": f"{base}/s.json"}, {}),
        ({"properties": {"a": {"$ref": f"{base}/s.json#/definitions/a"}}}, {"a": 1}),
        ({"$schema": f"{base}/meta#"}, {}),
        ({"$id": f"{base}/root.json", "properties": {"a": {"$ref": "other.json"}}}, {"a": 1}),
        (
            {"properties": {"a": {"$id": f"{base}/x#frag", "items": {"$ref": "#/definitions/b"},
                                  "definitions": {"b": {"type": "string"}}}}},
            {"a": [1]},
        ),
        ({"$id": f"{base}/#frag", "$defs": {"b": {}}, "items": {"$ref": "#/$defs/b"}}, [1]),
        (
            {"type": "string", "default": {"id": f"{base}/#f", "x": {"$ref": "#/a"}}},
            5,
        ),
        ({"$dynamicRef": f"{base}/s.json#node"}, {}),
        ({"$schema": "http://json-schema.org/draft-04/schema#", "id": f"{base}/#f",
          "items": {"$ref": "#/definitions/x"}, "definitions": {"x": {}}}, [1]),
    ]  # fmt: skip


def test_hostile_schemas_open_no_connection(engine: str, listener: Listener) -> None:
    validator = JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
    for schema, instance in _hostile(listener.port):
        result = validator.validate(schema, instance)
        assert listener.connections() == 0, schema
        if result.ok:
            continue
        for error in result.errors:
            assert error.message


def test_fastjsonschema_resolver_cannot_reach_urllib(listener: Listener) -> None:
    """Bypassing the pre-checks: the engine itself refuses every scheme."""
    base = f"http://127.0.0.1:{listener.port}"
    for scheme in ("http", "https", "file", "ftp", "", "data", "urn"):
        assert scheme in REFUSE_EVERY_SCHEME
        with pytest.raises(RemoteRefRefused):
            REFUSE_EVERY_SCHEME[scheme](f"{scheme}://x")
    for document in ({"$ref": f"{base}/s.json"}, {"items": {"$ref": f"{base}/a#/b"}}):
        with pytest.raises(SchemaRejected, match="nothing is fetched"):
            compile_fastjsonschema(
                document, 2020, schema_bytes=100, regexes={}, validate_formats=False, fast_fail=True
            )
    assert listener.connections() == 0


def test_jsonschema_rs_retriever_refuses(listener: Listener) -> None:
    base = f"http://127.0.0.1:{listener.port}"
    for document in ({"$ref": f"{base}/s.json"}, {"$schema": f"{base}/meta"}):
        with pytest.raises(SchemaRejected):
            compile_rs(document, validate_formats=False)
    assert listener.connections() == 0

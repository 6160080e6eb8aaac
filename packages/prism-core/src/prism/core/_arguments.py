"""The "JSON object" check every call's arguments pass before anything else sees them."""

from __future__ import annotations

import json
import math

__all__ = ["MAX_ARGUMENT_BYTES_CAP", "MAX_ARGUMENT_DEPTH", "check_json_object"]

MAX_ARGUMENT_DEPTH = 64
MAX_ARGUMENT_BYTES_CAP = 16_777_216

_SCALARS = (str, int, type(None))


def check_json_object(arguments: object, max_bytes: int) -> str | None:
    """Return why ``arguments`` is not an acceptable JSON object, or ``None`` if it is.

    A ``dict`` with ``str`` keys, JSON values only (no NaN/inf, no foreign objects), depth at
    most 64, encoded size at most ``max_bytes``, and no prototype-pollution vector.
    """
    if not isinstance(arguments, dict):
        return f"expected an object, got {_kind(arguments)}"
    budget = [0]
    why = _walk(arguments, "", 1, budget)
    if why is not None:
        return why
    if budget[0] <= max_bytes:
        return None  # even the worst-case encoding fits: skip the exact measurement
    try:
        encoded = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    except ValueError as exc:  # e.g. an int beyond the interpreter's digit limit
        return f"arguments cannot be encoded as JSON: {exc}"
    if len(encoded) > max_bytes or len(encoded.encode("utf-8", "surrogatepass")) > max_bytes:
        return f"encoded arguments exceed {max_bytes} bytes"
    return None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    return type(value).__name__


def _walk(value: object, path: str, depth: int, budget: list[int]) -> str | None:
    """Check ``value``; add an upper bound of its encoded size to ``budget[0]``."""
    if depth > MAX_ARGUMENT_DEPTH:
        return f"nesting deeper than {MAX_ARGUMENT_DEPTH} levels at {path or '/'}"
    if isinstance(value, dict):
        budget[0] += 2 + 2 * len(value)
        for key, item in value.items():
            if not isinstance(key, str):
                return f"non-string key {key!r} at {path or '/'}"
            where = f"{path}/{key}"
            if key == "__proto__":
                return f"forbidden key '__proto__' at {where}"
            if key == "constructor" and isinstance(item, dict) and "prototype" in item:
                return f"forbidden 'constructor.prototype' at {where}"
            budget[0] += 6 * len(key) + 2
            if isinstance(item, str):
                budget[0] += 6 * len(item) + 2
            elif isinstance(item, _SCALARS):
                budget[0] += _scalar_bound(item)
            else:
                why = _walk(item, where, depth + 1, budget)
                if why is not None:
                    return why
        return None
    if isinstance(value, (list, tuple)):
        budget[0] += 2 + len(value)
        for index, item in enumerate(value):
            if isinstance(item, str):
                budget[0] += 6 * len(item) + 2
            elif isinstance(item, _SCALARS):
                budget[0] += _scalar_bound(item)
            else:
                why = _walk(item, f"{path}/{index}", depth + 1, budget)
                if why is not None:
                    return why
        return None
    if isinstance(value, float):
        budget[0] += 32
        return None if math.isfinite(value) else f"non-finite number at {path}"
    if isinstance(value, str):
        budget[0] += 6 * len(value) + 2
        return None
    if isinstance(value, (int, bool)) or value is None:
        budget[0] += _scalar_bound(value)
        return None
    return f"{type(value).__name__} is not a JSON value at {path}"


def _scalar_bound(value: object) -> int:
    """Upper bound of the encoded size of ``None``, a bool or an int."""
    if type(value) is int:
        return value.bit_length() // 3 + 3
    return 16

"""The "JSON object" check every call's arguments pass before anything else sees them.

It never raises: arguments built in Python can hold anything (a key whose ``repr`` raises, a
``dict`` subclass whose ``items()`` raises, an integer too large to print), and every such
input is a reason to refuse, not a crash. The size bound is counted incrementally and stops at
the bound, so a huge argument never gets encoded whole.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring

__all__ = [
    "DEFAULT_MAX_ARGUMENT_BYTES",
    "MAX_ARGUMENT_BYTES_CAP",
    "MAX_ARGUMENT_DEPTH",
    "MAX_ARGUMENT_INTEGER_BITS",
    "check_json_object",
]

MAX_ARGUMENT_DEPTH = 64
MAX_ARGUMENT_BYTES_CAP = 16_777_216
DEFAULT_MAX_ARGUMENT_BYTES = 1_048_576
MAX_ARGUMENT_INTEGER_BITS = 2048
"""Integers must lie strictly between -2**2048 and 2**2048 (about 617 decimal digits): below
the smallest digit limit Python allows (640), so every accepted integer can be printed and
compared by every engine, whatever ``sys.set_int_max_str_digits`` says."""

_CHUNK = 16_384


class _SizeLimitExceeded(Exception):
    """The encoded size passed the bound: stop counting."""


def check_json_object(arguments: object, max_bytes: int) -> str | None:
    """Return why ``arguments`` is not an acceptable JSON object, or ``None`` if it is.

    A ``dict`` with ``str`` keys, JSON values only (no NaN/inf, no foreign objects, integers
    within ``MAX_ARGUMENT_INTEGER_BITS``), depth at most 64, encoded size (compact UTF-8 JSON)
    at most ``max_bytes``, and no prototype-pollution vector.
    """
    try:
        return _check(arguments, max_bytes)
    except RecursionError:
        return "arguments are nested too deeply to inspect"
    except Exception as exc:  # a hostile object: refuse, naming only its type
        return f"arguments cannot be inspected ({type(exc).__name__} while reading them)"


def _check(arguments: object, max_bytes: int) -> str | None:
    if not isinstance(arguments, dict):
        return f"expected an object, got {_kind(arguments)}"
    budget = [0]
    why = _walk(arguments, "", 1, budget)
    if why is not None:
        return why
    if budget[0] <= max_bytes:
        return None  # even the worst-case encoding fits: skip the exact measurement
    try:
        _measure(arguments, max_bytes)
    except _SizeLimitExceeded:
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


def _describe(key: object) -> str:
    """``repr`` of a non-string key, clipped, or only its type when ``repr`` fails or is huge."""
    if isinstance(key, int) and key.bit_length() > 64:
        return f"(an int of {key.bit_length()} bits)"
    try:
        text = repr(key)
    except Exception:
        return f"(a {type(key).__name__})"
    return text if len(text) <= 60 else text[:60] + "..."


def _walk(value: object, path: str, depth: int, budget: list[int]) -> str | None:
    """Check ``value``; add an upper bound of its encoded size to ``budget[0]``."""
    if depth > MAX_ARGUMENT_DEPTH:
        return f"nesting deeper than {MAX_ARGUMENT_DEPTH} levels at {path or '/'}"
    if isinstance(value, dict):
        budget[0] += 2 + 2 * len(value)
        for key, item in value.items():
            if not isinstance(key, str):
                return f"non-string key {_describe(key)} at {path or '/'}"
            where = f"{path}/{key}"
            if key == "__proto__":
                return f"forbidden key '__proto__' at {where}"
            if key == "constructor" and isinstance(item, dict) and "prototype" in item:
                return f"forbidden 'constructor.prototype' at {where}"
            budget[0] += 6 * len(key) + 2
            if isinstance(item, str):
                budget[0] += 6 * len(item) + 2
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
            else:
                why = _walk(item, f"{path}/{index}", depth + 1, budget)
                if why is not None:
                    return why
        return None
    return _scalar(value, path, budget)


def _scalar(value: object, path: str, budget: list[int]) -> str | None:
    if isinstance(value, str):
        budget[0] += 6 * len(value) + 2
        return None
    if value is None or isinstance(value, bool):
        budget[0] += 5
        return None
    if isinstance(value, int):
        bits = value.bit_length()
        if bits > MAX_ARGUMENT_INTEGER_BITS:
            return (
                f"integer at {path} is too large ({bits} bits; the limit is "
                f"{MAX_ARGUMENT_INTEGER_BITS} bits, about 617 digits)"
            )
        budget[0] += bits // 3 + 3
        return None
    if isinstance(value, float):
        budget[0] += 32
        return None if math.isfinite(value) else f"non-finite number at {path}"
    return f"{type(value).__name__} is not a JSON value at {path}"


def _measure(value: object, room: int) -> int:
    """Exact compact-JSON UTF-8 size of an already checked value.

    Raises ``_SizeLimitExceeded`` as soon as the size passes ``room``.
    """
    if isinstance(value, str):
        return _text_bytes(value, room)
    if isinstance(value, dict):
        size = 1 + max(len(value), 1)  # braces and the commas between members
        for key, item in value.items():
            size += _text_bytes(key, room - size) + 1
            size += _measure(item, room - size)
            if size > room:
                raise _SizeLimitExceeded
        return size
    if isinstance(value, (list, tuple)):
        size = 1 + max(len(value), 1)
        for item in value:
            size += _measure(item, room - size)
            if size > room:
                raise _SizeLimitExceeded
        return size
    if value is None or value is True:
        size = 4
    elif value is False:
        size = 5
    elif isinstance(value, int):
        size = len(int.__repr__(value))
    else:
        size = len(float.__repr__(value))
    if size > room:
        raise _SizeLimitExceeded
    return size


def _text_bytes(text: str, room: int) -> int:
    """Encoded size of ``text`` as a JSON string, quotes included, one chunk at a time."""
    if len(text) + 2 > room:  # every character takes at least one byte
        raise _SizeLimitExceeded
    size = 2
    for start in range(0, len(text), _CHUNK):
        piece: str = encode_basestring(text[start : start + _CHUNK])
        size += len(piece.encode("utf-8", "surrogatepass")) - 2
        if size > room:
            raise _SizeLimitExceeded
    return size

"""The "JSON object" check every call's arguments pass before anything else sees them.

It never raises: arguments built in Python can hold anything (a key whose ``repr`` raises, a
``dict`` subclass whose ``items()`` raises, an integer too large to print), and every such
input is a reason to refuse, not a crash. The size bound is counted incrementally and stops at
the bound, so a huge argument never gets encoded whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "DEFAULT_MAX_ARGUMENT_BYTES",
    "LOOP_NODES",
    "MAX_ARGUMENT_BYTES_CAP",
    "MAX_ARGUMENT_DEPTH",
    "MAX_ARGUMENT_INTEGER_BITS",
    "cannot_fit",
    "canonical_json_object",
    "check_json_object",
    "decode_in_worker",
]

MAX_ARGUMENT_DEPTH = 64
MAX_ARGUMENT_BYTES_CAP = 16_777_216
DEFAULT_MAX_ARGUMENT_BYTES = 1_048_576
MAX_ARGUMENT_INTEGER_BITS = 2048
"""Integers must lie strictly between -2**2048 and 2**2048 (about 617 decimal digits): below
the smallest digit limit Python allows (640), so every accepted integer can be printed and
compared by every engine, whatever ``sys.set_int_max_str_digits`` says."""

_CHUNK = 16_384
LOOP_NODES = 4_096
"""Containers' members decoded on the event loop (well under a millisecond); past it dispatch
decodes the arguments again in a worker thread (``decode_in_worker``)."""


def _load_isfinite(number: float) -> bool:
    """``math.isfinite``: ``math`` (an extension module) loads with the first float checked."""
    global isfinite
    from math import isfinite as loaded

    isfinite = loaded
    return loaded(number)


def _load_encoder(text: str) -> str:
    """json.encoder's own C string encoder (without importing the json package), loaded with
    the first string measured exactly; json.encoder's pure-Python one if the C one is missing."""
    global encode_basestring
    try:
        from _json import encode_basestring as loaded
    except ImportError:  # an interpreter built without it
        from json.encoder import encode_basestring as loaded
    encode_basestring = loaded
    return loaded(text)


isfinite: Callable[[float], bool] = _load_isfinite
encode_basestring: Callable[[str], str] = _load_encoder


class _TooManyNodes(Exception):
    """More than ``max_nodes`` members: the caller decodes off the event loop instead."""


class _SizeLimitExceeded(Exception):
    """The encoded size passed the bound: stop counting."""


class _Refused(Exception):
    """The arguments are not acceptable; ``str()`` says why."""


def check_json_object(arguments: object, max_bytes: int) -> str | None:
    """Return why ``arguments`` is not an acceptable JSON object, or ``None`` if it is.

    A ``dict`` with ``str`` keys, JSON values only (no NaN/inf, no foreign objects, integers
    within ``MAX_ARGUMENT_INTEGER_BITS``), depth at most 64, encoded size (compact UTF-8 JSON)
    at most ``max_bytes``, and no prototype-pollution vector.
    """
    return canonical_json_object(arguments, max_bytes)[1]


def canonical_json_object(
    arguments: object, max_bytes: int, max_nodes: int | None = None
) -> tuple[dict[str, Any], None] | tuple[None, str] | tuple[None, None]:
    """``(copy, None)`` or ``(None, why)``: ``arguments`` decoded once into canonical JSON.

    The copy holds only exact ``dict``/``list``/``str``/``int``/``float``/``bool``/``None``
    (a ``str`` or ``int`` subclass cannot lie about its value or compare equal to a key it is
    not); it is what validators check and what the handler receives. A sub-object reached
    twice is copied (and counted) twice, so a shared-object DAG cannot outgrow the bound.
    ``(None, None)``: more than ``max_nodes`` container members (decode it off the loop).
    """
    try:
        flat = _flat_copy(arguments, max_bytes)
        if flat is not None:
            return flat, None
        return _canonical(arguments, max_bytes, max_nodes), None
    except _TooManyNodes:
        return None, None
    except _Refused as refused:
        return None, str(refused)
    except RecursionError:
        return None, "arguments are nested too deeply to inspect"
    except Exception as exc:  # a hostile object: refuse, naming only its type
        return None, f"arguments cannot be inspected ({type(exc).__name__} while reading them)"


FLAT_MEMBERS = 64
"""Objects of at most this many scalar members take ``_flat_copy``, the one-pass path."""


def _flat_copy(arguments: object, max_bytes: int) -> dict[str, Any] | None:
    """What ``_canonical`` returns for a small exact ``dict`` of exact scalars (most tool
    calls), in one pass; ``None`` for anything else, or anything the rules might refuse
    (``_canonical`` then decides and says why). Same rules, same size accounting."""
    if type(arguments) is not dict or len(arguments) > FLAT_MEMBERS:
        return None
    upper = 2 + 2 * len(arguments)  # the upper bound ``_object`` counts
    out: dict[str, Any] = {}
    for key, item in arguments.items():
        kind = type(item)
        if type(key) is not str or key == "__proto__":
            return None
        if kind is str:
            upper += 6 * len(item) + 2
        elif kind is int:
            bits = item.bit_length()
            if bits > MAX_ARGUMENT_INTEGER_BITS:
                return None
            upper += bits // 3 + 3
        elif kind is float:
            if not isfinite(item):
                return None
            upper += 32
        elif item is None or kind is bool:
            upper += 5
        else:
            return None
        upper += 6 * len(key) + 2
        out[key] = item
    return out if upper <= max_bytes else None


def cannot_fit(arguments: object, max_bytes: int) -> bool:
    """Whether ``arguments`` surely encodes to more than ``max_bytes``: a walk that allocates
    nothing (no copy: a copy of a huge shared-object DAG would run the garbage collector over
    the whole heap, holding the GIL) and stops at the bound. Types are checked by the copy."""
    least = 0
    stack = [arguments]
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        if isinstance(node, str):
            least += len(node) + 2
        elif isinstance(node, dict):
            least += 1 + max(len(node), 1)
            for key in node:
                least += len(key) + 3 if isinstance(key, str) else 0
            extend(node.values())
        elif isinstance(node, (list, tuple)):
            least += 1 + max(len(node), 1)
            extend(node)
        else:
            least += 1
        if least > max_bytes:
            return True
    return False


def decode_in_worker(
    arguments: object, max_bytes: int
) -> tuple[dict[str, Any], None] | tuple[None, str]:
    """``canonical_json_object`` for a worker thread: what cannot fit is refused by a walk
    that allocates nothing, before any copy (a copy of a huge shared-object DAG would fill
    the heap, and a garbage collection holds the GIL while it scans it)."""
    try:
        if cannot_fit(arguments, max_bytes):
            return None, f"encoded arguments exceed {max_bytes} bytes"
    except Exception:  # a hostile object: the copy below says what is wrong
        pass
    copy, refused = canonical_json_object(arguments, max_bytes)
    if copy is None:
        return None, refused or "arguments cannot be inspected"
    return copy, None


def _canonical(arguments: object, max_bytes: int, max_nodes: int | None) -> dict[str, Any]:
    if not isinstance(arguments, dict):
        raise _Refused(f"expected an object, got {_kind(arguments)}")
    # upper bound, lower bound, the bound, members left before leaving the loop
    sizes = [0, 0, max_bytes, MAX_ARGUMENT_BYTES_CAP if max_nodes is None else max_nodes]
    try:
        copy: dict[str, Any] = _copy(arguments, "", 1, sizes)
    except _SizeLimitExceeded:
        raise _Refused(f"encoded arguments exceed {max_bytes} bytes") from None
    if sizes[0] > max_bytes:  # the worst-case encoding may not fit: measure exactly
        try:
            _measure(copy, max_bytes)
        except _SizeLimitExceeded:
            raise _Refused(f"encoded arguments exceed {max_bytes} bytes") from None
    return copy


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


def _copy(value: Any, path: str, depth: int, sizes: list[int]) -> Any:
    """The canonical copy of ``value``. ``sizes[0]`` gains an upper bound of its encoded size,
    ``sizes[1]`` a lower bound (past ``sizes[2]``: ``_SizeLimitExceeded``)."""
    if depth > MAX_ARGUMENT_DEPTH:
        raise _Refused(f"nesting deeper than {MAX_ARGUMENT_DEPTH} levels at {path or '/'}")
    kind = type(value)
    if kind is str:
        return _text(value, sizes)
    if kind is dict or isinstance(value, dict):
        return _object(value, path, depth, sizes)
    if kind is list or isinstance(value, (list, tuple)):
        _enter(len(value), 2, sizes)
        sizes[0] += 2 + len(value)
        sizes[1] += 1 + max(len(value), 1)
        if sizes[1] > sizes[2]:
            raise _SizeLimitExceeded
        return [
            _copy(item, f"{path}/{index}", depth + 1, sizes) for index, item in enumerate(value)
        ]
    return _scalar(value, path, sizes)


def _enter(members: int, least: int, sizes: list[int]) -> None:
    """Before a container's members are read: each takes at least ``least`` bytes with its
    comma, so a container that cannot fit is refused before it is copied."""
    if sizes[1] + least * members + 1 > sizes[2]:
        raise _SizeLimitExceeded
    sizes[3] -= members
    if sizes[3] < 0:
        raise _TooManyNodes


def _object(value: dict[Any, Any], path: str, depth: int, sizes: list[int]) -> dict[str, Any]:
    _enter(len(value), 5, sizes)  # "":0,
    sizes[0] += 2 + 2 * len(value)
    sizes[1] += 1 + max(len(value), 1)
    out: dict[str, Any] = {}
    for raw_key, item in value.items():
        if type(raw_key) is str:
            key = raw_key
        elif isinstance(raw_key, str):
            key = str.__str__(raw_key)
        else:
            raise _Refused(f"non-string key {_describe(raw_key)} at {path or '/'}")
        where = f"{path}/{key}"
        if key == "__proto__":
            raise _Refused(f"forbidden key '__proto__' at {where}")
        if key == "constructor" and isinstance(item, dict) and "prototype" in item:
            raise _Refused(f"forbidden 'constructor.prototype' at {where}")
        sizes[0] += 6 * len(key) + 2
        sizes[1] += len(key) + 3
        out[key] = _text(item, sizes) if type(item) is str else _copy(item, where, depth + 1, sizes)
    return out


def _text(value: str, sizes: list[int]) -> str:
    sizes[0] += 6 * len(value) + 2
    sizes[1] += len(value) + 2
    if sizes[1] > sizes[2]:
        raise _SizeLimitExceeded
    return value


def _scalar(value: object, path: str, sizes: list[int]) -> object:
    sizes[1] += 1
    if sizes[1] > sizes[2]:
        raise _SizeLimitExceeded
    if value is None or value is True or value is False:
        sizes[0] += 5
        return value
    if isinstance(value, str):
        return _text(str.__str__(value), sizes)
    if isinstance(value, int):
        exact = int.__int__(value)  # a subclass cannot lie about its value or its size
        bits = exact.bit_length()
        if bits > MAX_ARGUMENT_INTEGER_BITS:
            raise _Refused(
                f"integer at {path} is too large ({bits} bits; the limit is "
                f"{MAX_ARGUMENT_INTEGER_BITS} bits, about 617 digits)"
            )
        sizes[0] += bits // 3 + 3
        return exact
    if isinstance(value, float):
        number = float.__float__(value)
        if not isfinite(number):
            raise _Refused(f"non-finite number at {path}")
        sizes[0] += 32
        return number
    raise _Refused(f"{type(value).__name__} is not a JSON value at {path}")


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

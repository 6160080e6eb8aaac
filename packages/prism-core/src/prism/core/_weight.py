"""How much walking a value costs, counted without copying it: what may run on the event loop.

Redaction walks every event and ledger row it is given; for a call whose arguments or result
are heavier than ``LOOP_WEIGHT`` that walk runs in a worker thread instead (``CallReporter``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["LOOP_WEIGHT", "heavier_than"]

LOOP_WEIGHT: Final = 4_096
"""Units (a container member, a dataclass field, a scalar, 64 characters of text) walked on the
event loop at most: a redaction of that much takes well under a millisecond."""


def heavier_than(value: object, budget: int) -> bool:
    """Whether walking ``value`` costs more than ``budget`` units (see ``LOOP_WEIGHT``); stops
    as soon as it does, so it costs at most ``budget`` steps. An object that raises while
    being read counts as heavy (whatever walks it next runs off the loop)."""
    left = budget
    stack: list[Any] = [value]
    pop, extend = stack.pop, stack.extend
    try:
        while stack:
            node = pop()
            kind = type(node)
            if kind is str or kind is bytes or isinstance(node, (str, bytes)):
                left -= 1 + (len(node) >> 6)
            elif kind is dict or isinstance(node, Mapping):
                left -= 1 + len(node)
                if left >= 0:
                    extend(node.keys())
                    extend(node.values())
            elif kind is list or kind is tuple or isinstance(node, (list, tuple, set, frozenset)):
                left -= 1 + len(node)
                if left >= 0:
                    extend(node)
            elif hasattr(kind, "__dataclass_fields__"):
                names = kind.__dataclass_fields__
                left -= 1 + len(names)
                if left >= 0:
                    extend([getattr(node, name, None) for name in names])
            else:
                left -= 1
            if left < 0:
                return True
    except Exception:
        return True
    return False

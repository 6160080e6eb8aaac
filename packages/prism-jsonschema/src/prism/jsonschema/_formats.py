"""The formats asserted under ``validate_formats=True``: an allowlist per engine and draft.

Each engine checks formats its own way; where that is looser than the reference (the
``jsonschema`` package with ``idna``: IDNA2008 hostnames, ``datetime`` dates) a value the
format forbids would pass. So only formats an engine was shown (by differential tests) never to
accept more than the reference are honoured; any other format refuses the schema, naming the
format and the engine, instead of being silently widened or ignored.
"""

from __future__ import annotations

from typing import Final

from ._drafts import Draft
from ._options import Engine
from ._pointer import Path, location
from ._walk import SchemaRejected

__all__ = ["CHECKED_FORMATS", "check_format"]

_ALL: Final = frozenset({"email", "ipv4", "ipv6"})
_FROM_2019: Final = _ALL | {"uuid"}

CHECKED_FORMATS: Final[dict[Engine, dict[Draft, frozenset[str]]]] = {
    "fastjsonschema": {
        4: _ALL,
        6: _ALL,
        7: _ALL | {"idn-email"},
        2019: _FROM_2019 | {"idn-email"},
        2020: _FROM_2019 | {"idn-email"},
    },
    "jsonschema-rs": {
        4: _ALL | {"idn-email"},
        6: _ALL | {"idn-email"},
        7: _ALL | {"idn-email"},
        2019: _FROM_2019 | {"idn-email"},
        2020: _FROM_2019 | {"idn-email"},
    },
}
"""What each engine asserts at least as strictly as the reference, per draft. Left out:
``idn-hostname`` (both engines accept labels IDNA2008 disallows), ``date`` (both accept year
0000), ``regex`` (fastjsonschema would compile it with ``re``; jsonschema-rs accepts what
Python's ``re`` refuses), ``uuid`` before 2019-09 (not checked) and every format the reference
does not check here (``date-time``, ``hostname``, ``uri`` ...: nothing to verify against)."""


def check_format(name: str, engine: Engine, draft: Draft, path: Path) -> None:
    """Refuse ``format: name`` unless ``engine`` checks it exactly under ``draft``."""
    allowed = CHECKED_FORMATS[engine][draft]
    if name not in allowed:
        raise SchemaRejected(
            f"format {name[:80]!r} at {location(path)} is not checked exactly by the {engine} "
            f"engine (validate_formats=True honours only {', '.join(sorted(allowed))} for this "
            "draft): the schema is refused rather than the format widened or ignored; use "
            "validate_formats=False to read formats as annotations"
        )

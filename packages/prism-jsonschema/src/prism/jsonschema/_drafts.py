"""Known JSON Schema drafts: which ``$schema`` URIs are accepted (exact published spellings)."""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["CANONICAL_URI", "DEFAULT_DRAFT", "Draft", "draft_for_uri"]

Draft = Literal[4, 6, 7, 2019, 2020]

DEFAULT_DRAFT: Final[Draft] = 2020
"""A schema without ``$schema`` is read as 2020-12 (what current MCP servers emit)."""

CANONICAL_URI: Final[dict[Draft, str]] = {
    4: "http://json-schema.org/draft-04/schema#",
    6: "http://json-schema.org/draft-06/schema#",
    7: "http://json-schema.org/draft-07/schema#",
    2019: "https://json-schema.org/draft/2019-09/schema",
    2020: "https://json-schema.org/draft/2020-12/schema",
}

_PUBLISHED: Final[dict[str, Draft]] = {
    **{uri: draft for draft, uri in CANONICAL_URI.items()},
    **{uri.removesuffix("#"): draft for draft, uri in CANONICAL_URI.items()},
    **{uri + "#": draft for draft, uri in CANONICAL_URI.items() if not uri.endswith("#")},
}
"""The published meta-schema URIs, exactly as the ``jsonschema`` package (the reference) knows
them: http for 04/06/07, https for 2019-09/2020-12, each with or without the empty fragment.
Any other spelling (https draft-07, http 2019-09 ...) the reference reads as 2020-12: reading it
as the older draft it resembles would drop keywords the reference applies, so it is refused."""


def draft_for_uri(uri: str) -> Draft | None:
    """The draft a ``$schema`` URI names: only an exact published spelling (an allowlist)."""
    return _PUBLISHED.get(uri)

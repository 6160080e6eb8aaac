"""Known JSON Schema drafts: which ``$schema`` URIs are accepted and their canonical spelling."""

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

_PATHS: Final[dict[str, Draft]] = {
    "json-schema.org/draft-04/schema": 4,
    "json-schema.org/draft-06/schema": 6,
    "json-schema.org/draft-07/schema": 7,
    "json-schema.org/draft/2019-09/schema": 2019,
    "json-schema.org/draft/2020-12/schema": 2020,
}


def draft_for_uri(uri: str) -> Draft | None:
    """The draft a ``$schema`` URI names (http or https, with or without an empty fragment)."""
    for scheme in ("https://", "http://"):
        if uri.startswith(scheme):
            rest = uri[len(scheme) :]
            if rest.endswith("#"):
                rest = rest[:-1]
            return _PATHS.get(rest)
    return None

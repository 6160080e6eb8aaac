"""Options of the JSON Schema validator: every bound with its default and hard cap."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, final

from prism.core.options import check_choice, check_count, check_flag

__all__ = ["HARD_CAPS", "Engine", "JsonSchemaValidatorOptions"]

Engine = Literal["fastjsonschema", "jsonschema-rs"]

HARD_CAPS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "max_schema_bytes": 1_048_576,
        "max_schema_depth": 128,
        "max_schema_nodes": 100_000,
        "max_refs": 1_024,
        "max_pattern_length": 10_000,
        "cache_size": 1_024,
        "max_instance_depth": 128,
        "max_instance_properties": 100_000,
        "max_string_length": 8_388_608,
        "max_array_items": 100_000,
        "max_errors": 64,
        "max_compile_cost": 16_777_216,
        "max_cache_bytes": 1_073_741_824,
        "max_pattern_input_length": 1_048_576,
        "max_expanded_size": 1_000_000,
        "max_validation_work": 100_000_000,
    }
)
"""The largest value each count option accepts (every one of them is at least 1); read-only."""

_ENGINES: Final = ("fastjsonschema", "jsonschema-rs")
_MISSING_SCHEMA: Final = ("allow", "reject")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class JsonSchemaValidatorOptions:
    """Bounds and behaviour of ``JsonSchemaArgumentValidator``; validated at construction.

    Schema bounds hold before anything is compiled, instance bounds before the engine runs.
    """

    max_schema_bytes: int = 262_144
    max_schema_depth: int = 64
    max_schema_nodes: int = 10_000
    max_refs: int = 128
    max_pattern_length: int = 1_000
    cache_size: int = 256
    max_instance_depth: int = 64
    max_instance_properties: int = 1_000
    max_string_length: int = 1_000_000
    max_array_items: int = 10_000
    max_errors: int = 8
    missing_schema: Literal["allow", "reject"] = "allow"
    engine: Engine = "fastjsonschema"
    validate_formats: bool = False
    max_compile_cost: int = 1_048_576
    """Estimated size of the compiled validator a schema may need, refused before compiling:
    ``COST_PER_SCHEMA_BYTE[engine]`` times its compact JSON size, plus ``PATTERN_COST`` per
    distinct pattern. The fastjsonschema engine also stops generating code at this size."""
    max_cache_bytes: int = 67_108_864
    """Bound of the compile cache in (estimated) bytes, next to ``cache_size`` entries."""
    max_expanded_size: int = 10_000
    """Schema nodes one data node can be checked against, every ``$ref`` inlined (counted at
    registration on the reference graph); a schema above it is refused."""
    max_validation_work: int = 100_000
    """Expanded size times the value's node count: a value above it fails validation. At the
    default the heaviest legal validation takes well under 100 ms of CPU on either engine."""
    max_pattern_input_length: int = 65_536
    """Longest string (value or property name) matched against a ``pattern`` or
    ``patternProperties``; a longer one fails validation (matching costs time per character
    times pattern size: this bounds it)."""

    def __post_init__(self) -> None:
        where = "JsonSchemaValidatorOptions."
        for name, cap in HARD_CAPS.items():
            check_count(where + name, getattr(self, name), cap=cap)
        check_choice(where + "missing_schema", self.missing_schema, _MISSING_SCHEMA)
        check_choice(where + "engine", self.engine, _ENGINES)
        check_flag(where + "validate_formats", self.validate_formats)

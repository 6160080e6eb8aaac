"""Options of the JSON Schema validator: every bound with its default and hard cap."""

from __future__ import annotations

from typing import Any, Final, Literal

import attrs

from ._bounds import count_bound

__all__ = ["HARD_CAPS", "Engine", "JsonSchemaValidatorOptions"]

Engine = Literal["fastjsonschema", "jsonschema-rs"]

HARD_CAPS: Final[dict[str, int]] = {
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
}


def _choice(*allowed: str) -> Any:
    def validate(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if not isinstance(value, str) or value not in allowed:
            choices = " or ".join(repr(a) for a in allowed)
            raise ValueError(f"{attribute.name} must be {choices}, not {value!r}")

    return validate


def _is_bool(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{attribute.name} must be a bool, not {value!r}")


@attrs.frozen(kw_only=True)
class JsonSchemaValidatorOptions:
    """Bounds and behaviour of ``JsonSchemaArgumentValidator``; validated at construction.

    Schema bounds hold before anything is compiled, instance bounds before the engine runs.
    """

    max_schema_bytes: int = attrs.field(
        default=262_144, validator=count_bound(HARD_CAPS["max_schema_bytes"])
    )
    max_schema_depth: int = attrs.field(
        default=64, validator=count_bound(HARD_CAPS["max_schema_depth"])
    )
    max_schema_nodes: int = attrs.field(
        default=10_000, validator=count_bound(HARD_CAPS["max_schema_nodes"])
    )
    max_refs: int = attrs.field(default=128, validator=count_bound(HARD_CAPS["max_refs"]))
    max_pattern_length: int = attrs.field(
        default=1_000, validator=count_bound(HARD_CAPS["max_pattern_length"])
    )
    cache_size: int = attrs.field(default=256, validator=count_bound(HARD_CAPS["cache_size"]))
    max_instance_depth: int = attrs.field(
        default=64, validator=count_bound(HARD_CAPS["max_instance_depth"])
    )
    max_instance_properties: int = attrs.field(
        default=1_000, validator=count_bound(HARD_CAPS["max_instance_properties"])
    )
    max_string_length: int = attrs.field(
        default=1_000_000, validator=count_bound(HARD_CAPS["max_string_length"])
    )
    max_array_items: int = attrs.field(
        default=10_000, validator=count_bound(HARD_CAPS["max_array_items"])
    )
    max_errors: int = attrs.field(default=8, validator=count_bound(HARD_CAPS["max_errors"]))
    missing_schema: Literal["allow", "reject"] = attrs.field(
        default="allow", validator=_choice("allow", "reject")
    )
    engine: Engine = attrs.field(
        default="fastjsonschema", validator=_choice("fastjsonschema", "jsonschema-rs")
    )
    validate_formats: bool = attrs.field(default=False, validator=_is_bool)
    max_compile_cost: int = attrs.field(
        default=1_048_576, validator=count_bound(HARD_CAPS["max_compile_cost"])
    )
    """Estimated size of the compiled validator a schema may need, refused before compiling:
    ``COST_PER_SCHEMA_BYTE[engine]`` times its compact JSON size, plus ``PATTERN_COST`` per
    distinct pattern. The fastjsonschema engine also stops generating code at this size."""
    max_cache_bytes: int = attrs.field(
        default=67_108_864, validator=count_bound(HARD_CAPS["max_cache_bytes"])
    )
    """Bound of the compile cache in (estimated) bytes, next to ``cache_size`` entries."""

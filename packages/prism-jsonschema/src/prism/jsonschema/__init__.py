"""Bounded, cached, injection-proof JSON Schema argument validation for Prism."""

from ._cache import CacheInfo
from ._options import HARD_CAPS, JsonSchemaValidatorOptions
from ._validator import JsonSchemaArgumentValidator, create_json_schema_tool_argument_validator

__all__ = [
    "HARD_CAPS",
    "CacheInfo",
    "JsonSchemaArgumentValidator",
    "JsonSchemaValidatorOptions",
    "create_json_schema_tool_argument_validator",
]

"""Bounded, cached, injection-proof JSON Schema argument validation for Prism."""

from ._cache import CacheInfo
from ._options import HARD_CAPS, JsonSchemaValidatorOptions
from ._tool import create_json_schema_tool_argument_validator
from ._validator import JsonSchemaArgumentValidator

__all__ = [
    "HARD_CAPS",
    "CacheInfo",
    "JsonSchemaArgumentValidator",
    "JsonSchemaValidatorOptions",
    "create_json_schema_tool_argument_validator",
]

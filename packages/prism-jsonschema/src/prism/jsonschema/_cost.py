"""The compile budget: what a schema would cost compiled, estimated before anything is paid.

Measured on fastjsonschema, generated code is about 11x a schema's compact JSON for object
structure and about 5x for ``enum``/``const`` data, and parsing, checking and compiling it
takes about a microsecond per byte; jsonschema-rs keeps a few bytes of Rust state per schema
byte. The estimate takes the larger weight for every byte, so it never under-counts.
"""

from __future__ import annotations

from typing import Final

from ._options import Engine, JsonSchemaValidatorOptions
from ._regex import REGEX_MAX_MEM
from ._walk import SchemaRejected

__all__ = [
    "COST_PER_SCHEMA_BYTE",
    "MEMORY_PER_SCHEMA_BYTE",
    "PATTERN_COST",
    "check_compile_cost",
    "held_bytes",
]

COST_PER_SCHEMA_BYTE: Final[dict[Engine, int]] = {"fastjsonschema": 12, "jsonschema-rs": 4}
PATTERN_COST: Final = 65_536
"""Per distinct pattern: RE2 program and DFA cache (bounded by ``REGEX_MAX_MEM``)."""


def check_compile_cost(size: int, patterns: int, options: JsonSchemaValidatorOptions) -> int:
    """The estimated cost of compiling a schema of ``size`` bytes; ``SchemaRejected`` when it
    is over ``max_compile_cost``."""
    cost = COST_PER_SCHEMA_BYTE[options.engine] * size + PATTERN_COST * patterns + 1_024
    if cost > options.max_compile_cost:
        raise SchemaRejected(
            f"schema would cost about {cost:,} bytes compiled on {options.engine} "
            f"({size:,} bytes of JSON, {patterns} patterns), more than "
            f"max_compile_cost={options.max_compile_cost:,}"
        )
    return cost


MEMORY_PER_SCHEMA_BYTE: Final[dict[Engine, int]] = {"fastjsonschema": 128, "jsonschema-rs": 32}
"""What a cache entry keeps alive per schema byte, per compiled validator. Measured with
``tracemalloc`` on fastjsonschema (generated code, its AST-checked module, closures): 50 to
110 bytes; jsonschema-rs memory is outside Python's view, so its figure is a generous guess."""


def held_bytes(size: int, patterns: int, compiles: int, engine: Engine) -> int:
    """Bytes the compile cache counts for an entry: the schema-size estimate for each compiled
    validator plus ``REGEX_MAX_MEM`` per pattern (RE2's own bound on a pattern's memory)."""
    return MEMORY_PER_SCHEMA_BYTE[engine] * size * compiles + REGEX_MAX_MEM * patterns + 1_024

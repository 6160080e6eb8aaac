"""The compile budget: what a schema would cost compiled, estimated before anything is paid.

Measured on fastjsonschema, generated code is about 11x a schema's compact JSON for object
structure and about 5x for ``enum``/``const`` data, and parsing, checking and compiling it
takes about a microsecond per byte; jsonschema-rs keeps a few bytes of Rust state per schema
byte. The estimate takes the larger weight for every byte, so it never under-counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


RS_OBJECT_BYTES: Final = 4_096
"""What jsonschema-rs keeps per object in ``enum``/``const`` data, beyond the per-byte figure:
measured 1.6 to 2 KiB of RSS per object (one, three or nested keys), counted with 2x margin."""

RS_ARRAY_BYTES: Final = 1_024
"""Per array in ``enum``/``const`` data on jsonschema-rs: measured about 0.5 KiB, 2x margin."""


def held_bytes(
    size: int, patterns: int, compiles: int, engine: Engine, nodes: Iterable[object] = ()
) -> int:
    """Bytes the compile cache counts for an entry: the schema-size estimate for each compiled
    validator plus ``REGEX_MAX_MEM`` per pattern (RE2's own bound on a pattern's memory), and
    on jsonschema-rs the objects and arrays of the schema ``nodes``' ``enum``/``const`` data."""
    held = MEMORY_PER_SCHEMA_BYTE[engine] * size * compiles + REGEX_MAX_MEM * patterns + 1_024
    if engine == "jsonschema-rs":
        objects, arrays = _data_containers(nodes)
        held += RS_OBJECT_BYTES * objects + RS_ARRAY_BYTES * arrays
    return held


def _data_containers(nodes: Iterable[object]) -> tuple[int, int]:
    """Objects and arrays inside the ``enum``/``const`` values of schema ``nodes`` (bounded:
    every one of them is a schema node the walk already counted)."""
    objects = arrays = 0
    stack: list[object] = []
    for node in nodes:
        if isinstance(node, Mapping):
            stack.extend(node[key] for key in ("enum", "const") if key in node)
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            objects += 1
            stack.extend(item.values())
        elif isinstance(item, list):
            arrays += 1
            stack.extend(item)
    return objects, arrays

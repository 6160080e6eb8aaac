"""Vulture whitelist: names vulture reports as unused that are used (by a framework, a user or
a protocol). One block per package; each line says why."""

# ruff: noqa
# prism-jsonschema
_.generate_pattern  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
_._expand_refs  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
_.log_errors  # re2.Options field, read by RE2
_.max_mem  # re2.Options field, read by RE2
_.cache_bytes  # public JsonSchemaArgumentValidator API (documented in docs/jsonschema.md)

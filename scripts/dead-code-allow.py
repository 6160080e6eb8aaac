# Vulture whitelist: names vulture reports that are really used (one block a package).
# ruff: noqa
# type: ignore

# prism-coding-tools
_.filename  # OSError.filename set so the error message names the walked path (_fs)

# prism-coding-server
_.sandboxed  # BuiltServer.sandboxed: public field, read by hosts embedding the server

# prism-jsonschema
_.generate_pattern  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
_._expand_refs  # overrides fastjsonschema's CodeGenerator hook (called by the generator)
_.log_errors  # re2.Options field, read by RE2
_.max_mem  # re2.Options field, read by RE2
_.cache_bytes  # public JsonSchemaArgumentValidator API (documented in docs/jsonschema.md)

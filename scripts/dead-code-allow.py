# Vulture whitelist: names vulture reports that are really used (one block a package).
# ruff: noqa
# type: ignore

# prism-coding-tools
_.filename  # OSError.filename set so the error message names the walked path (_fs)

# prism-coding-server
_.sandboxed  # BuiltServer.sandboxed: public field, read by hosts embedding the server

# Vulture whitelist: names vulture reports that are really used (one block a package).
# ruff: noqa
# type: ignore

# prism-coding-tools
_.filename  # OSError.filename set so the error message names the walked path (_fs)

# prism-coding-server
_.sandboxed  # BuiltServer.sandboxed: public field, read by hosts embedding the server

# prism-coding-security
_.describe  # ApprovalRequest.describe: public, hosts build approval prompts from it
_.filesystem_isolated  # SandboxCapabilities fields: public, read by hosts (and getattr in missing)
_.network_isolated  # SandboxCapabilities field, public
_.process_isolated  # SandboxCapabilities field, public
_.privilege_isolated  # SandboxCapabilities field, public
_.user_namespace  # SandboxCapabilities field, public
_.seccomp_filter  # SandboxCapabilities field, public
_.unix_sockets_blocked  # SandboxCapabilities field, public
_.protected_paths_readonly  # SandboxCapabilities field, public
_.secrets_masked  # SandboxCapabilities field, public

# ruff: noqa: B018, F821
# Vulture whitelist: names vulture reports as unused that are really read (public API, data
# fields users read, Protocol members). One block per package; each line says why.

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

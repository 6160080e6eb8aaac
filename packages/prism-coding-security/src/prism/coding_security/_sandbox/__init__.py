"""The OS sandbox: the ``Sandbox`` seam and its bubblewrap implementation (seccomp, cgroups)."""

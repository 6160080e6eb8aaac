"""The one list of host-executed paths: files the user's machine runs later, outside any sandbox.

A write there plants code that runs the next time the user works (a new shell, ``git commit``,
``cd``, any Python start, opening the editor). The coding policy asks for approval before a
tool or a shell redirection writes there, the sandbox binds existing ones read-only and removes
new ones after the command, and docs/security.md lists each entry with its reason. Git metadata
is kept apart (``_git_pointers`` finds git directories by content).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "HOST_EXECUTED_PATHS",
    "LITERAL_NAMES",
    "VENV_BIN",
    "HostExecutedPath",
    "ends_a_pattern",
    "host_executed",
    "venv_bin",
]


@dataclass(frozen=True, slots=True)
class HostExecutedPath:
    """``pattern``: ``/``-separated component globs matched at any depth below a root."""

    pattern: str
    why: str


_RC = "a shell start-up file: every new shell of the user sources it"
HOST_EXECUTED_PATHS: tuple[HostExecutedPath, ...] = (
    HostExecutedPath(".envrc", "direnv evaluates it when the user enters the directory"),
    HostExecutedPath(".vscode", "VS Code runs tasks.json and executables its settings name"),
    HostExecutedPath(".idea", "JetBrains IDEs run its run configurations and external tools"),
    HostExecutedPath(".devcontainer", "devcontainer.json's initializeCommand runs on the host"),
    HostExecutedPath(".devcontainer.json", "its initializeCommand runs on the host"),
    HostExecutedPath(".mcp.json", "agent clients start the MCP servers it names"),
    HostExecutedPath(".claude", "agent clients run its hooks and commands"),
    HostExecutedPath(".ripgreprc", "ripgrep's --pre option in it runs a program per file"),
    HostExecutedPath(".husky", "husky points git's core.hooksPath here: runs at every commit"),
    HostExecutedPath(".githooks", "the usual core.hooksPath directory: runs at every commit"),
    HostExecutedPath(".git-hooks", "the usual core.hooksPath directory: runs at every commit"),
    HostExecutedPath("lefthook*.y*ml", "lefthook's git hooks run the commands it lists"),
    HostExecutedPath(".lefthook*", "lefthook's configuration and hook scripts"),
    HostExecutedPath(".pre-commit-config.yaml", "pre-commit's git hook runs its local hooks"),
    HostExecutedPath(".overcommit.yml", "overcommit's git hooks run the commands it lists"),
    HostExecutedPath("site-packages/*.pth", "Python runs its import lines at every start"),
    HostExecutedPath("dist-packages/*.pth", "Python runs its import lines at every start"),
    HostExecutedPath("sitecustomize.py", "Python imports it at every start when on sys.path"),
    HostExecutedPath("usercustomize.py", "Python imports it at every start when on sys.path"),
    HostExecutedPath("__pycache__/sitecustomize.*", "its bytecode runs instead of the source"),
    HostExecutedPath("__pycache__/usercustomize.*", "its bytecode runs instead of the source"),
    HostExecutedPath("pyvenv.cfg", "names the interpreter a virtual environment runs"),
    HostExecutedPath("bin/activate*", "the user's shell sources a virtual environment's activate"),
    HostExecutedPath(".venv/bin", "the environment's python, pip and console scripts"),
    HostExecutedPath("venv/bin", "the environment's python, pip and console scripts"),
    HostExecutedPath(".npmrc", "node-options and script-shell in it run code in every npm run"),
    HostExecutedPath(".yarnrc", "yarn-path in it names the program yarn runs"),
    HostExecutedPath(".yarnrc.yml", "yarnPath in it names the program every yarn command runs"),
    HostExecutedPath(".pnpmfile.cjs", "pnpm runs its hooks at every install"),
    HostExecutedPath(".cargo/config", "runner and rustc-wrapper in it run at every cargo build"),
    HostExecutedPath(".cargo/config.toml", "runner and rustc-wrapper run at every cargo build"),
    HostExecutedPath("mise.toml", "mise runs its hooks and tasks when the user enters"),
    HostExecutedPath(".mise.toml", "mise runs its hooks and tasks when the user enters"),
    HostExecutedPath("*.code-workspace", "VS Code runs the tasks and settings of a workspace file"),
    HostExecutedPath(".zed", "Zed runs the tasks it defines"),
    HostExecutedPath(".exrc", "vim and neovim source it when their exrc option is on"),
    HostExecutedPath(".nvimrc", "neovim sources it when its exrc option is on"),
    HostExecutedPath(".nvim.lua", "neovim runs it when its exrc option is on"),
    HostExecutedPath("mise.*.toml", "mise's local and per-environment configs: same hooks"),
    HostExecutedPath(".mise.*.toml", "mise's local and per-environment configs: same hooks"),
    HostExecutedPath(".config/mise", "mise's project config directory: same hooks"),
    HostExecutedPath("mise/config*.toml", "mise's project config location: same hooks"),
    HostExecutedPath(".mise", "mise's project config directory (tasks, config.toml)"),
    HostExecutedPath(".lintstagedrc*", "lint-staged runs its commands from the pre-commit hook"),
    HostExecutedPath("lint-staged.config.*", "lint-staged's JavaScript runs at every commit"),
    HostExecutedPath("commitlint.config.*", "commitlint's JavaScript runs in the commit-msg hook"),
    HostExecutedPath(".commitlintrc*", "commitlint's configuration runs in the commit-msg hook"),
    HostExecutedPath(".huskyrc*", "husky v4 runs the hook commands it lists"),
    HostExecutedPath(".simple-git-hooks*", "simple-git-hooks installs the commands it lists"),
    HostExecutedPath("simple-git-hooks.*", "simple-git-hooks installs the commands it lists"),
    HostExecutedPath("lefthook*.toml", "lefthook's git hooks run the commands it lists"),
    HostExecutedPath("lefthook*.json", "lefthook's git hooks run the commands it lists"),
    HostExecutedPath("bunfig.toml", "bun runs its preload scripts at every bun run/test"),
    HostExecutedPath(".yarn/releases", "the program yarnPath names: runs for every yarn command"),
    HostExecutedPath(".yarn/plugins", "yarn loads its plugins at every yarn command"),
    HostExecutedPath(".yarn/sdks", "editors run the SDK wrappers yarn writes here"),
    HostExecutedPath("node_modules/.bin", "npm test, npm run and npx run the programs here"),
    HostExecutedPath(".pixi/envs/*/bin", "a pixi environment's interpreter and scripts"),
    HostExecutedPath("etc/conda/activate.d", "conda and pixi source these scripts on activation"),
    HostExecutedPath("etc/conda/deactivate.d", "conda and pixi source these on deactivation"),
    HostExecutedPath("rust-toolchain.toml", "rustup: toolchain.path names the cargo/rustc run"),
    HostExecutedPath("rust-toolchain", "rustup: names the toolchain (a path runs that rustc)"),
    HostExecutedPath(".envrc.*", "direnv: sourced by .envrc's source_env_if_exists lines"),
    HostExecutedPath(".bash_aliases", "sourced by Debian's and Ubuntu's default ~/.bashrc"),
    HostExecutedPath(".config/fish", "fish runs config.fish, conf.d and functions at every shell"),
    HostExecutedPath(".local/bin", "first on PATH by default ~/.profile: shadows every program"),
    HostExecutedPath(".config/systemd", "systemd --user starts the units it holds at login"),
    HostExecutedPath(".config/autostart", "the desktop session starts these at login"),
    HostExecutedPath(".config/environment.d", "sets the user session's environment (LD_PRELOAD)"),
    HostExecutedPath(".ipython", "IPython runs its profiles' startup scripts at every start"),
    HostExecutedPath(".config/git", "git's XDG config and attributes: hooks, filters, pagers"),
    HostExecutedPath(".ssh/config", "ssh runs its ProxyCommand, LocalCommand and Match exec"),
    HostExecutedPath(".ssh/rc", "sshd runs it at every login"),
    HostExecutedPath(".ssh/environment", "sshd sets this environment (LD_PRELOAD) at login"),
    HostExecutedPath(".ssh/authorized_keys*", "grants logins (and their command= programs)"),
    HostExecutedPath(".aws/config", "aws runs its credential_process at every call"),
    HostExecutedPath(".kube/config", "kubectl runs its users' exec credential plugins"),
    HostExecutedPath(".docker/config.json", "docker runs the credsStore/credHelpers it names"),
    HostExecutedPath(".bashrc", _RC),
    HostExecutedPath(".bash_profile", _RC),
    HostExecutedPath(".bash_login", _RC),
    HostExecutedPath(".bash_logout", _RC),
    HostExecutedPath(".profile", _RC),
    HostExecutedPath(".zshrc", _RC),
    HostExecutedPath(".zshenv", _RC),
    HostExecutedPath(".zprofile", _RC),
    HostExecutedPath(".zlogin", _RC),
    HostExecutedPath(".zlogout", _RC),
)
"""Protected at any depth below a root (compared casefolded), beside git metadata."""


_PATTERNS = tuple(
    (entry, tuple(entry.pattern.casefold().split("/"))) for entry in HOST_EXECUTED_PATHS
)
LITERAL_NAMES: frozenset[str] = frozenset(
    parts[0] for _, parts in _PATTERNS if len(parts) == 1 and not any(c in parts[0] for c in "*?[")
)
"""The list's single-component literal names (a walk compares entry names with these)."""
_BY_NAME = {parts[0]: entry for entry, parts in _PATTERNS if parts[0] in LITERAL_NAMES}
_GLOBS = tuple(
    (entry, tuple(re.compile(fnmatch.translate(p)) for p in parts))
    for entry, parts in _PATTERNS
    if parts[0] not in LITERAL_NAMES or len(parts) > 1
)
_LAST = re.compile("|".join(compiled[-1].pattern for _, compiled in _GLOBS))


@functools.lru_cache(maxsize=4096)
def _kind(part: str) -> HostExecutedPath | bool | None:
    """The entry a literal name stands for, ``True`` when a glob entry may end here, else
    ``None`` (memoised: path components repeat, and path checks are hot)."""
    found = _BY_NAME.get(part)
    if found is not None:
        return found
    return True if _LAST.match(part) is not None else None


VENV_BIN = HostExecutedPath(
    "<venv>/bin", "a virtual environment's (a directory holding pyvenv.cfg) python and scripts"
)
"""Found by content, whatever the environment's name: ``bin``/``Scripts`` beside ``pyvenv.cfg``."""
_BIN_NAMES = frozenset({"bin", "scripts"})


def venv_bin(base: str, parts: Sequence[str]) -> int | None:
    """How many components of ``parts`` (relative to ``base``) name a virtual environment's
    ``bin`` or ``Scripts`` directory (the path is it or lies below it), else ``None``."""
    for index, part in enumerate(parts):
        if part.casefold() in _BIN_NAMES:
            config = os.path.join(base, *parts[:index], "pyvenv.cfg")
            if os.path.isfile(config):
                return index + 1
    return None


def ends_a_pattern(folded_name: str) -> bool:
    """Whether a multi-component or glob entry may end at an entry named ``folded_name``."""
    return _LAST.match(folded_name) is not None


def host_executed(folded: Sequence[str]) -> tuple[int, HostExecutedPath] | None:
    """``(n, entry)`` when the first ``n`` components of the casefolded relative path ``folded``
    name a host-executed ``entry`` (the path is that entry or lies below it), else ``None``."""
    for index, part in enumerate(folded):
        kind = _kind(part)
        if kind is None:
            continue
        if isinstance(kind, HostExecutedPath):
            return index + 1, kind
        for entry, compiled in _GLOBS:
            start = index + 1 - len(compiled)
            if start >= 0 and all(c.match(folded[start + k]) for k, c in enumerate(compiled)):
                return index + 1, entry
    return None

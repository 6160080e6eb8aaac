"""What an approved command runs, by content: digests of the files its words name.

The session approval cache keys a shell command on these digests too, so ``bash run.sh``
approved once is asked again after ``run.sh`` is rewritten. Words are split like the shell
(quotes removed); each word (or the value of ``--opt=value``) that names an existing regular
file, relative to the command's directory, is hashed.

Only what is resolved is cached (None: never cached, asked every time): one simple command (no
``;`` ``&&`` ``|`` ``(`` redirection, so no ``cd`` first), no leading ``VAR=value``, no
wrapper that runs another program, no runner that finds code itself (``make``, ``npm``,
``pytest`` … read Makefiles, package scripts, conftest files), and an interpreter only as
``INTERPRETER SCRIPT …`` with the script a named file (not ``-c``, ``-m``, ``-e``). Nor a
command whose files cannot be known (an expansion ``$`` `` ` `` ``*`` ``?`` ``[`` ``{`` ``~``,
text the splitter rejects, too many or too large files).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat

__all__ = ["MAX_DIGEST_BYTES", "MAX_DIGEST_FILES", "script_digests"]

MAX_DIGEST_FILES = 32
MAX_DIGEST_BYTES = 16 * 1024 * 1024
"""All named files together; more makes the command uncacheable (the hash stays cheap)."""
_EXPANSIONS = frozenset("$`*?[{~")
_OPERATORS = frozenset("();<>|&")


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_INTERPRETERS = _names(
    "bash sh dash zsh ksh mksh fish python python3 python2 pypy pypy3 node nodejs deno bun "
    "ruby perl php lua luajit Rscript tclsh"
)
_UNRESOLVED = _names(
    # runners that find the code they run themselves
    "make gmake just npm npx yarn pnpm pnpx pytest py.test tox nox cargo go gradle gradlew mvn "
    "rake bundle uv uvx poetry pip pip3 pipx hatch pdm invoke ant sbt dotnet composer "
    # wrappers that run another program
    "env timeout nice nohup exec command builtin sudo doas xargs time stdbuf ionice setsid "
    "strace ltrace chrt taskset unbuffer chronic caffeinate flock watch parallel find eval "
    "source ."
)


class _Uncacheable(Exception):
    pass


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        words = list(lexer)
    except ValueError as error:
        raise _Uncacheable from error
    if any(ch in _EXPANSIONS for word in words for ch in word):
        raise _Uncacheable
    if not words or any(set(word) <= _OPERATORS for word in words):
        raise _Uncacheable  # a list, pipeline, subshell or redirection: not one resolved program
    return words


def _resolved(words: list[str], cwd: str) -> None:
    """Raise unless what ``words`` runs is all named: see the module docstring."""
    program = os.path.basename(words[0])
    if "=" in words[0] or program in _UNRESOLVED:
        raise _Uncacheable
    interpreter = re.sub(r"[0-9.]+$", "", program) if program.startswith("python") else program
    if interpreter in _INTERPRETERS:
        script = words[1] if len(words) > 1 else "-"
        if script.startswith("-") or not os.path.isfile(os.path.join(cwd, script)):
            raise _Uncacheable  # `-c CODE`, `-m MODULE`, `-e CODE`, standard input


def _digest(path: str, budget: list[int]) -> str | None:
    """sha256 of a regular file (None: not one); raises when it cannot be read in ``budget``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        budget[0] -= info.st_size
        if budget[0] < 0:
            raise _Uncacheable
        digest = hashlib.sha256()
        left = info.st_size + 1  # one byte more: a file growing while hashed is not cached
        with os.fdopen(fd, "rb", closefd=False) as handle:
            while left > 0 and (chunk := handle.read(min(left, 1 << 20))):
                digest.update(chunk)
                left -= len(chunk)
        if left <= 0:
            raise _Uncacheable
        return digest.hexdigest()
    finally:
        os.close(fd)


def _candidates(words: list[str]) -> list[str]:
    names = [w.split("=", 1)[1] if w.startswith("-") and "=" in w else w for w in words]
    return [n for n in names if n and n not in (".", "..")]


def script_digests(command: str, cwd: str | None) -> tuple[tuple[str, str], ...] | None:
    """(path, sha256) for every existing regular file ``command`` names; None: uncacheable."""
    if cwd is None or not os.path.isabs(cwd):
        return None
    try:
        words = _words(command)
        _resolved(words, cwd)
        found: dict[str, str] = {}
        budget = [MAX_DIGEST_BYTES]
        for name in _candidates(words):
            path = os.path.join(cwd, name)
            if path in found:
                continue
            digest = _digest(path, budget)
            if digest is not None:
                found[path] = digest
                if len(found) > MAX_DIGEST_FILES:
                    return None
        return tuple(sorted(found.items()))
    except _Uncacheable:
        return None

"""What an approved command runs, by content: digests of the files its words name.

The session approval cache keys a shell command on these digests too, so ``bash run.sh``
approved once is asked again after ``run.sh`` is rewritten. Words are split like the shell
(quotes removed); each word (or the value of ``--opt=value``) that names an existing regular
file, relative to the command's directory, is hashed; so are the files a runner reads
implicitly (``make`` → ``Makefile``, ``npm``/``yarn``/``pnpm`` → ``package.json``).
A command whose files cannot be known this way (an expansion ``$`` `` ` `` ``*`` ``?`` ``[``
``{`` ``~``, text the splitter rejects, too many or too large files) is never cached.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat

__all__ = ["MAX_DIGEST_BYTES", "MAX_DIGEST_FILES", "script_digests"]

MAX_DIGEST_FILES = 32
MAX_DIGEST_BYTES = 16 * 1024 * 1024
"""Per file; a larger named file makes the command uncacheable."""
_EXPANSIONS = frozenset("$`*?[{~")
_IMPLICIT = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "npm": ("package.json",),
    "yarn": ("package.json",),
    "pnpm": ("package.json",),
    "just": ("justfile", "Justfile", ".justfile"),
}


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
    return words


def _digest(path: str) -> str | None:
    """sha256 of a regular file (None: not one); raises when it cannot be read in bounds."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > MAX_DIGEST_BYTES:
            raise _Uncacheable
        digest = hashlib.sha256()
        with os.fdopen(fd, "rb", closefd=False) as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def _candidates(words: list[str]) -> list[str]:
    names = [w.split("=", 1)[1] if w.startswith("-") and "=" in w else w for w in words]
    first = os.path.basename(words[0]) if words else ""
    return [n for n in names if n and n not in (".", "..")] + list(_IMPLICIT.get(first, ()))


def script_digests(command: str, cwd: str | None) -> tuple[tuple[str, str], ...] | None:
    """(path, sha256) for every existing regular file ``command`` names; None: uncacheable."""
    try:
        words = _words(command)
        found: dict[str, str] = {}
        for name in _candidates(words):
            path = os.path.join(cwd or "", name)
            if path in found or not os.path.isabs(path):
                continue
            digest = _digest(path)
            if digest is not None:
                found[path] = digest
                if len(found) > MAX_DIGEST_FILES:
                    return None
        return tuple(sorted(found.items()))
    except _Uncacheable:
        return None

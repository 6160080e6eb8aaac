"""Check write targets and read operands of extracted commands against the workspace roots.

Writes are checked in execution order, remembering symlinks the same command line creates
(``ln -s /etc/passwd p && echo x >> p`` writes ``/etc/passwd``). A ``removal`` (``rm``,
``mv`` source) of a symlink removes the link itself, so its parent directory is what counts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .._paths import DEFAULT_PROTECTED, check_path
from .._protected import ProtectedPaths
from ._operands import (
    absolute,
    critical,
    device_write,
    expand,
    glob_reaches_dots,
    is_secret,
    persistence_target,
    socket_path,
)
from ._words import Arg
from ._writes import Target

__all__ = ["PathChecker", "Unverified"]


class Unverified(Exception):
    """A path whose value is unknown (the command needs approval, it cannot be denied)."""


def _candidates(text: str) -> list[str]:
    """``@file``, ``name=@file``, ``--opt=file`` forms that name a file inside one word."""
    found = [text]
    for marker in ("=@", "=<", "@", "="):
        if marker in text:
            found.append(text.split(marker, 1)[1])
    return [c for c in found if c]


class PathChecker:
    """Containment and classification of paths for one command line."""

    def __init__(
        self,
        roots: Sequence[str],
        home: str | None,
        protected: ProtectedPaths = DEFAULT_PROTECTED,
    ) -> None:
        self.roots = tuple(roots)
        self.home = home
        self.protected = protected
        self.links: dict[str, str] = {}

    def _through_links(self, path: str) -> str:
        for link, target in self.links.items():
            if path == link or path.startswith(link + "/"):
                return target + path[len(link) :]
        return path

    def register_link(self, link: Arg, target: str, symbolic: bool, cwd: str | None) -> str | None:
        """Remember a link the command creates; deny hard links to files outside the roots."""
        link_path = absolute(link.text, cwd)
        if link_path is None:
            return None
        if os.path.isdir(link_path) and not os.path.islink(link_path):
            link_path = os.path.join(link_path, os.path.basename(target.rstrip("/")))
        base = os.path.dirname(link_path) if symbolic else cwd
        target_path = absolute(target, base)
        if target_path is None:
            return None
        self.links[link_path] = self._through_links(target_path)
        if not symbolic and self._outside(target_path, mutating=False):
            return f"hard-links {target_path}, a file outside the workspace, into it"
        return None

    def _outside(self, path: str, *, mutating: bool) -> str | None:
        return check_path(
            path,
            cwd="/",
            roots=self.roots,
            mutating=mutating,
            home=self.home,
            protected=self.protected,
        )

    def listable(self, directory: str) -> bool:
        """Whether the policy may list ``directory`` (a real path) to expand a glob."""
        return self._outside(directory, mutating=False) is None and not is_secret(
            directory, self.home
        )

    def write(self, target: Target, cwd: str | None) -> str | None:
        """A deny reason for writing ``target``; raises ``Unverified`` when it cannot be known."""
        text = target.arg.text
        if socket_path(text):
            return f"opens a network connection through {text} (a reverse-shell pattern)"
        start = absolute(text, cwd)
        if start is None:
            raise Unverified(text)
        if critical(start, self.home):
            return f"is a destructive operation on {start} (a system path or the home directory)"
        matches = expand(target.arg, cwd)
        if matches is None:
            raise Unverified(text)
        for match in matches:
            path = absolute(match, cwd)
            if path is None:
                raise Unverified(text)
            reason = self._write_one(self._through_links(path), match, target.removal)
            if reason is not None:
                return reason
        return None

    def _write_one(self, path: str, written: str, removal: bool) -> str | None:
        device = device_write(path)
        if device == "safe":
            return None
        if device == "device":
            return f"writes to the device or kernel interface {path}"
        persistence = persistence_target(path, self.home)
        if persistence is not None:
            return f"writes {path}, {persistence}"
        if critical(path, self.home):
            return f"is a destructive operation on {path} (a system path or the home directory)"
        if removal and os.path.islink(path) and not written.endswith("/"):
            path = os.path.dirname(path)  # removing a symlink unlinks the link, not its target
        outside = self._outside(path, mutating=False)
        if outside is not None:
            return f"writes outside the workspace: {outside}"
        protected = self._outside(path, mutating=True)
        if protected is not None:
            return f"writes a protected path: {protected}"
        return None

    def secret_outside(self, arg: Arg, cwd: str | None) -> str | None:
        """A deny reason when ``arg`` names a credential file outside the roots."""
        for candidate in _candidates(arg.text):
            path = absolute(candidate, cwd)
            if path is None or socket_path(candidate):
                continue
            matches = expand(Arg(path, arg.glob), cwd) if arg.glob else iter([path])
            for match in matches or ():
                resolved = self._through_links(match)
                if is_secret(resolved, self.home) and self._outside(resolved, mutating=False):
                    return f"reads {resolved}, a credential file outside the workspace"
        return None

    def secret_any(self, arg: Arg, cwd: str | None, *, embedded: bool = True) -> bool:
        """``arg`` names a credential file (inside or outside the roots)."""
        texts = _candidates(arg.text) if embedded else [arg.text]
        for candidate in texts:
            path = absolute(candidate, cwd)
            if path is not None and is_secret(self._through_links(path), self.home):
                return True
        return False

    def read_outside(self, arg: Arg, cwd: str) -> str | None:
        """Containment of a read operand of an allowlisted command (globs expanded)."""
        if arg.glob and glob_reaches_dots(arg.text):
            return f"`{arg.text}` is a glob that can match `.` or `..` (it may reach outside)"
        matches = expand(arg, cwd)
        if matches is None:
            return f"`{arg.text}` matches more files than can be checked"
        for match in matches:
            reason = check_path(
                self._through_links(match) if match.startswith("/") else match,
                cwd=cwd,
                roots=self.roots,
                mutating=False,
            )
            if reason is not None:
                return reason
        return None

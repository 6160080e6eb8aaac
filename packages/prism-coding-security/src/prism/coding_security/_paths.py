"""Path containment: resolve like the kernel would, then compare to canonical roots.

Resolution walks the path one component at a time with ``lstat``/``readlink`` so that symlinks
(dangling ones included) are followed exactly as an ``open(O_CREAT)`` would follow them, loops are
detected, and the part of a path that does not exist yet is appended to the realpath of its nearest
existing ancestor. Checking happens before the tool opens the path: see docs/security.md (TOCTOU).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Sequence

from ._credentials import DEFAULT_DENY_READ, credential_reason
from ._git_pointers import git_metadata_reason
from ._printable import quoted
from ._protected import ProtectedPaths
from ._symlinked import symlink_target_reason

__all__ = [
    "DEFAULT_PROTECTED",
    "canonicalize_roots",
    "check_path",
    "existing_directories",
    "existing_directory",
    "resolve_path",
]

DEFAULT_PROTECTED = ProtectedPaths()

MAX_SYMLINK_HOPS = 40
"""Linux MAXSYMLINKS: more hops than this is treated as a loop (ELOOP)."""
PATH_MAX_BYTES = 4095
NAME_MAX_BYTES = 255

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_MAGIC_LEXICAL = re.compile(
    r"^/proc/[^/]+/(?:task/[^/]+/)?(?:fd|fdinfo|cwd|root|exe|map_files)(?:/|$)"
)


class PathDenied(Exception):
    """Raised inside resolution with a reason a model can act on."""


def show(path: str) -> str:
    """Quote a path for a reason or prompt: control, bidi and other invisible characters escaped."""
    return quoted(path)


def _check_lengths(path: str) -> None:
    encoded = os.fsencode(path)
    if len(encoded) > PATH_MAX_BYTES:
        raise PathDenied(
            f"path is too long ({len(encoded)} bytes, limit {PATH_MAX_BYTES}); use a shorter path"
        )
    for part in encoded.split(b"/"):
        if len(part) > NAME_MAX_BYTES:
            raise PathDenied(
                f"path component of {len(part)} bytes exceeds NAME_MAX ({NAME_MAX_BYTES}); "
                "use a shorter file name"
            )


def _precheck(path: object) -> str:
    if not isinstance(path, str):
        raise PathDenied(f"path must be a string, got {type(path).__name__}")
    if path == "":
        raise PathDenied("path is empty; give a file path inside the workspace")
    if "\x00" in path:
        raise PathDenied(f"path {show(path)} contains a NUL byte")
    if _URI.match(path):
        raise PathDenied(f"path {show(path)} is a URI; give a plain file path")
    if _DRIVE.match(path) or path.startswith("\\\\"):
        raise PathDenied(f"path {show(path)} is a Windows drive or UNC path; give a POSIX path")
    _check_lengths(path)
    return path


def _absolute(path: str, cwd: str, home: str | None) -> str:
    if path == "~" or path.startswith("~/"):
        base = home if home is not None else os.path.expanduser("~")
        if base.startswith("~") or not os.path.isabs(base):
            raise PathDenied(f"path {show(path)} starts with ~ but the home directory is unknown")
        path = base.rstrip("/") + path[1:]
    if os.path.isabs(path):
        return path
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or "\x00" in cwd:
        raise PathDenied(f"working directory {show(str(cwd))} is not an absolute path")
    return cwd.rstrip("/") + "/" + path


def _is_proc_magic(candidate: str) -> bool:
    """A symlink inside a /proc/<pid> directory (fd/N, cwd, root, exe ...) is a magic link."""
    parent = os.path.dirname(candidate)
    return candidate.startswith("/proc/") and parent != "/proc"


def _lstat(candidate: str) -> os.stat_result | None:
    """``lstat`` or ``None`` when the entry (or a parent) does not exist."""
    try:
        return os.lstat(candidate)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise PathDenied(f"symlink loop at {show(candidate)}") from error
        if error.errno == errno.ENAMETOOLONG:
            raise PathDenied(f"path {show(candidate)} is too long") from error
        raise PathDenied(
            f"cannot inspect {show(candidate)} ({os.strerror(error.errno or 0)}); refusing"
        ) from error


def resolve_path(path: str, *, cwd: str, home: str | None = None) -> str:
    """Resolve ``path`` against ``cwd`` following every symlink, as a create-open would.

    Raises ``PathDenied`` for NUL bytes, URIs, over-long names, loops, /proc magic links and
    ``..`` below a component that does not exist.
    """
    absolute = _absolute(_precheck(path), cwd, home)
    if _MAGIC_LEXICAL.match(os.path.normpath(absolute).replace("//", "/", 1)):
        raise PathDenied(f"path {show(path)} goes through a /proc magic link; refusing")
    pending = [part for part in reversed(absolute.split("/")) if part not in ("", ".")]
    current = "/"
    hops = 0
    missing = False
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if missing:
                raise PathDenied(
                    f"path {show(path)} uses '..' below {show(current)}, which does not exist"
                )
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        if missing:
            current = candidate
            continue
        info = _lstat(candidate)
        if info is None:
            missing = True
            current = candidate
        elif stat.S_ISLNK(info.st_mode):
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise PathDenied(f"path {show(path)} has a symlink loop (more than 40 links)")
            if _is_proc_magic(candidate):
                raise PathDenied(f"path {show(path)} goes through a /proc magic link; refusing")
            target = os.readlink(candidate)
            if not target:
                raise PathDenied(f"symlink {show(candidate)} has an empty target")
            _check_lengths(target)
            if target.startswith("/"):
                current = "/"
            pending.extend(p for p in reversed(target.split("/")) if p not in ("", "."))
        else:
            current = candidate
            if pending and not stat.S_ISDIR(info.st_mode):
                missing = True  # below a non-directory nothing exists; `..` is refused
    _check_lengths(current)
    return current


def _within(resolved: str, root: str) -> bool:
    return root == "/" or resolved == root or resolved.startswith(root.rstrip("/") + "/")


def _protected_reason(
    path: str, resolved: str, roots: Sequence[str], protected: ProtectedPaths, home: str | None
) -> str | None:
    lexical = os.path.normpath(path)
    found = (
        protected.reason(resolved, roots)
        or (protected.reason(lexical, roots) if lexical != resolved else None)
        or git_metadata_reason(resolved, tuple(roots), home)
    )
    if found is None:
        return None
    return (
        f"path {show(path)} cannot be modified: {found}; programs such as git run code from "
        "it later"
    )


def _hardlink_reason(path: str, resolved: str) -> str | None:
    try:
        info = os.stat(resolved)
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        return (
            f"path {show(path)} is a hard-linked file ({info.st_nlink} links); writing it would "
            "also change the other links, possibly outside the workspace"
        )
    return None


def check_path(
    path: str,
    *,
    cwd: str,
    roots: Sequence[str],
    mutating: bool,
    home: str | None = None,
    protected: ProtectedPaths = DEFAULT_PROTECTED,
    deny_read: Sequence[str] = DEFAULT_DENY_READ,
    link_targets: bool = False,
) -> str | None:
    """``None`` when ``path`` (relative to ``cwd``) stays inside one of ``roots``, else the reason.

    ``roots`` must already be canonical (see ``canonicalize_roots``). Credential locations
    (``deny_read``, ``~/`` meaning ``home``) are refused even inside a root. ``mutating``
    additionally refuses ``protected`` paths (git metadata and what it points to, host-run files
    …) and hard-linked files; with ``link_targets`` also what a protected symlink points to (a
    walk of the roots, so file tools only). Never raises: a path that cannot be checked is
    refused with the reason.
    """
    if not roots:
        return "no workspace roots are configured; every path is denied"
    try:
        found = _containment_reason(path, cwd, roots, mutating, home, protected, deny_read)
        if found is None and mutating and link_targets:
            resolved = resolve_path(path, cwd=cwd, home=home)
            target = symlink_target_reason(resolved, roots, protected)
            if target is not None:
                return f"path {show(path)} cannot be modified: {target}"
        return found
    except (OSError, ValueError) as error:  # fail closed: unverifiable means refused
        return f"path {path!r} cannot be checked ({error})"


def _containment_reason(
    path: str,
    cwd: str,
    roots: Sequence[str],
    mutating: bool,
    home: str | None,
    protected: ProtectedPaths,
    deny_read: Sequence[str],
) -> str | None:
    try:
        resolved = resolve_path(path, cwd=cwd, home=home)
    except PathDenied as denied:
        return str(denied)
    if not any(_within(resolved, root) for root in roots):
        listed = ", ".join(show(root) for root in roots)
        return (
            f"path {show(path)} resolves to {show(resolved)}, outside the workspace roots "
            f"({listed}); use a path inside a root"
        )
    absolute = _absolute(path, cwd, home)
    secret = credential_reason(absolute, home=home, deny_read=deny_read, resolved=resolved)
    if secret is not None:
        return f"path {show(path)} is denied: {secret} (docs/security.md, credential locations)"
    if mutating:
        return _protected_reason(absolute, resolved, roots, protected, home) or _hardlink_reason(
            path, resolved
        )
    return None


def canonicalize_roots(roots: Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
    """Realpath every root once, at construction; each must be an existing absolute directory."""
    return existing_directories("roots", roots)


def existing_directories(where: str, values: object) -> tuple[str, ...]:
    """Each of ``values`` as its real path, without repeats; the error names the bad one
    (``TypeError`` for a value of the wrong type, ``ValueError`` for a bad path)."""
    if isinstance(values, (str, bytes, os.PathLike)) or not isinstance(values, Iterable):
        raise TypeError(f"{where} must be a sequence of directories, got {values!r:.200}")
    result = (existing_directory(f"{where}[{i}]", value) for i, value in enumerate(values))
    return tuple(dict.fromkeys(result))


def existing_directory(where: str, value: object) -> str:
    """``value``'s real path if it is an existing absolute directory, else ``ValueError``."""
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(text, str) or not text or "\x00" in text:
        error = ValueError if isinstance(text, str) else TypeError
        raise error(f"{where} must be a directory path, got {text!r:.200}")
    if not os.path.isabs(text):
        raise ValueError(f"{where} must be an absolute path, got {text!r}")
    try:
        real = os.path.realpath(text, strict=True)
    except OSError as error:
        raise ValueError(
            f"{where} must be an existing directory, got {text!r} ({error.strerror})"
        ) from error
    if not os.path.isdir(real):
        raise ValueError(f"{where} must be a directory, got {text!r}")
    return real

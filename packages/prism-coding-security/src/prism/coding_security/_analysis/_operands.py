"""Classify command operands: secrets, devices, persistence targets, system paths, containment.

Containment itself is the policy's ``check_path`` (``_paths.py``); this module adds what a shell
command can reach that a file tool cannot: device nodes, ``/dev/tcp`` sockets, cron, sudoers,
shell start-up files, ``authorized_keys``, and globs expanded against the real file system.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
from collections.abc import Iterator

from .._credentials import credential_reason
from ._words import UNKNOWN, Arg, names

__all__ = [
    "MAX_GLOB_MATCHES",
    "absolute",
    "critical",
    "device_write",
    "expand",
    "glob_reaches_dots",
    "is_secret",
    "persistence_target",
    "socket_path",
]

MAX_GLOB_MATCHES = 1000
SAFE_DEVICES = names(
    "/dev/null /dev/zero /dev/full /dev/stdout /dev/stderr /dev/stdin /dev/tty /dev/fd/0 "
    "/dev/fd/1 /dev/fd/2 /proc/self/fd/1 /proc/self/fd/2"
)
_SYSTEM = names(
    "/ /bin /boot /dev /etc /home /lib /lib32 /lib64 /libx32 /opt /proc /root /run /sbin "
    "/srv /sys /usr /var /mnt /media /snap /usr/bin /usr/sbin /usr/lib /usr/lib64 "
    "/usr/local /usr/share /usr/include /var/lib /var/log /var/spool /etc/ssh /tmp"
)
_SECRET_SYSTEM = re.compile(
    r"^(/etc/(g?shadow-?|sudoers(\.d/.*)?|ssh/ssh_host_[^/]*_key|ssl/private/.*|security/opasswd)"
    r"|/root/.*|/proc/[^/]+/environ|/var/run/secrets/.*|/run/secrets/.*)$"
)
_SECRET_NAME = re.compile(
    r"^(\.env(\.(?!example$|sample$|template$|dist$)[^/]+)?|id_(rsa|dsa|ecdsa|ed25519)(_sk)?"
    r"|.*\.(pem|key|p12|pfx|jks|keystore|kdbx)|\.netrc|\.pgpass|\.git-credentials|\.htpasswd"
    r"|credentials(\.json)?|secrets?\.(ya?ml|json|toml))$"
)
_RC_FILES = names(
    ".bashrc .bash_profile .bash_login .bash_logout .profile .zshrc .zprofile .zshenv "
    ".zlogin .kshrc .cshrc .tcshrc .inputrc .xprofile .xinitrc .pam_environment"
)
_PERSISTENCE = re.compile(
    r"^(/etc/(cron[^/]*|sudoers(\.d)?|profile(\.d)?|bash\.bashrc|zsh[^/]*|environment|"
    r"ld\.so\.preload|rc\.local|systemd|init\.d|security|pam\.d|passwd|group|shadow|hosts)(/.*)?"
    r"|/var/spool/cron(/.*)?|/(usr/)?lib/systemd(/.*)?)$"
)


def absolute(text: str, cwd: str | None) -> str | None:
    """Lexically absolute form of ``text`` (None when unknown or relative to an unknown cwd)."""
    if not text or UNKNOWN in text or "\x00" in text:
        return None
    if text.startswith("/"):
        return os.path.normpath(text).replace("//", "/", 1)
    if cwd is None:
        return None
    return os.path.normpath(os.path.join(cwd, text))


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def is_secret(path: str, home: str | None) -> bool:
    """Credential material: keys, tokens, password files, ``.env`` files."""
    candidates = {path, _real(path)}
    for candidate in candidates:
        if _SECRET_SYSTEM.match(candidate):
            return True
        name = os.path.basename(candidate)
        if _SECRET_NAME.match(name) and not name.endswith(".pub"):
            return True
        if home and _under_home_secret(candidate, home, name):
            return True
    return False


def _under_home_secret(candidate: str, home: str, name: str) -> bool:
    """A credential location of the shared list (``_credentials``), public keys aside."""
    if name.endswith(".pub") or name.startswith("known_hosts"):
        return False
    return credential_reason(candidate, home=home, resolved=candidate) is not None


def socket_path(text: str) -> bool:
    """``/dev/tcp/host/port`` and ``/dev/udp/…``: bash opens a network socket."""
    normalized = os.path.normpath(text) if text.startswith("/") else text
    return normalized.startswith(("/dev/tcp/", "/dev/udp/"))


def device_write(path: str) -> str | None:
    """'safe' for /dev/null-like sinks, 'device' for other device nodes, else None."""
    real = _real(path)
    if path in SAFE_DEVICES or real in SAFE_DEVICES or real.startswith("/dev/pts/"):
        return "safe"
    if path.startswith(("/dev/", "/sys/", "/proc/")) or real.startswith(
        ("/dev/", "/sys/", "/proc/")
    ):
        return "device"
    return None


def persistence_target(path: str, home: str | None) -> str | None:
    """Why writing ``path`` plants code or grants access later (cron, sudoers, rc files …)."""
    for candidate in {path, _real(path)}:
        name = os.path.basename(candidate)
        if name in ("authorized_keys", "authorized_keys2") or "/.ssh/" in candidate + "/":
            return "SSH keys or configuration (persistent remote access)"
        if _PERSISTENCE.match(candidate):
            return "system configuration (cron, sudoers, shell profiles, accounts or services)"
        if home and os.path.dirname(candidate) == home.rstrip("/") and name in _RC_FILES:
            return "a shell start-up file (runs code in every later shell)"
        if home and candidate.startswith(home.rstrip("/") + "/.config/autostart"):
            return "a desktop autostart entry"
    return None


def critical(path: str, home: str | None) -> bool:
    """``/``, the home directory, a top-level system directory, or a glob directly inside one."""
    bare = path.rstrip("/") or "/"
    if bare in _SYSTEM or (home and bare == home.rstrip("/")):
        return True
    parent, name = os.path.split(bare)
    return any(ch in name for ch in "*?[") and (
        parent in _SYSTEM or parent == (home or "").rstrip("/")
    )


def glob_reaches_dots(text: str) -> bool:
    """A glob component that can match ``.`` or ``..`` in some shell (dash, older bash, ksh).

    Shells never let a leading ``*`` or ``?`` match the leading dot, but ``.?``, ``.*`` or
    ``[.]?`` match ``..`` in dash and in bash before 5.2 (``globskipdots``); Python's glob
    never lists ``.``/``..``, so such a word cannot be expanded faithfully here.
    """
    for part in text.split("/"):
        if not any(ch in part for ch in "*?[") or part.startswith(("*", "?")):
            continue
        if fnmatch.fnmatchcase(".", part) or fnmatch.fnmatchcase("..", part):
            return True
    return False


def expand(arg: Arg, cwd: str | None) -> Iterator[str] | None:
    """The paths a glob word names (itself included); None when there are too many or the
    glob can reach ``.``/``..`` (``glob_reaches_dots``)."""
    if not arg.glob:
        return iter([arg.text])
    if glob_reaches_dots(arg.text):
        return None
    base = cwd if cwd is not None else "/"
    matches = [arg.text]
    try:
        for count, match in enumerate(glob.iglob(arg.text, root_dir=base)):
            if count >= MAX_GLOB_MATCHES:
                return None
            matches.append(match)
    except (OSError, ValueError, re.error):
        return iter(matches)
    return iter(matches)

"""The one list of credential locations: masked in the sandbox, refused to the read tool.

Each entry names where a tool keeps a secret that lets its holder act as the user (push code,
publish packages, reach a cloud account) and why. The sandbox masks every entry
(``DEFAULT_DENY_READ``), the coding policy refuses reads of them (``credential_reason``) and
the shell analysis treats them as secrets. Anchors: the credential files of Claude Code's sandbox
runtime and the files secret scanners' benchmarks plant (leaky-repo). See docs/security.md.
"""

from __future__ import annotations

import functools
import os
import pwd
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CREDENTIAL_LOCATIONS",
    "DEFAULT_DENY_READ",
    "CredentialLocation",
    "credential_reason",
    "host_homes",
]


@dataclass(frozen=True, slots=True)
class CredentialLocation:
    """A path (``~/`` is every home of the host user; globs allowed) and what it holds."""

    path: str
    holds: str


CREDENTIAL_LOCATIONS: tuple[CredentialLocation, ...] = (
    CredentialLocation("~/.ssh", "SSH private keys and agent configuration"),
    CredentialLocation("~/.gnupg", "GPG private keys (signing, pass, sops)"),
    CredentialLocation("~/.aws", "AWS access keys and SSO session tokens"),
    CredentialLocation("~/.config/gcloud", "Google Cloud OAuth tokens and service-account keys"),
    CredentialLocation("~/.azure", "Azure CLI access and refresh tokens"),
    CredentialLocation("~/.kube", "Kubernetes cluster credentials (kubeconfig)"),
    CredentialLocation("~/.docker/config.json", "container registry passwords"),
    CredentialLocation("~/.netrc", "login and password per host (curl, git, pip, ftp)"),
    CredentialLocation("~/.git-credentials", "git's stored HTTPS passwords and tokens"),
    CredentialLocation("~/.config/git/credentials", "git's stored HTTPS tokens (XDG location)"),
    CredentialLocation("~/.config/gh/hosts.yml", "GitHub CLI OAuth token"),
    CredentialLocation("~/.config/hub", "hub's GitHub token"),
    CredentialLocation("~/.config/glab-cli", "GitLab CLI token"),
    CredentialLocation("~/.npmrc", "npm registry auth tokens (publish rights)"),
    CredentialLocation("~/.pypirc", "PyPI upload passwords and API tokens"),
    CredentialLocation("~/.cargo/credentials.toml", "crates.io publish token"),
    CredentialLocation("~/.cargo/credentials", "crates.io publish token (old name)"),
    CredentialLocation("~/.gem/credentials", "RubyGems API key"),
    CredentialLocation("~/.composer/auth.json", "Composer registry tokens"),
    CredentialLocation("~/.vault-token", "HashiCorp Vault token"),
    CredentialLocation("~/.terraform.d/credentials.tfrc.json", "Terraform Cloud API tokens"),
    CredentialLocation("~/.config/doctl", "DigitalOcean API token"),
    CredentialLocation("~/.config/heroku", "Heroku API token"),
    CredentialLocation("~/.netlify", "Netlify access token"),
    CredentialLocation("~/.fly", "Fly.io access token"),
    CredentialLocation("~/.s3cfg", "s3cmd access keys"),
    CredentialLocation("~/.pgpass", "PostgreSQL passwords"),
    CredentialLocation("~/.my.cnf", "MySQL client password"),
    CredentialLocation("~/.password-store", "pass password store"),
    CredentialLocation("~/.local/share/keyrings", "GNOME keyring (saved passwords)"),
    CredentialLocation("~/.oci", "Oracle Cloud API signing keys"),
    CredentialLocation("~/.boto", "gsutil and boto cloud credentials"),
    CredentialLocation("~/.databrickscfg", "Databricks access tokens"),
    CredentialLocation("~/.config/rclone/rclone.conf", "credentials of every rclone remote"),
    CredentialLocation("~/.config/op", "1Password CLI account and session data"),
    CredentialLocation("~/.config/sops/age/keys.txt", "age keys that decrypt sops secrets"),
    CredentialLocation("~/.circleci/cli.yml", "CircleCI API token"),
    CredentialLocation("~/.config/ngrok", "ngrok auth token"),
    CredentialLocation("~/.huggingface/token", "Hugging Face access token"),
    CredentialLocation("~/.cache/huggingface/token", "Hugging Face access token (new location)"),
    CredentialLocation("~/.claude/.credentials.json", "Claude Code OAuth credentials"),
    CredentialLocation("~/.codex/auth.json", "Codex CLI credentials"),
    CredentialLocation("~/.gitcookies", "git HTTP cookies (Gerrit, Google source hosting)"),
    CredentialLocation("~/.subversion/auth", "Subversion stored passwords"),
    CredentialLocation("~/.minikube", "client keys of minikube clusters"),
    CredentialLocation("~/.terraformrc", "Terraform CLI credentials blocks"),
    CredentialLocation("~/.mozilla", "Firefox saved logins and session cookies"),
    CredentialLocation("~/.config/google-chrome", "Chrome saved logins and session cookies"),
    CredentialLocation("~/.config/chromium", "Chromium saved logins and session cookies"),
    CredentialLocation("/etc/shadow", "password hashes of every local account"),
    CredentialLocation("/etc/gshadow", "group password hashes"),
    CredentialLocation("/etc/ssl/private", "TLS private keys of the host"),
    CredentialLocation("/etc/ssh/ssh_host_*_key", "SSH host private keys"),
    CredentialLocation("/run/secrets", "secrets a container runtime mounted for this machine"),
    CredentialLocation("/var/run/secrets", "service-account tokens Kubernetes mounted here"),
)
"""Masked by default in the sandbox and refused to the read tool and to read checks."""

DEFAULT_DENY_READ: tuple[str, ...] = tuple(entry.path for entry in CREDENTIAL_LOCATIONS)
"""The paths of ``CREDENTIAL_LOCATIONS`` (``BubblewrapSandbox.deny_read``'s default)."""


@functools.lru_cache(maxsize=1)
def _database_home() -> str | None:
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return None


def host_homes(home: str | None = None) -> tuple[str, ...]:
    """``home`` (else ``$HOME``) and the password-database home of this user, without repeats."""
    return _homes(home if home is not None else os.environ.get("HOME", ""))


@functools.lru_cache(maxsize=16)
def _homes(first: str) -> tuple[str, ...]:
    homes = (first, _database_home())
    return tuple(dict.fromkeys(h.rstrip("/") or "/" for h in homes if h and os.path.isabs(h)))


def _regex(pattern: str) -> str:
    """``*`` and ``?`` match within one component; everything else is literal."""
    text = pattern.rstrip("/") or "/"
    parts = (re.escape(ch) if ch not in "*?" else ("[^/]*" if ch == "*" else "[^/]") for ch in text)
    return "".join(parts)


@functools.lru_cache(maxsize=32)
def _matcher(deny_read: tuple[str, ...], homes: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for every pattern (``~/`` expanded over ``homes``): path equal or below."""
    expanded: list[str] = []
    for pattern in deny_read:
        if pattern == "~" or pattern.startswith("~/"):
            expanded += [home.rstrip("/") + pattern[1:] for home in homes]
        else:
            expanded.append(pattern)
    if not expanded:
        return None
    return re.compile("(" + "|".join(_regex(p) for p in expanded) + ")(?:/|$)")


_LAST_MATCHER: list[tuple[Sequence[str], tuple[str, ...], re.Pattern[str] | None]] = []


def _cached_matcher(deny_read: Sequence[str], homes: tuple[str, ...]) -> re.Pattern[str] | None:
    """``_matcher`` with a one-entry memo on the list object itself (path checks are hot)."""
    if _LAST_MATCHER:
        last, last_homes, matcher = _LAST_MATCHER[0]
        if last is deny_read and last_homes == homes:
            return matcher
    matcher = _matcher(tuple(deny_read), homes)
    _LAST_MATCHER[:] = [(deny_read, homes, matcher)]
    return matcher


def credential_reason(
    path: str,
    *,
    home: str | None,
    deny_read: Sequence[str] = DEFAULT_DENY_READ,
    resolved: str | None = None,
) -> str | None:
    """Why reading the absolute ``path`` is refused (a credential location), or ``None``.

    ``path`` is checked as given and as its real path (``resolved``, computed when not given),
    so a symlink into ``~/.ssh`` counts.
    """
    matcher = _cached_matcher(deny_read, host_homes(home))
    if matcher is None:
        return None
    if resolved is None:
        try:
            resolved = os.path.realpath(path)
        except (OSError, ValueError):
            resolved = path
    for candidate in (resolved, os.path.normpath(path)):
        found = matcher.match(candidate)
        if found is not None:
            return f"it holds credentials ({found.group(1)}); reading it is denied"
    return None

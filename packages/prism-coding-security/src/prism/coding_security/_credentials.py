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
    "expand_location",
    "host_homes",
    "tracked_location",
    "xdg_config_home",
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
    CredentialLocation("~/.gemini/oauth_creds.json", "Gemini CLI OAuth credentials"),
    CredentialLocation("~/.config/github-copilot", "GitHub Copilot OAuth tokens"),
    CredentialLocation("~/.pulumi/credentials.json", "Pulumi Cloud access tokens"),
    CredentialLocation(
        "~/.config/containers/auth.json", "podman/buildah/skopeo registry passwords"
    ),
    CredentialLocation("~/.wrangler", "Cloudflare wrangler OAuth tokens"),
    CredentialLocation("~/.config/.wrangler", "Cloudflare wrangler OAuth tokens (XDG location)"),
    CredentialLocation("~/.config/configstore/firebase-tools.json", "Firebase CLI OAuth tokens"),
    CredentialLocation("~/.sentryclirc", "Sentry CLI auth token"),
    CredentialLocation("~/.config/stripe", "Stripe CLI API keys"),
    CredentialLocation("~/.config/hcloud", "Hetzner Cloud API tokens"),
    CredentialLocation("~/.ngrok2", "ngrok auth token (v2 location)"),
    CredentialLocation("~/.config/helm", "Helm repository passwords and registry logins"),
    CredentialLocation("~/.bash_history", "commands the user typed, tokens in `export` lines"),
    CredentialLocation("~/.zsh_history", "commands the user typed, tokens in `export` lines"),
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


def xdg_config_home() -> str | None:
    """``$XDG_CONFIG_HOME`` when set to an absolute path (gh, glab, rclone, git follow it)."""
    value = os.environ.get("XDG_CONFIG_HOME", "")
    return value.rstrip("/") or None if os.path.isabs(value) else None


def expand_location(pattern: str, homes: Sequence[str], xdg: str | None) -> list[str]:
    """``pattern`` with ``~/`` expanded over ``homes``; ``~/.config/`` also below ``xdg``."""
    if pattern != "~" and not pattern.startswith("~/"):
        return [pattern]
    found = [home.rstrip("/") + pattern[1:] for home in homes]
    if xdg is not None and pattern.startswith("~/.config/"):
        found.append(xdg + pattern[len("~/.config") :])
    return found


@functools.lru_cache(maxsize=32)
def _expanded(
    deny_read: tuple[str, ...], homes: tuple[str, ...], xdg: str | None
) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """The literal expanded paths, and one regex for every pattern: path equal or below."""
    expanded = [path for pattern in deny_read for path in expand_location(pattern, homes, xdg)]
    literal = tuple(p for p in expanded if not any(c in p for c in "*?"))
    if not expanded:
        return literal, None
    return literal, re.compile("(" + "|".join(_regex(p) for p in expanded) + ")(?:/|$)")


def _symlinked(literal: Sequence[str]) -> re.Pattern[str] | None:
    """Where credential locations that are (or lie below) symlinks really are: a dotfiles
    farm (``~/.npmrc -> dotfiles/npm/.npmrc``) keeps the secret at the target."""
    targets: list[str] = []
    for path in literal:
        if os.path.lexists(path):
            try:
                real = os.path.realpath(path)
            except (OSError, ValueError):
                continue
            if real != path and real != "/":
                targets.append(real)
    if not targets:
        return None
    return re.compile("(" + "|".join(re.escape(t) for t in targets) + ")(?:/|$)")


_LAST_MATCHER: list[
    tuple[
        Sequence[str], tuple[str, ...], str | None, tuple[tuple[str, ...], re.Pattern[str] | None]
    ]
] = []


def _cached_matcher(
    deny_read: Sequence[str], homes: tuple[str, ...], xdg: str | None
) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """``_expanded`` with a one-entry memo on the list object itself (path checks are hot)."""
    if _LAST_MATCHER:
        last, last_homes, last_xdg, found = _LAST_MATCHER[0]
        if last is deny_read and last_homes == homes and last_xdg == xdg:
            return found
    found = _expanded(tuple(deny_read), homes, xdg)
    _LAST_MATCHER[:] = [(deny_read, homes, xdg, found)]
    return found


def tracked_location(
    roots: Sequence[str], *, home: str | None, deny_read: Sequence[str] = DEFAULT_DENY_READ
) -> tuple[str, str] | None:
    """``(repository, credential)`` when an existing credential location below a root lies in
    the work tree of a git repository below that root (``git init ~``): git's object store then
    holds what the mask hides, and ``git show HEAD:.npmrc`` prints it."""
    literal, _ = _cached_matcher(deny_read, host_homes(home), xdg_config_home())
    for root in (r for r in roots if r != "/"):
        prefix = root.rstrip("/") + "/"
        for location in (p for p in literal if p.startswith(prefix) and os.path.lexists(p)):
            parent = os.path.dirname(location)
            while parent.startswith(prefix) or parent == root:
                if os.path.lexists(os.path.join(parent, ".git")):
                    return parent, location
                parent = os.path.dirname(parent)
    return None


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
    literal, matcher = _cached_matcher(deny_read, host_homes(home), xdg_config_home())
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
    linked = _symlinked(literal)
    found = linked.match(resolved) if linked is not None else None
    if found is not None:
        return f"it holds credentials ({found.group(1)}, a credential location's symlink target)"
    return None

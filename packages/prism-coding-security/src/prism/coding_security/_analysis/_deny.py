"""The default deny set for a single program: escalation, disks, power, kernel, reverse shells.

Each check reads the resolved program name (basename, NFKC, case-folded) and its arguments in
any spelling, so ``/usr/bin/../bin/sudo``, ``"su"`` and ``$'\\x73\\x75'`` are all ``su``.
"""

from __future__ import annotations

import re

from ._operands import critical
from ._unwrap import Invocation
from ._words import names

__all__ = [
    "DECODERS",
    "DOWNLOADERS",
    "NETWORK",
    "invocation_denials",
]

PRIVILEGE = names(
    "sudo su doas pkexec run0 sudoedit nsenter chroot setcap newgrp sg runuser capsh machinectl"
)
ACCOUNTS = names(
    "passwd chpasswd usermod useradd userdel groupadd groupdel groupmod visudo adduser "
    "deluser chsh chfn setenforce iptables ip6tables nft ufw firewall-cmd"
)
DISK = names(
    "mke2fs mkswap fdisk sfdisk cfdisk gdisk sgdisk parted wipefs blkdiscard mount umount "
    "swapon swapoff losetup cryptsetup dmsetup hdparm badblocks partprobe"
)
POWER = names("shutdown reboot halt poweroff telinit kexec")
_POWER_UNITS = names(
    "poweroff reboot halt kexec rescue emergency isolate suspend hibernate hybrid-sleep default"
)
KERNEL = names("insmod rmmod modprobe")
NETWORK = names(
    "curl wget nc ncat netcat socat telnet ssh scp sftp rsync ftp tftp dig nslookup host "
    "drill ping ping6 traceroute whois http https xh aria2c openssl sendmail mail mailx "
    "mutt"
)
DOWNLOADERS = names(
    "curl wget fetch aria2c lwp-download lwp-request get http https xh nc ncat netcat socat "
    "telnet ftp tftp scp sftp ssh"
)
DECODERS = names(
    "base64 base32 basenc xxd uudecode openssl rev tr gunzip zcat gzip bzcat bunzip2 xzcat "
    "unxz zstdcat zstd printf"
)
_CONTAINERS = names("docker podman nerdctl")
_GIT_CONFIG_READ = names(
    "--get --get-all --get-regexp --get-urlmatch --list -l --show-origin --show-scope "
    "--name-only --get-color --get-colorbool get list"
)


def _kill(args: list[str]) -> str | None:
    index = 0
    if args[:1] and args[0] in ("-s", "-n", "--signal"):
        index = 2
    elif args[:1] and args[0].startswith("-") and args[0] not in ("--", "-l", "-L"):
        index = 1
    pids = [a for a in args[index:] if a != "--"]
    if "-1" in pids:
        return "signals every process the user can reach (`kill -1`)"
    if "1" in pids:
        return "signals PID 1 (init)"
    return None


def _container(args: list[str], home: str | None) -> str | None:
    if not any(a in ("run", "create", "exec") for a in args):
        return None
    for index, text in enumerate(args):
        name, eq, value = text.partition("=")
        value = value if eq else (args[index + 1] if index + 1 < len(args) else "")
        if name == "--privileged":
            return "starts a privileged container (full access to the host)"
        if name == "--cap-add" or (
            name in ("--pid", "--ipc", "--userns", "--uts") and value == "host"
        ):
            return f"gives a container host privileges ({text})"
        if name == "--security-opt" and "unconfined" in value:
            return "disables container confinement (--security-opt …unconfined)"
        if name == "--device":
            return "passes a host device into a container"
        source = ""
        if name in ("-v", "--volume"):
            source = value.split(":", 1)[0]
        elif text.startswith("-v") and len(text) > 2 and not text.startswith("--"):
            source = text[2:].split(":", 1)[0]
        elif name == "--mount":
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            source = fields.get("source", fields.get("src", ""))
        if source and (source.endswith("docker.sock") or critical(source, home)):
            return f"mounts {source} from the host into a container"
    return None


def _git_config(args: list[str]) -> str | None:
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in ("-C", "-c") else 1
    if index >= len(args) or args[index] != "config":
        return None
    rest = args[index + 1 :]
    if any(a in _GIT_CONFIG_READ for a in rest):
        return None
    operands = [a for a in rest if not a.startswith("-")]
    writes = {
        "--unset",
        "--unset-all",
        "--add",
        "--replace-all",
        "--edit",
        "-e",
        "--rename-section",
        "--remove-section",
        "set",
        "unset",
        "edit",
    }
    if len(operands) >= 2 or any(a in writes for a in rest):
        return (
            "changes git configuration, which can make later git commands run programs "
            "(hooksPath, pager, fsmonitor…)"
        )
    return None


def _network_exec(name: str, args: list[str]) -> str | None:
    if name in ("nc", "ncat", "netcat"):
        for text in args:
            if text in ("--exec", "--sh-exec", "--lua-exec") or text.startswith(
                ("--exec=", "--sh-exec=")
            ):
                return f"attaches a program to a network socket ({name} {text}): a reverse shell"
            if re.fullmatch(r"-[A-Za-z]*[ec][A-Za-z]*", text):
                return f"attaches a program to a network socket ({name} {text}): a reverse shell"
    if name == "socat" and any(re.search(r"(^|[,!])(exec|system):", a, re.I) for a in args):
        return "attaches a program to a socket (socat EXEC:/SYSTEM:): a reverse shell"
    return None


def _without_user(args: list[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for text in args:
        if skip:
            skip = False
        elif text == "-u":
            skip = True
        else:
            kept.append(text)
    return kept


def _system(name: str, args: list[str]) -> str | None:
    if name in DISK or name.startswith("mkfs"):
        return f"formats, partitions or mounts disks (`{name}`)"
    if name in POWER or (name == "init" and args[:1] in (["0"], ["6"])):
        return f"shuts down or reboots the machine (`{name}`)"
    if name == "systemctl" and any(a in _POWER_UNITS for a in args):
        return "shuts down, reboots or changes the system state (`systemctl`)"
    if name in KERNEL or (name == "sysctl" and any("=" in a or a == "-w" for a in args)):
        return f"changes the running kernel (`{name}`)"
    if name == "killall5":
        return "signals every process on the machine (`killall5`)"
    if name == "crontab" and _without_user(args) != ["-l"]:
        return "installs or removes a crontab (persistence that runs later, outside this session)"
    return None


def invocation_denials(inv: Invocation, home: str | None) -> list[str]:
    """Reasons the default deny set rejects this program invocation (empty when none)."""
    name = inv.name
    args = [a.text for a in inv.args]
    reasons: list[str] = []
    if name in PRIVILEGE:
        reasons.append(f"escalates privileges (`{name}`); run the command as the current user")
    elif name in ACCOUNTS:
        reasons.append(f"changes accounts, security or firewall settings (`{name}`)")
    for reason in (
        _system(name, args),
        _kill(args) if name == "kill" else None,
        _container(args, home) if name in _CONTAINERS else None,
        _git_config(args) if name == "git" else None,
        _network_exec(name, args),
    ):
        if reason is not None:
            reasons.append(reason)
    return reasons

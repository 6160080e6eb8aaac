"""What a command writes, removes, links and reads, per executable (speculative view).

Covers the usual ways a shell command changes files: ``rm cp mv install ln tee touch mkdir
chmod chown truncate shred dd sed -i`` (and ``sed``'s ``w``/``e`` commands), ``find -delete
-fprint``, ``git --output``, ``tar -f/-C``, ``curl -o``, ``wget -O``. Anything else that writes is
simply not allowlisted, so it needs approval.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ._options import ParsedArgs, parse_args
from ._sed import sed_effects
from ._specs import SPECS
from ._unwrap import Invocation
from ._words import Arg, names

__all__ = ["Effects", "Target", "effects"]

_MODE = re.compile(r"^([ugoa]*[-+=][rwxXstugo]*)(,[ugoa]*[-+=][rwxXstugo]*)*$|^[0-7]{1,5}$")
_NO_READ = names(
    "echo printf ls stat which type test [ dirname basename realpath readlink mkdir touch "
    "rm rmdir unlink true false : cd pushd command hash file du df"
)


@dataclass(frozen=True, slots=True)
class Target:
    """A path a command changes; ``removal`` paths are unlinked, not followed."""

    arg: Arg
    removal: bool = False


@dataclass(slots=True)
class Effects:
    writes: list[Target] = field(default_factory=list)
    reads: list[Arg] = field(default_factory=list)
    links: list[tuple[Arg, str, bool]] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)


def _setuid(mode: str) -> bool:
    if mode.isdigit():
        return len(mode) >= 4 and int(mode[-4]) & 6 != 0
    return any(
        "s" in clause.split("+", 1)[-1].split("=", 1)[-1]
        for clause in mode.split(",")
        if "+" in clause or "=" in clause
    )


def _dest_split(parsed: ParsedArgs) -> tuple[list[Arg], list[Arg]]:
    """(sources, destinations) for cp/mv/install/ln-style commands."""
    targets = parsed.values("-t")
    operands = list(parsed.operands)
    if targets:
        return operands, targets
    if len(operands) >= 2:
        return operands[:-1], operands[-1:]
    return operands, []


def _removers(inv: Invocation, out: Effects) -> None:
    parsed = parse_args(inv.args, SPECS[inv.name])
    if parsed.has("--no-preserve-root"):
        out.deny.append("disables the protection of `/` (--no-preserve-root)")
    removal = inv.name != "shred"
    out.writes.extend(Target(arg, removal) for arg in parsed.operands)


def _plain_writers(inv: Invocation, out: Effects) -> None:
    parsed = parse_args(inv.args, SPECS[inv.name])
    operands = list(parsed.operands)
    if inv.name == "mknod":
        operands = operands[:1]
    if inv.name == "chattr":
        operands = [a for a in operands if not a.text.startswith(("+", "=", "-"))]
    for mode in parsed.values("-m"):
        if _setuid(mode.text):
            out.deny.append(f"sets the setuid/setgid bit (mode {mode.text})")
    out.writes.extend(Target(arg) for arg in operands)
    out.reads.extend(parsed.values("-r") + parsed.values("--reference"))


def _chmod(inv: Invocation, out: Effects) -> None:
    args = list(inv.args)
    mode_index = next(
        (i for i, a in enumerate(args) if _MODE.match(a.text) and a.text != "-"), None
    )
    mode = args.pop(mode_index) if mode_index is not None else None
    parsed = parse_args(args, SPECS["chmod"])
    operands = list(parsed.operands)
    if mode is None and not parsed.has("--reference") and operands:
        mode = operands.pop(0)
    if mode is not None and _setuid(mode.text):
        out.deny.append(f"sets the setuid/setgid bit (mode {mode.text})")
    out.writes.extend(Target(arg) for arg in operands)


def _chown(inv: Invocation, out: Effects) -> None:
    parsed = parse_args(inv.args, SPECS["chown"])
    operands = list(parsed.operands)
    if not parsed.has("--reference") and operands:
        operands = operands[1:]
    out.writes.extend(Target(arg) for arg in operands)


def _copiers(inv: Invocation, out: Effects) -> None:
    parsed = parse_args(inv.args, SPECS[inv.name])
    for mode in parsed.values("-m"):
        if _setuid(mode.text):
            out.deny.append(f"sets the setuid/setgid bit (mode {mode.text})")
    if inv.name == "install" and parsed.has("-d"):
        out.writes.extend(Target(arg) for arg in parsed.operands)
        return
    sources, destinations = _dest_split(parsed)
    out.reads.extend(sources)
    out.writes.extend(Target(arg) for arg in destinations)
    for directory in (d for d in destinations if _into(d, inv.cwd, parsed.has("-t"))):
        # `cp -t DIR x.pth`, `cp x.pth DIR/`: the file written is DIR/x.pth
        out.writes.extend(
            Target(Arg(f"{directory.text.rstrip('/')}/{_base(s.text)}")) for s in sources
        )
    if inv.name == "mv":
        out.writes.extend(Target(arg, removal=True) for arg in sources)


def _ln(inv: Invocation, out: Effects) -> None:
    parsed = parse_args(inv.args, SPECS["ln"])
    symbolic = parsed.has("-s")
    operands = list(parsed.operands)
    directories = parsed.values("-t")
    if directories:
        pairs = [(Arg(f"{directories[0].text}/{_base(t.text)}"), t) for t in operands]
    elif len(operands) >= 2 and _into(operands[-1], inv.cwd, False):
        directory = operands[-1].text.rstrip("/")
        pairs = [(Arg(f"{directory}/{_base(t.text)}"), t) for t in operands[:-1]]
    elif len(operands) >= 2:
        pairs = [(operands[-1], t) for t in operands[:-1]]
    elif operands:
        pairs = [(Arg(_base(operands[0].text)), operands[0])]
    else:
        pairs = []
    for link, target in pairs:
        out.links.append((link, target.text, symbolic))
        out.writes.append(Target(link, removal=True))
        if not symbolic:
            out.reads.append(target)


def _into(destination: Arg, cwd: str | None, target_option: bool) -> bool:
    """Whether a copy writes *into* ``destination`` (``-t``, a trailing ``/``, a directory)."""
    text = destination.text
    if target_option or text.endswith("/"):
        return True
    base = cwd if cwd is not None and text[:1] != "/" else ""
    return bool(text) and os.path.isdir(os.path.join(base, os.path.expanduser(text)))


def _base(text: str) -> str:
    return text.rstrip("/").rsplit("/", 1)[-1] or text


def _tee(inv: Invocation, out: Effects) -> None:
    parsed = parse_args(inv.args, SPECS["tee"])
    out.writes.extend(Target(arg) for arg in parsed.operands)


def _dd(inv: Invocation, out: Effects) -> None:
    for arg in inv.args:
        key, eq, value = arg.text.partition("=")
        if eq and key == "of":
            out.writes.append(Target(Arg(value, arg.glob, arg.subst)))
        elif eq and key == "if":
            out.reads.append(Arg(value, arg.glob, arg.subst))


def _find(inv: Invocation, out: Effects) -> None:
    args = list(inv.args)
    index = 0
    while index < len(args) and args[index].text in ("-H", "-L", "-P", "-D", "-O"):
        index += 2 if args[index].text == "-D" else 1
    starts = []
    while index < len(args) and not args[index].text.startswith(("-", "(", "!", ")", ",")):
        starts.append(args[index])
        index += 1
    texts = [a.text for a in args]
    if "-delete" in texts:
        out.writes.extend(Target(a, removal=True) for a in starts or [Arg(".")])
    for position, text in enumerate(texts[:-1]):
        if text in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            out.writes.append(Target(args[position + 1]))


def _git(inv: Invocation, out: Effects) -> None:
    args = list(inv.args)
    for position, arg in enumerate(args):
        name, eq, value = arg.text.partition("=")
        if name.startswith("--") and len(name) >= 5 and "--output".startswith(name):
            if eq:
                out.writes.append(Target(Arg(value, arg.glob, arg.subst)))
            elif position + 1 < len(args):
                out.writes.append(Target(args[position + 1]))
    plain = [a for a in args if not a.text.startswith("-")]
    if (
        plain
        and plain[0].text in ("clone", "init")
        and len(plain) >= (3 if plain[0].text == "clone" else 2)
    ):
        out.writes.append(Target(plain[-1]))


def _tar(inv: Invocation, out: Effects) -> None:
    args = list(inv.args)
    texts = [a.text for a in args]
    if texts and not texts[0].startswith("-"):
        texts[0] = "-" + texts[0]
    joined = " ".join(texts)
    for danger in (
        "--to-command",
        "--checkpoint-action=exec",
        "--info-script",
        "--new-volume-script",
    ):
        if danger in joined:
            out.deny.append(f"runs a command from tar ({danger})")
    if any(t.startswith("-") and not t.startswith("--") and "F" in t for t in texts):
        out.deny.append("runs a command from tar (-F)")
    creating = any(
        t.startswith("--create") or (t[:1] == "-" and t[1:2] != "-" and "c" in t) for t in texts
    )
    for position, text in enumerate(texts):
        value: Arg | None = None
        if text.startswith(("--file=", "--directory=")):
            value = Arg(text.split("=", 1)[1])
        elif text in ("-C", "--directory", "-f", "--file") or (
            text.startswith("-") and not text.startswith("--") and text[-1] in "fC"
        ):
            value = args[position + 1] if position + 1 < len(args) else None
        if value is None:
            continue
        is_file = text.endswith("f") or text.startswith(("--file", "-f"))
        if (is_file and creating) or (not is_file and not creating):
            out.writes.append(Target(value))


_VALUE_WRITES = {
    "curl": (
        "-o",
        "--output",
        "-D",
        "--dump-header",
        "-c",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--output-dir",
        "--etag-save",
        "--libcurl",
    ),
    "wget": (
        "-O",
        "--output-document",
        "-o",
        "--output-file",
        "-a",
        "--append-output",
        "-P",
        "--directory-prefix",
    ),
    "sort": ("-o", "--output"),
    "time": ("-o", "--output"),
    "strace": ("-o", "--output"),
    "ltrace": ("-o", "--output"),
}


def _value_writers(inv: Invocation, out: Effects) -> None:
    options = _VALUE_WRITES[inv.name]
    args = list(inv.args)
    for position, arg in enumerate(args):
        text = arg.text
        name, eq, value = text.partition("=")
        if eq and name in options and name.startswith("--"):
            out.writes.append(Target(Arg(value, arg.glob, arg.subst)))
        elif text in options and position + 1 < len(args):
            out.writes.append(Target(args[position + 1]))
        elif len(text) > 2 and text[:2] in options and not text.startswith("--"):
            out.writes.append(Target(Arg(text[2:], arg.glob, arg.subst)))


_REMOTE_VALUES = {"rsync": "efTBM", "scp": "cFiJloPSDX"}


def _remote_copy(inv: Invocation, out: Effects) -> None:
    """rsync/scp: the last operand is the destination when it is local (no ``host:``)."""
    args = list(inv.args)
    values = _REMOTE_VALUES[inv.name]
    operands: list[Arg] = []
    index = 0
    while index < len(args):
        text = args[index].text
        if text.startswith("-") and not text.startswith("--") and text[-1] in values:
            index += 2
            continue
        if not text.startswith("-"):
            operands.append(args[index])
        index += 1
    if len(operands) >= 2 and ":" not in operands[-1].text:
        out.writes.append(Target(operands[-1]))
        out.reads.extend(operands[:-1])


def _unzip(inv: Invocation, out: Effects) -> None:
    args = list(inv.args)
    for position, arg in enumerate(args[:-1]):
        if arg.text == "-d":
            out.writes.append(Target(args[position + 1]))


def _sed(inv: Invocation, out: Effects) -> None:
    found = sed_effects(inv.args)
    out.writes.extend(Target(arg) for arg in found.writes)
    out.reads.extend(found.reads)
    out.deny.extend(found.deny)


_HANDLERS = {
    "rm": _removers,
    "rmdir": _removers,
    "unlink": _removers,
    "shred": _removers,
    "truncate": _plain_writers,
    "touch": _plain_writers,
    "mkdir": _plain_writers,
    "mkfifo": _plain_writers,
    "mknod": _plain_writers,
    "chattr": _plain_writers,
    "chmod": _chmod,
    "chown": _chown,
    "chgrp": _chown,
    "cp": _copiers,
    "mv": _copiers,
    "install": _copiers,
    "ln": _ln,
    "tee": _tee,
    "dd": _dd,
    "find": _find,
    "git": _git,
    "tar": _tar,
    "sed": _sed,
    "rsync": _remote_copy,
    "scp": _remote_copy,
    "unzip": _unzip,
}
for _name in _VALUE_WRITES:
    _HANDLERS[_name] = _value_writers


def effects(inv: Invocation) -> Effects:
    """Writes, removals, links, reads and command-specific denials of one invocation."""
    out = Effects()
    handler = _HANDLERS.get(inv.name)
    if handler is not None:
        handler(inv, out)
    if inv.name not in _NO_READ:
        known = {id(a) for a in out.reads}
        out.reads.extend(a for a in inv.args if id(a) not in known)
    return out

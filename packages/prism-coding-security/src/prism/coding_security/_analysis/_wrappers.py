"""Per-wrapper rules: where the wrapped command starts, and which strings are shell code."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from ._options import ParsedArgs, parse_args
from ._specs import SPECS, WRAPPER_SPECS
from ._unwrap import (
    INTERPRETERS,
    MAX_CHAIN,
    SHELLS,
    Invocation,
    Reparse,
    Unwrapped,
    canonical_name,
    interpreter_code,
    shell_mode,
)
from ._words import Arg

__all__ = ["AWKS", "TRANSPARENT", "strict_unwrap", "unwrap"]

AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
TRANSPARENT = frozenset({"command", "builtin", "exec", "time", "timeout", "nice", "stdbuf", "env"})
"""Wrappers that change nothing an allowlisted command could be abused through."""
MAX_INVOCATIONS = 64
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

Inner = list[tuple[tuple[Arg, ...], str | None]]
"""(wrapped argv, its working directory)."""


def _parse(name: str, args: Sequence[Arg]) -> tuple[ParsedArgs, list[Arg]]:
    parsed = parse_args(args, WRAPPER_SPECS[name], stop_at_operand=True)
    return parsed, list(args[parsed.rest :])


def _join(cwd: str | None, path: str) -> str | None:
    if path.startswith("/"):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(cwd, path)) if cwd is not None else None


def _env(inv: Invocation, out: Unwrapped) -> Inner:
    parsed, rest = _parse("env", inv.args)
    while rest and (rest[0].text == "-" or _ASSIGNMENT.match(rest[0].text)):
        rest = rest[1:]
    cwd = inv.cwd
    for value in parsed.values("-C"):
        cwd = _join(cwd, value.text)
    split = [Arg(part, subst=v.subst) for v in parsed.values("-S") for part in v.text.split()]
    return [(tuple(split + rest), cwd)]


def _skip(count: int, name: str) -> Callable[[Invocation, Unwrapped], Inner]:
    def handler(inv: Invocation, out: Unwrapped) -> Inner:
        parsed, rest = _parse(name, inv.args)
        if parsed.has("-p", "-P", "-u") and name in ("ionice", "chrt", "taskset"):
            return []
        return [(tuple(rest[count:]), inv.cwd)]

    return handler


def _command(inv: Invocation, out: Unwrapped) -> Inner:
    parsed, rest = _parse("command", inv.args)
    return [] if parsed.has("-v", "-V") else [(tuple(rest), inv.cwd)]


def _sudo(inv: Invocation, out: Unwrapped) -> Inner:
    parsed, rest = _parse(inv.name if inv.name in WRAPPER_SPECS else "sudo", inv.args)
    while rest and _ASSIGNMENT.match(rest[0].text):
        rest = rest[1:]
    if parsed.has("-e"):
        return []
    for code in parsed.values("-c"):
        out.reparse.append(Reparse(code.text, f"`{inv.name} -c` string", inv.command, code.subst))
    if parsed.has("-s", "-i") and rest:
        text = " ".join(arg.text for arg in rest)
        out.reparse.append(Reparse(text, f"`{inv.name} -s` command", inv.command))
    return [(tuple(rest), inv.cwd)] if inv.name != "su" else []


def _xargs(inv: Invocation, out: Unwrapped, items: list[str] | None) -> Inner:
    parsed = parse_args(inv.args, SPECS["xargs"], stop_at_operand=True)
    rest = list(inv.args[parsed.rest :]) or [Arg("echo")]
    replace = next((v.text for v in parsed.values("-I")), None)
    if parsed.has("-i") and replace is None:
        replace = next((v.text for v in parsed.values("-i")), "{}")
    if items is None:
        return [(tuple(rest), inv.cwd)]
    if replace:
        joined = " ".join(items)
        return [(tuple(Arg(a.text.replace(replace, joined), a.glob) for a in rest), inv.cwd)]
    return [(tuple(rest) + tuple(Arg(item) for item in items), inv.cwd)]


def _flock(inv: Invocation, out: Unwrapped) -> Inner:
    parsed, rest = _parse("flock", inv.args)
    codes = parsed.values("-c")
    if len(rest) > 2 and rest[1].text in ("-c", "--command"):
        codes.append(rest[2])
        rest = rest[:1]
    for code in codes:
        out.reparse.append(Reparse(code.text, "`flock -c` string", inv.command, code.subst))
    return [(tuple(rest[1:]), inv.cwd)] if len(rest) > 1 else []


def _watch(inv: Invocation, out: Unwrapped) -> Inner:
    parsed, rest = _parse("watch", inv.args)
    if parsed.has("-x"):
        return [(tuple(rest), inv.cwd)]
    text = " ".join(arg.text for arg in rest)
    out.reparse.append(Reparse(text, "`watch` command", inv.command))
    return []


def _loose(inv: Invocation, out: Unwrapped) -> Inner:
    """chroot/nsenter/unshare/busybox…: the first plain word after options (speculative)."""
    args = list(inv.args)
    takes_value = {"-t", "--target", "-S", "-G", "--setuid", "--setgid", "--wd", "--userspec"}
    index = 0
    while index < len(args) and (args[index].text.startswith("-") or args[index].text.isdigit()):
        index += 2 if args[index].text in takes_value else 1
    if inv.name == "chroot":
        index += 1
    return [(tuple(args[index:]), inv.cwd)] if index < len(args) else []


def _find(inv: Invocation, out: Unwrapped) -> Inner:
    args = [a.text for a in inv.args]
    index = 0
    while index < len(args) and args[index] in ("-H", "-L", "-P", "-D", "-O"):
        index += 2 if args[index] == "-D" else 1
    starts = []
    while index < len(args) and not args[index].startswith(("-", "(", "!", ")", ",")):
        starts.append(args[index])
        index += 1
    inner: Inner = []
    while index < len(args):
        if args[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            for start in (starts or ["."])[:8]:
                argv = tuple(Arg(a.replace("{}", start)) for a in args[index + 1 : end])
                inner.append((argv, inv.cwd))
            index = end
        index += 1
    return inner


def _shell(inv: Invocation, out: Unwrapped) -> Inner:
    mode, code, _ = shell_mode(inv.args)
    if mode == "command" and code is not None:
        out.reparse.append(Reparse(code.text, f"`{inv.name} -c` string", inv.command, code.subst))
    return []


def _eval(inv: Invocation, out: Unwrapped) -> Inner:
    args = inv.args
    if inv.name == "trap":
        args = tuple(a for a in args if not a.text.startswith("-"))[:1]
    if inv.name == "alias":
        for arg in args:
            name, eq, value = arg.text.partition("=")
            if eq:
                out.reparse.append(Reparse(value, f"alias `{name}`", inv.command, arg.subst))
        return []
    text = " ".join(arg.text for arg in args)
    subst = tuple(i for arg in args for i in arg.subst)
    out.reparse.append(Reparse(text, f"`{inv.name}` string", inv.command, subst))
    return []


def _script(inv: Invocation, out: Unwrapped) -> Inner:
    args = list(inv.args)
    for index, arg in enumerate(args[:-1]):
        if arg.text in ("-c", "--command"):
            code = args[index + 1]
            out.reparse.append(
                Reparse(code.text, f"`{inv.name} -c` string", inv.command, code.subst)
            )
    return []


_GIT_COMMAND_KEYS = (
    "core.pager",
    "core.sshcommand",
    "core.editor",
    "core.fsmonitor",
    "core.askpass",
    "diff.external",
    "sequence.editor",
    "gpg.program",
    "credential.helper",
    "pager.",
    "alias.",
)


def _git(inv: Invocation, out: Unwrapped) -> Inner:
    """``git -c core.pager='…'`` and ``-c alias.x='!…'``: configuration values that are commands."""
    args = list(inv.args)
    for position, arg in enumerate(args[:-1]):
        if arg.text != "-c":
            continue
        key, _, value = args[position + 1].text.partition("=")
        if key.casefold().startswith(_GIT_COMMAND_KEYS) and value:
            code = value[1:] if value.startswith("!") else value
            out.reparse.append(Reparse(code, f"`git -c {key}` value", inv.command))
    return []


def _awk_program(args: Sequence[Arg]) -> list[Arg]:
    programs: list[Arg] = []
    index = 0
    from_file = False
    while index < len(args):
        text = args[index].text
        if text in ("-e", "--source") and index + 1 < len(args):
            programs.append(args[index + 1])
        elif text in ("-f", "--file"):
            from_file = True
        if text in ("-F", "-v", "-f", "-i", "-l", "-E", "-W", "-e", "--source", "--file"):
            index += 2
        elif text == "--":
            index += 1
            break
        elif text.startswith("-") and len(text) > 1:
            index += 1
        else:
            break
    if not programs and not from_file and index < len(args):
        programs.append(args[index])
    return programs


_HANDLERS: dict[str, Callable[[Invocation, Unwrapped], Inner]] = {
    "env": _env,
    "timeout": _skip(1, "timeout"),
    "nice": _skip(0, "nice"),
    "nohup": _skip(0, "nohup"),
    "stdbuf": _skip(0, "stdbuf"),
    "ionice": _skip(0, "ionice"),
    "setsid": _skip(0, "setsid"),
    "unbuffer": _skip(0, "unbuffer"),
    "chronic": _skip(0, "chronic"),
    "caffeinate": _skip(0, "caffeinate"),
    "strace": _skip(0, "strace"),
    "ltrace": _skip(0, "ltrace"),
    "time": _skip(0, "time"),
    "exec": _skip(0, "exec"),
    "builtin": _skip(0, "builtin"),
    "chrt": _skip(1, "chrt"),
    "taskset": _skip(1, "taskset"),
    "command": _command,
    "sudo": _sudo,
    "doas": _sudo,
    "pkexec": _sudo,
    "su": _sudo,
    "flock": _flock,
    "watch": _watch,
    "find": _find,
    "eval": _eval,
    "trap": _eval,
    "alias": _eval,
    "script": _script,
    "git": _git,
    "runuser": _script,
    "sg": _script,
}
for _name in (
    "chroot",
    "nsenter",
    "unshare",
    "busybox",
    "toybox",
    "run0",
    "firejail",
    "systemd-run",
    "proot",
    "fakeroot",
    "fakechroot",
):
    _HANDLERS[_name] = _loose


def _inner(inv: Invocation, out: Unwrapped, items: list[str] | None) -> Inner:
    if inv.name == "xargs":
        return _xargs(inv, out, items)
    if inv.name in SHELLS:
        return _shell(inv, out)
    if inv.name in INTERPRETERS:
        code, _ = interpreter_code(inv.name, inv.args)
        out.literals.extend((c.text, inv.command) for c in code)
        out.reparse.extend(
            Reparse("", f"`{inv.name}` code", inv.command, c.subst) for c in code if c.subst
        )
        return []
    if inv.name in AWKS:
        out.literals.extend((p.text, inv.command) for p in _awk_program(inv.args))
        return []
    handler = _HANDLERS.get(inv.name)
    return handler(inv, out) if handler is not None else []


def unwrap(
    command: int,
    argv: Sequence[Arg],
    *,
    cwd: str | None,
    piped: bool,
    stdin_items: list[str] | None = None,
) -> Unwrapped:
    """Every program ``argv`` runs, outermost first (speculative view, for deny checks)."""
    out = Unwrapped()
    queue: list[tuple[tuple[Arg, ...], tuple[str, ...], str | None, bool]] = [
        (tuple(argv), (), cwd, piped)
    ]
    while queue and len(out.invocations) < MAX_INVOCATIONS:
        args, wrappers, where, stdin_pipe = queue.pop(0)
        if not args:
            continue
        name = canonical_name(args[0].text)
        inv = Invocation(command, args, name, wrappers, where, stdin_pipe)
        out.invocations.append(inv)
        if len(wrappers) >= MAX_CHAIN:
            continue
        keeps_stdin = name not in ("xargs", "find")
        for inner_argv, inner_cwd in _inner(inv, out, stdin_items):
            queue.append(
                (
                    inner_argv,
                    (*wrappers, name),
                    inner_cwd,
                    stdin_pipe and keeps_stdin,
                )
            )
    return out


def strict_unwrap(argv: Sequence[Arg]) -> tuple[tuple[Arg, ...], tuple[str, ...]] | str:
    """Peel only transparent wrappers (exact view, for allow); a reason when one is not."""
    current = tuple(argv)
    wrappers: list[str] = []
    while current and len(wrappers) < MAX_CHAIN:
        if "/" in current[0].text:
            return current, tuple(wrappers)
        name = canonical_name(current[0].text)
        if name not in TRANSPARENT or current[0].text != name:
            return current, tuple(wrappers)
        parsed, rest = _parse(name, current[1:])
        if name == "env" and (parsed.options or (rest and _ASSIGNMENT.match(rest[0].text))):
            return f"`env {' '.join(a.text for a in current[1:3])}…` changes the environment"
        if name == "time" and parsed.has("-o"):
            return "`time -o` writes a file"
        if name == "command" and parsed.has("-v", "-V"):
            return current, tuple(wrappers)
        if name == "timeout":
            rest = rest[1:]
        if not rest:
            return current, tuple(wrappers)
        wrappers.append(name)
        current = tuple(rest)
    return current, tuple(wrappers)

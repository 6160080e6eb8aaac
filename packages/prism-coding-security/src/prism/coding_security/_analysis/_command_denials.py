"""Step 1 for one extracted simple command: the first reason it is denied, if any.

Its redirect targets (writes leaving the roots, network reads, secrets), the code it runs from
a download or decoder, reverse-shell code, host ``deny`` rules, the default deny set, data flow
to the network, and what each invocation writes, links or reads (``_writes.effects``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._check import PathChecker, Unverified
from ._deny import invocation_denials
from ._flow import code_denials, exfiltration_denials, from_output_denials, reverse_shell_code
from ._model import SimpleCommand
from ._rules import CommandRule, normalized_text, rule_matches
from ._unwrap import Invocation, Unwrapped
from ._words import Arg
from ._writes import Target, effects

__all__ = ["command_denial"]


def command_denial(
    command: SimpleCommand,
    *,
    commands: Sequence[SimpleCommand],
    table: Mapping[int, Unwrapped],
    checker: PathChecker,
    rules: Sequence[CommandRule],
    home: str | None,
) -> str | None:
    """Why ``command`` (one of ``commands``, unwrapped in ``table``) is denied, or ``None``."""
    for redirect in command.redirects:
        for arg in redirect.target.guess if redirect.target is not None else ():
            reason = _redirect_denial(redirect.kind, arg, command.cwd, checker)
            if reason is not None:
                return reason
    unwrapped = table.get(command.index, Unwrapped())
    for reason in from_output_denials(unwrapped, table):
        return reason
    for code, _ in unwrapped.literals:
        if reverse_shell_code(code):
            return "runs interpreter code that connects a socket to a shell (a reverse shell)"
    for inv in unwrapped.invocations:
        texts = [normalized_text(inv.argv, canonical=True)]
        for rule in rules:
            if rule.action == "deny" and rule_matches(rule, texts, canonical=True):
                return rule.reason or f"matches the host deny rule `{rule.pattern}`"
        reasons = invocation_denials(inv, home) + code_denials(inv)
        reasons += exfiltration_denials(inv, command, commands, table, checker)
        if reasons:
            return reasons[0]
        reason = _effects_denial(inv, checker)
        if reason is not None:
            return reason
    return None


def _redirect_denial(kind: str, arg: Arg, cwd: str | None, checker: PathChecker) -> str | None:
    if kind == "write":
        try:
            return checker.write(Target(arg), cwd)
        except Unverified:
            return None
    if kind == "read":
        if arg.text.startswith(("/dev/tcp/", "/dev/udp/")):
            return f"opens a network connection through {arg.text} (a reverse-shell pattern)"
        return checker.secret_outside(arg, cwd)
    return None


def _effects_denial(inv: Invocation, checker: PathChecker) -> str | None:
    found = effects(inv)
    if found.deny:
        return found.deny[0]
    for write in found.writes:
        try:
            reason = checker.write(write, inv.cwd)
        except Unverified:
            continue
        if reason is not None:
            return reason
    for link, target, symbolic in found.links:
        reason = checker.register_link(link, target, symbolic, inv.cwd)
        if reason is not None:
            return reason
    for read in found.reads:
        reason = checker.secret_outside(read, inv.cwd)
        if reason is not None:
            return reason
    return None

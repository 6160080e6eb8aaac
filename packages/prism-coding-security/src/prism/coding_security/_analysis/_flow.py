"""Deny rules about data flow between commands: code piped into a shell, secrets piped out.

* a shell or interpreter that reads its program from a pipe (``curl … | sh``, ``… | python3``,
  ``> >(sh)``) or from a process substitution (``bash <(curl …)``), or runs the output of a
  download or decoder as code (``sh -c "$(curl …)"``, ``eval "$(base64 -d …)"``);
* a network tool fed with secrets: through a pipe (``env | curl -d @- …``), a substitution in its
  arguments (``dig $(base64 .env).x``), an uploaded file (``curl -d @.env``) or stdin redirect;
* the fork-bomb shape: a function that calls itself in a pipeline or in the background.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ._check import PathChecker
from ._deny import DECODERS, DOWNLOADERS, NETWORK
from ._model import SimpleCommand
from ._unwrap import (
    INTERPRETERS,
    SHELLS,
    Invocation,
    Unwrapped,
    canonical_name,
    interpreter_code,
    shell_mode,
)
from ._words import Arg, names
from ._writes import effects

__all__ = [
    "code_denials",
    "exfiltration_denials",
    "fork_bomb",
    "from_output_denials",
    "reverse_shell_code",
]

_STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_ENV_DUMPERS = frozenset({"printenv", "set", "export", "declare", "typeset", "compgen"})
_UPLOAD_OPTIONS = names(
    "-T --upload-file --post-file --body-file -F --form --json -d --data --data-binary "
    "--data-raw --data-ascii --data-urlencode"
)
_SOCKET = re.compile(r"socket|fsockopen|TCPSocket|net\.connect|/dev/tcp", re.I)
_SPAWN = re.compile(
    r"pty\.spawn|subprocess|/bin/(ba|z|da)?sh|dup2|\bexec[a-z]*\(|popen|spawn", re.I
)

Table = Mapping[int, Unwrapped]
MAX_UPSTREAM = 64
"""Upstream pipeline commands inspected for secrets (data reaches a stage only through them)."""


def _first_operand(args: Sequence[Arg]) -> Arg | None:
    return next((a for a in args if not a.text.startswith("-") or a.text == "-"), None)


def _code_source(inv: Invocation) -> str | None:
    """'stdin' or 'procsub' when the program's code comes from a pipe or a substitution."""
    if inv.name in SHELLS:
        mode, script, _ = shell_mode(inv.args)
        if mode == "stdin" or (script is not None and script.text in _STDIN_PATHS):
            return "stdin"
        return "procsub" if script is not None and script.procsub else None
    if inv.name in INTERPRETERS:
        code, reads_stdin = interpreter_code(inv.name, inv.args)
        first = _first_operand(inv.args)
        if reads_stdin or (not code and first is not None and first.text in _STDIN_PATHS):
            return "stdin"
        return "procsub" if not code and first is not None and first.procsub else None
    if inv.name in ("at", "batch") and not any(a.text.startswith("-f") for a in inv.args):
        return "stdin"
    if inv.name in ("source", "."):
        first = _first_operand(inv.args)
        if first is not None and first.text in _STDIN_PATHS:
            return "stdin"
        return "procsub" if first is not None and first.procsub else None
    return None


def code_denials(inv: Invocation) -> list[str]:
    """A shell or interpreter running piped or process-substituted text as its program."""
    source = _code_source(inv)
    if inv.name in SHELLS and "xargs" in inv.wrappers:
        mode, code, _ = shell_mode(inv.args)
        if mode != "command" or (code is not None and "{}" in code.text):
            return [f"runs its input lines as code (`xargs {inv.name}`)"]
    if source == "stdin" and inv.piped:
        return [
            f"runs its piped input as code (`… | {inv.name}`); save the script to a file in "
            "the workspace and review it instead"
        ]
    if source == "procsub":
        return [f"runs the output of a process substitution as code (`{inv.name} <(…)`)"]
    return []


def _runs(table: Table, ids: Sequence[int], names: frozenset[str]) -> str | None:
    for index in ids:
        unwrapped = table.get(index)
        for inv in unwrapped.invocations if unwrapped is not None else ():
            if inv.name in names:
                return inv.name
    return None


def from_output_denials(unwrapped: Unwrapped, table: Table) -> list[str]:
    """``sh -c "$(curl …)"``, ``eval "$(base64 -d …)"``: downloaded or decoded text run as code."""
    reasons = []
    for item in unwrapped.reparse:
        source = _runs(table, item.from_output, DOWNLOADERS | DECODERS)
        if source is not None:
            reasons.append(f"runs the output of `{source}` as code ({item.origin})")
    return reasons


def _reads_secret(command: SimpleCommand, checker: PathChecker) -> bool:
    """An input redirection (``< .env``) from a credential file."""
    return any(
        checker.secret_any(arg, command.cwd, embedded=False)
        for redirect in command.redirects
        if redirect.kind == "read" and redirect.target is not None
        for arg in redirect.target.guess
    )


def _secret_source(command: SimpleCommand, table: Table, checker: PathChecker) -> bool:
    unwrapped = table.get(command.index)
    if _reads_secret(command, checker):
        return True
    for inv in unwrapped.invocations if unwrapped is not None else ():
        plain = [a for a in inv.args if "=" not in a.text and not a.text.startswith("-")]
        if inv.name in _ENV_DUMPERS and not plain:
            return True
        if inv.name == "env" and not plain:
            return True
        reads = effects(inv).reads
        if any(checker.secret_any(a, inv.cwd, embedded=False) for a in reads):
            return True
    return False


def _uploads(inv: Invocation) -> list[Arg]:
    args = list(inv.args)
    found: list[Arg] = []
    if inv.name in ("scp", "rsync", "sftp"):
        if any(":" in a.text for a in args):
            found.extend(a for a in args if ":" not in a.text and not a.text.startswith("-"))
        return found
    for position, arg in enumerate(args):
        name, eq, value = arg.text.partition("=")
        if "@" in arg.text or "<" in arg.text:
            found.append(arg)
        elif eq and name in _UPLOAD_OPTIONS:
            found.append(Arg(value, arg.glob))
        elif arg.text in _UPLOAD_OPTIONS and position + 1 < len(args):
            found.append(args[position + 1])
    return found


def exfiltration_denials(
    inv: Invocation,
    command: SimpleCommand,
    commands: Sequence[SimpleCommand],
    table: Table,
    checker: PathChecker,
) -> list[str]:
    """A network tool fed with environment dumps or credential files."""
    if inv.name not in NETWORK:
        return []
    why = f"sends secrets over the network (`{inv.name}`)"
    sources = list(command.upstream[-MAX_UPSTREAM:]) if inv.piped else []
    sources += [i for arg in inv.args for i in arg.subst]
    if any(_secret_source(commands[i], table, checker) for i in sources if i < len(commands)):
        return [f"{why}: credential files or the environment flow into it"]
    for arg in _uploads(inv):
        if checker.secret_any(arg, inv.cwd):
            return [f"{why}: it uploads the credential file `{arg.text}`"]
    if _reads_secret(command, checker):
        return [f"{why}: its input is a credential file"]
    return []


def reverse_shell_code(code: str) -> bool:
    """Interpreter code that opens a socket and spawns a shell or duplicates descriptors."""
    return bool(_SOCKET.search(code) and _SPAWN.search(code))


def fork_bomb(commands: Sequence[SimpleCommand]) -> SimpleCommand | None:
    """A function calling itself in a pipeline or in the background (``:(){ :|:& };:``)."""
    for command in commands:
        if command.function is None or not command.words or not command.words[0].guess:
            continue
        name = canonical_name(command.words[0].guess[0].text)
        if name == command.function.casefold() and (command.pipeline or command.background):
            return command
    return None

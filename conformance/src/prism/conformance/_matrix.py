"""The threat matrix as data: one ``ThreatRow`` per scenario (documented in docs/threats.md)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["THREAT_MATRIX", "ThreatRow", "row_by_id"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ThreatRow:
    """One threat: what happens, what must hold, and which distribution answers for it."""

    id: str
    scenario: str
    expected: str
    package: str


THREAT_MATRIX: tuple[ThreatRow, ...] = (
    ThreatRow(
        id="1",
        scenario="Arguments violate the tool's JSON Schema",
        expected=(
            "blocked `validation_failed`; message names the JSON Pointer of the bad value; "
            "handler not invoked, also when the schema plants `$id` in a data position"
        ),
        package="prism-jsonschema",
    ),
    ThreatRow(
        id="2",
        scenario="Schema compile cache",
        expected=(
            "a second call (same tool, same schema) does not compile again "
            "(`cache_info().compiles` unchanged) and does not re-walk the schema; eviction "
            "beyond `cache_size` is LRU"
        ),
        package="prism-jsonschema",
    ),
    ThreatRow(
        id="3",
        scenario="Malformed schema / remote `$ref`",
        expected=(
            "rejected before compilation (no network attempt: a local listener on the "
            "referenced port sees no connection); blocked `validation_failed` naming the "
            "cause; handler not invoked"
        ),
        package="prism-jsonschema",
    ),
    ThreatRow(
        id="4",
        scenario="Prototype-pollution keys in arguments",
        expected=(
            "`__proto__` anywhere, or `constructor.prototype`, → blocked `invalid_arguments` "
            "before the permission check; handler not invoked"
        ),
        package="prism-core",
    ),
    ThreatRow(
        id="5",
        scenario="Parallel calls, concurrency N",
        expected=(
            "never more than N handlers in flight (measured inside handlers); results and "
            "transcript in call order although completion order differs; an exclusive tool "
            "serializes only its turn"
        ),
        package="prism-core",
    ),
    ThreatRow(
        id="6",
        scenario="Parallel abort mid-turn",
        expected=(
            "no new call starts after the abort; in-flight handlers observe "
            "`context.signal.aborted`; every unfinished call gets an `aborted` result; "
            "completed results kept; no task outlives the batch"
        ),
        package="prism-core",
    ),
    ThreatRow(
        id="7",
        scenario="Permission denied inside a parallel batch",
        expected=(
            "the denied call's slot holds a `permission_denied` result; other calls run; "
            "order preserved"
        ),
        package="prism-core",
    ),
    ThreatRow(
        id="8",
        scenario="MCP tool name collision",
        expected=(
            "remote names are namespaced `mcp:<server>:<name>`; two servers exposing `search` "
            "coexist in one registry; a collision inside one server fails the refresh "
            "atomically"
        ),
        package="prism-mcp",
    ),
    ThreatRow(
        id="9",
        scenario="MCP oversized result / timeout",
        expected=(
            "error `ToolResult` (`mcp_result_too_large` / `mcp_timeout`), message ≤ 8 KiB; "
            "client memory stays bounded while a hostile server streams 200 MB; the faulted "
            "connection is closed (stdio process group gone) and the next call works "
            "(reconnect)"
        ),
        package="prism-mcp",
    ),
    ThreatRow(
        id="10",
        scenario="MCP list_changed",
        expected=(
            "the notification marks the bridge stale; `refresh()` within the TTL re-lists "
            "only when stale; the new tool appears after refresh"
        ),
        package="prism-mcp",
    ),
    ThreatRow(
        id="11",
        scenario="Shell path outside roots",
        expected=(
            "policy denies before spawn (a canary command would create a file: it must not exist)"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="12",
        scenario="Symlink escape under a root",
        expected=(
            "a symlinked directory, a dangling symlink, and a new path under a symlinked "
            "directory pointing outside are all denied"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="13",
        scenario="Shell metacharacters / escalation",
        expected=(
            "escalation and destructive patterns denied in any spelling; unanalysable "
            "constructs need approval; quoted metacharacters in arguments are not false "
            "positives"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="14",
        scenario="Approval denied / timeout",
        expected=(
            "no side effect; a pending approval is abortable and bounded by its timeout; a "
            "timeout or abort is not cached"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="15",
        scenario="Image read over `max_image_bytes`",
        expected=(
            "error result, no base64 anywhere in it; the file is not read (stat first); a "
            "transform that returns an oversize image is also refused"
        ),
        package="prism-coding-tools",
    ),
    ThreatRow(
        id="16",
        scenario="Extension-contributed tool",
        expected=(
            "an extension's `register_tool` does not make the tool dispatchable; once the "
            "host registers it, dispatch gates (filter, permission, validation) still apply; "
            "extension setup is permission-gated"
        ),
        package="prism-core",
    ),
    ThreatRow(
        id="E1",
        scenario="Round limit reached",
        expected=(
            "every unanswered call gets a `tool_round_limit` result; the transcript stays valid"
        ),
        package="prism-core",
    ),
    ThreatRow(
        id="E2",
        scenario="Sequential abort",
        expected="same guarantees as row 6 with concurrency 1",
        package="prism-core",
    ),
    ThreatRow(
        id="E3",
        scenario="Shell timeout / abort",
        expected=(
            "the whole process tree is gone, including a daemonized grandchild holding the "
            "pipes; the result carries the output tail"
        ),
        package="prism-coding-tools",
    ),
    ThreatRow(
        id="E4",
        scenario="Shell output flood",
        expected=(
            "200 MB of output: memory bounded, tail returned, full output spilled to a 0600 "
            "file, hard stop at `max_total_output_bytes`"
        ),
        package="prism-coding-tools",
    ),
    ThreatRow(
        id="E5",
        scenario="Concurrent edits of one file",
        expected="N concurrent edit calls on one file: no lost update, file never half-written",
        package="prism-coding-tools",
    ),
    ThreatRow(
        id="E6",
        scenario="Oversize write / edit input",
        expected="refused before the policy and before any filesystem access",
        package="prism-coding-tools",
    ),
    ThreatRow(
        id="E7",
        scenario="Hostile schema content",
        expected=(
            "no schema (property names, patterns, enums, defaults, titles with "
            "quotes/newlines/code) can run code during compile or validate (canary)"
        ),
        package="prism-jsonschema",
    ),
    ThreatRow(
        id="E8",
        scenario="Untrusted MCP server output",
        expected=(
            "garbage lines, huge lines without newline, deep/wide JSON, invalid UTF-8: "
            "bounded error, no crash, no unbounded memory"
        ),
        package="prism-mcp",
    ),
    ThreatRow(
        id="E9",
        scenario="MCP stdio environment",
        expected=(
            "a parent secret variable never reaches the server process; after close no "
            "process of the server's group remains"
        ),
        package="prism-mcp",
    ),
    ThreatRow(
        id="E10",
        scenario="Sandbox unavailable",
        expected=(
            "the sandboxed shell fails closed with an error result; it never runs the command "
            "unsandboxed"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="E11",
        scenario="Sandbox escape attempts",
        expected=(
            "inside `BubblewrapSandbox`: writing outside the workspace, remounting `/`, "
            "reaching the network or a host Unix socket, keeping capabilities, planting code "
            "in git metadata or other protected files, reading secrets, and exceeding the "
            "process ceiling all fail, observed from the host side"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="E12",
        scenario="Redaction",
        expected=(
            "a secret in arguments, results, errors, events and ledger rows never appears "
            "unredacted when a redactor is set"
        ),
        package="prism-core",
    ),
    ThreatRow(
        id="E13",
        scenario="Durable replay after a crash",
        expected=(
            "a run killed before a model step and recovered, then replayed, never executes a "
            "finished call again; the transcript is complete and in call order; replay writes "
            "no ledger rows for finished calls"
        ),
        package="prism-dbos",
    ),
    ThreatRow(
        id="E14",
        scenario="Crash inside a non-idempotent tool call",
        expected=(
            "recovery never runs the interrupted call again; its result is an error "
            "`outcome_unknown` the model sees, and the ledger records it"
        ),
        package="prism-dbos",
    ),
    ThreatRow(
        id="E15",
        scenario="Approval pending across a restart",
        expected=(
            "the call waits durably; the process is killed; a decision sent from another process "
            "resumes the recovered run; the approved call runs exactly once, never before"
        ),
        package="prism-dbos",
    ),
    ThreatRow(
        id="E16",
        scenario="Host-executed plants",
        expected=(
            "a `.pth` in a venv's site-packages, `activate`, husky and lefthook hooks, "
            "`.envrc`, editor tasks and the other host-executed paths: the write tool under the "
            "policy plants none without approval; inside the sandbox existing ones stay "
            "unchanged and new ones are gone after the command"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="E17",
        scenario="Git directories found by content",
        expected=(
            "a bare repository of any name in the workspace (`remote.git`): no hook or config "
            "change planted through the write tool or a sandboxed command survives, nor a git "
            "directory the command creates"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="E18",
        scenario="Socket families outside the allowlist",
        expected=(
            "inside the sandbox, with and without network, `socket()` of `AF_VSOCK`, "
            "`AF_PACKET`, `AF_ALG`, `AF_BLUETOOTH`, `AF_XDP`, `AF_TIPC` and non-routing "
            "netlink fails"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="E19",
        scenario="Credentials at their usual locations",
        expected=(
            "with a credential planted at 15 usual locations of `HOME` (`.git-credentials`, "
            "`gh`, npm, PyPI, Vault, cargo, docker, kube, cloud CLIs, `.netrc`, SSH, GPG): a "
            "sandboxed command reads none, and the read tool under the policy returns none "
            "even with `HOME` as its root"
        ),
        package="prism-coding-security",
    ),
    ThreatRow(
        id="E20",
        scenario="Encoded credentials",
        expected=(
            "`base64`, hex or the reverse of those credential files, printed by a sandboxed "
            "command, never reaches a result; the read tool refuses the files"
        ),
        package="prism-coding-security",
    ),
)

_BY_ID = {row.id: row for row in THREAT_MATRIX}


def row_by_id(row_id: str) -> ThreatRow:
    """Look a row up by its id (``"5"``, ``"E3"``); ``KeyError`` names the unknown id."""
    try:
        return _BY_ID[row_id.strip().upper()]
    except KeyError:
        raise KeyError(f"unknown threat row {row_id!r}; known: {', '.join(_BY_ID)}") from None


def describe_rows(rows: tuple[ThreatRow, ...] = THREAT_MATRIX) -> str:
    """The row ids as ranges, from the table itself: ``"rows 1–16 and E1–E15"``."""
    groups: dict[str, list[int]] = {}
    for row in rows:
        prefix = row.id.rstrip("0123456789")
        groups.setdefault(prefix, []).append(int(row.id[len(prefix) :]))
    spans: list[str] = []
    for prefix, numbers in groups.items():
        numbers.sort()
        start = previous = numbers[0]
        for number in [*numbers[1:], None]:
            if number is not None and number == previous + 1:
                previous = number
                continue
            spans.append(
                f"{prefix}{start}" if start == previous else f"{prefix}{start}–{prefix}{previous}"
            )
            if number is not None:
                start = previous = number
    if len(spans) == 1:
        return f"row {spans[0]}" if "–" not in spans[0] else f"rows {spans[0]}"
    return "rows " + ", ".join(spans[:-1]) + " and " + spans[-1]

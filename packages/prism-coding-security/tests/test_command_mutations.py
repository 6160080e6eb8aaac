"""Spelling mutations of corpus commands never turn a deny (or approval) row into allow.

Mutations are placed with tree-sitter-bash on the real syntax: extra whitespace between words,
re-quoting plain words (``'rm'``, ``"rm"``, ``r''m``, ``\\rm``), flag-cluster reordering and
splitting (``-rf`` -> ``-fr`` / ``-r -f``) and adjacent flag swaps for commands where that keeps
the meaning, and wrapper insertion (``env``, ``timeout 5``, ``nice``, ``command`` …).
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tree_sitter import Node, Parser

from prism.coding_security._analysis._commands import analyze_command
from prism.coding_security._analysis._parse import LANGUAGE

from .test_command_corpus import load_rows

ROWS = load_rows()
GUARDED = [row for row in ROWS if row["expect"] in ("deny", "needs-approval")]
DENIED = [row for row in ROWS if row["expect"] == "deny"]
ANALYSIS_DENIED = [row for row in DENIED if row["cat"] != "readonly-mode"]
"""Read-only rows are denied by the policy (needs-approval -> deny), not by the analysis."""
ALLOWED = [row for row in ROWS if row["expect"] == "allow" and row["cat"] != "readonly-mode"]

WRAPPERS = (
    "env ",
    "timeout 5 ",
    "nice ",
    "command ",
    "nice -n 5 ",
    "nohup ",
    "stdbuf -o0 ",
    "time ",
    "timeout -s KILL 10 ",
    "env -- ",
    "builtin ",
)
FLAG_COMMANDS = frozenset({"rm", "chmod", "chown", "shred", "mv", "cp"})
_PLAIN = re.compile(rb"^[A-Za-z0-9_./=:@,+-]+$")
_CLUSTER = re.compile(rb"^-[A-Za-z]{2,4}$")

Edit = tuple[int, int, bytes]


class Sites:
    """Where a command line can be re-spelled without changing what it means."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.gaps: list[tuple[int, int]] = []
        self.words: list[Node] = []
        self.clusters: list[Node] = []
        self.swaps: list[tuple[Node, Node]] = []
        self.names: list[Node] = []
        tree = Parser(LANGUAGE).parse(source)
        self._walk(tree.root_node)

    def _walk(self, node: Node) -> None:
        if node.type == "command":
            self._command(node)
        for child in node.children:
            self._walk(child)

    def _command(self, node: Node) -> None:
        children = node.children
        for left, right in pairwise(children):
            gap = self.source[left.end_byte : right.start_byte]
            if gap and gap.strip(b" \t") == b"":
                self.gaps.append((left.end_byte, right.start_byte))
        name = node.child_by_field_name("name")
        if name is not None:
            self.names.append(name)
        arguments = [
            c for i, c in enumerate(children) if node.field_name_for_child(i) == "argument"
        ]
        for word in ([name.children[0]] if name is not None and name.children else []) + arguments:
            text = word.text or b""
            if word.type == "word" and _PLAIN.match(text) and text not in (b"{}", b"-", b"--"):
                self.words.append(word)
        command = (name.text or b"") if name is not None else b""
        if command in {c.encode() for c in FLAG_COMMANDS}:
            flags = [a for a in arguments if a.type == "word" and _CLUSTER.match(a.text or b"")]
            self.clusters.extend(flags)
            for first, second in pairwise(arguments):
                if first in flags and second in flags:
                    self.swaps.append((first, second))


def _requote(text: bytes, style: int) -> bytes:
    if style == 0:
        return b"'" + text + b"'"
    if style == 1:
        return b'"' + text + b'"'
    if style == 2 and len(text) > 1:
        return text[:1] + b"''" + text[1:]
    return b"\\" + text


def _reflag(text: bytes, style: int, order: list[int]) -> bytes:
    letters = [text[1 + i : 2 + i] for i in range(len(text) - 1)]
    shuffled = [letters[i % len(letters)] for i in order][: len(letters)]
    if sorted(shuffled) != sorted(letters):
        shuffled = list(reversed(letters))
    if style == 0:
        return b"-" + b"".join(shuffled)
    return b" ".join(b"-" + letter for letter in shuffled)


@st.composite
def mutated(
    draw: st.DrawFn, rows: list[dict[str, Any]], *, wrappers: bool = True
) -> tuple[Any, str]:
    row = draw(st.sampled_from(rows))
    source = row["cmd"].encode()
    sites = Sites(source)
    edits: dict[tuple[int, int], bytes] = {}
    for start, end in sites.gaps:
        if draw(st.booleans()):
            edits[(start, end)] = draw(st.sampled_from([b"  ", b"\t", b" \t ", b"   "]))
    for word in sites.words:
        if draw(st.integers(0, 3)) == 0:
            edits[(word.start_byte, word.end_byte)] = _requote(
                word.text or b"", draw(st.integers(0, 3))
            )
    for flag in sites.clusters:
        if (flag.start_byte, flag.end_byte) not in edits and draw(st.booleans()):
            order = draw(st.permutations(range(len(flag.text or b"") - 1)))
            edits[(flag.start_byte, flag.end_byte)] = _reflag(
                flag.text or b"", draw(st.integers(0, 1)), list(order)
            )
    for first, second in sites.swaps:
        span = (first.start_byte, second.end_byte)
        overlapping = any(s < span[1] and e > span[0] for s, e in edits)
        if not overlapping and draw(st.booleans()):
            middle = source[first.end_byte : second.start_byte]
            edits[span] = (second.text or b"") + middle + (first.text or b"")
    if wrappers:
        for name in sites.names:
            if draw(st.integers(0, 2)) == 0:
                key = (name.start_byte, name.start_byte)
                edits[key] = draw(st.sampled_from(WRAPPERS)).encode() + edits.get(key, b"")
    mutated_source = source
    for (start, end), text in sorted(edits.items(), key=lambda item: item[0], reverse=True):
        mutated_source = mutated_source[:start] + text + mutated_source[end:]
    return row, mutated_source.decode()


_MUTATIONS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _assert_never_allowed(case: tuple[Any, str], setting: tuple[str, str]) -> None:
    row, command = case
    root, home = setting
    verdict = analyze_command(command, cwd=root, roots=[root], home=home)
    assert verdict.decision != "allow", f"{row['id']} mutated to {command!r} was allowed"


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    base = tmp_path_factory.mktemp("mutations").resolve()
    (base / "root").mkdir()
    (base / "home").mkdir()
    return str(base / "root"), str(base / "home")


@settings(_MUTATIONS, max_examples=400)
@given(case=mutated(DENIED))
def test_a_mutated_deny_row_is_never_allowed(
    case: tuple[Any, str], setting: tuple[str, str]
) -> None:
    _assert_never_allowed(case, setting)


@settings(_MUTATIONS, max_examples=250)
@given(case=mutated(GUARDED))
def test_a_mutated_guarded_row_is_never_allowed(
    case: tuple[Any, str], setting: tuple[str, str]
) -> None:
    _assert_never_allowed(case, setting)


@settings(_MUTATIONS, max_examples=150)
@given(case=mutated(ANALYSIS_DENIED, wrappers=False))
def test_a_respelled_deny_row_stays_denied(case: tuple[Any, str], setting: tuple[str, str]) -> None:
    """Whitespace, quoting and flag order alone do not change a denial at all."""
    row, command = case
    root, home = setting
    verdict = analyze_command(command, cwd=root, roots=[root], home=home)
    assert verdict.decision == "deny", f"{row['id']} respelled as {command!r}: {verdict.reason}"


@settings(_MUTATIONS, max_examples=100)
@given(case=mutated(ALLOWED, wrappers=False))
def test_a_respelled_allow_row_keeps_its_decision(
    case: tuple[Any, str], setting: tuple[str, str]
) -> None:
    row, command = case
    root, home = setting
    original = analyze_command(row["cmd"], cwd=root, roots=[root], home=home).decision
    verdict = analyze_command(command, cwd=root, roots=[root], home=home)
    assert verdict.decision == original, f"{row['id']} respelled as {command!r}: {verdict.reason}"


def test_mutation_sites_are_found() -> None:
    """The mutator itself must be able to change things (else the properties prove nothing)."""
    sites = Sites(b"rm -rf -v /tmp/x && nice ls  -la")
    assert len(sites.names) == 2
    assert [w.text for w in sites.clusters] == [b"-rf"]
    assert {w.text for w in sites.words} >= {b"rm", b"-rf", b"/tmp/x", b"nice", b"-la"}
    assert sites.gaps
    assert _reflag(b"-rf", 1, [1, 0]) == b"-f -r"
    assert _reflag(b"-rf", 0, [1, 0]) == b"-fr"
    assert _requote(b"rm", 2) == b"r''m"

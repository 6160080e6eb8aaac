"""Fewer needless approvals (issue 24): everyday read-only commands run unasked, each through an
option allowlist that proves it read-only; every option that writes, runs or reads a list of
further names still needs approval (and is denied in read-only mode)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from prism.coding_security import CodingApprovalPolicy
from prism.coding_security._analysis._commands import analyze_command
from prism.coding_security._analysis._sed_allow import read_only_script
from prism.core import ExecutionAction, ExecutionDecision


@pytest.fixture
def root(tmp_path: Path) -> str:
    workspace = tmp_path.resolve() / "root"
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("import os\nprint(1)\n")
    (workspace / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (workspace / "a").write_text("one\ntwo\n")
    (workspace / "b").write_text("one\nthree\n")
    (workspace / "f.json").write_text('{"k": [1, 2]}\n')
    (workspace / "notes.txt").write_text("a b\nc d\n")
    return str(workspace)


def decide(command: str, root: str) -> str:
    return analyze_command(command, cwd=root, roots=[root], home=None).decision


ALLOWED = [
    "sort notes.txt",
    "sort -u -k 2,2 -t ' ' notes.txt",
    "sort -rn --random-source=a notes.txt",
    "ls | sort",
    "ls -la src | sort -r | head -n 3",
    "awk '{print $1}' notes.txt",
    "awk -F: -v n=2 'NR == n {print $1, NF}' notes.txt",
    "awk 'BEGIN { s = 0 } { s += length($0) } END { print s }' src/app.py",
    "diff a b",
    "diff -u a b",
    "diff -ru src src",
    "du -sh .",
    "du -a --max-depth=1 src",
    "file src/app.py",
    "file -b --mime-type a b",
    "tree",
    "tree -L 2 -a src",
    "env",
    "jq . f.json",
    "jq -r '.k[] | tostring' f.json",
    "jq -n --arg x 1 '$x'",
    "jq --slurpfile d f.json -n '$d'",
    "git blame src/app.py",
    "git blame -L 1,2 -w -- src/app.py",
    "git stash list",
    "git stash list --oneline",
    "git stash show -p",
    "sed 's/a/b/' notes.txt",
    "sed -n 1,5p notes.txt",
    "sed -E 's/[[:space:]]+/ /g; /^$/d' notes.txt",
    "sed -n -e '/import/p' -e '$=' src/app.py",
    "sed 's|[0-9]|N|2' notes.txt",
    "ls | xargs wc -l",
    "ls src | xargs -n 1 echo",
    "find src -name '*.py' | xargs grep -n import",
    "find . -type f | xargs -r wc -l",
    'for f in src/*.py; do wc -l "$f"; done',
    'for f in a b; do cat "${f}"; echo; done',
    'cd src && for f in *.py; do head -n 1 "$f"; done',
    'for f in .*; do cat "$f"; done',  # each copy judged and rendered; never `.` or `..`
]


@pytest.mark.parametrize("command", ALLOWED)
def test_read_only_commands_run_without_approval(command: str, root: str) -> None:
    assert decide(command, root) == "allow", command


def test_a_loop_runs_as_the_copies_that_were_judged(root: str) -> None:
    """The loop is rendered unrolled: a file name with a substitution is a literal word, and a
    name that starts with `-` is an operand (``./-…``), whatever bash would make of them."""
    src = Path(root, "src")
    (src / "$(touch PWNED).py").write_text("x\n")
    (src / "--files0-from=list.py").write_text("")
    (src / "list.py").write_text("/etc/passwd\0")
    command = 'for f in *.py; do wc -l "$f"; done'
    verdict = analyze_command(command, cwd=str(src), roots=[root], home=None)
    assert verdict.decision == "allow" and verdict.rendered is not None
    assert verdict.rendered.startswith("{ ") and "for " not in verdict.rendered
    run = subprocess.run(
        ["bash", "-c", verdict.rendered], cwd=src, capture_output=True, text=True, timeout=30
    )
    assert not (src / "PWNED").exists() and not Path(root, "PWNED").exists()
    assert "/etc/passwd" not in run.stdout + run.stderr
    assert "./--files0-from=list.py" in run.stdout


NEEDS_APPROVAL = [
    "sort -o out notes.txt",
    "sort --output=out notes.txt",
    "sort --out=out notes.txt",
    "sort -no out notes.txt",
    "sort --compress-program=sh notes.txt",
    "sort -T /tmp notes.txt",
    "sort --files0-from=a",
    "sort /etc/hosts",
    "awk 'BEGIN{system(\"id\")}'",
    "awk '{print > \"out\"}' notes.txt",
    'awk \'{printf "%s", $0 >> "out"}\' notes.txt',
    "awk '{print | \"sh\"}' notes.txt",
    "awk 'BEGIN{\"id\" | getline x; print x}'",
    "awk 'BEGIN{while ((getline l < \"/etc/passwd\") > 0) print l}'",
    "awk 'BEGIN{ARGV[1]=\"/etc/passwd\"; ARGC=2} {print}'",
    "awk '{close(\"x\")}' notes.txt",
    "awk -f prog.awk notes.txt",
    "awk '@load \"filefuncs\"; BEGIN{}'",
    "awk 'BEGIN{sys\\\ntem(\"id\")}'",
    "awk '{print}' /etc/passwd",
    "awk -v 'x=ENVIRON' '{print}' notes.txt",
    "diff a /etc/hosts",
    "diff -l a b",
    "diff --paginate a b",
    "du -sh /",
    "du --files0-from=a",
    "file -C -m magic",
    "file -z a",
    "file -f a",
    "file -S a",
    "tree -o out",
    "tree -R -H . src",
    "tree --fromfile a",
    "tree /",
    "env rm x",
    "env FOO=1",
    "env -i",
    "env -u HOME",
    "jq -f prog.jq f.json",
    "jq -L /tmp 'import \"x\" as x; .' f.json",
    "jq 'include \"x\"; .' f.json",
    "jq . /etc/hosts",
    "jq --rawfile d /etc/passwd -n '$d'",
    "git stash",
    "git stash push",
    "git stash pop",
    "git stash drop",
    "git stash list --output=x",
    "git blame --contents /etc/hosts src/app.py",
    "git blame -S /etc/hosts src/app.py",
    "sed -i 's/a/b/' notes.txt",
    "sed --in-place 's/a/b/' notes.txt",
    "sed 's/a/b/e' notes.txt",
    "sed 's/a/b/w out' notes.txt",
    "sed 's/[/]/;/e' notes.txt",
    "sed '1e id' notes.txt",
    "sed 'w out' notes.txt",
    "sed 'r /etc/passwd' notes.txt",
    "sed -f script.sed notes.txt",
    "sed 's/a/b/' /etc/hosts",
    "sed '1a text' notes.txt",
    "xargs rm",
    "ls | xargs rm",
    "ls | xargs sh -c 'id'",
    "ls | xargs -I{} cat {}",
    "ls | xargs -a a cat",
    "xargs cat < a",
    "cat a | xargs cat",
    "echo /etc/passwd | xargs cat",
    "ls -l | xargs cat",
    "find . -printf '/etc/passwd\\n' | xargs cat",
    "ls / | xargs cat",
    "for f in *; do wc -l $f; done",
    'for f in a; do for f in /etc/passwd; do cat "$f"; done; done',
    'for f in a; do read f; cat "$f"; done',
    'for f in a; do f=/etc/passwd; cat "$f"; done',
    'for f in a; do cd /; cat "$f"; done',
    'for f in a; do cat "$f" > "$f.bak"; done',
    'for f in a; do "$f"; done',
    'for f in a; do cat < "$f"; done',
    'for f in /etc/passwd; do cat "$f"; done',
    'for f in $(ls); do cat "$f"; done',
    'for f in *.py; do rm "$f"; done',
    'ls | for f in a; do cat "$f"; done',
    'for f in a; do cat "$f"; done &',
]


@pytest.mark.parametrize("command", NEEDS_APPROVAL)
def test_what_writes_runs_or_reads_out_still_needs_approval(command: str, root: str) -> None:
    assert decide(command, root) in ("needs-approval", "deny"), command


@pytest.mark.parametrize(
    "command",
    [
        "sort -o x a",
        "awk 'BEGIN{system(\"id\")}'",
        "sed 's/a/b/e' a",
        "xargs rm",
        "env rm x",
        'for f in a; do rm "$f"; done',
    ],
)
def test_they_are_denied_in_read_only_mode(command: str, root: str) -> None:
    policy = CodingApprovalPolicy(roots=[root], read_only=True)
    action = ExecutionAction(
        kind="shell", operation="execute", command=command, cwd=root, paths=(root,)
    )
    decision = policy.check(action)
    assert isinstance(decision, ExecutionDecision) and not decision.allowed, command


def test_xargs_refuses_names_that_would_become_options(root: str) -> None:
    Path(root, "src", "--files0-from=a").write_text("")
    assert decide("ls src | xargs wc -l", root) == "needs-approval"
    assert decide("find src | xargs wc -l", root) == "needs-approval"


def test_xargs_refuses_links_out_of_the_workspace(root: str) -> None:
    Path(root, "src", "pkg", "escape").symlink_to("/etc/passwd")
    assert decide("find src -name '*' | xargs cat", root) == "needs-approval"
    assert decide("ls | xargs cat", root) == "allow"  # src/pkg/escape is not among ls's names
    Path(root, "escape").symlink_to("/etc/passwd")
    assert decide("ls src | xargs cat", root) == "needs-approval"


@pytest.mark.parametrize(
    "script",
    [
        "s/a/b/",
        "s|a|b|g",
        "1,5p",
        "$!d",
        "/x/,/y/{s/a/b/;p}",
        "0~2d",
        "s/[]a]/x/",
        "1{p}",
        "s/[^[:alpha:]]/x/g",
        "y/abc/xyz/",
        "q5",
    ],
)
def test_the_sed_recognizer_accepts_print_only_scripts(script: str) -> None:
    assert read_only_script(script), script


@pytest.mark.parametrize(
    "script",
    [
        "s/a/b/e",
        "s/a/b/w x",
        "s/[/]/;/e",
        "s/a/b/;e",
        "w x",
        "W x",
        "r x",
        "R x",
        "e id",
        "1e",
        "s/a/b/\ne",
        "a text",
        "i\\",
        ":a;ba",
        "# comment",
        "s\\a\\b\\",
        "sxaxbx",
        "s/a/b",
        "s/[a/b/",
        "s/[[:x/]/b/",
        "s/[]/]/x/",
        "/a/ w x",
        "v",
    ],
)
def test_the_sed_recognizer_refuses_anything_else(script: str) -> None:
    assert not read_only_script(script), script


@pytest.mark.skipif(shutil.which("sed") is None, reason="sed is not installed")
@pytest.mark.parametrize("script", ["s/[/]/;/e", "s/a/b/;e", "s/x/touch PWNED/e"])
def test_gnu_sed_really_runs_what_is_refused(script: str, tmp_path: Path) -> None:
    """The controls: each refused shape does run a command under GNU sed."""
    text = {"s/[/]/;/e": "x/touch PWNED\n", "s/a/b/;e": "touch PWNED\n"}.get(script, "x\n")
    (tmp_path / "in").write_text(text)
    subprocess.run(["sed", script, "in"], cwd=tmp_path, capture_output=True, timeout=30)
    assert (tmp_path / "PWNED").exists(), script


def test_a_loop_unrolls_only_within_its_bounds(root: str) -> None:
    many = " ".join(["a"] * 65)
    assert decide(f'for f in {many}; do cat "$f"; done', root) == "needs-approval"
    body = "; ".join(['cat "$f"'] * 2_000)
    assert decide(f"for f in a b; do {body}; done", root) == "needs-approval"
    assert decide('for f in a b; do cat "$f"; done', root) == "allow"

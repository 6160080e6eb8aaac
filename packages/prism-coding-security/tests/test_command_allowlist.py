"""The read-only allowlist, flag by flag: what runs unasked, and what needs approval."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism.coding_security._analysis._commands import analyze_command


@pytest.fixture
def root(tmp_path: Path) -> str:
    workspace = tmp_path.resolve() / "root"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("x\n")
    (workspace / "escape").symlink_to("/etc/passwd")
    return str(workspace)


def decide(command: str, root: str) -> str:
    return analyze_command(command, cwd=root, roots=[root], home=None).decision


ALLOWED = [
    "ls",
    "ls -la src",
    "ls -I '*.pyc' --color=never src",
    "cat src/app.py",
    "cat -n src/*.py",
    "head -n 5 src/app.py",
    "head -5 src/app.py",
    "tail -n +2 src/app.py",
    "tail -f src/app.py",
    "wc -l src/app.py",
    "stat -c %s src/app.py",
    "grep -rn foo src",
    "grep -e a -e b src/app.py",
    "grep -c x src/app.py --include='*.py'",
    "rg foo",
    "rg -n -g '*.py' foo src",
    "rg --files src",
    "find . -type f -name '*.py'",
    "find src -maxdepth 2 -newer src/app.py",
    "echo hello",
    "echo *",
    "pwd",
    "which python3",
    "git status --porcelain",
    "git log --oneline -n 5",
    "git log --format='%H %s' -- src",
    "git diff --stat HEAD~1",
    "git show HEAD:src/app.py",
    "git branch",
    "git branch -a -v",
    "git branch --list 'feat/*'",
    "git --no-pager log -1",
    "timeout 10 grep -r x src",
    "nice -n 5 ls",
    "command ls",
    "env ls",
    "time ls",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_read_only_commands_are_allowed(command: str, root: str) -> None:
    assert decide(command, root) == "allow", command


NEEDS_APPROVAL = [
    "cat escape",  # a symlink out of the root
    "cat *",  # the glob reaches the symlink
    "grep *",  # globbed words are files wherever they stand
    "grep -e * src",
    "ls /",
    "cat ../x",
    "head ~/.bashrc",
    "grep -R foo .",  # follows symlinks out of the tree
    "grep -r foo /etc",
    "grep -f /etc/hosts src",
    "rg --pre cat foo",
    "rg -L foo",
    "rg --hostname-bin x foo",
    "wc --files0-from=src/app.py",
    "find / -name x",
    "find . -L -name x",
    "find -L . -name x",
    "find . -follow",
    "find . -exec cat {} +",
    "find . -delete",
    "find . -fprint out.txt",
    "find . -files0-from src/app.py",
    "git log --output=out.txt",
    "git log --out=out.txt",
    "git diff --ext-diff",
    "git log -O/etc/hosts",
    "git -c core.pager=cat log",
    "git -C /etc log",
    "git push",
    "git commit -m x",
    "git branch new-branch",
    "git branch -D main",
    "git branch -m a b",
    "git diff --no-index /etc/hosts src/app.py",
    "git log -- /etc",
    "echo $(ls)",
    "echo $HOME_DIR",
    "ls $X",
    "env -i ls",
    "env FOO=1 ls",
    "time -o out.txt ls",
    "nohup ls",
    "xargs ls",
    "./ls",
    "LS",
    "ls > out.txt",
    "cat < /etc/hosts",
]


@pytest.mark.parametrize("command", NEEDS_APPROVAL)
def test_anything_beyond_read_only_needs_approval(command: str, root: str) -> None:
    assert decide(command, root) == "needs-approval", command

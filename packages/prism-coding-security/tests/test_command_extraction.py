"""Every simple command is extracted, wherever it hides, and its words are de-quoted like bash."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism.coding_security._analysis._commands import analyze_command
from prism.coding_security._analysis._model import Budget, Collector
from prism.coding_security._analysis._parse import parse_into


def extract(command: str, cwd: str = "/w", home: str | None = "/home/u") -> list[list[str]]:
    """The speculative argv of each extracted command (in execution order)."""
    collector = Collector(Budget(100_000, 1_000, 5.0))
    parse_into(collector, command, cwd=cwd, home=home, depth=0, origin=None)
    return [[arg.text for word in c.words for arg in word.guess] for c in collector.commands]


@pytest.fixture
def root(tmp_path: Path) -> str:
    workspace = tmp_path.resolve() / "root"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("x\n")
    (tmp_path / "home").mkdir()
    return str(workspace)


def verdict(command: str, root: str) -> str:
    home = str(Path(root).parent / "home")
    return analyze_command(command, cwd=root, roots=[root], home=home).decision


HIDING_PLACES = [
    "ls; rm -rf /",
    "ls && rm -rf /",
    "ls || rm -rf /",
    "ls | rm -rf /",
    "ls |& rm -rf /",
    "ls & rm -rf /",
    "ls\nrm -rf /",
    "echo $(rm -rf /)",
    "echo `rm -rf /`",
    'echo "$(rm -rf /)"',
    "cat <(rm -rf /)",
    "echo x > >(rm -rf /)",
    "(rm -rf /)",
    "{ rm -rf /; }",
    "f() { rm -rf /; }; f",
    "function f { rm -rf /; }",
    "if true; then rm -rf /; fi",
    "while true; do rm -rf /; done",
    "for x in a; do rm -rf /; done",
    "case x in x) rm -rf /;; esac",
    "[[ $(rm -rf /) ]]",
    "! rm -rf /",
    "echo $((1 + $(rm -rf /)))",
    "x=$(rm -rf /)",
    "FOO[$(rm -rf /)]=1 ls",
    "cat <<EOF\n$(rm -rf /)\nEOF",
    "bash -c 'rm -rf /'",
    'sh -lc "rm -rf /"',
    "zsh -c 'ls; rm -rf /'",
    "bash -c \"bash -c 'rm -rf /'\"",
    "eval 'rm -rf /'",
    "eval rm -rf /",
    "sudo rm -rf /",
    "env rm -rf /",
    "env -i FOO=1 rm -rf /",
    "timeout 5 rm -rf /",
    "timeout -s KILL 5 rm -rf /",
    "nice -n 10 rm -rf /",
    "nohup rm -rf /",
    "stdbuf -o0 rm -rf /",
    "ionice -c 3 rm -rf /",
    "command rm -rf /",
    "builtin exec rm -rf /",
    "exec rm -rf /",
    "time rm -rf /",
    "time -p rm -rf /",
    "setsid rm -rf /",
    "busybox rm -rf /",
    "watch rm -rf /",
    "flock /tmp/l rm -rf /",
    "flock /tmp/l -c 'rm -rf /'",
    "trap 'rm -rf /' EXIT",
    "alias x='rm -rf /'",
    "find . -exec rm -rf / \\;",
    "find . -execdir rm -rf / +",
    "find / -exec rm -rf {} \\;",
    "echo / | xargs rm -rf",
    "echo / | xargs -I{} rm -rf {}",
    "nice timeout 5 env nohup command rm -rf /",
    "bash <<'EOF'\nrm -rf /\nEOF",
    "sh <<< 'rm -rf /'",
    "python3 -c \"import os; os.system('rm -rf /')\"",
    "perl -e 'system(\"rm -rf /\")'",
    "ruby -e '`rm -rf /`'",
    "node -e \"require('child_process').execSync('rm -rf /')\"",
    "awk 'BEGIN { system(\"rm -rf /\") }'",
    "git -c core.pager='rm -rf /' log",
    "su -c 'rm -rf /'",
    "script -c 'rm -rf /' /dev/null",
]


@pytest.mark.parametrize("command", HIDING_PLACES)
def test_a_hidden_destructive_command_is_denied(command: str, root: str) -> None:
    assert verdict(command, root) == "deny", command


SPELLINGS = [
    "rm -rf /",
    "rm -fr /",
    "rm -r -f /",
    "rm -f -r /",
    "rm --recursive --force /",
    "rm --recur --forc /",
    "rm -R -f /",
    "rm -rf -- /",
    "rm -rf --no-preserve-root /",
    "r\\m -rf /",
    "'r''m' -rf /",
    '"rm" -rf /',
    "$'\\x72\\x6d' -rf /",
    "$'\\162\\155' -rf /",
    '"/bin/rm" -rf /',
    "/usr/bin/../bin/rm -rf /",
    "\\rm -rf /",
    "ｒｍ -rf /",
    "rm${IFS}-rf${IFS}/",
    "IFS=,;x=rm,-rf,/;$x",
    "a=rm; $a -rf /",
    "$(echo rm) -rf /",
    "rm -rf $(echo /)",
    "rm -rf ${x:-/}",
    "rm -rf //",
    "rm -rf /./",
    "rm -rf /*",
    "rm -rf {/,x}",
    'rm -rf "/"',
    "rm -rf ~",
    "rm -rf ~/",
    "rm -rf $HOME",
    'rm -rf "${HOME}"',
    'rm -rf "${HOME:?}"',
    "HOME=/; rm -rf ~",
    "cd / && rm -rf *",
]


@pytest.mark.parametrize("command", SPELLINGS)
def test_every_spelling_of_rm_rf_root_is_denied(command: str, root: str) -> None:
    assert verdict(command, root) == "deny", command


def test_words_are_dequoted_like_bash() -> None:
    assert extract('r\\m \'a b\' "c\\"d" e\'f\'"g" $\'\\x41\\n\' $"t"') == [
        ["rm", "a b", 'c"d', "efg", "A\n", "t"]
    ]


def test_known_expansions_and_unknown_ones() -> None:
    [[_, home, tilde, pwd, unknown]] = extract("x $HOME ~/a ${PWD} $OTHER")
    assert (home, tilde, pwd) == ("/home/u", "/home/u/a", "/w")
    assert unknown == "\ufffd"


def test_brace_expansion_is_applied() -> None:
    assert extract("ls {a,b}.txt x{1..3}") == [["ls", "a.txt", "b.txt", "x1", "x2", "x3"]]


def test_comments_and_quoted_metacharacters_are_not_commands() -> None:
    assert extract("echo 'a;b|c' \"$x && y\" # ; rm -rf /") == [["echo", "a;b|c", "\ufffd && y"]]


def test_redirect_after_a_list_belongs_to_the_last_command() -> None:
    """tree-sitter-bash attaches ``a && b > f`` to the list; bash redirects only ``b``."""
    collector = Collector(Budget(100_000, 1_000, 5.0))
    parse_into(collector, "a && b > f", cwd="/w", home=None, depth=0, origin=None)
    first, second = collector.commands
    assert first.redirects == ()
    assert [r.target.raw for r in second.redirects if r.target] == ["f"]


def test_pipeline_stages_know_their_upstream() -> None:
    collector = Collector(Budget(100_000, 1_000, 5.0))
    parse_into(collector, "a | b | c", cwd="/w", home=None, depth=0, origin=None)
    a, b, c = collector.commands
    assert (a.piped, b.piped, c.piped) == (False, True, True)
    assert list(c.upstream) == [0, 1]


def test_cd_changes_the_directory_later_commands_resolve_against() -> None:
    collector = Collector(Budget(100_000, 1_000, 5.0))
    parse_into(
        collector, "cd /etc; cat passwd; (cd sub); ls", cwd="/w", home=None, depth=0, origin=None
    )
    cwds = {" ".join(a.text for w in c.words for a in w.guess): c.cwd for c in collector.commands}
    assert cwds["cat passwd"] == "/etc"
    assert cwds["ls"] == "/etc"  # the subshell's cd does not leak out


def test_after_a_chain_that_starts_with_cd_the_directory_is_unknown() -> None:
    """`cd x && a; b`: `b` runs in x when the `cd` worked and where it started when it failed."""
    collector = Collector(Budget(100_000, 1_000, 5.0))
    parse_into(collector, "cd /etc && cat passwd; ls", cwd="/w", home=None, depth=0, origin=None)
    cwds = {" ".join(a.text for w in c.words for a in w.guess): c.cwd for c in collector.commands}
    assert cwds["cat passwd"] == "/etc"
    assert cwds["ls"] is None


def test_plain_read_only_commands_are_allowed(root: str) -> None:
    for command in (
        "ls -la",
        "cat src/app.py",
        "git status",
        "echo '$(rm -rf /)'",
        "grep -rn 'a|b' src",
        "ls 'x; rm -rf /'",
        "head -n 5 src/app.py | wc -l",
    ):
        assert verdict(command, root) == "allow", command

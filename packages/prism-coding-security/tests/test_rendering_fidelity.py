"""Property: for generated brace/glob/quote/``$`` words, the rendering of an allowed command
prints, under bash and under dash, exactly the words bash itself would have made of the original
text (glob results starting with ``-`` aside: those are rendered as ``./-…`` on purpose)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from prism.coding_security import CommandRule
from prism.coding_security._analysis._commands import analyze_command

FRAGMENTS = [
    *("a", "b", "x", "-", ".", "_", "1", "/", "sub/"),
    *("*", "?", "[ab]", "[!a]", "[^b]", "[[:alpha:]]", "[[:punct:]]", "[a-c]", "[]]", "[.]"),
    *("{a,b}", "{1..3}", "{,x}", "{a,{b,c}}", "{x}", "{a..c}", "{-,.}", "{*,?}"),
    *("'*'", '"?"', "\\*", "'a'", '"$HOME"', "$PWD", "~", "'$x'", "$", "{x,$}", "{,~}"),
]
FILES = ("a", "b", "ab", "x1", ".h", ".hidden", "c]", "-x", "sub/a", "sub/.d", "sub/b2")
HOME = "/nonexistent-home"
SHELLS = [name for name in ("bash", "dash") if shutil.which(name)]
PRINTF = CommandRule(pattern="printf *", action="allow")

words = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=4).map("".join)
lines = st.lists(words, min_size=1, max_size=3)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fidelity").resolve()
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


def _printed(shell: str, command: str, cwd: Path) -> list[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": HOME, "LC_ALL": "C"}
    done = subprocess.run(
        [shell, "-c", command], cwd=cwd, env=env, capture_output=True, timeout=30, check=False
    )
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


def _assert_stable(rendered: str, tree: Path) -> None:
    """A re-check of the rendering (after a spawn hook, say) allows it and renders it again."""
    again = analyze_command(rendered, cwd=str(tree), roots=[str(tree)], home=HOME, rules=[PRINTF])
    assert (again.decision, again.rendered) == ("allow", rendered), again


def _assert_rendered_as_bash_would(command: str, tree: Path) -> None:
    """An allowed command's rendering is stable and prints, in every shell, bash's words."""
    verdict = analyze_command(command, cwd=str(tree), roots=[str(tree)], home=HOME, rules=[PRINTF])
    event(verdict.decision)
    if verdict.decision != "allow":
        return
    assert verdict.rendered is not None
    _assert_stable(verdict.rendered, tree)
    expected = _printed("bash", command, tree)
    for shell in SHELLS:
        printed = _printed(shell, verdict.rendered, tree)
        assert [w[2:] if w.startswith("./-") else w for w in printed] == expected, (
            shell,
            command,
            verdict.rendered,
        )


@settings(
    derandomize=True,
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=lines)
def test_the_rendering_runs_the_words_bash_would_make(tree: Path, line: list[str]) -> None:
    command = "printf '%s\\0' " + " ".join(line)
    _assert_rendered_as_bash_would(command, tree)


CDS = ["sub", "link", "link/..", "sub/..", ".", "link/../sub", "sub/../link"]
OPERATORS = [" ; ", " && ", " || ", " | ", " 2>&1 | "]
steps = st.lists(
    st.tuples(
        st.sampled_from(OPERATORS),
        st.one_of(
            st.sampled_from(CDS).map(lambda d: f"cd {d}"),
            lines.map(lambda ws: "printf '%s\\0' " + " ".join(ws)),
        ),
    ),
    min_size=1,
    max_size=4,
)


@settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(parts=steps)
def test_lists_pipelines_and_cd_run_as_bash_would(tree: Path, parts: list[tuple[str, str]]) -> None:
    if not (tree / "link").exists():
        (tree / "link").symlink_to(tree / "sub")
    command = "printf '%s\\0' *" + "".join(op + step for op, step in parts)
    _assert_rendered_as_bash_would(command, tree)


def _recorded_commands() -> list[str]:
    data = Path(__file__).resolve().parent
    found: list[str] = []
    for path in (data / "corpus" / "commands.jsonl", data / "data" / "codex_differential.jsonl"):
        with path.open(encoding="utf-8") as handle:
            found += [json.loads(line)["cmd"] for line in handle if line.strip()]
    return found


def test_every_allowed_recorded_command_renders_to_a_fixed_point(tree: Path) -> None:
    """Over the adversarial corpus and the Codex differential: whatever is allowed is handed
    back as a rendering that is allowed again and renders to itself."""
    allowed = 0
    for command in _recorded_commands():
        verdict = analyze_command(command, cwd=str(tree), roots=[str(tree)], home=HOME)
        if verdict.decision == "allow":
            allowed += 1
            assert verdict.rendered is not None, command
            again = analyze_command(verdict.rendered, cwd=str(tree), roots=[str(tree)], home=HOME)
            assert (again.decision, again.rendered) == ("allow", verdict.rendered), command
    assert allowed >= 20

"""The analysis is bounded by a deterministic step budget, not by the clock: inputs built to
blow up variable tracking, brace expansion or per-word work are decided within the budget and
with bounded memory (asserted through the step counter and tracemalloc, never wall time)."""

from __future__ import annotations

import math
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism.coding_security import analyze_command
from prism.coding_security._analysis import _commands
from prism.coding_security._analysis._model import MAX_STEPS

PEAK_BYTES = 96 * 1024 * 1024
BOUND = 4 * MAX_STEPS + 200_000
"""Parsing, unwrapping, the deny and the allow pass each get MAX_STEPS; one unit of work may
overshoot before the check."""


@pytest.fixture
def root(tmp_path: Path) -> str:
    return str(tmp_path.resolve())


def _measure(command: str, root: str) -> tuple[str, str, int, int]:
    """(decision, reason, steps spent over all passes, peak bytes) of one analysis."""
    analysis = _commands._Analysis(
        command, cwd=root, roots=[root], home=None, rules=(), deny_metacharacters=True
    )
    # The wall-clock backstop is not what is measured here, and tracemalloc slows the analysis
    # several times: on a loaded machine the backstop fired and changed the reason.
    analysis.out.budget.seconds = math.inf
    tracemalloc.start()
    try:
        analysis.extract()
        denial = analysis.denial()
        approval = analysis.approval() if denial is None else None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    decision = "deny" if denial else "needs-approval" if approval else "allow"
    return decision, denial or approval or "", analysis.out.budget.total, peak


def test_doubling_a_variable_cannot_blow_up_the_analysis(root: str) -> None:
    command = "x=a; " + "x=$x$x; " * 24 + "echo $x"
    decision, _, steps, peak = _measure(command, root)
    assert decision == "needs-approval"
    assert steps <= BOUND
    assert peak < 16 * 1024 * 1024


ADVERSARIAL = {
    "doubling": "x=a; " + "x=$x$x; " * 60 + "cat $x $x $x $x",
    "open braces": "echo " + "{" * 30_000,
    "brace groups": "echo " + "{a,b}" * 6_000,
    "long brace words": "cat {" + "a" * 30_000 + ",b}{c,d}{e,f}",
    "stray dollars": "echo a" + "$!b" * 10_000,
    "many commands": "ls;" * 6_000,
    "many words": "bash -c '" + "x " * 15_000 + "'",
    "wide variable": "x=" + "a" * 30_000 + "; echo " + "$x " * 1_500,
    "many assignments": "".join(f"a{i}=1;" for i in range(5_000)),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_inputs_stay_within_the_budget(root: str, name: str) -> None:
    command = ADVERSARIAL[name][: _commands.MAX_COMMAND_CHARS]
    decision, reason, steps, peak = _measure(command, root)
    assert decision == "needs-approval", reason
    assert steps <= BOUND  # one last unit of work may overshoot before the check
    assert peak < PEAK_BYTES


def test_running_out_of_steps_needs_approval(root: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_commands, "MAX_STEPS", 2_000)
    verdict = analyze_command("cat " + " ".join(["a"] * 200), cwd=root, roots=[root], home=None)
    assert verdict.decision == "needs-approval"
    assert "analysis steps" in verdict.reason
    # The deny pass has its own allowance: a denial among what was extracted still denies.
    denied = analyze_command("rm -rf / ; " + "ls; " * 500, cwd=root, roots=[root], home=None)
    assert denied.decision == "deny"


def test_the_budget_is_deterministic(root: str) -> None:
    command = "bash -c '" + "x " * 4_000 + "'"
    first = _measure(command, root)
    second = _measure(command, root)
    assert first[:3] == second[:3]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(
        st.sampled_from(["x=$x$x;", "{a,b}", "$x", "{", "$!", " ", ";", "'", "a", "bash -c "]),
        min_size=1,
        max_size=200,
    ),
    repeat=st.integers(1, 80),
)
def test_any_composition_is_bounded(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str], repeat: int
) -> None:
    root = str(tmp_path_factory.mktemp("budget").resolve())
    command = ("x=ab;" + "".join(pieces) * repeat)[: _commands.MAX_COMMAND_CHARS]
    _, _, steps, peak = _measure(command, root)
    assert steps <= BOUND
    assert peak < PEAK_BYTES

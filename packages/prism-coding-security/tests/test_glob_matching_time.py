"""The policy's glob matcher: linear in name x pattern (no backtracking blow-up), and the same
answers as a backtracking regex on small inputs."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_security._analysis._glob import GlobTooLarge, _component_tokens, _matches
from prism.core.testing import scaled


def _regex(pattern: str) -> re.Pattern[str]:
    parts = {"*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(parts.get(ch, re.escape(ch)) for ch in pattern), re.DOTALL)


@settings(derandomize=True, max_examples=400, deadline=None)
@given(st.text("ab*?", max_size=8), st.text("ab", max_size=10))
def test_the_matcher_agrees_with_a_regex(pattern: str, name: str) -> None:
    tokens = _component_tokens([(ch, 0) for ch in pattern])
    expected = _regex(pattern).fullmatch(name) is not None
    assert _matches(tokens, name, [10_000]) == expected


def test_a_backtracking_pattern_is_matched_in_linear_time() -> None:
    tokens = _component_tokens([(ch, 0) for ch in "*a" * 40 + "*b"])
    started = time.monotonic()
    assert not _matches(tokens, "a" * 255, [1_000_000])
    assert time.monotonic() - started < scaled(1)


def test_the_step_budget_ends_a_long_match() -> None:
    tokens = _component_tokens([(ch, 0) for ch in "*a*b"])
    with pytest.raises(GlobTooLarge):
        _matches(tokens, "a" * 255, [100])

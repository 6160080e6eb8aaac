"""PRISM_TEST_TIME_FACTOR: one factor scales every wall-clock bound; bad values are refused."""

from __future__ import annotations

import pytest

from prism.core.testing import (
    TIME_FACTOR_ENV,
    check_time_factor,
    scaled,
    set_time_factor,
    time_factor,
)


def test_without_the_variable_bounds_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIME_FACTOR_ENV, raising=False)
    assert time_factor() == 1.0
    assert scaled(2.5) == 2.5


@pytest.mark.parametrize(
    ("raw", "factor"), [("3", 3.0), (" 1.5 ", 1.5), ("1", 1.0), ("100", 100.0)]
)
def test_the_variable_multiplies_every_bound(
    monkeypatch: pytest.MonkeyPatch, raw: str, factor: float
) -> None:
    monkeypatch.setenv(TIME_FACTOR_ENV, raw)
    assert time_factor() == factor
    assert scaled(2.0) == 2.0 * factor


@pytest.mark.parametrize("raw", ["0", "-1", "0.5", "nan", "inf", "-inf", "abc", "3s", "101"])
def test_a_bad_variable_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(TIME_FACTOR_ENV, raw)
    with pytest.raises(ValueError, match=rf"^{TIME_FACTOR_ENV} must be a finite number from 1"):
        scaled(1.0)


@pytest.mark.parametrize("value", [0, -1, float("nan"), True, None, [3], "abc"])
def test_check_names_where_the_bad_value_came_from(value: object) -> None:
    with pytest.raises(ValueError, match=r"^--time-factor must be .*got "):
        check_time_factor("--time-factor", value)


def test_set_time_factor_is_seen_by_scaled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIME_FACTOR_ENV, raising=False)
    assert set_time_factor("4", where="--time-factor") == 4.0
    assert scaled(0.5) == 2.0
    with pytest.raises(ValueError, match="--time-factor"):
        set_time_factor("0", where="--time-factor")
    assert time_factor() == 4.0  # a refused value leaves the factor alone

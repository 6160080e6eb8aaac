"""prism.core.options: the one option-check helper every package uses."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prism.core.options import (
    check_callable,
    check_choice,
    check_count,
    check_flag,
    check_instance,
    check_items,
    check_match,
    check_seconds,
)


@pytest.mark.parametrize(
    ("bad", "error"),
    [(0, ValueError), (-1, ValueError), (11, ValueError)]
    + [(bad, TypeError) for bad in (True, False, 1.0, "3", None)],
)
def test_check_count_refuses_what_is_not_an_int_in_range_and_names_the_field(
    bad: object, error: type[Exception]
) -> None:
    with pytest.raises(
        error, match=r"^Owner\.limit must be an int from 1 to 10 \(hard cap\), got "
    ):
        check_count("Owner.limit", bad, cap=10)


@given(st.integers(min_value=0, max_value=100))
def test_check_count_accepts_exactly_the_closed_range(value: int) -> None:
    if 1 <= value <= 50:
        assert check_count("O.f", value, cap=50) == value
    else:
        with pytest.raises(ValueError):
            check_count("O.f", value, cap=50)


def test_check_count_honours_a_zero_minimum() -> None:
    assert check_count("O.f", 0, cap=5, minimum=0) == 0


@pytest.mark.parametrize(
    ("bad", "error"),
    [(bad, ValueError) for bad in (0, -0.5, math.inf, math.nan, 61)]
    + [(bad, TypeError) for bad in (True, "1", None)],
)
def test_check_seconds_refuses_non_finite_non_positive_and_over_cap(
    bad: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match=r"^O\.timeout must be a finite number of seconds"):
        check_seconds("O.timeout", bad, cap=60)


def test_check_seconds_returns_a_float() -> None:
    value = check_seconds("O.t", 2, cap=60)
    assert value == 2.0
    assert isinstance(value, float)


@pytest.mark.parametrize("bad", [1, 0, "true", None])
def test_check_flag_refuses_truthy_non_bools(bad: object) -> None:
    with pytest.raises(TypeError, match=r"^O\.flag must be True or False"):
        check_flag("O.flag", bad)


def test_check_choice_lists_the_allowed_values() -> None:
    assert check_choice("O.mode", "b", ("a", "b")) == "b"
    with pytest.raises(ValueError, match=r"must be one of 'a', 'b', got 'c'"):
        check_choice("O.mode", "c", ("b", "a"))
    with pytest.raises(TypeError, match=r"must be one of 'a', 'b', got 1"):
        check_choice("O.mode", 1, ("b", "a"))


def test_check_callable_optional_allows_none_only_when_asked() -> None:
    assert check_callable("O.hook", None, optional=True) is None
    assert check_callable("O.hook", print) is print
    with pytest.raises(TypeError, match=r"must be callable, got None"):
        check_callable("O.hook", None)
    with pytest.raises(TypeError, match=r"must be callable or None, got 3"):
        check_callable("O.hook", 3, optional=True)


def test_a_huge_value_is_shortened_in_the_message() -> None:
    with pytest.raises(TypeError) as info:
        check_count("O.f", "x" * 10_000, cap=3)
    assert len(str(info.value)) < 400


def test_check_seconds_with_a_minimum_includes_it_and_refuses_below() -> None:
    assert check_seconds("O.poll", 0.01, cap=60, minimum=0.01) == 0.01
    with pytest.raises(ValueError, match=r"^O\.poll must be a finite number of seconds from 0\.01"):
        check_seconds("O.poll", 0.005, cap=60, minimum=0.01)


def test_check_match_needs_a_full_match_of_a_string() -> None:
    name = re.compile(r"[a-z]+")
    assert check_match("O.name", "abc", name) == "abc"
    bad_values: tuple[tuple[object, type[Exception]], ...] = (
        ("abc ", ValueError),
        ("", ValueError),
        ("ABC", ValueError),
        (3, TypeError),
        (None, TypeError),
    )
    for bad, error in bad_values:
        with pytest.raises(error, match=r"^O\.name must be a string matching \[a-z\]\+"):
            check_match("O.name", bad, name)


def test_check_instance_is_a_type_check_naming_the_class() -> None:
    check_instance("O.when", 3, int)
    check_instance("O.when", None, (int, str), optional=True)
    with pytest.raises(TypeError, match=r"^O\.when must be an int or a str or None, got 1\.5$"):
        check_instance("O.when", 1.5, (int, str), optional=True)


def test_check_items_returns_a_tuple_and_names_the_field_or_the_bad_item() -> None:
    assert check_items("O.xs", [1, 2], int) == (1, 2)
    assert check_items("O.xs", (n for n in (3,)), int) == (3,)
    for lone in ("ab", b"ab", 5, None):
        with pytest.raises(TypeError, match=r"^O\.xs must be a sequence of int, got "):
            check_items("O.xs", lone, int)
    with pytest.raises(TypeError, match=r"^O\.xs must be ints, got 'a'$"):
        check_items("O.xs", "a", int, rule="ints")
    with pytest.raises(TypeError, match=r"^O\.xs\[1\] must be an int, got 'b'$"):
        check_items("O.xs", [1, "b"], int)

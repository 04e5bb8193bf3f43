"""Simulated time: labels are a pure function of minutes, and parse back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campus.kernel.clock import (
    DAY_START,
    TimeFormatError,
    date_label,
    day_of,
    day_start,
    label,
    parse_moment,
)


def test_origin_is_monday_midnight_of_week_zero() -> None:
    assert label(0) == "Week 0, Monday 00:00"
    assert label(DAY_START) == "Week 0, Monday 06:00"
    assert label(7 * 1440 + 2 * 1440 + 14 * 60 + 30) == "Week 1, Wednesday 14:30"


@given(st.integers(min_value=0, max_value=60 * 10080 - 1))
def test_labels_parse_back_to_the_same_minute(t: int) -> None:
    assert parse_moment(label(t)) == t
    assert parse_moment(date_label(day_of(t))) == day_of(t) * 1440


@pytest.mark.parametrize("text", ["week 3 tuesday 10:00", "Week 3, Tue, 10:00", "  Week 3,Tuesday 10:00 "])
def test_lenient_spelling(text: str) -> None:
    assert parse_moment(text) == parse_moment("Week 3, Tuesday 10:00")


@pytest.mark.parametrize("text", ["Week 3, Funday 10:00", "Week 3, Monday 25:00", "tomorrow", "Week -1, Monday"])
def test_bad_labels_say_how_to_write_them(text: str) -> None:
    with pytest.raises(TimeFormatError) as error:
        parse_moment(text)
    assert "Week" in str(error.value) or "day" in str(error.value) or "clock" in str(error.value)


def test_day_start_is_six_in_the_morning() -> None:
    assert day_start(8) == 8 * 1440 + 360


def test_long_hostile_labels_are_refused() -> None:
    for text in ["Week 1, Monday" + " " * 20_000 + "!", "Week 1" + ", " * 10_000]:
        with pytest.raises(TimeFormatError):
            parse_moment(text)

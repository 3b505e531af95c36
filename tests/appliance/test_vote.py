"""Combining the readings of still frames: a strict majority or a refusal."""

from __future__ import annotations

import pytest

from pi_reader.appliance.vote import DISAGREEMENT_MESSAGE, combine_readings
from pi_reader.vision.types import DieReading, Problem, ProblemKind, RollReading


def roll(**values: int) -> RollReading:
    dice = []
    for i, (name, value) in enumerate(values.items()):
        colour = "white" if name.startswith("white") else name
        dice.append(DieReading(colour, value, (10 * i, 0, 10, 10), (10.0 * i + 5, 5.0), 0.9))
    return RollReading(tuple(dice))


GOOD = roll(white1=3, white2=4, red=2, yellow=5, green=6, blue=1)
MISREAD = roll(white1=3, white2=4, red=2, yellow=5, green=6, blue=2)
COCKED = RollReading(GOOD.dice, (Problem(ProblemKind.COCKED_DIE, "red is cocked", "red"),))


def test_majority_wins_and_the_latest_matching_reading_is_returned() -> None:
    assert combine_readings([MISREAD, GOOD, GOOD]) is not MISREAD
    assert combine_readings([GOOD, MISREAD, GOOD]).roll.blue == 1


def test_a_problem_in_most_frames_is_reported() -> None:
    assert combine_readings([COCKED, GOOD, COCKED]).problems == COCKED.problems


def test_no_majority_is_a_doubtful_roll() -> None:
    combined = combine_readings([GOOD, MISREAD])
    assert not combined.ok
    assert [p.kind for p in combined.problems] == [ProblemKind.FRAMES_DISAGREE]
    assert combined.problems[0].message == DISAGREEMENT_MESSAGE
    assert not combine_readings([GOOD, MISREAD, COCKED]).ok


def test_one_reading_is_its_own_answer_and_none_is_an_error() -> None:
    assert combine_readings([GOOD]) is GOOD
    with pytest.raises(ValueError, match="at least one"):
        combine_readings([])

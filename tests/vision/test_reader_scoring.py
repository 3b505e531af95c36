"""Scoring readings against labels: matching, missed and phantom dice, rolls, confusion."""

from __future__ import annotations

import pytest

from pi_reader.vision.recorded import LabelledDie, LabelledFrame
from pi_reader.vision.scoring import Report, score_frame
from pi_reader.vision.types import DieReading, Problem, ProblemKind, RollReading, box_overlap


def label(colour, value, x, y):
    return LabelledDie(colour=colour, value=value, box=(x, y, 50, 50))


def die(colour, value, x, y):
    return DieReading(
        colour=colour,
        value=value,
        box=(x + 5, y + 5, 40, 40),
        centre=(x + 25, y + 25),
        confidence=0.9,
    )


def frame(*dice):
    return LabelledFrame(image="f.jpg", path=None, kind="roll", dice=tuple(dice))  # type: ignore[arg-type]


def test_right_wrong_missed_and_phantom_dice_are_told_apart():
    labels = frame(
        label("red", 4, 0, 0),
        label("blue", 2, 100, 0),
        label("white", 1, 200, 0),
        label(None, None, 300, 0),
    )
    reading = RollReading(
        dice=(
            die("red", 4, 0, 0),  # right
            die("blue", 3, 100, 0),  # wrong value
            die("green", 6, 300, 0),  # unlabelled colour and value: counts as right
            die("yellow", 5, 500, 500),  # phantom
        )
    )
    score = score_frame(labels, reading, 0.01)
    assert len(score.pairs) == 3
    assert [d.colour for d in score.missed] == ["white"]
    assert [d.colour for d in score.phantoms] == ["yellow"]
    assert len(score.wrong) == 1
    assert score.mistakes == 3 and not score.right


def test_nearest_centres_are_paired_one_to_one():
    labels = frame(label("white", 1, 0, 0), label("white", 2, 30, 0))
    reading = RollReading(dice=(die("white", 2, 30, 0), die("white", 1, 0, 0)))
    score = score_frame(labels, reading, 0.0)
    assert score.right


def test_the_report_sums_frames_and_builds_confusion_matrices():
    report = Report()
    labels = frame(label("red", 4, 0, 0), label("white", 6, 100, 0))
    report.add(
        score_frame(labels, RollReading(dice=(die("red", 4, 0, 0), die("white", 6, 100, 0))), 0.02)
    )
    report.add(
        score_frame(
            labels,
            RollReading(
                dice=(die("red", 5, 0, 0), die("yellow", 6, 100, 0)),
                problems=(Problem(ProblemKind.BLURRED, "blurred"),),
            ),
            0.04,
        )
    )
    summary = report.summary()
    assert summary["frames"] == 2
    assert summary["dice_right"] == 0.5
    assert summary["value_accuracy"] == 0.75
    assert summary["colour_accuracy"] == 0.75
    assert summary["rolls_right"] == 0.5
    assert summary["rolls_flagged"] == 0.5
    assert summary["problems"] == {"blurred": 1}
    assert summary["value_confusion"] == {"4": {"4": 1, "5": 1}, "6": {"6": 2}}
    assert summary["colour_confusion"]["white"] == {"white": 1, "yellow": 1}
    assert summary["mean_ms"] == 30.0
    assert summary["slowest"][0] == {"image": "f.jpg", "ms": 40.0}
    assert summary["worst"][0]["mistakes"] == 2


@pytest.mark.parametrize(("a", "b", "overlap"), [
    ((0, 0, 10, 10), (0, 0, 10, 10), 1.0),
    ((0, 0, 10, 10), (5, 0, 10, 10), 50 / 150),
    ((0, 0, 10, 10), (10, 0, 10, 10), 0.0),  # edges touching share no area
    ((0, 0, 0, 0), (0, 0, 0, 0), 0.0),  # empty boxes: no division by zero
])
def test_box_overlap_is_intersection_over_union(a, b, overlap):
    assert box_overlap(a, b) == pytest.approx(overlap)
    assert box_overlap(b, a) == pytest.approx(overlap)

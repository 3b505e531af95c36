"""Scoring readings against labels: matching, missed and phantom dice, rolls, confusion."""

from __future__ import annotations

import pytest

from pi_reader.rules.types import Colour
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


def test_colour_confusion_names_colours_plainly_whatever_type_the_reader_used():
    report = Report()
    labels = frame(label("red", 4, 0, 0))
    report.add(score_frame(labels, RollReading(dice=(die(Colour.RED, 4, 0, 0),)), 0.02))
    confusion = report.summary()["colour_confusion"]
    assert confusion == {"red": {"red": 1}}
    assert "Colour" not in str(confusion)


@pytest.mark.parametrize(("a", "b", "overlap"), [
    ((0, 0, 10, 10), (0, 0, 10, 10), 1.0),
    ((0, 0, 10, 10), (5, 0, 10, 10), 50 / 150),
    ((0, 0, 10, 10), (10, 0, 10, 10), 0.0),  # edges touching share no area
    ((0, 0, 0, 0), (0, 0, 0, 0), 0.0),  # empty boxes: no division by zero
])
def test_box_overlap_is_intersection_over_union(a, b, overlap):
    assert box_overlap(a, b) == pytest.approx(overlap)
    assert box_overlap(b, a) == pytest.approx(overlap)


def unreadable(colour, x, y, rendered=6):
    return LabelledDie(colour=colour, value=None, box=(x, y, 50, 50),
                       unreadable="washed out", rendered_value=rendered)


DECLINED = (Problem(ProblemKind.UNREADABLE_VALUE, "the value cannot be read"),)


def test_a_face_no_one_can_read_is_right_only_when_declined():
    labels = frame(label("white", 3, 0, 0), unreadable("red", 100, 0))
    read = (die("white", 3, 0, 0), die("red", None, 100, 0))
    declined = score_frame(labels, RollReading(dice=read, problems=DECLINED), 0.0)
    assert declined.right and declined.refused and not declined.silently_wrong
    # The rendered value, guessed without a problem, is luck: a misread and a silently wrong roll.
    lucky = score_frame(
        labels, RollReading(dice=(die("white", 3, 0, 0), die("red", 6, 100, 0))), 0.0
    )
    assert not lucky.right and lucky.silently_wrong
    report = Report(frames=[declined, lucky])
    s = report.summary()
    assert (s["unreadable_dice"], s["unreadable_declined"], s["unreadable_misread"]) == (2, 1, 1)
    assert s["misread_dice"] == 1 and s["declined_dice"] == 0
    # Unreadable faces are out of the value figures, in the colour figures.
    assert s["readable_dice"] == 2 and s["dice_right"] == 1.0 and s["value_accuracy"] == 1.0
    assert s["colour_accuracy"] == 1.0
    assert s["value_confusion"]["unreadable"] == {"None": 1, "6": 1}
    assert s["silently_wrong_rolls"] == 1 and s["silently_wrong"] == ["f.jpg"]
    assert s["worst"][0]["wrong"] == ["red (unreadable, rendered 6) read as red 6"]
    # Neither roll has every die readable, so neither counts in the refusal rate.
    assert s["fully_readable_rolls"] == 0 and s["refusal_rate"] is None


def test_silently_wrong_rolls_are_wrong_missed_or_invented_dice_with_no_problem():
    labels = frame(label("white", 3, 0, 0), label("red", 4, 100, 0))
    readings = {
        "right": RollReading(dice=(die("white", 3, 0, 0), die("red", 4, 100, 0))),
        "wrong value": RollReading(dice=(die("white", 3, 0, 0), die("red", 5, 100, 0))),
        "wrong colour": RollReading(dice=(die("white", 3, 0, 0), die("blue", 4, 100, 0))),
        "missed": RollReading(dice=(die("white", 3, 0, 0),)),
        "invented": RollReading(
            dice=(die("white", 3, 0, 0), die("red", 4, 100, 0), die("blue", 1, 300, 0))
        ),
        "wrong but refused": RollReading(
            dice=(die("white", 3, 0, 0), die("red", 5, 100, 0)), problems=DECLINED
        ),
        "right but refused": RollReading(
            dice=(die("white", 3, 0, 0), die("red", 4, 100, 0)), problems=DECLINED
        ),
    }
    scores = {name: score_frame(labels, r, 0.0) for name, r in readings.items()}
    silent = {name for name, score in scores.items() if score.silently_wrong}
    assert silent == {"wrong value", "wrong colour", "missed", "invented"}
    s = Report(frames=list(scores.values())).summary()
    assert s["silently_wrong_rolls"] == 4
    assert (s["fully_readable_rolls"], s["refused_readable_rolls"]) == (7, 2)
    assert s["refusal_rate"] == round(2 / 7, 4)
    assert s["rolls_right_and_trusted"] == round(1 / 7, 4)


def test_a_refused_calibration_refuses_its_rolls():
    labels = frame(label("white", 3, 0, 0))
    wrong = RollReading(dice=(die("white", 2, 0, 0),))
    score = score_frame(labels, wrong, 0.0, calibration_refused=True)
    assert score.refused and not score.silently_wrong


def test_an_appliance_roll_with_a_die_out_of_view_is_not_a_readable_roll():
    five = (label("white", 3, 0, 0), label("white", 1, 100, 0), label("red", 2, 200, 0),
            label("yellow", 4, 300, 0), label("green", 5, 400, 0))
    out_of_view = LabelledFrame(image="f.jpg", path=None, kind="roll", dice=five,  # type: ignore[arg-type]
                                dice_in_play=6)
    missing = RollReading(dice=tuple(die(d.colour, d.value, *d.box[:2]) for d in five),
                          problems=(Problem(ProblemKind.MISSING_DIE, "1 blue die missing"),))
    score = score_frame(out_of_view, missing, 0.0)
    assert score.refused and not score.silently_wrong and not score.fully_readable
    s = Report(frames=[score]).summary()
    assert (s["fully_readable_rolls"], s["refusal_rate"], s["silently_wrong_rolls"]) == (0, None, 0)
    all_in_view = score_frame(LabelledFrame(image="g.jpg", path=None, kind="roll",  # type: ignore[arg-type]
                                            dice=five, dice_in_play=5), missing, 0.0)
    assert all_in_view.fully_readable


def refusal_frame(*dice):
    return LabelledFrame(
        image="bright.jpg",
        path=None,  # type: ignore[arg-type]
        kind="roll",
        dice=tuple(dice),
        expect_refusal="clipped white",
    )


def test_a_frame_that_must_be_refused_counts_only_as_refused_or_not():
    labels = refusal_frame(label("white", 3, 0, 0), label("red", 4, 100, 0))
    accepted = score_frame(labels, RollReading(dice=(die("blue", 1, 300, 0),)), 0.0)
    refused = score_frame(
        labels, RollReading(dice=(die("white", 3, 0, 0),), problems=DECLINED), 0.0
    )
    calibration_refused = score_frame(labels, RollReading(dice=()), 0.0, calibration_refused=True)
    assert not accepted.right and refused.right and calibration_refused.right
    s = Report(frames=[accepted, refused, calibration_refused]).summary()
    assert (s["frames"], s["scored_frames"], s["labelled_dice"], s["phantoms"]) == (3, 0, 0, 0)
    assert s["missed"] == 0 and s["dice_right"] is None and s["rolls_right"] is None
    assert (s["expect_refusal_rolls"], s["expect_refusal_refused"]) == (3, 2)
    assert s["expect_refusal_accepted"] == ["bright.jpg"]
    assert s["silently_wrong_rolls"] == 0 and s["worst"] == []


def test_a_declined_readable_die_is_described_without_a_none():
    labels = frame(label("blue", 2, 0, 0))
    score = score_frame(labels, RollReading(dice=(die("blue", None, 0, 0),), problems=DECLINED), 0)
    s = Report(frames=[score]).summary()
    assert s["worst"][0]["wrong"] == ["blue 2 read as blue, no value"]
    assert s["declined_dice"] == 1 and s["misread_dice"] == 0

"""The reader's own logic over real renders, with the dice found where the labels say.

The finder and pips reader are doubles here (see reader_doubles), so these tests check colour
naming, counting against the roll's rules, removed dice and confidence; the end-to-end tests
with the real stages are in test_reader_problems.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pi_reader.vision import locate
from pi_reader.vision.calibration import calibrate
from pi_reader.vision.reader import read_roll
from pi_reader.vision.stages import face_box
from pi_reader.vision.types import ProblemKind

from .reader_doubles import FakeFace, candidate_from_label, label_stages
from .reader_frames import labelled, pixels

SET = "qwixx-rendered"


@pytest.fixture(scope="module")
def s05(datasets_dir):
    frame = labelled(datasets_dir, SET, "s05/calibration.jpg")
    return calibrate(pixels(frame), label_stages(frame.dice))


def read(datasets_dir, image, calibration, removed=(), dice=None, **kw):
    frame = labelled(datasets_dir, SET, image)
    dice = frame.dice if dice is None else dice
    return frame, read_roll(pixels(frame), calibration, removed, stages=label_stages(dice, **kw))


def test_a_calibrated_roll_is_read_with_colours_white_sum_and_confidence(datasets_dir, s05):
    frame, reading = read(datasets_dir, "s05/roll_001.jpg", s05)
    assert reading.ok, reading.problems
    assert [d.colour for d in reading.dice] == [d.colour for d in frame.dice]
    whites = [d.value for d in frame.dice if d.colour == "white"]
    assert reading.white_sum == sum(whites)
    assert set(reading.roll.to_dict()) == {"white1", "white2", "red", "yellow", "green", "blue"}
    assert all(0 < d.confidence <= 1 for d in reading.dice)
    assert all(isinstance(v, int) for v in reading.dice[0].box)


def test_a_missing_die_is_named(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    without_green = [d for d in frame.dice if d.colour != "green"]
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, dice=without_green)
    assert [(p.kind, p.colour) for p in reading.problems] == [(ProblemKind.MISSING_DIE, "green")]
    assert not reading.ok
    with pytest.raises(ValueError, match="problems"):
        reading.roll  # noqa: B018 (the property raises)


def test_a_removed_die_may_be_absent_but_not_present(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    without_red = [d for d in frame.dice if d.colour != "red"]
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, removed=("red",), dice=without_red)
    assert reading.ok
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, removed=("red",))
    assert [(p.kind, p.colour) for p in reading.problems] == [
        (ProblemKind.REMOVED_DIE_PRESENT, "red")
    ]


def test_a_cocked_die_is_reported(datasets_dir, s05):
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, cocked=3)
    assert [p.kind for p in reading.problems] == [ProblemKind.COCKED_DIE]


def test_generic_mode_names_six_qwixx_dice_and_checks_no_counts(datasets_dir):
    frame, reading = read(datasets_dir, "s00/roll_001.jpg", None)
    assert [d.colour for d in reading.dice] == [d.colour for d in frame.dice]
    _, reading = read(datasets_dir, "s00/roll_001.jpg", None, dice=frame.dice[:3])
    assert reading.ok


def test_bad_arguments_are_refused(s05):
    with pytest.raises(ValueError, match="8-bit BGR"):
        read_roll(np.zeros((100, 100), np.uint8), s05)
    with pytest.raises(ValueError, match="removed dice"):
        read_roll(np.zeros((100, 100, 3), np.uint8), s05, removed=("white",))


def test_a_face_unread_with_the_calibration_hints_is_read_again_without_them(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    stages = label_stages(frame.dice)
    calls = []

    def hint_sensitive(image, box, *, polarity=None, die_side_px=None):
        calls.append((polarity, die_side_px))
        if die_side_px is not None:
            return FakeFace(None, 0.1, polarity or "dark")
        return stages.read_face(image, box)

    reading = read_roll(pixels(frame), s05, stages=replace(stages, read_face=hint_sensitive))
    assert reading.ok
    assert [d.value for d in reading.dice] == [d.value for d in frame.dice]
    assert len(calls) == 2 * len(frame.dice)


def test_a_second_read_that_contradicts_the_first_is_not_taken(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    stages = label_stages(frame.dice)

    def contradicting(image, box, *, polarity=None, die_side_px=None):
        if die_side_px is not None:
            return FakeFace(6, 0.3, "dark")  # a weak 6 with the hints...
        return FakeFace(2, 0.9, "dark")  # ...and a strong 2 without: neither is trusted

    reading = read_roll(pixels(frame), s05, stages=replace(stages, read_face=contradicting))
    assert {p.kind for p in reading.problems} == {ProblemKind.UNREADABLE_VALUE}


@pytest.mark.parametrize(("confidence", "kept"), [(0.97, True), (0.7, False)])
def test_an_unconfirmed_die_counts_only_when_its_face_reads_clearly(datasets_dir, confidence,
                                                                    kept):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    labels = label_stages(frame.dice[1:])
    unconfirmed = replace(candidate_from_label(frame.dice[0]), confirmed=False)
    found = [*labels.find_dice(None), unconfirmed]
    stages = replace(
        _with_face(labels, unconfirmed, FakeFace(frame.dice[0].value, confidence, "dark")),
        find_dice=lambda frame, scene=None, expected=None: found,
    )
    reading = read_roll(pixels(frame), None, stages=stages)
    assert len(reading.dice) == len(frame.dice) - (0 if kept else 1)


@pytest.mark.parametrize("readable", [True, False])
def test_with_a_calibration_a_die_only_the_detector_found_counts_if_its_face_reads(
    datasets_dir, s05, readable
):
    # A die the colour of the tray: the tray model misses it, the learnt detector finds it.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    labels = label_stages(frame.dice[1:])
    unconfirmed = replace(candidate_from_label(frame.dice[0]), confirmed=False)
    asked = []

    def find_dice(image, scene=None, *, apart=False, expected=None):
        asked.append(expected)
        return [*labels.find_dice(None), unconfirmed]

    face = FakeFace(frame.dice[0].value if readable else None, 0.7 if readable else 0.4, "dark")
    stages = replace(_with_face(labels, unconfirmed, face), find_dice=find_dice)
    reading = read_roll(pixels(frame), s05, ["blue"], stages=stages)
    assert asked == [5]  # two whites and the coloured dice still in play
    assert len(reading.dice) == len(frame.dice) - (0 if readable else 1)
    missing = ProblemKind.MISSING_DIE in {p.kind for p in reading.problems}
    assert missing != readable


def _with_face(stages, candidate, face):
    """The stages, with ``face`` read wherever ``candidate`` lies."""

    def read_face(image, box, **hints):
        if box == face_box(candidate):
            return face
        return stages.read_face(image, box, **hints)

    return replace(stages, read_face=read_face)


def test_without_a_calibration_a_candidate_with_no_face_at_all_is_not_a_die(datasets_dir):
    # A screw head or a printed disc found by the learnt finder: the pips reader sees no top face.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    labels = label_stages(frame.dice)
    first = candidate_from_label(frame.dice[0])
    stages = _with_face(labels, first, FakeFace(None, 0.1, "dark", no_face=True))
    reading = read_roll(pixels(frame), None, stages=stages)
    assert len(reading.dice) == len(frame.dice) - 1
    assert not any(p.kind == ProblemKind.UNREADABLE_VALUE for p in reading.problems)


def test_with_a_calibration_a_die_with_no_face_read_is_an_unreadable_die(datasets_dir, s05):
    # The calibration counts the dice: a die whose face the reader cannot see is still a die.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    labels = label_stages(frame.dice)
    first = candidate_from_label(frame.dice[0])
    stages = _with_face(labels, first, FakeFace(None, 0.1, "dark", no_face=True))
    reading = read_roll(pixels(frame), s05, stages=stages)
    assert len(reading.dice) == len(frame.dice)
    assert [p.kind for p in reading.problems] == [ProblemKind.UNREADABLE_VALUE]


# A die of s05/roll_001 whose face the lamp leaves unclipped (the other white die's is 16 %
# clipped white in the middle).
UNCLIPPED = 1


def _face_off_its_box(frame, shift, confidence=0.9):
    """Stages finding ``frame``'s labelled dice, where die UNCLIPPED's face cannot be read from its
    box but the pips reader finds its middle ``shift`` of the box's width to the right, and reads
    its labelled value from a box moved there, ``confidence`` sure. Records the boxes read."""
    stages = label_stages(frame.dice)
    candidate = candidate_from_label(frame.dice[UNCLIPPED])
    x, y, w, h = face_box(candidate)
    middle = (x + w / 2 + shift * w, y + h / 2)
    asked = []

    def read_face(image, box, **hints):
        asked.append(tuple(box))
        if box == face_box(candidate):
            return FakeFace(None, 0.4, "dark", face_centre=middle)
        if box == (middle[0] - w / 2, middle[1] - h / 2, w, h):
            return FakeFace(frame.dice[UNCLIPPED].value, confidence, "dark")
        return stages.read_face(image, box, **hints)

    return replace(stages, read_face=read_face), asked


@pytest.mark.parametrize("calibrated", [True, False])
def test_an_unread_face_is_read_again_from_its_box_moved_onto_the_face(
    datasets_dir, s05, calibrated
):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    stages, asked = _face_off_its_box(frame, 0.25)
    reading = read_roll(pixels(frame), s05 if calibrated else None, stages=stages)
    assert [d.value for d in reading.dice] == [d.value for d in frame.dice]
    assert not reading.problems
    assert len(asked) == len(frame.dice) + (2 if calibrated else 1)  # + without hints, + moved


def test_a_second_look_must_be_surer_than_a_first(datasets_dir):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    stages, _ = _face_off_its_box(frame, 0.25, confidence=0.7)  # would do for a first look
    reading = read_roll(pixels(frame), None, stages=stages)
    assert reading.dice[UNCLIPPED].value is None
    assert [p.kind for p in reading.problems] == [ProblemKind.UNREADABLE_VALUE]


def test_a_face_partly_clipped_white_is_not_read_again_from_a_moved_box(datasets_dir):
    # The lamp took its pips, not the box: a second look would only cost time.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    stages, asked = _face_off_its_box(frame, 0.25)
    image = pixels(frame)
    x, y, w, h = (round(v) for v in frame.dice[UNCLIPPED].box)
    image[y + h // 4 : y + h // 2, x + w // 4 : x + 3 * w // 4] = 255  # half its middle blown
    reading = read_roll(image, None, stages=stages)
    assert reading.dice[UNCLIPPED].value is None
    assert len(asked) == len(frame.dice)


def test_a_face_whose_middle_is_in_its_box_is_not_read_again(datasets_dir):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    stages, asked = _face_off_its_box(frame, 0.02)
    reading = read_roll(pixels(frame), None, stages=stages)
    assert reading.dice[UNCLIPPED].value is None
    assert len(asked) == len(frame.dice)


def test_a_real_die_under_an_off_centre_box_is_read(datasets_dir, monkeypatch):
    """A photo neither network trained on: the box the detector gives this marbled five from its
    look at the whole frame (its heap not looked at again closer) lies a fifth of a die off its
    top face, and the classifier alone is unsure there (0.33)."""
    monkeypatch.setattr(locate, "_heaps_seen_closer", lambda frame, found, die_side: found)
    frame = labelled(datasets_dir, "real-d6-overhead", "images/IMG_20191208_111423.jpg")
    reading = read_roll(pixels(frame), None)
    five = next(d for d in reading.dice if abs(d.centre[0] - 2329) < 40
                and abs(d.centre[1] - 557) < 40)
    assert five.value == 5


def test_two_white_dice_lying_against_each_other_are_both_read(datasets_dir):
    """-more s05 (held out from both networks): two white threes touching, beside a red die, on a
    red tray; cut apart by the tray model alone, each box took in half the other die and both
    faces were declined (0.39 and 0.50), so the roll was refused."""
    calibration = calibrate(pixels(labelled(datasets_dir, "qwixx-rendered-more",
                                            "s05/calibration.jpg")))
    frame = labelled(datasets_dir, "qwixx-rendered-more", "s05/roll_004.jpg")
    reading = read_roll(pixels(frame), calibration, frame.removed)
    assert [d.value for d in reading.dice if d.colour == "white"] == [3, 3]
    assert reading.white_sum == 6


def _moved_by_a_closer_look(frame, confidence, first_value):
    """Stages finding ``frame``'s labelled dice, die UNCLIPPED with a ``first_box`` (the box a
    closer look moved it from) 8 px to its left: its labelled value is read ``confidence`` sure,
    and ``first_value`` in the first box. Records the boxes read."""
    stages = label_stages(frame.dice)
    moved = candidate_from_label(frame.dice[UNCLIPPED])
    x, y, w, h = moved.box
    moved = replace(moved, first_box=(x - 8, y, w, h))
    candidates = list(stages.find_dice(None))
    candidates[UNCLIPPED] = moved
    asked = []

    def read_face(image, box, **hints):
        asked.append(tuple(box))
        if box == moved.first_box:
            return FakeFace(first_value, 0.7 if first_value else 0.3, "dark")
        if box == face_box(moved):
            return FakeFace(frame.dice[UNCLIPPED].value, confidence, "dark")
        return stages.read_face(image, box, **hints)

    def find_dice(frame, scene=None, **kw):
        return list(candidates)

    return replace(stages, find_dice=find_dice, read_face=read_face), moved, asked


@pytest.mark.parametrize("calibrated", [True, False])
def test_a_moved_die_read_unsurely_is_refused_when_its_first_box_reads_another_value(
    datasets_dir, s05, calibrated
):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    other = frame.dice[UNCLIPPED].value % 6 + 1
    stages, _, _ = _moved_by_a_closer_look(frame, 0.7, other)
    reading = read_roll(pixels(frame), s05 if calibrated else None, stages=stages)
    assert reading.dice[UNCLIPPED].value is None
    assert [p.kind for p in reading.problems] == [ProblemKind.UNREADABLE_VALUE]


@pytest.mark.parametrize(("confidence", "first_value", "checked"), [
    (0.7, None, True),  # the first box cannot read it: no doubt raised
    (0.7, "same", True),  # both boxes agree
    (0.95, "other", False),  # sure in the moved box: the first is not asked
])
def test_a_moved_die_keeps_its_value_unless_its_first_box_reads_another(
    datasets_dir, s05, confidence, first_value, checked
):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    value = frame.dice[UNCLIPPED].value
    first = {None: None, "same": value, "other": value % 6 + 1}[first_value]
    stages, moved, asked = _moved_by_a_closer_look(frame, confidence, first)
    reading = read_roll(pixels(frame), s05, stages=stages)
    assert reading.dice[UNCLIPPED].value == value
    assert (moved.first_box in asked) == checked


def test_dice_half_hidden_in_a_real_heap_are_found_and_read(datasets_dir):
    """A photo neither network trained on: a translucent two and a white five lie half under
    other dice of a heap. The detector's look at the whole photo missed both; its closer look at
    the heap finds them, and their faces read."""
    frame = labelled(datasets_dir, "real-d6-overhead", "images/IMG_20191208_111642.jpg")
    reading = read_roll(pixels(frame), None)
    for value, (cx, cy) in ((2, (1530, 1568)), (5, (1042, 1828))):
        die = next(d for d in reading.dice if abs(d.centre[0] - cx) < 60
                   and abs(d.centre[1] - cy) < 60)
        assert die.value == value

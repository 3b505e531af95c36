"""The reader's own logic over real renders, with the dice found where the labels say.

The detector and the face classifier are doubles here (see reader_doubles), so these tests check
colour naming, the refusal of unsure faces, counting against the roll's rules, removed dice and
confidence; the tests with the real networks are in test_reader_problems.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pi_reader.vision import finding, reader
from pi_reader.vision.faces import FaceReading
from pi_reader.vision.finding import trusted_value
from pi_reader.vision.reader import read_roll
from pi_reader.vision.types import ProblemKind, int_box

from .reader_doubles import NOT_A_DIE, label_calibration, label_stages, sure
from .reader_frames import labelled, pixels

SET = "qwixx-rendered"


@pytest.fixture(scope="module")
def s05(datasets_dir):
    frame = labelled(datasets_dir, SET, "s05/calibration.jpg")
    return label_calibration(frame, pixels(frame))


def read(datasets_dir, image, calibration, removed=(), dice=None, **kw):
    frame = labelled(datasets_dir, SET, image)
    dice = frame.dice if dice is None else dice
    return frame, read_roll(pixels(frame), calibration, removed, stages=label_stages(dice, **kw))


def test_a_calibrated_roll_is_read_with_colours_white_sum_and_confidence(datasets_dir, s05):
    frame, reading = read(datasets_dir, "s05/roll_001.jpg", s05)
    assert reading.ok, reading.problems
    assert sorted((d.colour, d.value) for d in reading.dice) == sorted(
        (d.colour, d.value) for d in frame.dice)
    whites = [d.value for d in frame.dice if d.colour == "white"]
    assert reading.white_sum == sum(whites)
    assert all(0.5 < d.confidence <= 1.0 for d in reading.dice)


def test_a_missing_die_is_named(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05,
                      dice=[d for d in frame.dice if d.colour != "green"])
    assert [(p.kind, p.colour) for p in reading.problems] == [
        (ProblemKind.MISSING_DIE, "green")]


def test_a_removed_die_may_be_absent_but_not_present(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    without_red = [d for d in frame.dice if d.colour != "red"]
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, removed=("red",), dice=without_red)
    assert reading.ok
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, removed=("red",))
    assert [(p.kind, p.colour) for p in reading.problems] == [
        (ProblemKind.REMOVED_DIE_PRESENT, "red")
    ]


def test_what_the_classifier_says_is_no_die_is_left_out(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05,
                      extra=[((20.0, 20.0, 50.0, 50.0), NOT_A_DIE)])
    assert reading.ok
    assert len(reading.dice) == len(frame.dice)


def test_a_die_nobody_can_read_refuses_the_roll_and_is_named(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    red = next(i for i, d in enumerate(frame.dice) if d.colour == "red")
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, faces={red: sure(None)})
    assert [(p.kind, p.colour) for p in reading.problems] == [
        (ProblemKind.UNREADABLE_VALUE, "red")]
    assert next(d for d in reading.dice if d.colour == "red").value is None


@pytest.mark.parametrize(
    ("face", "trusted"),
    [
        (FaceReading(4, 0.97, 0.93, True), True),
        (FaceReading(4, finding.MIN_VALUE_CONFIDENCE - 0.01, 0.9, True), False),
        (FaceReading(4, 0.97, finding.MIN_VIEW_AGREEMENT - 0.01, True), False),
        (FaceReading(4, finding.MIN_VALUE_CONFIDENCE, finding.MIN_VIEW_AGREEMENT, True), True),
    ],
)
def test_a_value_is_trusted_only_when_sure_from_every_turn(face, trusted):
    assert trusted_value(face, calibrated=True) == (4 if trusted else None)


def test_an_unsure_value_refuses_the_roll(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    unsure = FaceReading(frame.dice[0].value, finding.MIN_VALUE_CONFIDENCE - 0.05, 0.7, True)
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, faces={0: unsure})
    assert [p.kind for p in reading.problems] == [ProblemKind.UNREADABLE_VALUE]
    assert reading.white_sum is None or frame.dice[0].colour != "white"


def test_an_unreadable_die_much_larger_than_the_calibrated_one_is_cocked(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    x, y, w, h = frame.dice[2].box
    grow = reader.COCKED_SIDE * s05.die_side_px / np.sqrt(w * h)
    leaning = type(frame.dice[2])(frame.dice[2].colour, None, (x, y, w * grow, h * grow))
    dice = [*frame.dice[:2], leaning, *frame.dice[3:]]
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, dice=dice)
    assert [p.kind for p in reading.problems] == [ProblemKind.COCKED_DIE]
    smaller = type(leaning)(leaning.colour, None, (x, y, w * grow * 0.9, h * grow * 0.9))
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05,
                      dice=[*frame.dice[:2], smaller, *frame.dice[3:]])
    assert [p.kind for p in reading.problems] == [ProblemKind.UNREADABLE_VALUE]


def read_cut(datasets_dir, share, calibrated=True):
    """s05's first roll with the frame's bottom cropped (the calibration frame's too) so that
    the lower white die reaches ``share`` of its side past the edge."""
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    die = next(k for k, d in enumerate(frame.dice) if d.box[1] > 570)
    _, y, _, h = frame.dice[die].box
    bottom = round(y + h * (1.0 - share))
    cal_frame = labelled(datasets_dir, SET, "s05/calibration.jpg")
    calibration = label_calibration(cal_frame, np.ascontiguousarray(pixels(cal_frame)[:bottom]))
    image = np.ascontiguousarray(pixels(frame)[:bottom])
    reading = read_roll(image, calibration if calibrated else None,
                        stages=label_stages(frame.dice))
    return frame.dice[die], reading


def test_a_die_the_frame_edge_cuts_is_refused_with_a_calibration(datasets_dir):
    die, reading = read_cut(datasets_dir, 0.3)
    assert [(p.kind, p.colour) for p in reading.problems] == [
        (ProblemKind.UNREADABLE_VALUE, "white")]
    assert "outside the picture" in reading.problems[0].message
    assert all(d.value is None for d in reading.dice if d.box == int_box(die.box))
    _, reading = read_cut(datasets_dir, 0.3, calibrated=False)
    assert reading.ok, reading.problems


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


def test_a_frame_of_another_size_is_one_problem_before_any_die_is_looked_for(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    image = np.ascontiguousarray(pixels(frame)[: 700, : 1000])

    def no_finder(*_args, **_kw):
        raise AssertionError("the finder must not be asked")

    stages = label_stages(frame.dice)
    reading = read_roll(image, s05, stages=replace(stages, find_dice=no_finder))
    assert [p.kind for p in reading.problems] == [ProblemKind.CALIBRATION_MISMATCH]


def test_of_a_box_inside_another_the_unread_small_one_is_a_part_of_the_die(datasets_dir, s05):
    # A close-up's pip taken for a die: inside a die, a fifth of its size, no face read.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    x, y, w, h = frame.dice[0].box
    pip = ((x + w / 2 - w / 10, y + h / 2 - h / 10, w / 5, h / 5), sure(None))
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, extra=[pip])
    assert reading.ok and len(reading.dice) == len(frame.dice)


def test_of_a_box_inside_another_the_large_one_round_surely_read_dice_is_a_heap(
        datasets_dir, s05):
    # A box round a whole heap, seen from far, that the classifier took for a die: the dice
    # inside it are read surely, so it is no die.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    x, y, w, h = frame.dice[0].box
    heap = ((x - 1.5 * w, y - 1.5 * h, 4 * w, 4 * h), sure(None))
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, extra=[heap])
    assert reading.ok and len(reading.dice) == len(frame.dice)


def test_of_a_box_inside_another_a_one_inside_a_surely_read_die_is_its_pip(datasets_dir, s05):
    # A close-up's pip looks exactly like a die showing one, and the classifier may say so
    # surely: inside a die read surely, it is that die's pip, not a die.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    x, y, w, h = frame.dice[0].box
    pip = ((x + w / 2 - w / 10, y + h / 2 - h / 10, w / 5, h / 5), sure(1))
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, extra=[pip])
    assert reading.ok and sorted(d.value for d in reading.dice) == sorted(
        d.value for d in frame.dice)


def test_of_a_box_inside_another_a_one_inside_an_unsure_box_is_a_die_of_a_heap(
        datasets_dir, s05):
    # A die showing one inside a heap's box that is read as no value surely: the heap goes.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    x, y, w, h = frame.dice[0].box
    dice = [type(d)(d.colour, 1 if k == 0 else d.value, d.box) for k, d in enumerate(frame.dice)]
    heap = ((x - 1.5 * w, y - 1.5 * h, 4 * w, 4 * h), FaceReading(4, 0.55, 0.4, True))
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, dice=dice, extra=[heap])
    assert reading.ok and len(reading.dice) == len(frame.dice)
    assert 1 in [d.value for d in reading.dice]


def closer_finding_stages(frame, s05, first_look, closer_look):
    """Stages that find ``first_look`` at the calibrated die size and ``closer_look`` when asked
    for smaller dice (a closer look); every labelled die is read surely. Records each ask."""
    stages = label_stages(frame.dice)
    asked: list[float | None] = []

    def find_dice(image, die_side_px=None):
        asked.append(die_side_px)
        dice = first_look if die_side_px == s05.die_side_px else closer_look
        return [d for d in stages.find_dice(image, die_side_px) if d.box in
                {label.box for label in dice}]

    return replace(stages, find_dice=find_dice), asked


def test_a_roll_short_of_a_die_is_looked_at_closer_and_taken_when_that_reads_whole(
        datasets_dir, s05):
    # Two dice pressed together that the first look took for one: the closer look finds both.
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    pressed = [d for d in frame.dice if d.colour != "green"]
    stages, asked = closer_finding_stages(frame, s05, pressed, frame.dice)
    reading = read_roll(pixels(frame), s05, stages=stages)
    assert reading.ok, reading.problems
    assert asked == [s05.die_side_px, pytest.approx(s05.die_side_px / reader.CLOSER_LOOK)]
    assert sorted((d.colour, d.value) for d in reading.dice) == sorted(
        (d.colour, d.value) for d in frame.dice)


def test_a_closer_look_that_does_not_read_whole_leaves_the_first_reading(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    stages, asked = closer_finding_stages(frame, s05, frame.dice[1:], frame.dice[2:])
    reading = read_roll(pixels(frame), s05, stages=stages)
    assert len(asked) == 2
    assert [p.kind for p in reading.problems] == [ProblemKind.MISSING_DIE]
    assert len(reading.dice) == len(frame.dice) - 1


def test_only_a_roll_refused_for_missing_dice_alone_is_looked_at_closer(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    whole = closer_finding_stages(frame, s05, frame.dice, frame.dice)
    assert read_roll(pixels(frame), s05, stages=whole[0]).ok and len(whole[1]) == 1
    # A die unread as well as one missing: the roll is refused for the unread die anyway.
    stages, asked = closer_finding_stages(frame, s05, frame.dice[1:], frame.dice)
    unread = replace(stages, read_faces=lambda image, boxes: [
        sure(None) if k == 0 else face
        for k, face in enumerate(label_stages(frame.dice).read_faces(image, boxes))])
    reading = read_roll(pixels(frame), s05, stages=unread)
    assert len(asked) == 1 and not reading.ok


def side_face_box(box, share):
    """A box beside ``box`` (a die's side face seen at a slant) sharing ``share`` of it."""
    x, y, w, h = box
    return (x + w * (1.0 - share), y, w, h)


def test_without_a_calibration_a_die_found_twice_is_one_die(datasets_dir):
    # A die seen at a slant: a weaker peak on its side face, its box over most of the die's.
    frame = labelled(datasets_dir, SET, "s00/roll_001.jpg")
    twice = (side_face_box(frame.dice[0].box, 0.7), sure(frame.dice[0].value))
    _, reading = read(datasets_dir, "s00/roll_001.jpg", None, extra=[twice])
    assert len(reading.dice) == len(frame.dice)
    assert [d.box for d in reading.dice] == [
        tuple(round(v) for v in d.box) for d in frame.dice]


def test_a_calibrated_read_counts_a_die_found_twice_instead(datasets_dir, s05):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    twice = (side_face_box(frame.dice[0].box, 0.7), sure(frame.dice[0].value))
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05, extra=[twice])
    assert not reading.ok and len(reading.dice) == len(frame.dice) + 1


@pytest.mark.parametrize("calibrated", [True, False])
def test_a_doubtful_die_is_read_from_its_top_face_warped_square(datasets_dir, s05, calibrated):
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    doubtful = FaceReading(frame.dice[0].value, 0.6, 0.5, True)
    top_face = sure(frame.dice[0].value)
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05 if calibrated else None,
                      faces={0: doubtful}, top_faces={0: top_face})
    assert reading.ok, reading.problems
    assert next(d for d in reading.dice if d.box == int_box(frame.dice[0].box)).value == (
        frame.dice[0].value)


@pytest.mark.parametrize("top_face", [None, FaceReading(3, 0.6, 0.5, True), sure(None)])
def test_a_top_face_that_is_not_read_surely_leaves_the_die_refused(datasets_dir, top_face):
    _, reading = read(datasets_dir, "s05/roll_001.jpg", None,
                      faces={0: FaceReading(3, 0.6, 0.5, True)},
                      top_faces={} if top_face is None else {0: top_face})
    assert [p.kind for p in reading.problems] == [ProblemKind.UNREADABLE_VALUE]


def test_the_top_face_of_a_leaning_die_is_not_read(datasets_dir):
    # Warped square, a cocked die's top face looks like a flat one's: its lean is what refuses it.
    _, reading = read(datasets_dir, "s05/roll_001.jpg", None,
                      faces={0: FaceReading(3, 0.6, 0.5, True)}, top_faces={0: sure(3)},
                      leans={0: reader.GENERIC_COCKED_LEAN_DEG + 1})
    assert [p.kind for p in reading.problems] == [ProblemKind.COCKED_DIE]


@pytest.mark.parametrize("calibrated", [True, False])
def test_each_mode_reads_top_faces_only_when_its_switch_says(datasets_dir, s05, monkeypatch,
                                                              calibrated):
    monkeypatch.setitem(reader.READ_TOP_FACES, calibrated, False)
    frame = labelled(datasets_dir, SET, "s05/roll_001.jpg")
    _, reading = read(datasets_dir, "s05/roll_001.jpg", s05 if calibrated else None,
                      faces={0: FaceReading(frame.dice[0].value, 0.6, 0.5, True)},
                      top_faces={0: sure(frame.dice[0].value)})
    assert [p.kind for p in reading.problems] == [ProblemKind.UNREADABLE_VALUE]

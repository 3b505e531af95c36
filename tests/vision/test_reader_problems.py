"""Every problem the reader reports, provoked from a rendered frame with the real stages.

Frames are edited at test time (a die painted out, a die pasted again, a die stretched into a
leaning one, pips painted over, the whole frame darkened, brightened or blurred), so no image is
committed and the edits show exactly which situation each test stands for.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pi_reader.vision.calibration import calibrate
from pi_reader.vision.reader import read_roll
from pi_reader.vision.types import ProblemKind

from .reader_frames import labelled, pixels

SET = "qwixx-rendered"
ROLL = "s00/roll_001.jpg"


@pytest.fixture(scope="module")
def s00(datasets_dir):
    return calibrate(pixels(labelled(datasets_dir, SET, "s00/calibration.jpg")))


@pytest.fixture
def roll(datasets_dir):
    return labelled(datasets_dir, SET, ROLL)


def box_of(roll, colour, index=0):
    dice = [d for d in roll.dice if d.colour == colour]
    return tuple(round(v) for v in dice[index].box)


def grown(box, by):
    x, y, w, h = box
    return (x - by, y - by, w + 2 * by, h + 2 * by)


def paint_out(image, box):
    """The tray painted over the die (and its shadow), from the tray around it."""
    mask = np.zeros(image.shape[:2], np.uint8)
    x, y, w, h = grown(box, max(box[2], box[3]) // 4)
    mask[max(0, y) : y + h, max(0, x) : x + w] = 255
    return cv2.inpaint(image, mask, 5, cv2.INPAINT_TELEA)


def free_spot(roll, size, image_shape):
    """A place on the tray a die-sized patch can go without touching any die."""
    height, width = image_shape[:2]
    for y in range(40, height - size[1] - 40, 25):
        for x in range(40, width - size[0] - 40, 25):
            clear = all(
                x + size[0] + 30 < d.box[0]
                or d.box[0] + d.box[2] + 30 < x
                or y + size[1] + 30 < d.box[1]
                or d.box[1] + d.box[3] + 30 < y
                for d in roll.dice
            )
            if clear:
                return x, y
    raise AssertionError("no free spot on the tray")


def paste_copy(image, roll, box, stretch=1.0):
    x, y, w, h = grown(box, max(box[2], box[3]) // 5)
    patch = image[y : y + h, x : x + w]
    if stretch != 1.0:
        patch = cv2.resize(patch, None, fx=stretch, fy=1.0, interpolation=cv2.INTER_LINEAR)
    px, py = free_spot(roll, (patch.shape[1], patch.shape[0]), image.shape)
    edited = image.copy()
    edited[py : py + patch.shape[0], px : px + patch.shape[1]] = patch
    return edited


def kinds(reading):
    return {(p.kind, p.colour) for p in reading.problems}


def test_the_unedited_roll_shows_none_of_the_problems_provoked_below(roll, s00):
    # Whether every face is read is the pips reader's accuracy, measured by the benchmarks.
    reading = read_roll(pixels(roll), s00)
    assert {k for k, _ in kinds(reading)} <= {ProblemKind.UNREADABLE_VALUE}, reading.problems
    assert sorted(d.colour for d in reading.dice) == sorted(d.colour for d in roll.dice)


def test_a_die_painted_out_is_missing(roll, s00):
    reading = read_roll(paint_out(pixels(roll), box_of(roll, "green")), s00)
    assert (ProblemKind.MISSING_DIE, "green") in kinds(reading)
    assert reading.white_sum is not None  # the whites are still read


def test_a_white_die_painted_out_leaves_no_white_sum(roll, s00):
    reading = read_roll(paint_out(pixels(roll), box_of(roll, "white")), s00)
    assert (ProblemKind.MISSING_DIE, "white") in kinds(reading)
    assert reading.white_sum is None


def test_a_coloured_die_pasted_twice_is_a_duplicate(roll, s00):
    image = pixels(roll)
    reading = read_roll(paste_copy(image, roll, box_of(roll, "red")), s00)
    assert (ProblemKind.DUPLICATE_COLOUR, "red") in kinds(reading)


def test_a_third_white_die_is_an_extra_die(roll, s00):
    image = pixels(roll)
    reading = read_roll(paste_copy(image, roll, box_of(roll, "white")), s00)
    assert (ProblemKind.EXTRA_DIE, "white") in kinds(reading)
    assert reading.white_sum is None


def test_a_removed_die_still_in_the_tray_is_named(roll, s00):
    reading = read_roll(pixels(roll), s00, removed=("blue",))
    assert (ProblemKind.REMOVED_DIE_PRESENT, "blue") in kinds(reading)
    assert ProblemKind.MISSING_DIE not in {k for k, _ in kinds(reading)}


def test_a_removed_die_taken_out_is_no_problem(roll, s00):
    reading = read_roll(paint_out(pixels(roll), box_of(roll, "blue")), s00, removed=("blue",))
    assert ProblemKind.MISSING_DIE not in {k for k, _ in kinds(reading)}
    assert ProblemKind.REMOVED_DIE_PRESENT not in {k for k, _ in kinds(reading)}


def test_a_face_with_its_pips_painted_over_is_unreadable(roll, s00):
    image = pixels(roll)
    x, y, w, h = box_of(roll, "white", 1)
    face = image[y : y + h, x : x + w]
    bright = np.percentile(face.reshape(-1, 3), 90, axis=0)
    # Cover the middle of the face with its own colour: the pips vanish, the die stays.
    cx, cy = x + w // 2, y + h // 2
    cv2.circle(image, (cx, cy), int(0.38 * min(w, h)), tuple(int(v) for v in bright), -1)
    reading = read_roll(image, s00)
    assert (ProblemKind.UNREADABLE_VALUE, "white") in kinds(reading)
    assert reading.white_sum is None or not reading.ok


def test_a_face_clipped_white_by_the_light_is_unreadable_and_the_light_is_blamed(roll, s00):
    image = pixels(roll)
    x, y, w, h = box_of(roll, "red")
    # A lamp's hot spot on the red die: its face clipped to pure white, light pips and all.
    cv2.circle(image, (x + w // 2, y + h // 2), int(0.4 * min(w, h)), (255, 255, 255), -1)
    reading = read_roll(image, s00)
    unreadable = [p for p in reading.problems if p.kind == ProblemKind.UNREADABLE_VALUE]
    assert [p.colour for p in unreadable] == ["red"]
    assert "clipped white by the light" in unreadable[0].message


@pytest.mark.parametrize(
    ("edit", "kind"),
    [
        (lambda im: cv2.convertScaleAbs(im, alpha=0.15), ProblemKind.TOO_DARK),
        (lambda im: cv2.convertScaleAbs(im, alpha=3.0), ProblemKind.OVEREXPOSED),
        (lambda im: cv2.GaussianBlur(im, (0, 0), 4.0), ProblemKind.BLURRED),
    ],
    ids=["darkened", "brightened", "blurred"],
)
def test_a_frame_that_cannot_be_trusted_says_why(roll, s00, edit, kind):
    reading = read_roll(edit(pixels(roll)), s00)
    assert kind in {k for k, _ in kinds(reading)}
    assert not reading.ok

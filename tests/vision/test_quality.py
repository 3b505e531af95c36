"""Exposure and focus, provoked from real renders: darkened, over-exposed, blurred."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pi_reader.vision import quality
from pi_reader.vision.tray_grid import TrayView
from pi_reader.vision.types import ProblemKind

from .reader_frames import labelled, pixels, recorded

SET = "qwixx-rendered"


def boxes(frame):
    return [tuple(round(v) for v in d.box) for d in frame.dice]


def kinds(image, frame):
    colours = [d.colour for d in frame.dice]
    return {p.kind for p in quality.assess(image, boxes(frame), None, colours)}


def test_no_frame_of_the_rendered_set_is_flagged(datasets_dir):
    # Including the bright white tray, the glare scenarios and the dark tables.
    for frame in list(recorded(datasets_dir, SET).frames)[::4]:
        assert kinds(pixels(frame), frame) == set(), frame.image


def test_a_darkened_frame_is_too_dark(datasets_dir):
    frame = labelled(datasets_dir, SET, "s00/roll_001.jpg")
    dark = cv2.convertScaleAbs(pixels(frame), alpha=0.15)
    problems = quality.assess(dark, boxes(frame), None)
    assert [p.kind for p in problems] == [ProblemKind.TOO_DARK]
    assert "too dark" in problems[0].message


def test_a_frame_with_three_times_the_exposure_is_overexposed(datasets_dir):
    frame = labelled(datasets_dir, SET, "s02/roll_003.jpg")
    bright = cv2.convertScaleAbs(pixels(frame), alpha=3.0)
    assert ProblemKind.OVEREXPOSED in kinds(bright, frame)


def test_a_white_frame_without_dice_is_overexposed():
    assert {p.kind for p in quality.assess(np.full((64, 64, 3), 255, np.uint8), [], None)} == {
        ProblemKind.OVEREXPOSED
    }


@pytest.mark.parametrize("image", ["s01/roll_002.jpg", "s06/roll_004.jpg"])
def test_a_blurred_frame_is_blurred(datasets_dir, image):
    frame = labelled(datasets_dir, SET, image)
    side = float(np.median([min(d.box[2:]) for d in frame.dice]))
    blurred = cv2.GaussianBlur(pixels(frame), (0, 0), side / 14)
    assert ProblemKind.BLURRED in kinds(blurred, frame)
    assert ProblemKind.BLURRED not in kinds(pixels(frame), frame)


def test_edge_spread_grows_with_blur_and_ignores_exposure():
    step = np.zeros((40, 40), np.uint8)
    step[:, 20:] = 200
    sharp = quality.edge_spread(step)
    dim = quality.edge_spread((step * 0.3).astype(np.uint8))
    soft = quality.edge_spread(cv2.GaussianBlur(step, (0, 0), 3))
    assert sharp == pytest.approx(dim, rel=0.1)
    assert soft == pytest.approx(2.5 * 3, rel=0.2)


def test_only_tray_clipped_since_calibration_counts_as_overexposure():
    white = np.full((60, 80, 3), 255, np.uint8)
    grey_tray = np.full((6, 8, 3), 120.0, np.float32)
    white_tray = np.full((6, 8, 3), 252.0, np.float32)
    assert quality.newly_clipped_fraction(TrayView.of(white, grey_tray)) == 1.0
    assert quality.newly_clipped_fraction(TrayView.of(white, white_tray)) == 0.0
    problems = quality.assess(white, [(10, 10, 20, 20)], None, ["white"],
                              TrayView.of(white, grey_tray))
    assert [p.kind for p in problems] == [ProblemKind.OVEREXPOSED]
    assert "since calibration" in problems[0].message

"""A frame that does not fit its calibration (another size, another tray): one problem, recalibrate.

Before this check the reader read such frames anyway: the same tray at twice the size came out
as "overexposed", another scenario's tray as a heap of dice and problems.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pi_reader.vision.calibration_fit import MOVED_SHARE, moved_tray_share
from pi_reader.vision.reader import read_roll
from pi_reader.vision.tray_grid import TrayView
from pi_reader.vision.types import ProblemKind

from .reader_doubles import label_calibration
from .reader_frames import labelled, pixels

SET = "qwixx-rendered"


@pytest.fixture(scope="module")
def calibrations(datasets_dir):
    # Calibrated from the labels: what is tested is the fit check, not the networks.
    frames = {s: labelled(datasets_dir, SET, f"{s}/calibration.jpg") for s in ("s00", "s03")}
    return {s: label_calibration(f, pixels(f)) for s, f in frames.items()}


def frame(datasets_dir, image):
    return pixels(labelled(datasets_dir, SET, image))


def only_a_mismatch(reading):
    assert [p.kind for p in reading.problems] == [ProblemKind.CALIBRATION_MISMATCH]
    assert reading.dice == () and not reading.ok
    assert "calibrate again" in reading.problems[0].message
    return reading.problems[0].message


def test_the_same_tray_at_another_size_is_one_problem_naming_both_sizes(datasets_dir, calibrations):
    image = frame(datasets_dir, "s00/roll_001.jpg")
    larger = cv2.resize(image, (2048, 1536), interpolation=cv2.INTER_LINEAR)
    message = only_a_mismatch(read_roll(larger, calibrations["s00"]))
    assert "2048x1536" in message and "1024x768" in message


@pytest.mark.parametrize(
    ("calibrated_on", "image"), [("s03", "s04/roll_002.jpg"), ("s00", "s03/roll_001.jpg")]
)
def test_another_trays_calibration_is_one_problem(datasets_dir, calibrations, calibrated_on, image):
    message = only_a_mismatch(read_roll(frame(datasets_dir, image), calibrations[calibrated_on]))
    assert "another colour" in message


def _warmer(image):
    return np.clip(image * np.array([0.75, 0.95, 1.1]), 0, 255).astype(np.uint8)


def _shadow_over_half(image):
    shaded = image.copy()
    shaded[:, : image.shape[1] // 2] //= 2
    return shaded


def _gamma(image):
    table = np.clip(((np.arange(256) / 255.0) ** 1.4) * 255.0, 0, 255).astype(np.uint8)
    return cv2.LUT(image, table)


@pytest.mark.parametrize("change", [lambda im: im, _warmer, _shadow_over_half, _gamma])
@pytest.mark.parametrize("image", ["s00/roll_001.jpg", "s00/roll_005.jpg"])
def test_its_own_tray_under_another_light_or_a_shadow_still_fits(
    datasets_dir, calibrations, change, image
):
    edited = change(frame(datasets_dir, image))
    tray = TrayView.of(edited, calibrations["s00"].background_grid)
    assert moved_tray_share(tray) < MOVED_SHARE / 3
    reading = read_roll(edited, calibrations["s00"])
    assert ProblemKind.CALIBRATION_MISMATCH not in {p.kind for p in reading.problems}

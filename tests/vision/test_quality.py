"""Exposure and focus, provoked from real renders: darkened, over-exposed, blurred."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pi_reader.vision import quality
from pi_reader.vision.tray_grid import TrayView
from pi_reader.vision.types import Problem, ProblemKind

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


# Each exposure constant held on either side of it by probes its derivation names (at half or
# double the constant, one probe turns).


def test_a_frame_whose_brightest_parts_reach_70_is_not_too_dark(datasets_dir):
    # quality.DARK_LEVEL (48): the dimmest generated validation frames reach 67 (dr2val) and 74
    # (dr2valg), and those under 96 are read (21 of 22 readable dice right on dr2val, 43 of 70 on
    # dr2valg): at double, this probe would be too dark; at half, the 0.15 exposure above not.
    frame = labelled(datasets_dir, SET, "s00/roll_001.jpg")
    image = pixels(frame)
    dim = cv2.convertScaleAbs(image, alpha=70.0 / quality.brightness_level(image))
    assert 65 <= quality.brightness_level(dim) <= 75
    assert ProblemKind.TOO_DARK not in kinds(dim, frame)


def test_a_dark_table_under_lit_dice_is_not_too_dark():
    # quality.DARK_PERCENTILE (99.5): it is the frame's brightest parts that must be lit, not
    # its middle: 8 of the 675 generated validation frames (dark cloth, lit dice) and a
    # real-d6-gamedice photo have a median grey under DARK_LEVEL. At half, the median would
    # decide and this one would be too dark.
    frame = np.full((480, 640, 3), 25, np.uint8)
    boxes = [(40 + 120 * k, 200, 40, 40) for k in range(5)]
    for x, y, w, h in boxes:
        frame[y : y + h, x : x + w] = 200
    problems = quality.assess(frame, boxes, None)
    assert ProblemKind.TOO_DARK not in {p.kind for p in problems}


def _with_blown_dice(count: int, blown: int) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """A grey frame with ``count`` red dice, the first ``blown`` of them clipped white."""
    frame = np.full((480, 1280, 3), 110, np.uint8)
    boxes = [(20 + 120 * k, 200, 50, 50) for k in range(count)]
    for k, (x, y, w, h) in enumerate(boxes):
        frame[y : y + h, x : x + w] = (255, 255, 255) if k < blown else (40, 40, 180)
    return frame, boxes


@pytest.mark.parametrize(("count", "blown", "overexposed"), [(10, 3, False), (4, 3, True)])
def test_a_frame_is_overexposed_when_half_its_coloured_dice_are_blown_out(count, blown,
                                                                          overexposed):
    # quality.BLOWN_DICE_FRACTION (a half): a lamp's hot spot clips the few faces under it, each
    # then refused as washed out; lowering the exposure is the advice once most dice are clipped.
    # At a quarter three of ten would be overexposed, at the whole three of four not.
    frame, boxes = _with_blown_dice(count, blown)
    problems = quality.assess(frame, boxes, None, ["red"] * count)
    assert (ProblemKind.OVEREXPOSED in {p.kind for p in problems}) is overexposed


def test_a_white_sheet_over_a_third_of_a_frame_without_dice_is_not_overexposed():
    # quality.BLOWN_FRAME_FRACTION (a half): with no die found, a score pad or a sheet of paper
    # may fill a third of the view and still leave a table that is not clipped; half the frame
    # clipped is the lamp's doing (a white frame above is overexposed, so double would miss it).
    frame = np.full((480, 640, 3), 120, np.uint8)
    frame[:, : round(640 * 0.35)] = 255
    assert ProblemKind.OVEREXPOSED not in {p.kind for p in quality.assess(frame, [], None)}


def _with_tray_clipped(columns_px: int) -> list[Problem]:
    """The problems of an 80 x 60 frame, a white die in it, whose first ``columns_px`` columns
    the lamp clips white since a calibration of a grey tray (a grid of 8 x 6 cells)."""
    tray = np.full((6, 8, 3), 120.0, np.float32)
    frame = np.full((60, 80, 3), 120, np.uint8)
    frame[:, :columns_px] = 255
    return quality.assess(frame, [(60, 20, 10, 10)], None, ["white"], TrayView.of(frame, tray))


def test_a_tray_newly_clipped_over_45_percent_is_overexposed():
    # quality.NEWLY_CLIPPED_TRAY (0.3): the own rolls of the 75 dr2val validation scenes clip at
    # most 2.3 % of their tray since calibration (hands, coins, paper), so the check lies far from
    # any roll read; at double, this frame, nearly half of whose tray the lamp now clips, would
    # pass.
    assert [p.kind for p in _with_tray_clipped(columns_px=36)] == [ProblemKind.OVEREXPOSED]


def test_a_score_pad_laid_on_a_quarter_of_the_tray_since_calibration_is_not_overexposure():
    # quality.NEWLY_CLIPPED_TRAY (0.3): a score pad or a sheet of paper put down after
    # calibration may clip a quarter of the tray under a lamp that is right; at half the share
    # it would be taken for overexposure and every roll refused.
    assert _with_tray_clipped(columns_px=20) == []  # two of the tray grid's eight columns

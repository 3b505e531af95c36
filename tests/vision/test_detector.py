"""The detector's own logic: decoding the net's maps, the scales it looks at, one box per die.

The network is a stand-in here (maps made by hand); the shipped network is exercised on real
frames in test_reader_problems.py and by the replay suite.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pi_reader.vision import detector
from pi_reader.vision.detector import (
    Detection,
    decode,
    one_per_die,
    part_of,
    pyramid,
    shrunk,
)


def maps_with(peaks: list[tuple[int, int, float, float]], rows: int = 20, cols: int = 30
              ) -> np.ndarray:
    """Net maps with a heat peak (and a die of ``side`` px) at each (row, col, heat, side)."""
    maps = np.zeros((5, rows, cols), np.float32)
    for row, col, heat, side in peaks:
        maps[0, row, col] = heat
        maps[1:3, row, col] = math.log(side)
    return maps


def test_a_peak_is_a_die_at_its_cell_with_its_size():
    (die,) = decode(maps_with([(5, 7, 0.9, 24.0)]), 0.3)
    assert die.centre == pytest.approx(((7 + 0.5) * 4, (5 + 0.5) * 4))
    assert die.box[2:] == pytest.approx((24.0, 24.0))
    assert die.score == pytest.approx(0.9)


def test_peaks_under_the_threshold_are_no_dice_and_the_offset_moves_the_centre():
    maps = maps_with([(5, 7, 0.9, 24.0), (15, 20, 0.2, 24.0)])
    maps[3, 5, 7], maps[4, 5, 7] = 0.25, -0.5
    (die,) = decode(maps, 0.3)
    assert die.centre == pytest.approx(((7 + 0.75) * 4, (5 + 0.0) * 4))
    assert len(decode(maps, 0.1)) == 2


def test_two_peaks_of_one_die_give_one_die_the_stronger():
    # Cells 2 apart (8 px) round a 24 px die: one die, not two.
    dice = decode(maps_with([(5, 7, 0.9, 24.0), (5, 9, 0.6, 24.0)]), 0.3)
    assert [d.score for d in dice] == pytest.approx([0.9])
    apart = decode(maps_with([(5, 7, 0.9, 24.0), (5, 14, 0.6, 24.0)]), 0.3)
    assert len(apart) == 2


def test_two_turned_dice_pressed_face_to_face_are_two_dice():
    # Dice 22.6 px apart diagonally, each box 36 px (a turned die with its side faces): each
    # centre lies within half a box of the other along each axis, yet outside its ellipse.
    dice = decode(maps_with([(5, 7, 0.9, 36.0), (9, 11, 0.6, 36.0)]), 0.3)
    assert [d.score for d in dice] == pytest.approx([0.9, 0.6])


def box_at(cx: float, cy: float, side: float, score: float) -> Detection:
    return Detection((cx - side / 2, cy - side / 2, side, side), score)


def test_a_die_seen_in_two_looks_is_kept_once_the_surer():
    kept = one_per_die([box_at(100, 100, 50, 0.6), box_at(104, 98, 46, 0.8)])
    assert [d.score for d in kept] == [0.8]


def test_a_close_ups_pips_lie_inside_the_die_as_parts_of_it():
    die = box_at(200, 200, 150, 0.5)
    pips = [box_at(200 + dx, 200 + dy, 25, 0.7) for dx in (-40, 40) for dy in (-40, 40)]
    assert len(one_per_die([*pips, die])) == 5  # not one die: the classifier is asked first
    assert all(part_of(pip, die) for pip in pips)
    assert not any(part_of(die, pip) for pip in pips)
    # Two dice pressed together are each over PART_OF_DIE of a box round both.
    pair = [box_at(170, 200, 60, 0.7), box_at(230, 200, 60, 0.7)]
    assert not any(part_of(d, box_at(200, 200, 120, 0.4)) for d in pair)


def test_shrinking_averages_whole_blocks_and_says_the_scale_it_made():
    frame = np.random.default_rng(1).integers(0, 256, (768, 1024, 3), dtype=np.uint8)
    look = shrunk(frame, 16 / 55)
    assert look.image.shape[:2] == (256, 341)  # 1 / 3 of the frame, 1024 cut to 1023 first
    assert look.sx == look.sy == pytest.approx(1 / 3)
    block = frame[3:6, 6:9].reshape(-1, 3).mean(axis=0)
    assert np.abs(look.image[1, 2].astype(float) - block).max() <= 0.5
    tiny = shrunk(frame[:5, :5], 1 / 7)  # never a factor over the frame's side
    assert tiny.image.shape[:2] == (1, 1) and tiny.sx == pytest.approx(1 / 5)
    assert look.unscaled((10.0, 20.0, 16.0, 16.0)) == pytest.approx(
        (10 / look.sx, 20 / look.sy, 16 / look.sx, 16 / look.sy))
    assert shrunk(frame, 2.0).image.shape[:2] == (768, 1024)  # capped at LARGEST_INPUT_PX


def test_the_pyramid_halves_from_the_first_look():
    looks = pyramid(np.zeros((2736, 2736, 3), np.uint8))
    assert len(looks) == detector.OCTAVES
    sides = [look.image.shape[1] for look in looks]
    assert sides[0] == pytest.approx(detector.FIRST_LOOK_PX, rel=0.1)
    assert sides[1:] == [sides[0] // 2, sides[0] // 4]


class HeatNetwork:
    """A stand-in for the net: one die of 16 px at the middle of any canvas, at ``heat``."""

    def __init__(self, heat: float) -> None:
        self.heat = heat

    def forward(self, blob: np.ndarray) -> np.ndarray:
        rows, cols = blob.shape[2] // detector.STRIDE, blob.shape[3] // detector.STRIDE
        return maps_with([(rows // 2, cols // 2, self.heat, 16.0)], rows, cols)[None]


@pytest.mark.parametrize(
    ("calibrated_peak", "generic_peak", "die_side_px", "found"),
    [(0.3, 0.2, 16.0, False), (0.3, 0.2, None, True),
     (0.2, 0.3, 16.0, True), (0.2, 0.3, None, False)],
)
def test_each_mode_takes_peaks_from_its_own_threshold(
    monkeypatch, calibrated_peak, generic_peak, die_side_px, found
):
    monkeypatch.setattr(detector, "PEAK_THRESHOLD", calibrated_peak)
    monkeypatch.setattr(detector, "GENERIC_PEAK_THRESHOLD", generic_peak)
    finder = object.__new__(detector.Detector)  # the shipped net's place, without its file
    finder.network = HeatNetwork(0.25)  # type: ignore[assignment]
    frame = np.zeros((384, 384, 3), np.uint8)
    assert bool(finder.detect(frame, die_side_px)) is found

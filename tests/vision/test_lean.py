"""The lean gauge: the top face's squareness, the patch it cuts, the turns a leaning die is
gauged from again, and what the shipped network answers for flat dice and for a die made to
lean."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pi_reader.vision import lean, weights
from pi_reader.vision.images import load_frame
from pi_reader.vision.lean import Lean, LeanGauge
from pi_reader.vision.reader import COCKED_LEAN_DEG
from training.choose_lean import LEAN_DEGS

from .reader_frames import labelled


def test_a_face_seen_square_on_is_square():
    face = Lean(((10.0, 10.0), (60.0, 10.0), (60.0, 60.0), (10.0, 60.0)), 0.0)
    assert face.squareness == pytest.approx(1.0)


def test_a_face_leaning_30_degrees_is_foreshortened_to_its_cosine_whichever_way_it_is_turned():
    across = 50.0 * math.cos(math.radians(30))
    turn = np.array([[math.cos(0.6), -math.sin(0.6)], [math.sin(0.6), math.cos(0.6)]])
    corners = np.array([(0.0, 0.0), (50.0, 0.0), (50.0, across), (0.0, across)]) @ turn.T
    face = Lean(tuple((float(x), float(y)) for x, y in corners), 30.0)
    assert face.squareness == pytest.approx(math.cos(math.radians(30)))


@pytest.mark.parametrize("box", [(10.0, 20.0, 40.0, 30.0), (10.3, 20.6, 41.0, 41.0),
                                 (-5.0, -5.0, 12.0, 12.0)])
def test_the_patch_is_centred_on_the_box_and_a_patch_of_box_times_its_longer_side(box):
    cx, cy, side = lean.patch_square(box)
    assert side == round(lean.PATCH_OF_BOX * max(box[2], box[3]))
    assert abs(cx - (box[0] + box[2] / 2)) <= 0.5 and abs(cy - (box[1] + box[3] / 2)) <= 0.5
    patch = lean.lean_patch(np.zeros((100, 100, 3), np.uint8), box)
    assert patch.shape == (lean.INPUT_PX, lean.INPUT_PX, 3)


def test_the_gauge_cuts_the_patch_its_network_was_trained_on():
    # lean.PATCH_OF_BOX and INPUT_PX are the network's input, fixed when it was trained: another
    # patch shows it dice of another size (at half the box, the top faces it outlines come out
    # half as large), so both are held to what its model card says.
    card = json.loads(weights.shipped(lean.MODEL_FILE).with_suffix(".json").read_text())
    assert (card["patch_of_box"], card["input_px"]) == (lean.PATCH_OF_BOX, lean.INPUT_PX)


def test_no_boxes_need_no_network():
    class Unasked(LeanGauge):
        def __init__(self) -> None:
            pass  # no network: asking it would fail

    assert Unasked().gauge(np.zeros((50, 50, 3), np.uint8), []) == []


@pytest.fixture(scope="module")
def gauge() -> LeanGauge:
    return LeanGauge()


def test_the_shipped_gauge_sees_the_dice_of_a_rendered_roll_lie_flat(datasets_dir, gauge):
    frame = labelled(datasets_dir, "qwixx-rendered", "s00/roll_001.jpg")
    leans = gauge.gauge(load_frame(frame.path), [d.box for d in frame.dice])
    assert len(leans) == len(frame.dice)
    assert all(g.lean_deg < COCKED_LEAN_DEG for g in leans)
    # and it puts each top face inside its die's box
    for g, die in zip(leans, frame.dice, strict=True):
        x, y, w, h = die.box
        centre = np.mean(g.corners, axis=0)
        assert x <= centre[0] <= x + w and y <= centre[1] <= y + h


class CornerNetwork:
    """A stand-in gauge network: a patch whose top-left corner is bright leans ``marked_deg``,
    any other ``plain_deg``. It records how many patches each pass asked about."""

    def __init__(self, marked_deg: float, plain_deg: float) -> None:
        self.marked, self.plain = (math.sin(math.radians(d)) for d in (marked_deg, plain_deg))
        self.passes: list[int] = []

    def forward(self, blob: np.ndarray) -> np.ndarray:
        self.passes.append(len(blob))
        out = np.zeros((len(blob), lean.OUTPUTS), np.float32)
        corner_bright = blob[:, :, :4, :4].mean(axis=(1, 2, 3)) > blob.mean(axis=(1, 2, 3))
        out[:, 8] = np.where(corner_bright, self.marked, self.plain)
        return out


def gauge_with(network: CornerNetwork) -> LeanGauge:
    gauge = LeanGauge.__new__(LeanGauge)
    gauge.network = network  # type: ignore[assignment]
    return gauge


def marked_frame() -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A frame with one box whose patch, as cut, has a bright top-left corner."""
    frame = np.full((100, 100, 3), 40, np.uint8)
    box = (30.0, 30.0, 20.0, 20.0)
    cx, cy, side = lean.patch_square(box)
    left, top = round(cx - side / 2), round(cy - side / 2)
    frame[top:top + 4, left:left + 4] = 255
    return frame, box


def test_a_die_that_leans_in_one_turn_only_is_gauged_by_the_mean_over_its_four_turns():
    # A neighbour's side face seen as the die's own leans the patch as cut, not its turns.
    network = CornerNetwork(marked_deg=12.0, plain_deg=0.5)
    frame, box = marked_frame()
    (found,) = gauge_with(network).gauge(frame, [box])
    assert found.lean_deg == pytest.approx((12.0 + 3 * 0.5) / 4, abs=1e-3)
    assert found.lean_deg < COCKED_LEAN_DEG
    assert network.passes == [1, len(lean.CLOSER_TURNS)]


def test_a_die_leaning_in_every_turn_stays_cocked():
    network = CornerNetwork(marked_deg=20.0, plain_deg=20.0)
    frame, box = marked_frame()
    (found,) = gauge_with(network).gauge(frame, [box])
    assert found.lean_deg == pytest.approx(20.0, abs=1e-3)


@pytest.mark.parametrize(("first_deg", "passes"), [
    (lean.SURE_FLAT_DEG - 0.1, [1]),
    (lean.SURE_FLAT_DEG + 0.1, [1, len(lean.CLOSER_TURNS)]),
])
def test_only_a_die_leaning_sure_flat_deg_or_more_is_turned(first_deg, passes):
    network = CornerNetwork(marked_deg=first_deg, plain_deg=0.0)
    frame, box = marked_frame()
    gauge_with(network).gauge(frame, [box])
    assert network.passes == passes


def test_sure_flat_is_below_the_least_cut_the_reader_is_chosen_among():
    # Under it no cocked validation die's turns averaged up to a cut (lean.SURE_FLAT_DEG's
    # comment); one at a cut would leave a die leaning in its other turns gauged by one look.
    assert min(LEAN_DEGS) > lean.SURE_FLAT_DEG

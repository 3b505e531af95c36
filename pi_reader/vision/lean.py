"""Whether a die lies flat: a small network that outlines its top face and gauges its lean.

A die leaning on a neighbour or the tray's wall shows a top face the face classifier reads as
surely as a flat one (it took a value for all 16 cocked dice of the calibrated validation
scenes, docs/reader.md), yet the rules reroll it. What gives the lean away is the top face's
shape: a flat die's top face faces an overhead camera square, a die leaning by ``a`` shows it
foreshortened to ``cos a`` across the lean, with a side face beside it. The network is trained
on every generated die (``training/train_lean.py``), flat or not, to put the four corners of
its top face and to say how far it leans; so it learns the top face's outline from thousands of
dice rather than the look of a few hundred cocked ones. A die that leans at first sight is
gauged again from the other quarter turns of its patch (see :data:`SURE_FLAT_DEG`).

Shipped as ``models/lean-gauge.onnx`` beside its model card: one file answering the mean of two
gauges taught alike on different shares of the dice (``training/average_gauges.py``), which err
on different flat dice of a huddle; the reader runs it as one network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pi_reader.vision import weights
from pi_reader.vision.faces import (
    Box,
    Corners,
    network_input,
    patch_side,
    square_corner,
    square_patch,
    turned,
)

MODEL_FILE = "lean-gauge.onnx"
INPUT_PX = 64
# The patch is this many times the box's longer side: a cocked die's box holds its top and side
# faces, and a box a sixth of a die off (the detector's 95th percentile) still holds them both.
PATCH_OF_BOX = 1.5
OUTPUTS = 9  # the top face's four corners (x, y in patch sides from its centre), sin(lean)
# A die whose patch, as cut, gauges at least SURE_FLAT_DEG is gauged again from CLOSER_TURNS
# (quarter turns of the patch, which the gauge was trained on at every angle), and its lean is
# the mean over all its turns. One look at a die pressed against another takes the neighbour's
# side face for the die's own now and then (7 of 230 flat validation dice gauged 11 degrees or
# more); the turns seldom agree on that, while a cocked die leans in every turn. Under
# SURE_FLAT_DEG, below the least cut training/choose_lean.py tries, the other turns bring few
# validation dice up to a cut, and none that leans: with the averaged gauge, of the 827 found
# dr2-v5fix dice under 3 degrees in one look 8 average 4 degrees or more over the four turns, 5
# average 5 or more, all flat (at most 7.4); under 2 degrees 6 of 812 reach 4. With the gauge
# before dr9lean, of 1520 found dr2val dice under 3 degrees 2 averaged 6 or more, both flat;
# under 4 degrees 4 of 1531 did, one of them cocked.
SURE_FLAT_DEG = 3.0
CLOSER_TURNS = (1, 2, 3)


@dataclass(frozen=True)
class Lean:
    """A die's top face as the gauge sees it."""

    corners: Corners  # the top face's corners in frame pixels, in turn
    lean_deg: float  # how far the die leans from flat, as the network gauges it

    @property
    def squareness(self) -> float:
        """The top face's shorter extent over its longer one (means of opposite sides): 1 for a
        face seen square on, ``cos a`` for one leaning by ``a``."""
        points = np.array(self.corners)
        sides = np.linalg.norm(points - np.roll(points, -1, axis=0), axis=1)
        across = (sides[0] + sides[2]) / 2.0, (sides[1] + sides[3]) / 2.0
        return float(min(across) / max(max(across), 1e-6))


class LeanGauge:
    """The shipped gauge (or the ONNX file at ``path``)."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or weights.shipped(MODEL_FILE)
        self.network = weights.Network(path, weights.called(path, MODEL_FILE))

    def gauge(self, frame_bgr: np.ndarray, boxes: list[Box]) -> list[Lean]:
        """The top face of the die in each box: every patch as cut in one pass, then the other
        turns of those that lean SURE_FLAT_DEG or more in a second one."""
        if not boxes:
            return []
        squares = [patch_square(box) for box in boxes]
        patches = [square_patch(frame_bgr, box, side, INPUT_PX)
                   for box, (_, _, side) in zip(boxes, squares, strict=True)]
        leans = [_lean(row, square) for row, square in zip(self._outputs(patches), squares,
                                                            strict=True)]
        doubtful = [k for k, found in enumerate(leans) if found.lean_deg >= SURE_FLAT_DEG]
        views = turned([patches[k] for k in doubtful], CLOSER_TURNS)
        per_die = _lean_deg(self._outputs(views)).reshape(len(doubtful), len(CLOSER_TURNS))
        for k, others in zip(doubtful, per_die, strict=True):
            mean = (leans[k].lean_deg + float(others.sum())) / (1 + len(CLOSER_TURNS))
            leans[k] = Lean(leans[k].corners, mean)
        return leans

    def _outputs(self, patches: list[np.ndarray]) -> np.ndarray:
        """The network's answers (patches, OUTPUTS) for INPUT_PX square patches."""
        if not patches:
            return np.zeros((0, OUTPUTS))
        out = np.asarray(self.network.forward(network_input(patches)), np.float64)
        return out.reshape(len(patches), OUTPUTS)


def _lean(row: np.ndarray, square: tuple[float, float, int]) -> Lean:
    """A gauge's output for the patch cut from ``square``, its corners put back into the
    frame."""
    cx, cy, side = square
    corners = tuple((cx + float(u) * side, cy + float(v) * side)
                    for u, v in row[:8].reshape(4, 2))
    return Lean(corners, float(_lean_deg(row[None])[0]))


def _lean_deg(rows: np.ndarray) -> np.ndarray:
    """The lean in degrees of each of the network's answers (rows of OUTPUTS)."""
    degrees: np.ndarray = np.degrees(np.arcsin(np.clip(rows[:, 8], 0.0, 1.0)))
    return degrees


def patch_square(box: Box) -> tuple[float, float, int]:
    """The square the gauge looks at for ``box``: its centre and side in frame pixels, its
    corner on a whole pixel as :func:`faces.square_patch` cuts it."""
    side = patch_side(box, PATCH_OF_BOX)
    left, top = square_corner(box, side)
    return left + side / 2.0, top + side / 2.0, side


def lean_patch(frame_bgr: np.ndarray, box: Box) -> np.ndarray:
    """The INPUT_PX square patch the gauge reads for ``box`` (see :func:`patch_square`)."""
    return square_patch(frame_bgr, box, patch_side(box, PATCH_OF_BOX), INPUT_PX)

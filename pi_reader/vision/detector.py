"""Finding the dice: a small centre-heatmap network, run at the scale its training made it sure at.

Trained by ``training/train_detector.py`` (PyTorch there only) and shipped as
``models/dice-detector.onnx`` with its model card; ONNX Runtime runs it. The network is
fully convolutional: it takes a frame of any size (a multiple of :data:`CANVAS_STEP`) and
answers, at a quarter of its resolution, how likely each cell holds a die's centre, the die's
log width and height, and where in the cell the centre lies.

It learnt dice between :data:`TRAINED_SIDES` pixels across, so the frame is scaled first so that
its dice come out at :data:`TARGET_SIDE_PX`: with a calibration the die's side is known; without
one a first look at the whole frame, :data:`FIRST_LOOK_PX` on its longer side, measures the
dice, and the frame is looked at again at the right scale when they came out outside that range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision import weights
from pi_reader.vision.shrinking import blocks_averaged

Box = tuple[float, float, float, float]  # x, y, w, h in (sub)pixels

# The detector's weights as training writes them, which the calibrated mode reads with, and the
# generic mode's own (stages.GENERIC_NETWORKS): the only network the modes do not share.
MODEL_FILE = "dice-detector.onnx"
GENERIC_MODEL_FILE = "dice-detector-generic.onnx"
STRIDE = 4  # the heatmap's cell, in input pixels
CANVAS_STEP = 16  # the net halves its input four times on its deepest path
# The die sides (input pixels) the net was trained on (training/train_detector.py draws them
# log-uniformly). Frames are scaled so their dice come out at TARGET_SIDE_PX: inside that range
# with room on both sides, and small, since the net's cost grows with the scaled frame's area
# (chosen on the validation scenes among 12, 16 and 20 by training/choose_thresholds.py,
# benchmarks/results/thresholds.json).
TRAINED_SIDES = (10.0, 40.0)
TARGET_SIDE_PX = 16.0
# Without a calibration the frame is seen with its longer side at this size, and again at half
# and a quarter of it (OCTAVES looks): dice from a fortieth to a third of the frame come out in
# TRAINED_SIDES in one of them.
FIRST_LOOK_PX = 384
OCTAVES = 3
# The frame is never scaled to more than this on its longer side (the cost grows with its area).
LARGEST_INPUT_PX = 1024
# A cell is a die's centre when its heatmap value is a local maximum at least this high: with a
# calibration PEAK_THRESHOLD, without one GENERIC_PEAK_THRESHOLD. Each chosen on the validation
# splits among 0.1-0.5 by training/choose_thresholds.py with the face classifier's thresholds
# of its mode (the classifier then refuses what is not a die): a calibrated roll missing a die
# is refused by the count check, a generic one is not, so the modes weigh a faint die apart
# (benchmarks/results/thresholds.json with a calibration, thresholds-generic.json without).
PEAK_THRESHOLD = 0.3
GENERIC_PEAK_THRESHOLD = 0.2
# Two peaks closer than this share of the smaller die's side are one die; a die inside another
# and at most PART_OF_DIE of its side is part of it (a pip is a fifth of a die, two dice pressed
# together are each half of a box round both). Within one look the reach is the ellipse of
# half the box (see decode): two dice's centres are never closer than a die's side.
SAME_DIE = 0.5
PART_OF_DIE = 0.4


@dataclass(frozen=True)
class Detection:
    """One die found: its box (x, y, w, h, whole die, frame pixels) and the heatmap's value."""

    box: Box
    score: float

    @property
    def side(self) -> float:
        return math.sqrt(self.box[2] * self.box[3])

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2.0, y + h / 2.0)


class Detector:
    """The calibrated mode's shipped detector (or the ONNX file at ``path``)."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or weights.shipped(MODEL_FILE)
        self.network = weights.Network(path, weights.called(path, MODEL_FILE))

    def detect(self, frame_bgr: np.ndarray, die_side_px: float | None = None) -> list[Detection]:
        """Every die in the frame. ``die_side_px`` is the die's side when a calibration knows
        it; without it the frame is looked at on a pyramid of scales (see :func:`pyramid`)."""
        if die_side_px is not None:
            return self._look(shrunk(frame_bgr, TARGET_SIDE_PX / die_side_px), PEAK_THRESHOLD)
        found: list[Detection] = []
        lo, hi = TRAINED_SIDES
        for look in pyramid(frame_bgr):
            found += [d for d in self._look(look, GENERIC_PEAK_THRESHOLD)
                      if lo <= d.side * look.scale <= hi]
        return one_per_die(found)

    def _look(self, look: Scaled, peak_threshold: float) -> list[Detection]:
        """The dice the net sees in a scaled frame (its peaks from ``peak_threshold`` up), in
        the frame's pixels."""
        h, w = look.image.shape[:2]
        in_w = max(CANVAS_STEP, math.ceil(w / CANVAS_STEP) * CANVAS_STEP)
        in_h = max(CANVAS_STEP, math.ceil(h / CANVAS_STEP) * CANVAS_STEP)
        canvas = cv2.copyMakeBorder(look.image, 0, in_h - h, 0, in_w - w, cv2.BORDER_REPLICATE)
        maps = self.network.forward(network_input(canvas))[0]
        return [Detection(look.unscaled(d.box), d.score) for d in decode(maps, peak_threshold)]


@dataclass(frozen=True)
class Scaled:
    """A frame scaled for a look, and how much (``sx``, ``sy``: scaled pixels per frame pixel)."""

    image: np.ndarray
    sx: float
    sy: float

    @property
    def scale(self) -> float:
        return math.sqrt(self.sx * self.sy)

    def unscaled(self, box: Box) -> Box:
        x, y, w, h = box
        return (x / self.sx, y / self.sy, w / self.sx, h / self.sy)


def shrunk(frame_bgr: np.ndarray, scale: float) -> Scaled:
    """The frame scaled by about ``scale``: shrinking is by a whole factor k (k x k pixels
    averaged into one, a quarter of the cost of an arbitrary area resize), so the dice come out
    within a few pixels of what was asked, well inside the trained range; never larger than
    LARGEST_INPUT_PX."""
    h, w = frame_bgr.shape[:2]
    scale = min(scale, LARGEST_INPUT_PX / max(w, h))
    if scale >= 1.0:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        image = cv2.resize(frame_bgr, size, interpolation=cv2.INTER_LINEAR)
    else:
        k = max(1, min(round(1.0 / scale), w, h))
        return Scaled(blocks_averaged(frame_bgr, k), 1.0 / k, 1.0 / k)
    return Scaled(image, image.shape[1] / w, image.shape[0] / h)


def pyramid(frame_bgr: np.ndarray) -> list[Scaled]:
    """The looks at a frame of unknown dice: its longer side at about FIRST_LOOK_PX, then at
    half and a quarter of that (OCTAVES looks), each halved from the one before. Each look keeps
    only the dice that come out in the trained range, so together they cover dice from a
    fortieth of the frame to a third of it."""
    looks = [shrunk(frame_bgr, FIRST_LOOK_PX / max(frame_bgr.shape[:2]))]
    for _ in range(OCTAVES - 1):
        last = looks[-1]
        looks.append(Scaled(blocks_averaged(last.image, 2), last.sx / 2, last.sy / 2))
    return looks


def one_per_die(found: list[Detection]) -> list[Detection]:
    """The detections of several looks, one per die: of two detections of one die (of like
    size, centres within SAME_DIE of the smaller's side) the surer is kept."""
    kept: list[Detection] = []
    for die in sorted(found, key=lambda d: -d.score):
        if not any(_same_die(die, other) for other in kept):
            kept.append(die)
    return kept


def _same_die(a: Detection, b: Detection) -> bool:
    small, large = sorted((a.side, b.side))
    reach = SAME_DIE * small
    near = abs(a.centre[0] - b.centre[0]) < reach and abs(a.centre[1] - b.centre[1]) < reach
    return near and small > PART_OF_DIE * large


def part_of(small: Detection, large: Detection) -> bool:
    """Whether ``small`` lies inside ``large`` at most PART_OF_DIE of its side: one of them is
    no die (one die never lies inside another). Either ``small`` is a part of a die seen from
    near (a close-up's pip), or ``large`` is a whole heap seen from far; the face classifier
    tells which (see reader)."""
    x, y, w, h = large.box
    cx, cy = small.centre
    return small.side <= PART_OF_DIE * large.side and x <= cx <= x + w and y <= cy <= y + h


def network_input(canvas_bgr: np.ndarray) -> np.ndarray:
    """The canvas as the net takes it: RGB order kept as BGR, 0..1, NCHW float32."""
    return cv2.dnn.blobFromImage(canvas_bgr, 1.0 / 255.0)


def decode(maps: np.ndarray, threshold: float) -> list[Detection]:
    """Dice from the net's maps (5 x H/4 x W/4: heat, log w, log h, offset x, offset y), in
    input pixels, strongest first, one per die: a weaker peak whose centre lies inside the
    ellipse of SAME_DIE of a stronger die's box is that die. (The rectangle of the same half
    widths reaches into its corners: round a turned die, whose box with its side faces is up to
    1.6 sides wide, it took in the centre of a die pressed against one of its faces, and one of
    the two went unseen.)"""
    heat = maps[0]
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    found: list[Detection] = []
    for iy, ix in sorted(zip(*np.nonzero(peaks), strict=True), key=lambda p: -heat[p]):
        cx = (ix + 0.5 + float(maps[3, iy, ix])) * STRIDE
        cy = (iy + 0.5 + float(maps[4, iy, ix])) * STRIDE
        bw, bh = math.exp(float(maps[1, iy, ix])), math.exp(float(maps[2, iy, ix]))
        near = [d for d in found
                if ((d.centre[0] - cx) / d.box[2]) ** 2 + ((d.centre[1] - cy) / d.box[3]) ** 2
                < SAME_DIE ** 2]
        if not near:
            found.append(Detection((cx - bw / 2, cy - bh / 2, bw, bh), float(heat[iy, ix])))
    return found

"""The learnt generic-mode detector: a tiny centre-heatmap net loaded with OpenCV's dnn module.

Trained by ``training/train_locate.py`` (PyTorch, never needed at run time) and shipped as
``models/locate-centernet.onnx``. The frame is letterboxed to the net's square input; the net
answers, at a quarter of that resolution, how likely each cell is a die's centre and the die's
log width and height. A die is a local maximum of the heatmap above :data:`PEAK_THRESHOLD`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision import weights
from pi_reader.vision.types import box_contains

MODEL_PATH = weights.shipped("locate-centernet.onnx")
INPUT = 256
STRIDE = 4
# The net halves its input three times and joins two of those scales again: a smaller input it
# is shown (a closer look) is a multiple of this.
CANVAS_STEP = 32
PEAK_THRESHOLD = 0.4
# Half-size of the die's middle searched for pips, in die sizes, and the least grey range
# (0..255, 5th to 95th percentile) of a face with pips; measured on the detector's training
# photos, where dice start at 64 and screw heads stop at 61 (at full resolution).
PIP_WINDOW = 0.35
MIN_PIP_CONTRAST = 62.0
# A one's lone pip covers only a few percent of that window, too little for the 5..95 range;
# the 1st to 99th percentile range still spans it. On the same photos this takes back 21 of
# the 23 dice the first test dropped (most of them ones) and no screw head or stain.
MIN_SPOT_CONTRAST = 100.0
# Two peaks whose centres are closer than this fraction of a die (in x and in y) are one die.
SAME_DIE = 0.5
# In a tight heap the net may answer two dice as one peak with a box round both. A die this much
# larger (square root of its box area) than the frame's median die is looked at again, closer:
# the frame cropped round it and scaled so a median die is CLOSE_LOOK_DIE_PX at the net's input
# (inside the 8..40 px it was trained on, where 256 px across a whole photo gives 12..18).
MERGED_SIZE = 1.35
CLOSE_LOOK_DIE_PX = 28.0
# A close-up's dice are larger than the net was trained on, and it answers their pips and parts
# as many smaller dice. While a look finds a die larger than LARGE_DIE_PX at the net's input (or
# finds none), the frame is looked at again from twice as far, down to FARTHEST of the input;
# the dice of a farther look at least FAR_DIE_PX there replace whatever the nearer looks found
# inside them.
LARGE_DIE_PX = 26.0
FAR_DIE_PX = 16.0
FARTHEST = 0.25
# A close-up's pips may also come out under LARGE_DIE_PX: a die seen from twice as far round two
# or more nearer "dice" each at most PIP_SHARE of its side replaces them (two dice pressed
# together are each more than half the side of a box round both).
PIP_SHARE = 0.5


@dataclass(frozen=True)
class Detection:
    centre: tuple[float, float]  # in the frame's pixels
    size: tuple[float, float]  # width, height in the frame's pixels
    score: float

    @property
    def box(self) -> tuple[float, float, float, float]:
        (cx, cy), (w, h) = self.centre, self.size
        return (cx - w / 2, cy - h / 2, w, h)


def available(path: Path = MODEL_PATH) -> bool:
    return path.is_file()


def detect(frame_bgr: np.ndarray, path: Path = MODEL_PATH,
           threshold: float = PEAK_THRESHOLD, shrunk: np.ndarray | None = None
           ) -> list[Detection]:
    """Every die centre the net sees, with the die's size, strongest first.

    ``shrunk`` is the frame already scaled down (to at least INPUT pixels on its long side), when
    the caller has one: scaling a 7.5 MP photo down is a third of the detector's time.
    """
    found = _from_far_enough(frame_bgr, path, threshold, shrunk)
    if len(found) < 2:
        return found
    sides = [_side(d) for d in found]
    median = float(np.median(sides))
    out: list[Detection] = []
    for die, side in zip(found, sides, strict=True):
        parts = (look_closer(frame_bgr, die.box, median, path, threshold)
                 if side >= MERGED_SIZE * median else [])
        out.extend(parts if len(parts) >= 2 else [die])
    return _one_per_die(sorted(out, key=lambda d: -d.score))


def _from_far_enough(frame_bgr: np.ndarray, path: Path, threshold: float,
                     shrunk: np.ndarray | None) -> list[Detection]:
    """The dice of the frame filling the net's input, and of farther looks while dice are too
    large (see LARGE_DIE_PX)."""
    found = _detect_once(frame_bgr, path, threshold, shrunk)
    fill = 1.0
    per_pixel = INPUT / max(frame_bgr.shape[:2])  # net input pixels per frame pixel, at fill 1
    while fill > FARTHEST and (
        not found or max(_side(d) for d in found) * fill * per_pixel > LARGE_DIE_PX
    ):
        fill /= 2.0
        farther = [d for d in _detect_once(frame_bgr, path, threshold, shrunk, fill)
                   if _side(d) * fill * per_pixel >= FAR_DIE_PX]
        if not farther:
            break
        nearer = [d for d in found if not any(box_contains(far.box, d.centre) for far in farther)]
        found = _one_per_die(sorted(farther + nearer, key=lambda d: -d.score))
    if fill == 1.0 and len(found) >= 2:
        found = _pips_taken_for_dice(frame_bgr, path, threshold, shrunk, found, per_pixel)
    return found


def _pips_taken_for_dice(frame_bgr: np.ndarray, path: Path, threshold: float,
                         shrunk: np.ndarray | None, found: list[Detection],
                         per_pixel: float) -> list[Detection]:
    """``found``, with any group of small "dice" that a look from twice as far sees as one die
    (their sides at most PIP_SHARE of its side) replaced by that die: a close-up's pips."""
    farther = [d for d in _detect_once(frame_bgr, path, threshold, shrunk, 0.5)
               if _side(d) * 0.5 * per_pixel >= FAR_DIE_PX]
    for far in farther:
        inside = [d for d in found if box_contains(far.box, d.centre)]
        if len(inside) >= 2 and all(_side(d) <= PIP_SHARE * _side(far) for d in inside):
            found = [d for d in found if d not in inside] + [far]
    return sorted(found, key=lambda d: -d.score)


def _side(die: Detection) -> float:
    return float(np.sqrt(die.size[0] * die.size[1]))


def look_closer(frame_bgr: np.ndarray, box: tuple[float, float, float, float], die_side: float,
                path: Path = MODEL_PATH, threshold: float = PEAK_THRESHOLD) -> list[Detection]:
    """The dice the net sees inside ``box`` (x, y, w, h) when the frame round it is scaled so a
    die ``die_side`` pixels across is CLOSE_LOOK_DIE_PX at the net's input.

    A whole frame letterboxed to the input shows a die at 12..18 px, at the low end of what the
    net learnt; a heap of touching dice is told apart far better at the middle of that range.
    The net is fully convolutional, so it is shown only the box and half a die round it, on an
    input as small as that allows (two or three dice in a row: 96 or 128 px, against 256 for the
    full input, and a fifth to a quarter of its cost); a box too large for the full input at that
    scale is shown smaller.
    """
    x, y, w, h = box
    cx, cy = x + w / 2.0, y + h / 2.0
    span = max(w, h) + die_side
    wanted = span * CLOSE_LOOK_DIE_PX / die_side
    input_px = min(INPUT, CANVAS_STEP * math.ceil(wanted / CANVAS_STEP))
    half = max(input_px * die_side / CLOSE_LOOK_DIE_PX, span) / 2.0
    x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
    x1 = min(frame_bgr.shape[1], int(cx + half))
    y1 = min(frame_bgr.shape[0], int(cy + half))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return []
    crop = np.ascontiguousarray(frame_bgr[y0:y1, x0:x1])
    return [
        Detection((d.centre[0] + x0, d.centre[1] + y0), d.size, d.score)
        for d in _detect_once(crop, path, threshold, input_px=input_px)
        if abs(d.centre[0] + x0 - cx) < w / 2 and abs(d.centre[1] + y0 - cy) < h / 2
    ]


def _detect_once(frame_bgr: np.ndarray, path: Path, threshold: float,
                 shrunk: np.ndarray | None = None, fill: float = 1.0,
                 input_px: int = INPUT) -> list[Detection]:
    """The net's dice at one scale: the frame (or its ``shrunk`` copy) letterboxed to an input
    ``input_px`` square, its long side ``fill`` of the input's."""
    h, w = frame_bgr.shape[:2]
    scale = fill * input_px / max(h, w)
    source = frame_bgr if shrunk is None or max(shrunk.shape[:2]) < input_px else shrunk
    small = cv2.resize(source, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA)
    # Letterbox with the frame's own median colour so the border looks like more table.
    fill = np.median(small[::4, ::4].reshape(-1, 3), axis=0)
    canvas = np.empty((input_px, input_px, 3), np.uint8)
    canvas[:] = fill.astype(np.uint8)
    canvas[:small.shape[0], :small.shape[1]] = small
    blob = cv2.dnn.blobFromImage(canvas, 1.0 / 255.0)
    net = weights.network(path, "the dice detector's")
    net.setInput(blob)
    maps = net.forward()[0]
    heat = maps[0]
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > threshold)
    out = []
    for gy, gx in zip(*np.nonzero(peaks), strict=True):
        y0, y1 = max(0, gy - 1), min(heat.shape[0], gy + 2)
        x0, x1 = max(0, gx - 1), min(heat.shape[1], gx + 2)
        patch = heat[y0:y1, x0:x1]
        ys, xs = np.mgrid[y0:y1, x0:x1]
        weight = patch.sum()
        cy = ((ys * patch).sum() / weight + 0.5) * STRIDE
        cx = ((xs * patch).sum() / weight + 0.5) * STRIDE
        if cx >= small.shape[1] or cy >= small.shape[0]:
            continue  # a peak in the letterbox border
        bw, bh = float(np.exp(maps[1, gy, gx])), float(np.exp(maps[2, gy, gx]))
        if not _shows_pips(frame_bgr, cx / scale, cy / scale, bw / scale, bh / scale):
            continue
        out.append(Detection((cx / scale, cy / scale), (bw / scale, bh / scale),
                             float(heat[gy, gx])))
    return _one_per_die(sorted(out, key=lambda d: -d.score))


def _shows_pips(frame: np.ndarray, cx: float, cy: float, w: float, h: float) -> bool:
    """A die's face carries pips: its middle spans a wide range of grey (a screw head, a
    printed disc or a stain is one flat tone with a soft rim), or holds one small dark or
    light spot far from the rest (a one)."""
    x0, x1 = int(cx - PIP_WINDOW * w), int(np.ceil(cx + PIP_WINDOW * w))
    y0, y1 = int(cy - PIP_WINDOW * h), int(np.ceil(cy + PIP_WINDOW * h))
    patch = frame[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]
    if patch.size == 0:
        return False
    grey = cv2.cvtColor(np.ascontiguousarray(patch), cv2.COLOR_BGR2GRAY)
    lowest, low, high, highest = np.percentile(grey, (1, 5, 95, 99))
    return float(high - low) >= MIN_PIP_CONTRAST or float(highest - lowest) >= MIN_SPOT_CONTRAST


def _one_per_die(detections: list[Detection]) -> list[Detection]:
    """Keep the strongest of peaks closer than half a die to each other (one die, two peaks)."""
    kept: list[Detection] = []
    for d in detections:
        if all(abs(d.centre[0] - k.centre[0]) > SAME_DIE * min(d.size[0], k.size[0])
               or abs(d.centre[1] - k.centre[1]) > SAME_DIE * min(d.size[1], k.size[1])
               for k in kept):
            kept.append(d)
    return kept

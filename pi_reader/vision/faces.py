"""Reading a die's top face: a small classifier over a patch cut round the die's box.

Trained by ``training/train_faces.py`` and shipped as ``models/face-classifier.onnx`` with its
model card. Its classes are :data:`NOT_A_DIE` (the finder boxed the table, a coin, a screw head
or two dice at once), the values 1 to 6, and :data:`UNREADABLE` (a die whose top face nobody could
read: leaning on another, pips washed out by the lamp or hidden by a neighbour). It was trained
on patches cut exactly as :func:`face_patch` cuts them, with the box errors the detector makes,
so the reader only has to ask it.

A face is read from :data:`VIEWS` turns of its patch at once: pips do not care how a die lies,
so a value the network gives for one turn and not another is a doubt, and the reader refuses
doubts. The answer is the mean of the turns' probabilities. A doubtful face is also read from
the other two quarter turns (:data:`CLOSER_VIEWS`), and that closer reading is kept beside the
first: the reader may take its value when every one of the four turns is sure of it.

A die seen at a slant shows its side faces beside the top one, and the box patch then holds three
faces' pips. For such a die the reader may also read its *top face*: the four corners the lean
gauge put round it, warped square into the middle of a patch (:func:`top_face_patch`), as an
overhead camera would see it. Its value is taken only when every turn of that patch is sure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision import weights
from pi_reader.vision.shrinking import blocks_averaged

Box = tuple[float, float, float, float]  # x, y, w, h in (sub)pixels
Corners = tuple[tuple[float, float], ...]  # a top face's four corners in frame pixels, in turn

MODEL_FILE = "face-classifier.onnx"
INPUT_PX = 40
NOT_A_DIE = 0
UNREADABLE = 7
CLASS_COUNT = 8
# The patch is this many times the box's longer side: the whole die and a rim of what is round
# it, so that a box a sixth of a die off (the detector's 95th percentile on the validation
# splits) still shows the whole top face.
PATCH_OF_BOX = 1.3
# The quarter turns read of every patch (0: as cut, 1: a quarter turn): two views catch most
# answers that depend on the view, for twice the cost of one (0.35 ms a patch here).
VIEWS = (0, 1)
# The turns a doubtful face is read from as well: the two quarter turns VIEWS leaves out.
CLOSER_VIEWS = (2, 3)
# A face is doubtful when some threshold the reader might be given would refuse it: its
# confidence under the strictest MIN_VALUE_CONFIDENCE training/choose_thresholds.py considers,
# or its agreement under the strictest MIN_VIEW_AGREEMENT. Fixed here rather than taken from the
# reader's thresholds, so that what the classifier answers does not depend on them.
DOUBT_CONFIDENCE = 0.95
DOUBT_AGREEMENT = 0.8
# A box is no die only when the classifier gives "not a die" at least this share of its
# probability, more than every die class together: a die it hardly knows what to make of (a
# lamp's hot spot on its face) is then an unreadable die, refused, not left out unseen.
NO_DIE_SHARE = 0.5
# A top face warped square fills this share of its patch's side (see top_face_patch): the rest
# is what lies round the face, stretched by the same warp. Chosen on the validation photos of
# real-d6-gamedice, read by the first shipped classifier (not trained on such patches) from
# the corners the gauge puts on the labelled boxes: of the readable dice it read 62.3 % at 0.62,
# 69.4 % at 0.5 and 59.4 % at 0.42 (box patches: 57.9 %); the overhead and fisheye validation
# photos read within a point of their box patches at 0.5.
TOP_FACE_OF_PATCH = 0.5
# A top face is warped this many times finer than the patch at most, then averaged down: a
# large die's face (a 2736 px photo's are 200 px) keeps its pips instead of aliasing them away.
# At 8 a face up to 160 px across is averaged whole; more only costs time on the rare larger
# ones (a 240 px face reads within a grey level of its exact average at 8, tested). On the
# validation splits one reading changes at 4 (overhead 93.0 -> 92.7 % right), none at 16.
MOST_SUPERSAMPLING = 8
# The least area (frame pixels squared) of a top face the reader warps: a face under 4 px
# across has pips under a pixel, and corners folded onto a line outline no face at all. No
# validation reading changes at half or double (the gauge puts no die's face that small):
# tests probe both sides.
LEAST_TOP_FACE_AREA = 16.0
# The least contrast standardisation divides by (8-bit grey levels): a blank patch (tray, a
# clipped face) keeps its flatness instead of having its noise blown up into "pips". Twice the
# spread of the blankest tenth of the validation scenes' tray patches (about 2 on dr2val and
# dr2valg), a third of the least of a readable die's patch (12).
MIN_PATCH_SPREAD = 4.0


@dataclass(frozen=True)
class FaceReading:
    """A top face as the classifier reads it: ``value`` 1..6 or None, and how sure it is."""

    value: int | None  # None: not read (see ``is_die``)
    confidence: float  # the mean probability over the turns of the best class
    agreement: float  # the least probability any one turn gave the best class
    is_die: bool  # False when NOT_A_DIE has at least NO_DIE_SHARE of the probability
    closer: FaceReading | None = None  # a doubtful face read from VIEWS and CLOSER_VIEWS
    top_face: FaceReading | None = None  # its top face warped square, read from every turn

    @property
    def doubtful(self) -> bool:
        """Whether a value is read unsurely enough that it is worth a closer look (a closer
        look can only ever make a doubtful value sure)."""
        return self.value is not None and (self.confidence < DOUBT_CONFIDENCE
                                           or self.agreement < DOUBT_AGREEMENT)


class FaceClassifier:
    """The shipped classifier (or the ONNX file at ``path``)."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or weights.shipped(MODEL_FILE)
        self.network = weights.Network(path, weights.called(path, MODEL_FILE))

    def probabilities(self, patches: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (n, CLASS_COUNT) of INPUT_PX square BGR patches."""
        if not patches:
            return np.zeros((0, CLASS_COUNT), np.float32)
        logits = np.asarray(self.network.forward(network_input(patches)), np.float64)
        logits = logits.reshape(len(patches), CLASS_COUNT)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        probabilities: np.ndarray = (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)
        return probabilities

    def read(self, frame_bgr: np.ndarray, boxes: list[Box]) -> list[FaceReading]:
        """The top face in each box of the frame: all turns of all dice in one pass, then the
        other turns of the doubtful faces in a second one."""
        patches = [face_patch(frame_bgr, box) for box in boxes]
        per_view = self._per_view(patches, VIEWS)
        readings = [_reading(views) for views in per_view]
        doubtful = [k for k, reading in enumerate(readings) if reading.doubtful]
        closer = self._per_view([patches[k] for k in doubtful], CLOSER_VIEWS)
        for k, views in zip(doubtful, closer, strict=True):
            readings[k] = replace(readings[k],
                                  closer=_reading(np.concatenate([per_view[k], views])))
        return readings

    def read_top_faces(self, frame_bgr: np.ndarray, corners: list[Corners]
                       ) -> list[FaceReading | None]:
        """The top face outlined by each four ``corners`` (frame pixels, in turn), warped
        square and read from every quarter turn; None where the corners outline no face."""
        patches = [top_face_patch(frame_bgr, quad) for quad in corners]
        outlined = [(k, patch) for k, patch in enumerate(patches) if patch is not None]
        per_view = self._per_view([patch for _, patch in outlined], VIEWS + CLOSER_VIEWS)
        readings: list[FaceReading | None] = [None] * len(corners)
        for (k, _), views in zip(outlined, per_view, strict=True):
            readings[k] = _reading(views)
        return readings

    def _per_view(self, patches: list[np.ndarray], turns: tuple[int, ...]) -> np.ndarray:
        """Class probabilities (patches, turns, CLASS_COUNT) of each patch at each turn."""
        if not patches:
            return np.zeros((0, len(turns), CLASS_COUNT), np.float32)
        return self.probabilities(turned(patches, turns)).reshape(len(patches), len(turns),
                                                                  CLASS_COUNT)


def turned(patches: list[np.ndarray], turns: tuple[int, ...]) -> list[np.ndarray]:
    """Each patch at each of ``turns`` quarter turns, patch by patch, as a network takes them."""
    return [np.ascontiguousarray(np.rot90(p, k)) for p in patches for k in turns]


def _reading(per_view: np.ndarray) -> FaceReading:
    """A face's reading from the probabilities of its turns (turns, CLASS_COUNT)."""
    mean = per_view.mean(axis=0)
    is_die = bool(mean[NOT_A_DIE] < NO_DIE_SHARE)
    best = 1 + int(np.argmax(mean[1:])) if is_die else NOT_A_DIE
    value = best if 1 <= best <= 6 else None
    return FaceReading(value, float(mean[best]), float(per_view[:, best].min()), is_die)


def face_patch(frame_bgr: np.ndarray, box: Box) -> np.ndarray:
    """The INPUT_PX square patch the classifier reads for ``box``: PATCH_OF_BOX times the box's
    longer side, centred on the box (see :func:`square_patch`)."""
    return square_patch(frame_bgr, box, patch_side(box, PATCH_OF_BOX), INPUT_PX)


def patch_side(box: Box, of_box: float) -> int:
    """The side in frame pixels of a patch ``of_box`` times the box's longer side."""
    return max(2, round(of_box * max(box[2], box[3], 1.0)))


def square_corner(box: Box, side: int) -> tuple[int, int]:
    """The top-left pixel of the square of ``side`` centred on ``box``, as it is cut."""
    x, y, w, h = box
    return round(x + w / 2.0 - side / 2.0), round(y + h / 2.0 - side / 2.0)


def square_patch(frame_bgr: np.ndarray, box: Box, side: int, out_px: int) -> np.ndarray:
    """The square of ``side`` frame pixels centred on ``box`` (its corner rounded to a whole
    pixel, :func:`square_corner`), scaled to ``out_px``, the frame's edge repeated where the
    square leaves it."""
    left, top = square_corner(box, side)
    # Area averaging when shrinking keeps a large die's pips instead of aliasing them away; a
    # square over twice out_px is first averaged by whole blocks, which is the same average
    # five times cheaper (a 2736 px photo's patches are 400 px).
    crop = blocks_averaged(_square(frame_bgr, left, top, side), side // (2 * out_px))
    shrink = cv2.INTER_AREA if crop.shape[0] > out_px else cv2.INTER_LINEAR
    return cv2.resize(crop, (out_px, out_px), interpolation=shrink)


def _square(frame_bgr: np.ndarray, left: int, top: int, side: int) -> np.ndarray:
    height, width = frame_bgr.shape[:2]
    x0, y0 = max(0, left), max(0, top)
    x1, y1 = min(width, left + side), min(height, top + side)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((side, side, 3), np.uint8)
    return cv2.copyMakeBorder(frame_bgr[y0:y1, x0:x1], y0 - top, top + side - y1,
                              x0 - left, left + side - x1, cv2.BORDER_REPLICATE)


def top_face_patch(frame_bgr: np.ndarray, corners: Corners) -> np.ndarray | None:
    """The INPUT_PX square patch with the quadrilateral ``corners`` warped square into its
    middle, TOP_FACE_OF_PATCH of its side; None when the corners are not all numbers, outline
    less than LEAST_TOP_FACE_AREA or no convex face, or reach past the frame's edge (the face's
    pips there would be made up of the edge's pixels repeated: on a validation scene a white die
    half outside the frame was read a 2 so). The warp is made up to MOST_SUPERSAMPLING times
    finer than the patch and averaged down, so each patch pixel is the mean of the face's."""
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    height, width = frame_bgr.shape[:2]
    if (not np.isfinite(quad).all() or cv2.contourArea(quad) < LEAST_TOP_FACE_AREA
            or not cv2.isContourConvex(quad.reshape(4, 1, 2))
            or quad.min() < 0 or quad[:, 0].max() > width or quad[:, 1].max() > height):
        return None
    face_px = INPUT_PX * TOP_FACE_OF_PATCH
    longest_side = float(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1).max())
    fine = int(np.clip(np.ceil(longest_side / face_px), 1, MOST_SUPERSAMPLING))
    low, high = (INPUT_PX - face_px) / 2 * fine, (INPUT_PX + face_px) / 2 * fine
    square = np.array([[low, low], [high, low], [high, high], [low, high]], np.float32)
    warp = cv2.getPerspectiveTransform(quad, square)
    side = INPUT_PX * fine
    fine_patch = cv2.warpPerspective(frame_bgr, warp, (side, side), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
    return blocks_averaged(fine_patch, fine)


def network_input(patches: list[np.ndarray]) -> np.ndarray:
    """Patches as the net takes them: float NCHW, each standardised by its own mean colour and
    contrast, so the lamp's colour and the exposure are mostly gone before the net sees them."""
    count = len(patches)
    # Channels first before the arithmetic: each channel's mean is then over a contiguous run,
    # which numpy sums at twice the speed of a strided one.
    data = np.ascontiguousarray(np.stack(patches).transpose(0, 3, 1, 2), dtype=np.float32)
    data -= data.reshape(count, 3, -1).mean(axis=2)[:, :, None, None]
    spread = data.reshape(count, -1).std(axis=1)
    data /= np.maximum(spread, MIN_PATCH_SPREAD)[:, None, None, None]
    return data

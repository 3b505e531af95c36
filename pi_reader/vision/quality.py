"""Is a frame good enough to read? Too dark, overexposed or blurred, measured from the frame.

Every threshold is relative to something the frame itself shows, not to one data set:

* too dark: the brightest parts of the scene (the white dice, glare) use less than a fifth of the
  sensor's range, so pips are lost in noise and JPEG steps;
* overexposed: at least half (and at least two) of the coloured dice found are blown out
  (their top face and most of their rim clipped white in all three channels), so neither their
  colour nor light pips can be seen. White dice are left out (they sit near clipping under any
  good exposure and their dark pips survive it), and so is a clipped tray: both are normal
  under a bright lamp. With a calibration, a third of the tray clipped white that was not at
  calibration also counts (the finder then sees dice in the glare);
* blurred: the sharpest edges on the dice are spread over more than a tenth of a die's side.
  A pip is about a fifth of the side across, so an edge spread that wide smears pips into the
  face; a sharp frame measures about a twentieth.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from pi_reader.vision.channels import brightest_channel, darkest_channel
from pi_reader.vision.shrinking import blocks_averaged
from pi_reader.vision.tray_grid import TrayView
from pi_reader.vision.types import WHITE, Box, Problem, ProblemKind

# The brightest 0.5 % of the frame must reach this level out of 255. The dimmest generated
# validation frames reach 67 (dr2val) and 74 (dr2valg) and are read; a frame at 0.15 of a
# rendered roll's exposure (about 37) is too dark. The brightest parts, not the middle: 8 of the
# 675 generated validation frames (dark cloth, lit dice) have a median grey under the level.
DARK_LEVEL = 48
DARK_PERCENTILE = 99.5
# A channel at or above this is clipped.
CLIPPED = 250
# A die whose box is clipped white over this fraction is blown out (its top face and most of its
# rim: under a bright lamp a top face alone is often clipped and the rim still shows the colour).
BLOWN_FRACTION = 0.4
# The frame is overexposed when at least this fraction of the coloured dice are blown out: a
# lamp's hot spot clips the few faces under it (each then refused as washed out); lowering the
# exposure is the advice once most of them are clipped.
BLOWN_DICE_FRACTION = 0.5
# With no dice found, this fraction of the frame clipped white means overexposed (a score pad
# or a sheet of paper may fill a third of the view under a lamp that is right).
BLOWN_FRAME_FRACTION = 0.5
# With a calibration: this share of the tray newly clipped white means overexposed. The own rolls
# of the 75 dr2val validation scenes clip at most 2.3 % of the tray since calibration.
NEWLY_CLIPPED_TRAY = 0.3
# A calibration frame clipped white over this share leaves less of the tray than
# NEWLY_CLIPPED_TRAY to clip: no overexposed roll could be told from it, so it is refused.
MAX_CALIBRATION_CLIPPED = 1.0 - NEWLY_CLIPPED_TRAY
# A die whose middle (this fraction of its box across) is clipped white over WASHED_OUT_SHARE
# shows no pips there: light pips on a clipped face are lost, and so is the face's colour. A
# face's corner pips lie about 0.24 of the box from its centre, inside the middle half, so a
# highlight over the centre pip alone is not a washed-out face.
FACE_MIDDLE = 0.5
WASHED_OUT_SHARE = 0.6
# Edge spread (pixels) over die side (pixels) above which a frame is blurred.
BLURRED_EDGE_SPREAD = 0.1


def brightness_level(frame: np.ndarray) -> float:
    """The level (0..255) reached by the brightest half-percent of the frame.

    Measured through a histogram on a grid of about 340 points along the long side (at least
    every third pixel), which is exact enough and cheap at any resolution.
    """
    step = max(3, max(frame.shape[:2]) // 340)
    grey = cv2.cvtColor(np.ascontiguousarray(frame[::step, ::step]), cv2.COLOR_BGR2GRAY)
    histogram = cv2.calcHist([grey], [0], None, [256], [0, 256]).ravel()
    cumulative = np.cumsum(histogram) / max(float(histogram.sum()), 1.0)
    return float(np.searchsorted(cumulative, DARK_PERCENTILE / 100.0))


def clipped_share(frame: np.ndarray) -> float:
    """The share of the frame clipped white in all three channels, on a grid of about 340
    points along the long side (at least every other pixel)."""
    step = max(2, max(frame.shape[:2]) // 340)
    return blown_fraction(frame[::step, ::step])


def blown_fraction(patch: np.ndarray) -> float:
    """The fraction of a BGR patch clipped white in all three channels."""
    if patch.size == 0:
        return 0.0
    return float(np.mean(darkest_channel(patch) >= CLIPPED))


def face_washed_out(frame: np.ndarray, box: Box) -> bool:
    """Whether the middle of a die's box is clipped white: no pip can be seen on it."""
    return middle_clipped_share(frame, box) >= WASHED_OUT_SHARE


def middle_clipped_share(frame: np.ndarray, box: Box) -> float:
    """The share of the middle of a die's box (FACE_MIDDLE of it across) clipped white."""
    x, y, w, h = box
    margin_x, margin_y = round(w * (1 - FACE_MIDDLE) / 2), round(h * (1 - FACE_MIDDLE) / 2)
    middle = (x + margin_x, y + margin_y, w - 2 * margin_x, h - 2 * margin_y)
    return blown_fraction(_crop(frame, middle))


def edge_spread(grey_patch: np.ndarray) -> float:
    """How many pixels the patch's strongest edge is spread over: contrast / steepest slope.

    A step edge blurred by a Gaussian of sigma s has a slope of contrast / (2.5 s), so this grows
    in proportion to the blur and does not depend on the exposure.
    """
    if grey_patch.shape[0] < 3 or grey_patch.shape[1] < 3:
        return 0.0
    grey = grey_patch.astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
    slope = _quantile(cv2.magnitude(gx, gy).ravel(), 0.995)
    values = grey.ravel()
    contrast = _quantile(values, 0.98) - _quantile(values, 0.02)
    return contrast / max(slope, 1e-3)


# Dice larger than this (pixels along a side) are measured on a sampled copy: the measures are
# ratios (clipped share, edge spread over side), so they do not depend on the scale.
_MEASURE_SIDE = 96


def _quantile(values: np.ndarray, q: float) -> float:
    """The q-quantile (nearest rank) of a flat array; np.partition is cheaper than percentile."""
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return float(np.partition(values, k)[k])


def _crop(frame: np.ndarray, box: Box) -> np.ndarray:
    x, y, w, h = box
    return frame[max(0, y) : max(0, y + h), max(0, x) : max(0, x + w)]


def _sampled_crop(frame: np.ndarray, box: Box) -> np.ndarray:
    """The crop under a box on a grid of every second pixel, or coarser so that about
    _MEASURE_SIDE pixels lie along its side: a share needs no more (a 2736 px photo's dice are
    300 px across)."""
    step = max(2, min(box[2], box[3]) // _MEASURE_SIDE)
    return _crop(frame, box)[::step, ::step]


def _small_crop(frame: np.ndarray, box: Box) -> tuple[np.ndarray, float]:
    """The crop under a box, shrunk by a whole factor to _MEASURE_SIDE to twice that pixels
    along its shorter side, and the factor applied."""
    patch = _crop(frame, box)
    side = min(patch.shape[:2]) if patch.size else 0
    k = max(1, side // _MEASURE_SIDE)
    return blocks_averaged(patch, k), 1.0 / k


def newly_clipped_fraction(tray: TrayView) -> float:
    """The share of the tray, unclipped at calibration, that is now clipped white.

    A tray that was already clipped at calibration (a white tray under a bright lamp) does not
    count: only a change of exposure does.
    """
    was_unclipped = brightest_channel(tray.calibrated) < CLIPPED
    if not np.any(was_unclipped):
        return 0.0
    clipped_now = darkest_channel(tray.now) >= CLIPPED
    return float(np.mean(clipped_now[was_unclipped]))


def assess(
    frame: np.ndarray,
    boxes: Sequence[Box],
    die_side_px: float | None,
    colours: Sequence[str] | None = None,
    tray: TrayView | None = None,
) -> list[Problem]:
    """The exposure and focus problems of a frame, given the dice found in it.

    ``colours`` (one per box, when known) lets the white dice be left out of the exposure check;
    ``tray`` (the calibrated empty tray beside the frame's, see newly_clipped_fraction) lets a
    tray clipped since calibration count as overexposure even when the dice found are not blown
    out.
    """
    problems: list[Problem] = []
    level = brightness_level(frame)
    if level < DARK_LEVEL:
        problems.append(
            Problem(
                ProblemKind.TOO_DARK,
                f"the frame is too dark: its brightest parts reach {level:.0f} of 255; "
                "add light or raise the exposure",
            )
        )
    coloured = [b for b, c in zip(boxes, colours or [""] * len(boxes), strict=True) if c != WHITE]
    if coloured:
        blown = sum(blown_fraction(_sampled_crop(frame, b)) >= BLOWN_FRACTION for b in coloured)
        overexposed = blown >= max(2.0, BLOWN_DICE_FRACTION * len(coloured))
        detail = f"{blown} of {len(coloured)} coloured dice are clipped white"
    elif boxes:
        overexposed = False  # only white dice: their clipping is normal (see above)
        detail = ""
    else:
        clipped = clipped_share(frame)
        overexposed = clipped >= BLOWN_FRAME_FRACTION
        detail = f"{clipped:.0%} of the frame is clipped white"
    if not overexposed and tray is not None:
        newly = newly_clipped_fraction(tray)
        overexposed = newly >= NEWLY_CLIPPED_TRAY
        detail = f"{newly:.0%} of the tray is clipped white since calibration"
    if overexposed:
        problems.append(
            Problem(
                ProblemKind.OVEREXPOSED,
                f"the frame is overexposed: {detail}; lower the exposure or the light",
            )
        )
    if boxes and level >= DARK_LEVEL:
        ratios = []
        for box in boxes:
            patch, factor = _small_crop(frame, box)
            side = (die_side_px or (box[2] + box[3]) / 2.0) * factor
            if patch.size:
                grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
                ratios.append(edge_spread(grey) / max(side, 1.0))
        spread = float(np.median(ratios)) if ratios else 0.0
        if spread > BLURRED_EDGE_SPREAD:
            problems.append(
                Problem(
                    ProblemKind.BLURRED,
                    f"the frame is blurred: die edges are spread over {spread:.0%} of a die's "
                    "side; wait for the dice to stop or refocus the camera",
                )
            )
    return problems

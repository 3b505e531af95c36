"""The stages the reader is built from, behind one small seam.

Finding the dice (``locate``) and reading a top face (``pips``) are separate modules; the reader
and calibration reach them only through :class:`Stages`, so a test can substitute a double (for
example a finder that returns the labelled boxes) without patching module globals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from pi_reader.vision.types import Box


class DieCandidateLike(Protocol):
    """What the reader needs of a die found by ``locate``."""

    box: Any  # x, y, w, h
    top_face: Any  # 4 x 2 corners of the top face, in frame pixels
    side_px: float
    cocked: bool
    score: float
    confirmed: bool  # False: a die only if its top face reads clearly (see locate.DieCandidate)
    first_box: Any  # x, y, w, h the first search gave it, if a closer look moved it; else None


class FaceReadingLike(Protocol):
    """What the reader needs of a top face read by ``pips``."""

    value: int | None
    confidence: float
    polarity: str
    no_face: bool  # the reader sees no top face at all there (tray, a die's edge, a screw head)
    face_centre: tuple[float, float] | None  # the top face's middle in frame pixels, if measured


@dataclass(frozen=True)
class Stages:
    """The functions the reader calls, with locate's and pips' signatures."""

    learn_scene: Callable[..., Any]
    find_dice: Callable[..., Sequence[DieCandidateLike]]
    read_face: Callable[..., FaceReadingLike]
    locate_error: type[Exception]


def default_stages() -> Stages:
    """The product's stages: ``locate`` finds the dice, ``pips`` reads them."""
    from pi_reader.vision import locate, pips

    return Stages(
        learn_scene=locate.learn_scene,
        find_dice=locate.find_dice,
        read_face=pips.read_face,
        locate_error=locate.LocateError,
    )


def int_box(box: Sequence[float]) -> Box:
    """A box rounded to whole pixels, as the JSON contract spells it."""
    x, y, w, h = (float(v) for v in box)
    return (round(x), round(y), max(1, round(w)), max(1, round(h)))


def face_box(candidate: DieCandidateLike) -> tuple[float, float, float, float]:
    """The box handed to the pips reader: the whole visible die, as locate reports it.

    The pips reader finds the top face inside it; a box cut to locate's footprint rectangle
    would clip the corners of a die seen at an angle.
    """
    x, y, w, h = (float(v) for v in candidate.box)
    return (x, y, w, h)


# The colour of a die shows on the rounded rim of its top face and on its sides, so its pixels
# are taken from the top-face quad (locate's footprint rectangle, rim and sides included) scaled
# by this factor about its centre, and kept inside its box.
_COLOUR_REGION_GROWTH = 1.0


# Colour needs a few thousand pixels per die at most: larger dice (high-resolution photos) are
# sampled on a grid so that about this many pixels lie along the die's side.
_COLOUR_SAMPLES_PER_SIDE = 48


def die_pixels(frame: np.ndarray, candidate: DieCandidateLike) -> tuple[np.ndarray, np.ndarray]:
    """The BGR patch under a die's box (sampled on a grid for large dice) and a die mask."""
    x, y, w, h = int_box(candidate.box)
    height, width = frame.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(height, y + h)
    step = max(1, min(w, h) // _COLOUR_SAMPLES_PER_SIDE)
    patch = frame[y0:y1:step, x0:x1:step]
    quad = np.asarray(candidate.top_face, dtype=np.float32).reshape(-1, 2)
    if len(quad) < 3 or patch.size == 0:
        return patch, np.ones(patch.shape[:2], dtype=bool)
    centre = quad.mean(axis=0)
    grown = ((quad - centre) * _COLOUR_REGION_GROWTH + centre - (x0, y0)) / step
    mask = np.zeros(patch.shape[:2], dtype=np.uint8)
    cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 1)
    return patch, mask.astype(bool)

"""The three learnt stages the reader is built from, behind one small seam.

Finding the dice (:mod:`detector`), reading a top face (:mod:`faces`) and gauging whether a die
lies flat (:mod:`lean`) are networks; the reader and calibration reach them only through
:class:`Stages`, so a test can put a double in their place (a finder that returns the labelled
boxes, a face reader that answers what a test needs) without patching module globals. The
networks themselves are loaded once per process (:func:`default_stages`) and run by ONNX Runtime
(:mod:`weights`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np

from pi_reader.vision.detector import Box, Detection, Detector
from pi_reader.vision.faces import FaceClassifier, FaceReading
from pi_reader.vision.lean import Lean, LeanGauge


class DiceFinder(Protocol):
    """Finds every die in a frame; ``die_side_px`` is the die's side when calibration knows it."""

    def __call__(self, frame_bgr: np.ndarray, die_side_px: float | None = None
                 ) -> Sequence[Detection]: ...


class FaceReader(Protocol):
    """Reads the top face in each box of a frame, one reading per box, in order."""

    def __call__(self, frame_bgr: np.ndarray, boxes: list[Box]) -> Sequence[FaceReading]: ...


class LeanReader(Protocol):
    """Gauges the top face and lean of the die in each box of a frame, one per box, in order."""

    def __call__(self, frame_bgr: np.ndarray, boxes: list[Box]) -> Sequence[Lean]: ...


@dataclass(frozen=True)
class Stages:
    """The functions the reader calls."""

    find_dice: DiceFinder
    read_faces: FaceReader
    gauge_lean: LeanReader


@cache
def default_stages() -> Stages:
    """The product's stages, loaded once: the shipped detector, face classifier and gauge.

    Raises :class:`pi_reader.vision.weights.WeightsMissing` when their files are not installed.
    """
    return Stages(find_dice=Detector().detect, read_faces=FaceClassifier().read,
                  gauge_lean=LeanGauge().gauge)

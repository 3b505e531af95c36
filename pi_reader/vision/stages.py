"""The learnt stages the reader is built from, behind one small seam.

Finding the dice (:mod:`detector`), reading a top face (:mod:`faces`, from the box or from the
corners the gauge puts round it) and gauging whether a die lies flat (:mod:`lean`) are networks;
the reader and calibration reach them only through :class:`Stages`, so a test can put a double
in their place (a finder that returns the labelled boxes, a face reader that answers what a test
needs) without patching module globals. The networks themselves are loaded once per process
(:func:`default_stages`) and run by ONNX Runtime (:mod:`weights`).

Each mode reads with its own networks (:data:`CALIBRATED_NETWORKS`, :data:`GENERIC_NETWORKS`):
the appliance's overhead tray and a photo of any table ask different things of them, and the
networks each mode's validation rule ranks first may differ (training/compare_networks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np

from pi_reader.vision import detector, faces, lean, weights
from pi_reader.vision.detector import Box, Detection, Detector
from pi_reader.vision.faces import Corners, FaceClassifier, FaceReading
from pi_reader.vision.lean import Lean, LeanGauge


class DiceFinder(Protocol):
    """Finds every die in a frame; ``die_side_px`` is the die's side when calibration knows it."""

    def __call__(self, frame_bgr: np.ndarray, die_side_px: float | None = None
                 ) -> Sequence[Detection]: ...


class FaceReader(Protocol):
    """Reads the top face in each box of a frame, one reading per box, in order."""

    def __call__(self, frame_bgr: np.ndarray, boxes: list[Box]) -> Sequence[FaceReading]: ...


class TopFaceReader(Protocol):
    """Reads the top face each four corners outline, warped square; None where they outline
    no face."""

    def __call__(self, frame_bgr: np.ndarray, corners: list[Corners]
                 ) -> Sequence[FaceReading | None]: ...


class LeanReader(Protocol):
    """Gauges the top face and lean of the die in each box of a frame, one per box, in order."""

    def __call__(self, frame_bgr: np.ndarray, boxes: list[Box]) -> Sequence[Lean]: ...


@dataclass(frozen=True)
class Stages:
    """The functions the reader calls."""

    find_dice: DiceFinder
    read_faces: FaceReader
    gauge_lean: LeanReader
    read_top_faces: TopFaceReader


class StagesByMode(Protocol):
    """The stages of the calibrated mode or, without a calibration, the generic one."""

    def __call__(self, *, calibrated: bool) -> Stages: ...


@dataclass(frozen=True)
class ModeNetworks:
    """The shipped weights files one mode reads with (names in :data:`weights.SHIPPED`)."""

    detector: str
    classifier: str
    gauge: str


# Taught further on the generated heaps, the detector read more of the real validation photos'
# dice right and refused more of the calibrated validation rolls: the generic rule ranked it
# first and the calibrated one last (docs/reader-history.md, *One network for each mode*), so
# the generic mode ships its own detector. The modes share the classifier and the gauge: the
# classifiers taught on the heaps gave the table fewer usable calibrated rolls.
CALIBRATED_NETWORKS = ModeNetworks(detector=detector.MODEL_FILE, classifier=faces.MODEL_FILE,
                                   gauge=lean.MODEL_FILE)
GENERIC_NETWORKS = ModeNetworks(detector=detector.GENERIC_MODEL_FILE,
                                classifier=faces.MODEL_FILE, gauge=lean.MODEL_FILE)


def mode_networks(*, calibrated: bool) -> ModeNetworks:
    """The weights files of the calibrated mode or, without a calibration, the generic one."""
    return CALIBRATED_NETWORKS if calibrated else GENERIC_NETWORKS


@cache
def default_stages(*, calibrated: bool) -> Stages:
    """The product's stages of one mode, loaded once: the shipped networks it reads with.

    A network both modes read with is loaded once for both. Raises
    :class:`pi_reader.vision.weights.WeightsMissing` when their files are not installed.
    """
    files = mode_networks(calibrated=calibrated)
    classifier = _classifier(files.classifier)
    return Stages(find_dice=_detector(files.detector).detect, read_faces=classifier.read,
                  gauge_lean=_gauge(files.gauge).gauge,
                  read_top_faces=classifier.read_top_faces)


@cache
def _detector(name: str) -> Detector:
    return Detector(weights.shipped(name))


@cache
def _classifier(name: str) -> FaceClassifier:
    return FaceClassifier(weights.shipped(name))


@cache
def _gauge(name: str) -> LeanGauge:
    return LeanGauge(weights.shipped(name))


def forget_loaded_networks() -> None:
    """Load every network again at the next read: for a test that swaps a weights file."""
    for loaded in (default_stages, _detector, _classifier, _gauge):
        loaded.cache_clear()

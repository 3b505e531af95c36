"""The dice of a frame: what the detector finds and the face classifier takes for whole dice.

Calibration and the reader both start here, so a die is a die by one rule: the detector's boxes
(at the calibrated die size, or on its pyramid), each read by the classifier; what it calls *not
a die* is left out, and so is one of any two boxes of which one lies inside the other at most a
part of its size, or, without a calibration, which share much of the smaller box (see
:func:`whole_dice`). A value is trusted only when the classifier is sure of it from every view
(:func:`trusted_value`).
"""

from __future__ import annotations

import numpy as np

from pi_reader.vision import detector
from pi_reader.vision.detector import Detection
from pi_reader.vision.faces import FaceReading
from pi_reader.vision.stages import Stages
from pi_reader.vision.types import smaller_box_share

# A value is taken only when the classifier's mean probability over the patch's views is at
# least MIN_VALUE_CONFIDENCE and no single view gives it less than MIN_VIEW_AGREEMENT (without
# a calibration the GENERIC_ pair); below either the die is unreadable. Each pair chosen on the
# validation splits of its mode (generated scenes calibrated; generated scenes and real photos
# without) by training/choose_thresholds.py (benchmarks/results/thresholds.json, and
# thresholds-generic.json for the GENERIC_ pair, chosen again on its own with the generated
# generic validation scenes beside the photos, together with GENERIC_DOUBT_FROM_EVERY_TURN:
# judged from every turn, a doubtful face needs all four to give its value 0.8);
# benchmarks/bench_sensitivity.py measures the reader at half and double of each.
MIN_VALUE_CONFIDENCE = 0.8
MIN_VIEW_AGREEMENT = 0.4
GENERIC_MIN_VALUE_CONFIDENCE = 0.8
GENERIC_MIN_VIEW_AGREEMENT = 0.8
# Without a calibration a doubtful face (faces.FaceReading.doubtful) is judged by its closer
# reading alone, from every quarter turn, instead of taken from the two turns that first read
# it whenever they pass the thresholds: a photo's die seen at a slant shows side faces in its
# patch, and a value that some turns give and others doubt is the slant's, not the pips'. With
# a calibration (the camera straight overhead) the closer reading only turns a doubt into a
# value: there its misreads are cocked dice every turn agrees on, and judging by every turn only
# refused more (22.6 -> 24.5 % of the first 88 calibrated dr2val rolls, no misread saved).
# Chosen with the GENERIC_ pair by training/choose_thresholds.py (thresholds-generic.json).
GENERIC_DOUBT_FROM_EVERY_TURN = True
# The one value a part of a die can show: a single pip is a die's face with one pip.
PIP_LOOKALIKE = 1
# Without a calibration, two dice found whose boxes share at least this much of the smaller box
# are one die found twice: a die seen at a slant gives a peak on its top face and another on a
# side face, and no count check catches the second. Dice side by side share only their boxes'
# margins (calibration.APART_OVERLAP); a heap's box round two dice is told apart by size
# (detector.PART_OF_DIE) first. Chosen on the generic validation splits by
# training/choose_seen_twice.py (benchmarks/results/seen_twice.json). A calibrated read looks
# straight down and counts its dice: there the rule only took dice pressed together.
SEEN_TWICE = 0.4

FoundDie = tuple[Detection, FaceReading]


def found_dice(frame_bgr: np.ndarray, stages: Stages, die_side_px: float | None = None, *,
               calibrating: bool = False, look_closer: float = 1.0) -> list[FoundDie]:
    """Every whole die in the frame with its face reading, strongest detection first.

    With ``die_side_px`` (a calibrated read) or ``calibrating`` (the dice of a calibration frame,
    whose size is not known yet) the calibrated mode's thresholds hold, else the generic ones.
    A calibration frame's dice are those the appliance's reads will find: detections under the
    calibrated PEAK_THRESHOLD are left out (the detector's peaks are kept strongest first, so
    that is what the detector would find at that threshold). A calibrated read may look
    ``look_closer`` times closer: the detector is told the dice are that much smaller, so it
    enlarges the frame that much more.
    """
    look_side = die_side_px / look_closer if die_side_px is not None else None
    found = list(stages.find_dice(frame_bgr, look_side))
    if calibrating:
        found = [d for d in found if d.score >= detector.PEAK_THRESHOLD]
    faces = stages.read_faces(frame_bgr, [d.box for d in found])
    return whole_dice([(d, face) for d, face in zip(found, faces, strict=True) if face.is_die],
                      calibrated=calibrating or die_side_px is not None)


def trusted_value(face: FaceReading, *, calibrated: bool) -> int | None:
    """The face's value when the classifier is sure of it from every view, else None."""
    reading = trusted_reading(face, calibrated=calibrated)
    return reading.value if reading is not None else None


def trusted_reading(face: FaceReading, *, calibrated: bool) -> FaceReading | None:
    """The reading of ``face`` whose value the reader may take: the face as first read when it
    is sure, else its closer reading (from every quarter turn) when that one is sure, else its
    top face's reading (warped square, from every turn) when that one is sure, else None.
    A closer look only ever turns a doubt into a value when all four turns agree on it; without
    a calibration a doubtful face is judged by its closer reading alone
    (GENERIC_DOUBT_FROM_EVERY_TURN). ``calibrated`` says which mode's thresholds hold."""
    confidence, agreement = value_thresholds(calibrated=calibrated)
    every_turn = not calibrated and GENERIC_DOUBT_FROM_EVERY_TURN and face.closer is not None
    for reading in ((face.closer,) if every_turn else (face, face.closer)) + (face.top_face,):
        if (reading is not None and reading.value is not None
                and reading.confidence >= confidence and reading.agreement >= agreement):
            return reading
    return None


def value_thresholds(*, calibrated: bool) -> tuple[float, float]:
    """The least confidence and agreement a value is taken at, in the mode asked for."""
    if calibrated:
        return MIN_VALUE_CONFIDENCE, MIN_VIEW_AGREEMENT
    return GENERIC_MIN_VALUE_CONFIDENCE, GENERIC_MIN_VIEW_AGREEMENT


def whole_dice(dice: list[FoundDie], *, calibrated: bool) -> list[FoundDie]:
    """The dice less the boxes that are no die. Of a box inside another at most a part of its
    size (detector.part_of), one is no die, and the faces tell which:

    - the small one is a part of the large die (a close-up's pip) when its face is not read
      surely, or when it reads as a one while the large one is read surely: a pip looks
      exactly like a die showing one, and a die read surely round it is the die it belongs to;
    - otherwise the large one is a whole heap seen from far (whose patch may even look like a
      face: three small dice in a row read as a three), and the small one is a die.

    Without a calibration, of the rest, two boxes sharing SEEN_TWICE of the smaller one are one
    die found twice, and the weaker detection goes.
    """
    dropped: set[int] = set()
    for i, (small, small_face) in enumerate(dice):
        for j, (large, large_face) in enumerate(dice):
            if i != j and detector.part_of(small, large):
                whole = _whole_inside(small_face, large_face, calibrated=calibrated)
                dropped.add(j if whole else i)
    kept = [die for k, die in enumerate(dice) if k not in dropped]
    return kept if calibrated else _each_once(kept)


def _each_once(dice: list[FoundDie]) -> list[FoundDie]:
    """The dice less the weaker of any two whose boxes share SEEN_TWICE of the smaller one, in
    the order given."""
    kept: list[int] = []
    for k in sorted(range(len(dice)), key=lambda k: -dice[k][0].score):
        if all(smaller_box_share(dice[k][0].box, dice[m][0].box) < SEEN_TWICE for m in kept):
            kept.append(k)
    return [dice[k] for k in sorted(kept)]


def _whole_inside(small: FaceReading, large: FaceReading, *, calibrated: bool) -> bool:
    """Whether the small box inside the large one is a whole die (see :func:`whole_dice`)."""
    value = trusted_value(small, calibrated=calibrated)
    if value is None:
        return False
    return not (value == PIP_LOOKALIKE
                and trusted_value(large, calibrated=calibrated) is not None)

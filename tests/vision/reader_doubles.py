"""A test double for the reader's stages: dice "found" where a recorded set's labels put them.

Used only in tests, to exercise the reader's colour naming, counting, refusals and scoring apart
from the networks. The face reader double answers the labelled value (or what a test asks for
one die), so tests using it check everything but the networks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pi_reader.vision import colour
from pi_reader.vision.calibration import Calibration, empty_tray_grid
from pi_reader.vision.detector import Box, Detection
from pi_reader.vision.faces import UNREADABLE, Corners, FaceReading
from pi_reader.vision.lean import Lean
from pi_reader.vision.recorded import LabelledDie, LabelledFrame
from pi_reader.vision.stages import Stages
from pi_reader.vision.types import int_box


def sure(value: int | None) -> FaceReading:
    """A face read surely from every turn (``None``: a die nobody could read)."""
    if value is None:
        return FaceReading(None, 0.95, 0.9, True)
    return FaceReading(value, 0.97, 0.93, True)


NOT_A_DIE = FaceReading(None, 0.9, 0.8, False)


def flat(box: Box, lean_deg: float = 0.0) -> Lean:
    """The gauge's answer for a die in ``box`` leaning ``lean_deg`` (flat unless told): its top
    face the box itself."""
    x, y, w, h = box
    return Lean(((x, y), (x + w, y), (x + w, y + h), (x, y + h)), lean_deg)


def label_stages(
    dice: Sequence[LabelledDie],
    faces: dict[int, FaceReading] | None = None,
    extra: Sequence[tuple[Box, FaceReading]] = (),
    extra_score: float = 0.6,
    leans: dict[int, float] | None = None,
    top_faces: dict[int, FaceReading] | None = None,
) -> Stages:
    """Stages that find exactly ``dice`` (and ``extra`` boxes, at the detector's score
    ``extra_score``) and read their labelled values; ``faces`` replaces the reading of the dice
    at those indices, ``leans`` gives the lean the gauge sees of them (else flat), ``top_faces``
    the reading of their top faces warped square (else the corners outline no face)."""
    found = [Detection(d.box, 0.9) for d in dice] + [Detection(b, extra_score) for b, _ in extra]
    readings = [sure(d.value) for d in dice] + [f for _, f in extra]
    for index, face in (faces or {}).items():
        readings[index] = face
    by_box = {int_box(d.box): r for d, r in zip(found, readings, strict=True)}
    lean_by_box = {int_box(d.box): (leans or {}).get(k, 0.0) for k, d in enumerate(found)}
    top_by_corners = {flat(d.box).corners: (top_faces or {}).get(k)
                      for k, d in enumerate(found)}

    def find_dice(frame: np.ndarray, die_side_px: float | None = None) -> list[Detection]:
        return list(found)

    def read_faces(frame: np.ndarray, boxes: list[Box]) -> list[FaceReading]:
        return [by_box[int_box(box)] for box in boxes]

    def gauge_lean(frame: np.ndarray, boxes: list[Box]) -> list[Lean]:
        return [flat(box, lean_by_box[int_box(box)]) for box in boxes]

    def read_top_faces(frame: np.ndarray, corners: list[Corners]) -> list[FaceReading | None]:
        return [top_by_corners[quad] for quad in corners]

    return Stages(find_dice=find_dice, read_faces=read_faces, gauge_lean=gauge_lean,
                  read_top_faces=read_top_faces)


def label_calibration(frame: LabelledFrame, image: np.ndarray) -> Calibration:
    """A calibration learnt from a calibration frame's labels (boxes and colours): a double for
    tests of what a calibration is used for, whatever the networks and the naming make of it."""
    boxes = [int_box(d.box) for d in frame.dice]
    tray = colour.tray_chroma(image, boxes)
    relative = [colour.die_pixel_chroma(*colour.die_pixels(image, b), tray) for b in boxes]
    height, width = image.shape[:2]
    return Calibration(
        die_side_px=float(np.median([np.sqrt(b[2] * b[3]) for b in boxes])),
        colour_models=colour.learn_models(
            [(str(d.colour), r) for d, r in zip(frame.dice, relative, strict=True)]),
        frame_size=(width, height),
        tray_grid=empty_tray_grid(image, boxes),
    )


__all__ = ["NOT_A_DIE", "UNREADABLE", "flat", "label_calibration", "label_stages", "sure"]

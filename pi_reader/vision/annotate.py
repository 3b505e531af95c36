"""Drawing a reading on its frame: boxes, values and colours, and labels where they disagree."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from pi_reader.rules import Colour
from pi_reader.vision.recorded import LabelledDie
from pi_reader.vision.types import WHITE, RollReading

# Outline colours (BGR) per die colour, chosen to stand out on any tray.
_OUTLINE = {
    WHITE: (255, 255, 255),
    Colour.RED: (40, 40, 230),
    Colour.YELLOW: (0, 220, 255),
    Colour.GREEN: (60, 200, 60),
    Colour.BLUE: (230, 120, 30),
}
_UNKNOWN = (200, 0, 200)
_LABEL = (0, 0, 0)


def annotate(
    frame: np.ndarray, reading: RollReading, labels: Sequence[LabelledDie] = ()
) -> np.ndarray:
    """A copy of the frame with every die read drawn on it, and its problems listed at the top.

    ``labels`` (from a recorded set) are drawn as thin black boxes with the expected colour and
    value under them, so a picture of a mistake shows what should have been read.
    """
    picture = frame.copy()
    for label in labels:
        x, y, w, h = (round(v) for v in label.box)
        cv2.rectangle(picture, (x, y), (x + w, y + h), _LABEL, 1)
        said = "unreadable" if label.unreadable else "?" if label.value is None else label.value
        _text(picture, f"{label.colour or '?'} {said}", (x, y + h + 14), _LABEL)
    for die in reading.dice:
        x, y, w, h = die.box
        outline = _OUTLINE.get(die.colour, _UNKNOWN)
        cv2.rectangle(picture, (x, y), (x + w, y + h), outline, 2)
        value = "?" if die.value is None else str(die.value)
        _text(picture, f"{die.colour} {value} {die.confidence:.2f}", (x, y - 5), outline)
    for line, problem in enumerate(reading.problems):
        _text(picture, problem.message, (8, 20 + 18 * line), (0, 0, 255))
    return picture


def _text(picture: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, int, int]):
    # A dark halo keeps the text legible on a light tray and a light die alike.
    cv2.putText(picture, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(picture, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)

"""A test double for the reader's stages: dice "found" where a recorded set's labels put them.

Used only in tests, to exercise the reader's colour naming, counting and scoring before (and
independently of) the real finder and pips reader. The face reader double answers the labelled
value, so tests using it check everything except pip counting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pi_reader.vision.recorded import LabelledDie
from pi_reader.vision.stages import Stages, face_box


class FakeLocateError(Exception):
    pass


@dataclass(frozen=True)
class LabelCandidate:
    box: tuple[float, float, float, float]
    top_face: np.ndarray
    side_px: float
    cocked: bool = False
    score: float = 1.0
    confirmed: bool = True
    first_box: tuple[float, float, float, float] | None = None


@dataclass(frozen=True)
class FakeFace:
    value: int | None
    confidence: float
    polarity: str
    pip_centres: tuple = ()
    no_face: bool = False
    face_centre: tuple[float, float] | None = None


def candidate_from_label(die: LabelledDie, shrink: float = 0.8) -> LabelCandidate:
    """A candidate whose top face is the label box shrunk about its centre (sides excluded)."""
    x, y, w, h = die.box
    cx, cy = x + w / 2, y + h / 2
    hw, hh = w * shrink / 2, h * shrink / 2
    quad = np.array(
        [[cx - hw, cy - hh], [cx + hw, cy - hh], [cx + hw, cy + hh], [cx - hw, cy + hh]]
    )
    return LabelCandidate(box=die.box, top_face=quad, side_px=min(w, h) * shrink)


def _key(box) -> tuple[int, ...]:
    return tuple(round(v) for v in box)


def label_stages(dice: tuple[LabelledDie, ...] | list[LabelledDie], cocked: int | None = None):
    """Stages that find exactly ``dice`` (optionally marking die ``cocked`` as not flat)."""
    candidates = [candidate_from_label(d) for d in dice]
    if cocked is not None:
        c = candidates[cocked]
        candidates[cocked] = LabelCandidate(c.box, c.top_face, c.side_px, cocked=True)
    values = {_key(face_box(c)): d.value for c, d in zip(candidates, dice, strict=True)}

    def find_dice(frame, scene=None, *, apart=False, expected=None):
        return list(candidates)

    def read_face(image, box, *, polarity=None, die_side_px=None):
        value = values[_key(box)]
        return FakeFace(value, 0.95 if value else 0.0, polarity or "dark")

    return Stages(
        learn_scene=lambda frame, expected_dice=6: None,
        find_dice=find_dice,
        read_face=read_face,
        locate_error=FakeLocateError,
    )

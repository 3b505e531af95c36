"""Shared test doubles for the appliance: synthetic frames and a reader double keyed by frame.

The reader double is for loop-logic tests only; the end-to-end test uses the real reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from pi_reader.rules import Roll
from pi_reader.vision.types import DieReading, Problem, ProblemKind, RollReading

SIZE = (120, 160)
DICE_NAMES = ("white1", "white2", "red", "yellow", "green", "blue")


def still(code: int) -> np.ndarray:
    """A still frame that the reader double recognises by ``code`` (1..250)."""
    frame = np.full((*SIZE, 3), 60, np.uint8)
    frame[10:40, 10 + (code % 7) * 15 : 30 + (code % 7) * 15] = 200 + code % 50
    frame[0, 0] = code
    return frame


def moving(step: int) -> np.ndarray:
    return np.random.default_rng(step).integers(0, 255, (*SIZE, 3), dtype=np.uint8)


def roll_frames(codes: Iterable[int], hold: int = 10, motion: int = 3) -> list[np.ndarray]:
    """For each code: ``motion`` noisy frames, then ``hold`` copies of that still frame."""
    frames: list[np.ndarray] = []
    for n, code in enumerate(codes):
        frames += [moving(100 * n + i) for i in range(motion)]
        frames += [still(code)] * hold
    return frames


def roll(*values: int, removed: Sequence[str] = ()) -> Roll:
    """The rules' roll of ``dice(*values, removed=removed)``."""
    return Roll.from_dict(dice(*values, removed=removed))


def reading(dice: Mapping[str, int], problems: Sequence[Problem] = ()) -> RollReading:
    found = []
    for i, (name, value) in enumerate(dice.items()):
        colour = "white" if name.startswith("white") else name
        found.append(DieReading(colour, value, (40 * i, 50, 30, 30), (40.0 * i + 15, 65.0), 0.95))
    return RollReading(tuple(found), tuple(problems))


def dice(*values: int, removed: Sequence[str] = ()) -> dict[str, int]:
    names = [n for n in DICE_NAMES if n not in removed]
    return dict(zip(names, values, strict=True))


class ReaderDouble:
    """Answers per frame code; records the ``removed`` dice it was told about."""

    def __init__(self, answers: Mapping[int, RollReading]) -> None:
        self.answers = dict(answers)
        self.removed_seen: list[tuple[str, ...]] = []

    def __call__(self, frame: np.ndarray, removed: Sequence[str]) -> RollReading:
        self.removed_seen.append(tuple(removed))
        answer = self.answers[int(frame[0, 0, 0])]
        present = {d.colour for d in answer.dice}
        extra = [c for c in removed if c in present]
        if extra:
            problem = Problem(ProblemKind.REMOVED_DIE_PRESENT, "removed die present", extra[0])
            return RollReading(answer.dice, (*answer.problems, problem))
        return answer


def missing(colour: str) -> Problem:
    return Problem(ProblemKind.MISSING_DIE, f"the {colour} die is missing", colour)

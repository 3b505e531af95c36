"""Combine the readings of the last few still frames into one roll, or refuse.

A single frame can be misread (a glint, a shadow edge); the same dice over several still frames
rarely fool the reader the same way twice. The dice do not move between still frames, so the
readings are compared as a whole: colours and values of all dice, or the problems reported.
A strict majority wins; without one the roll is doubtful and is never fed to the rules engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pi_reader.vision.types import Problem, ProblemKind, RollReading

DISAGREEMENT_MESSAGE = "the still frames disagree about the dice"


def reading_signature(reading: RollReading) -> tuple[object, ...]:
    """What two readings of the same still dice must share to count as the same answer."""
    if reading.ok:
        return ("ok", tuple(sorted((d.colour, d.value or 0) for d in reading.dice)))
    return ("problem", tuple(sorted((p.kind.value, p.colour or "") for p in reading.problems)))


def combine_readings(readings: Sequence[RollReading]) -> RollReading:
    """The majority answer of ``readings`` (oldest first), as its most recent reading.

    Without a strict majority the result carries a ``frames_disagree`` problem, so the caller asks
    for the dice to be left alone or rolled again.
    """
    if not readings:
        raise ValueError("combine_readings needs at least one reading")
    signatures = [reading_signature(r) for r in readings]
    winner, votes = Counter(signatures).most_common(1)[0]
    if votes * 2 > len(readings):
        pairs = zip(reversed(readings), reversed(signatures), strict=True)
        return next(reading for reading, signature in pairs if signature == winner)
    latest = readings[-1]
    return RollReading(
        dice=latest.dice,
        problems=(Problem(ProblemKind.FRAMES_DISAGREE, DISAGREEMENT_MESSAGE),),
    )

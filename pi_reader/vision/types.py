"""Value types shared by every stage of the reader and by its users (the appliance, the CLI).

They are frozen so a reading can be passed around, cached and compared without defensive copies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from pi_reader.rules import COLOURS, Roll

# The die colours the reader names: the two white dice, then the rules' four colours (one Colour
# type for the whole appliance); "unknown" is what the generic (uncalibrated) mode may answer.
WHITE = "white"
DIE_COLOURS: tuple[str, ...] = (WHITE, *COLOURS)
WHITE_DICE = 2  # a Qwixx set's white dice; one die of each other colour
UNKNOWN_COLOUR = "unknown"

Box = tuple[int, int, int, int]  # x, y, w, h in pixels


def expected_colours(removed: Iterable[str] = ()) -> list[str]:
    """The colours a calibrated roll must show: two whites and every coloured die in play."""
    gone = set(removed)
    return [WHITE] * WHITE_DICE + [c for c in COLOURS if c not in gone]


def int_box(box: Sequence[float]) -> Box:
    """A box rounded to whole pixels, as the JSON contract spells it."""
    x, y, w, h = (float(v) for v in box)
    return (round(x), round(y), max(1, round(w)), max(1, round(h)))


def box_contains(box: tuple[float, float, float, float], point: tuple[float, float]) -> bool:
    """Whether ``point`` lies in the box ``(x, y, w, h)``, edges included: how the scoring of
    recorded sets decides that two boxes are one die."""
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


def box_intersection(a: Sequence[float], b: Sequence[float]) -> float:
    """The area two boxes ``(x, y, w, h)`` share (0 when apart)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return max(0.0, min(ax + aw, bx + bw) - max(ax, bx)) * max(
        0.0, min(ay + ah, by + bh) - max(ay, by))


def smaller_box_share(a: Sequence[float], b: Sequence[float]) -> float:
    """The share of the smaller of two boxes ``(x, y, w, h)`` that they have in common (0 apart,
    1 when one lies inside the other): how far two found boxes are one thing found twice."""
    smaller = min(a[2] * a[3], b[2] * b[3])
    return box_intersection(a, b) / smaller if smaller > 0 else 0.0


def box_overlap(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes ``(x, y, w, h)``: how well a finder's box fits a
    labelled one (0 apart, 1 the same)."""
    inter = box_intersection(a, b)
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


class ProblemKind(StrEnum):
    """Why a frame cannot be trusted as a roll. The values are the JSON spelling."""

    MISSING_DIE = "missing_die"
    EXTRA_DIE = "extra_die"
    DUPLICATE_COLOUR = "duplicate_colour"
    REMOVED_DIE_PRESENT = "removed_die_present"
    COCKED_DIE = "cocked_die"
    UNREADABLE_VALUE = "unreadable_value"
    TOO_DARK = "too_dark"
    OVEREXPOSED = "overexposed"
    BLURRED = "blurred"
    # The still frames of one settle were read differently (the appliance's vote): not one
    # frame's fault, so it is told apart from an unreadable value.
    FRAMES_DISAGREE = "frames_disagree"
    CALIBRATION_MISMATCH = "calibration_mismatch"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a frame, with a sentence a person understands.

    ``colour`` names the die concerned when there is one (for example the removed die still in
    the tray), so the appliance can say which die to take out.
    """

    kind: ProblemKind
    message: str
    colour: str | None = None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"kind": self.kind.value, "message": self.message}
        if self.colour is not None:
            data["colour"] = self.colour
        return data


@dataclass(frozen=True)
class DieReading:
    """One die found in a frame: its colour, its top face, where it is and how sure we are.

    ``colour`` is one of DIE_COLOURS, or UNKNOWN_COLOUR in the generic mode; ``value`` is None
    when the top face could not be read (a Problem then says so).
    """

    colour: str
    value: int | None
    box: Box
    centre: tuple[float, float]
    confidence: float  # overall: the detector's score x colour margin x face confidence
    value_confidence: float = 1.0  # the face classifier's own confidence in ``value``

    def to_json(self) -> dict[str, object]:
        return {
            "colour": self.colour,
            "value": self.value,
            "box": list(self.box),
            "centre": [round(self.centre[0], 1), round(self.centre[1], 1)],
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True)
class RollReading:
    """Everything read from one frame. ``problems`` is empty only when the roll can be trusted."""

    dice: tuple[DieReading, ...]
    problems: tuple[Problem, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def white_sum(self) -> int | None:
        """The sum of the two white dice, or None unless exactly two whites were read."""
        whites = [d.value for d in self.dice if d.colour == WHITE]
        if len(whites) != 2 or any(v is None for v in whites):
            return None
        return int(whites[0]) + int(whites[1])  # type: ignore[arg-type]

    @property
    def roll(self) -> Roll:
        """The roll for the rules engine, for a trusted reading.

        White dice are taken left to right so the same frame always gives the same roll.
        """
        if not self.ok:
            raise ValueError("a reading with problems cannot be fed to the rules engine")
        whites = sorted((d for d in self.dice if d.colour == WHITE), key=lambda d: d.centre)
        dice: dict[str, object] = {
            name: die.value for name, die in zip(("white1", "white2"), whites, strict=True)
        }
        dice.update((str(die.colour), die.value) for die in self.dice if die.colour in COLOURS)
        return Roll.from_dict(dice)

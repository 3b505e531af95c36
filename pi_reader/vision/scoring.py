"""Scoring readings against a recorded set's labels: the figures ``replay`` reports.

A reading is matched to a labelled die when its centre lies inside the label's box (labels are
drawn round the whole die, side faces included) or the label's centre lies inside the reading's
box; nearest centres are paired first, one-to-one. Unmatched labels are missed dice, unmatched
readings are phantoms. A die is right when its value is right and, where the colour is labelled,
its colour too. A roll is right when every labelled die is found and right and there is no
phantom.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from pi_reader.vision.recorded import LabelledDie, LabelledFrame
from pi_reader.vision.types import DieReading, RollReading, box_contains


@dataclass(frozen=True)
class FrameScore:
    """How one frame was read, die by die."""

    image: str
    pairs: tuple[tuple[LabelledDie, DieReading], ...]
    missed: tuple[LabelledDie, ...]
    phantoms: tuple[DieReading, ...]
    problems: tuple[str, ...]
    seconds: float

    @property
    def wrong(self) -> tuple[tuple[LabelledDie, DieReading], ...]:
        return tuple((label, die) for label, die in self.pairs if not die_right(label, die))

    @property
    def mistakes(self) -> int:
        return len(self.wrong) + len(self.missed) + len(self.phantoms)

    @property
    def right(self) -> bool:
        return self.mistakes == 0


def die_right(label: LabelledDie, die: DieReading) -> bool:
    value_right = label.value is None or die.value == label.value
    colour_right = label.colour is None or die.colour == label.colour
    return value_right and colour_right


def score_frame(frame: LabelledFrame, reading: RollReading, seconds: float) -> FrameScore:
    """Match a frame's reading to its labels (see the module docstring for the rules)."""
    options = []
    for i, label in enumerate(frame.dice):
        for j, die in enumerate(reading.dice):
            if box_contains(label.box, die.centre) or box_contains(die.box, label.centre):
                distance = math.dist(die.centre, label.centre)
                options.append((distance, i, j))
    used_labels: set[int] = set()
    used_dice: set[int] = set()
    pairs = []
    for _, i, j in sorted(options):
        if i in used_labels or j in used_dice:
            continue
        used_labels.add(i)
        used_dice.add(j)
        pairs.append((frame.dice[i], reading.dice[j]))
    return FrameScore(
        image=frame.image,
        pairs=tuple(pairs),
        missed=tuple(d for i, d in enumerate(frame.dice) if i not in used_labels),
        phantoms=tuple(d for j, d in enumerate(reading.dice) if j not in used_dice),
        problems=tuple(p.kind.value for p in reading.problems),
        seconds=seconds,
    )


@dataclass
class Report:
    """Totals over many frames, and the confusion matrices (label -> read -> count)."""

    frames: list[FrameScore] = field(default_factory=list)

    def add(self, score: FrameScore) -> None:
        self.frames.append(score)

    def summary(self, slowest: int = 5, worst: int = 10) -> dict[str, object]:
        labelled = sum(len(f.pairs) + len(f.missed) for f in self.frames)
        valued = [(lab, die) for f in self.frames for lab, die in f.pairs if lab.value is not None]
        valued_labels = sum(
            1 for f in self.frames for d in (*f.missed, *(p[0] for p in f.pairs)) if d.value
        )
        coloured = [(lab, die) for f in self.frames for lab, die in f.pairs if lab.colour]
        found = sum(len(f.pairs) for f in self.frames)
        read = sum(len(f.pairs) for f in self.frames)
        phantoms = sum(len(f.phantoms) for f in self.frames)
        right = sum(die_right(lab, die) for f in self.frames for lab, die in f.pairs)
        times = sorted((f.seconds for f in self.frames), reverse=True)
        value_confusion: dict[str, Counter[str]] = {}
        for lab, die in valued:
            value_confusion.setdefault(str(lab.value), Counter())[str(die.value)] += 1
        colour_confusion: dict[str, Counter[str]] = {}
        for lab, die in coloured:
            colour_confusion.setdefault(str(lab.colour), Counter())[die.colour] += 1
        n = len(self.frames)
        return {
            "frames": n,
            "labelled_dice": labelled,
            "found": found,
            "missed": labelled - found,
            "phantoms": phantoms,
            "phantom_rate": _ratio(phantoms, read + phantoms),
            "dice_right": _ratio(right, labelled),
            "value_accuracy": _ratio(
                sum(die.value == lab.value for lab, die in valued), valued_labels
            ),
            "colour_accuracy": _ratio(
                sum(die.colour == lab.colour for lab, die in coloured), len(coloured)
            ),
            "rolls_right": _ratio(sum(f.right for f in self.frames), n),
            "rolls_right_and_trusted": _ratio(
                sum(f.right and not f.problems for f in self.frames), n
            ),
            "rolls_flagged": _ratio(sum(bool(f.problems) for f in self.frames), n),
            "problems": dict(Counter(p for f in self.frames for p in f.problems)),
            "mean_ms": round(1000 * sum(times) / n, 1) if n else None,
            "p95_ms": round(1000 * times[int(0.05 * n)], 1) if n else None,
            "slowest": [
                {"image": f.image, "ms": round(1000 * f.seconds, 1)}
                for f in sorted(self.frames, key=lambda f: -f.seconds)[:slowest]
            ],
            "worst": [
                {
                    "image": f.image,
                    "mistakes": f.mistakes,
                    "wrong": [_describe(lab, die) for lab, die in f.wrong],
                    "missed": len(f.missed),
                    "phantoms": len(f.phantoms),
                }
                for f in sorted(self.frames, key=lambda f: -f.mistakes)[:worst]
                if f.mistakes
            ],
            "value_confusion": {k: dict(v) for k, v in sorted(value_confusion.items())},
            "colour_confusion": {k: dict(v) for k, v in sorted(colour_confusion.items())},
        }


def _describe(label: LabelledDie, die: DieReading) -> str:
    said = f"{label.colour or '?'} {label.value}"
    return f"{said} read as {die.colour} {die.value}"


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None

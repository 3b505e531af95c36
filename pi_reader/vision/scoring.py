"""Scoring readings against a recorded set's labels: the figures ``replay`` reports.

A reading is matched to a labelled die when its centre lies inside the label's box (labels are
drawn round the whole die, side faces included) or the label's centre lies inside the reading's
box; nearest centres are paired first, one-to-one. Unmatched labels are missed dice, unmatched
readings are phantoms.

A die is right when its colour is right where the colour is labelled and its value is right:
for a readable face the labelled value, for a face no one can read (labelled ``unreadable``) no
value at all. The reader declines a face by giving it no value (it then reports
``unreadable_value``, or ``cocked_die`` for a die not lying flat); any value read on an
unreadable face is a misread, even one equal to its ``rendered_value``. Unreadable faces are
left out of the value figures (``dice_right``, ``value_accuracy``) and kept in the colour,
found and phantom figures, since their colour and place can be seen.

A roll is right when every labelled die is found and right and there is no phantom. A roll is
*refused* when the reader reports a problem for it, or when its scenario's calibration was
refused (the appliance reads nothing then). The two figures that matter at the table:

- *silently wrong rolls*: rolls not refused that are not right (a die wrong, missed or
  invented): the appliance would feed a wrong roll to the game. This must be 0.
- *refusal rate*: the share of rolls refused among those whose every die is readable: a refusal
  there is safe but makes the table roll again for nothing. An appliance roll with a die in play
  out of view (fewer labelled dice than ``dice_in_play``) has a die no one can read: the reader
  rightly reports it missing, and the roll is not counted as readable.

Frames labelled ``expect_refusal`` (no one can read them) count only as refused or not: they are
left out of every other figure, and one not refused is reported on its own line
(``expect_refusal_accepted``), which must be empty as well.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from pi_reader.vision.recorded import LabelledDie, LabelledFrame
from pi_reader.vision.types import DieReading, RollReading, box_contains

UNREADABLE_ROW = "unreadable"  # the value confusion's row for faces no one can read


@dataclass(frozen=True)
class FrameScore:
    """How one frame was read, die by die."""

    image: str
    pairs: tuple[tuple[LabelledDie, DieReading], ...]
    missed: tuple[LabelledDie, ...]
    phantoms: tuple[DieReading, ...]
    problems: tuple[str, ...]
    seconds: float
    expect_refusal: str | None = None
    calibration_refused: bool = False
    dice_in_play: int | None = None  # the roll's dice, in view or not (LabelledFrame's)

    @property
    def wrong(self) -> tuple[tuple[LabelledDie, DieReading], ...]:
        return tuple((label, die) for label, die in self.pairs if not die_right(label, die))

    @property
    def mistakes(self) -> int:
        return len(self.wrong) + len(self.missed) + len(self.phantoms)

    @property
    def scored(self) -> bool:
        """Whether the frame counts in the dice and roll figures (not an ``expect_refusal``)."""
        return self.expect_refusal is None

    @property
    def refused(self) -> bool:
        """Whether the appliance would refuse the roll: a problem reported, or no calibration."""
        return bool(self.problems) or self.calibration_refused

    @property
    def right(self) -> bool:
        """Every die found and right, no phantom; for an ``expect_refusal`` frame: refused."""
        return self.mistakes == 0 if self.scored else self.refused

    @property
    def silently_wrong(self) -> bool:
        """A scored roll the appliance would take although it is not the roll on the tray."""
        return self.scored and not self.refused and not self.right

    @property
    def fully_readable(self) -> bool:
        """A scored roll whose every die is in view with a readable, labelled value."""
        in_view = self.dice_in_play is None or len(self.labels) >= self.dice_in_play
        return self.scored and in_view and all(label.value is not None for label in self.labels)

    @property
    def labels(self) -> tuple[LabelledDie, ...]:
        return (*(label for label, _ in self.pairs), *self.missed)


def die_right(label: LabelledDie, die: DieReading) -> bool:
    """Colour right where labelled, and the labelled value, or none on an unreadable face."""
    if label.unreadable is not None:
        value_right = die.value is None
    else:
        value_right = label.value is None or die.value == label.value
    colour_right = label.colour is None or die.colour == label.colour
    return value_right and colour_right


def score_frame(
    frame: LabelledFrame,
    reading: RollReading,
    seconds: float,
    *,
    calibration_refused: bool = False,
) -> FrameScore:
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
        expect_refusal=frame.expect_refusal,
        calibration_refused=calibration_refused,
        dice_in_play=frame.dice_in_play,
    )


@dataclass
class Report:
    """Totals over many frames, and the confusion matrices (label -> read -> count)."""

    frames: list[FrameScore] = field(default_factory=list)

    def add(self, score: FrameScore) -> None:
        self.frames.append(score)

    def summary(self, slowest: int = 5, worst: int = 10) -> dict[str, object]:
        scored = [f for f in self.frames if f.scored]
        to_refuse = [f for f in self.frames if not f.scored]
        pairs = [pair for f in scored for pair in f.pairs]
        labels = [label for f in scored for label in f.labels]
        readable = [label for label in labels if label.unreadable is None]
        valued = [(lab, die) for lab, die in pairs if lab.value is not None]
        unreadable = [(lab, die) for lab, die in pairs if lab.unreadable is not None]
        coloured = [(lab, die) for lab, die in pairs if lab.colour]
        phantoms = sum(len(f.phantoms) for f in scored)
        fully_readable = [f for f in scored if f.fully_readable]
        times = sorted((f.seconds for f in self.frames), reverse=True)
        n = len(self.frames)
        return {
            "frames": n,
            "labelled_dice": len(labels),
            "readable_dice": len(readable),
            "unreadable_dice": len(labels) - len(readable),
            "found": len(pairs),
            "missed": len(labels) - len(pairs),
            "phantoms": phantoms,
            "phantom_rate": _ratio(phantoms, len(pairs) + phantoms),
            "dice_right": _ratio(
                sum(die_right(lab, die) for lab, die in pairs if lab.unreadable is None),
                len(readable),
            ),
            "value_accuracy": _ratio(
                sum(die.value == lab.value for lab, die in valued),
                sum(1 for label in labels if label.value is not None),
            ),
            "colour_accuracy": _ratio(
                sum(die.colour == lab.colour for lab, die in coloured), len(coloured)
            ),
            "misread_dice": sum(
                die.value is not None and not die_right(lab, die)
                for lab, die in (*valued, *unreadable)
            ),
            "declined_dice": sum(die.value is None for _, die in valued),
            "unreadable_declined": sum(die.value is None for _, die in unreadable),
            "unreadable_misread": sum(die.value is not None for _, die in unreadable),
            "scored_frames": len(scored),
            "rolls_right": _ratio(sum(f.right for f in scored), len(scored)),
            "rolls_right_and_trusted": _ratio(
                sum(f.right and not f.refused for f in scored), len(scored)
            ),
            "rolls_flagged": _ratio(sum(bool(f.problems) for f in scored), len(scored)),
            "silently_wrong_rolls": sum(f.silently_wrong for f in scored),
            "silently_wrong": [f.image for f in scored if f.silently_wrong],
            "fully_readable_rolls": len(fully_readable),
            "refused_readable_rolls": sum(f.refused for f in fully_readable),
            "refusal_rate": _ratio(sum(f.refused for f in fully_readable), len(fully_readable)),
            "expect_refusal_rolls": len(to_refuse),
            "expect_refusal_refused": sum(f.refused for f in to_refuse),
            "expect_refusal_accepted": [f.image for f in to_refuse if not f.refused],
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
                    "wrong": [describe(lab, die) for lab, die in f.wrong],
                    "missed": len(f.missed),
                    "phantoms": len(f.phantoms),
                    "refused": f.refused,
                }
                for f in sorted(scored, key=lambda f: -f.mistakes)[:worst]
                if f.mistakes
            ],
            "value_confusion": _value_confusion(pairs),
            "colour_confusion": _colour_confusion(coloured),
        }


def _value_confusion(
    pairs: list[tuple[LabelledDie, DieReading]],
) -> dict[str, dict[str, int]]:
    """Label value (or ``unreadable``) -> value read (``None`` where declined) -> count."""
    confusion: dict[str, Counter[str]] = {}
    for lab, die in pairs:
        if lab.unreadable is not None:
            row = UNREADABLE_ROW
        elif lab.value is not None:
            row = str(lab.value)
        else:
            continue
        confusion.setdefault(row, Counter())[str(die.value)] += 1
    return {k: dict(v) for k, v in sorted(confusion.items())}


def _colour_confusion(
    coloured: list[tuple[LabelledDie, DieReading]],
) -> dict[str, dict[str, int]]:
    """Label colour -> colour read -> count, keyed by plain names: the reader names the rules'
    dice by their ``Colour`` members, whose repr would otherwise show in the printed table."""
    confusion: dict[str, Counter[str]] = {}
    for lab, die in coloured:
        confusion.setdefault(str(lab.colour), Counter())[str(die.colour)] += 1
    return {k: dict(v) for k, v in sorted(confusion.items())}


def describe(label: LabelledDie, die: DieReading) -> str:
    """A wrong die in words, e.g. ``red 4 read as red 6`` or ``blue 2 read as blue, no value``."""
    if label.unreadable is not None:
        rendered = f", rendered {label.rendered_value}" if label.rendered_value else ""
        said = f"{label.colour or '?'} (unreadable{rendered})"
    else:
        said = f"{label.colour or '?'} {'?' if label.value is None else label.value}"
    read = f"{die.colour}, no value" if die.value is None else f"{die.colour} {die.value}"
    return f"{said} read as {read}"


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None

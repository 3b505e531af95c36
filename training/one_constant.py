"""Choosing one constant of the reader on the validation rolls of the mode it matters in.

The choosers of a single constant (``choose_lean.py``, ``choose_closer_look.py``,
``choose_seen_twice.py``) score every candidate on the same rolls and rank them by
``choose_thresholds.py``'s rule for the constant's mode: silently wrong rolls within the
sample's noise of the fewest any candidate reaches (or within the constant's own allowance),
then the most dice right less three times the dice misread and invented, then the fewest
refused readable rolls; remaining ties go to the value that changes the reader least
(``Constant.safer``). They write the choice as a result file of benchmarks/result_file.py's
shape, which ``tests/vision/test_constants.py`` holds the shipped constant to. Test splits and
the qwixx-rendered sets are never read here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from benchmarks.result_file import provenance
from pi_reader.vision import detector, reader
from pi_reader.vision.calibration import Calibration
from pi_reader.vision.images import load_frame
from pi_reader.vision.recorded import LabelledFrame, RecordedSet
from pi_reader.vision.scoring import FrameScore, score_frame
from pi_reader.vision.stages import default_stages
from training.choose_thresholds import (
    FIGURES,
    RULE_AFTER_SILENT,
    RULES,
    Row,
    calibration_of,
    collect,
    dumped,
    figures,
    frames_to_read,
    overridden,
    refused_calibration,
    rule_order,
    score,
)
from training.data import add_set_options, open_set, scene_limits

Rolls = TypeVar("Rolls")  # what a chooser keeps of a set's validation rolls
Roll = tuple[LabelledFrame, Calibration | None]  # a validation roll and its calibration, if any
Sets = list[tuple[RecordedSet, int | None]]  # the sets to choose on, each with a scene limit


@dataclass(frozen=True)
class Constant:
    """A constant to choose, and what its result file calls it."""

    knob: str  # its key in the entries and in the result's "chosen"
    benchmark: str  # the result file's name
    title: str
    caption: str  # the table's caption
    column: str  # the table's first column, the candidate
    calibrated: bool = True  # whose rule chooses: the calibrated mode's or the generic one's
    shared_sets: tuple[str, ...] = ()  # shared sets read besides the generated ones given
    safer: Literal["smaller", "larger"] = "smaller"  # ties go to the value changing least
    # Silently wrong rolls allowed above the fewest; None: the mode's (its sample's noise).
    silent_allowance: int | None = None

    @property
    def mode(self) -> str:
        return "calibrated" if self.calibrated else "generic"

    @property
    def rule(self) -> str:
        """The rule that chooses it, in words."""
        if self.silent_allowance is None:
            return RULES[self.mode]
        rolls = f"silently wrong {self.mode} validation rolls"
        first = (f"{rolls} at most {self.silent_allowance} above the fewest"
                 if self.silent_allowance else f"the fewest {rolls}")
        return f"{first} any candidate reaches, " + RULE_AFTER_SILENT.format(mode=self.mode)


def entry(constant: Constant, value: float, sets: dict[str, dict[str, float]]) -> dict[str, Any]:
    """One candidate with its figures per validation set (the value thresholds, the same for
    every candidate, are zero: rank() breaks its last ties on them)."""
    return {constant.knob: value, "min_value_confidence": 0.0, "min_view_agreement": 0.0,
            "peak_threshold": 0.0, "sets": sets}


def choose(constant: Constant, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The entry the mode's rule ranks first, ties going to the safer value."""
    order = rule_order(entries, constant.calibrated, constant.silent_allowance)
    sign = 1 if constant.safer == "smaller" else -1
    return min(entries, key=lambda e: (order(e), sign * e[constant.knob]))


FIGURE_COLUMNS = ("rolls", "dice right", "silently wrong rolls", "refused readable rolls",
                  "invented dice")


def figure_cells(of_set: dict[str, float]) -> list[str]:
    """A validation set's figures as the cells of a result table's row (FIGURE_COLUMNS)."""
    return [str(of_set["rolls"]), f"{of_set['dice_right']:.1%}",
            str(of_set["silently_wrong_rolls"]), f"{of_set['refusal_rate']:.1%}",
            f"{of_set['phantom_rate']:.1%}"]


def result(constant: Constant, entries: list[dict[str, Any]], chosen: dict[str, Any]
           ) -> dict[str, Any]:
    """The choice as a result file (benchmarks/result_file.py's shape)."""
    names = list(chosen["sets"])
    knob, rule = constant.knob, constant.rule
    return {
        "benchmark": constant.benchmark,
        "title": constant.title,
        **provenance(),
        "notes": f"{constant.mode.capitalize()} validation rolls choose, at the shipped value "
                 f"thresholds; the rule: {rule}; ties go to the {constant.safer} value. Chosen: "
                 f"{knob} {chosen[knob]}.",
        "figures": {"rule": rule,
                    "chosen": {constant.mode: {knob: chosen[knob]}},
                    "columns": [knob, {name: FIGURES for name in names}],
                    "table": [[e[knob],
                               {name: [s[f] for f in FIGURES] for name, s in e["sets"].items()}]
                              for e in entries]},
        "tables": [{
            "caption": constant.caption,
            "columns": [constant.column, "validation set", *FIGURE_COLUMNS],
            "rows": [[f"{e[knob]:g}", name, *figure_cells(s)]
                     for e in entries for name, s in e["sets"].items()],
        }],
    }


def calibrated_rows(sets: Sets) -> dict[str, list[Row]]:
    """The calibrated sets' rows (every roll read once by the networks) at the shipped target
    side, by set name: what a constant of the reader's own logic is swept over."""
    side = detector.TARGET_SIDE_PX
    return {name: by_side[side] for name, by_side in
            collect(sets, modes=("calibrated",), targets=(side,)).items()}


def swept(constant: Constant, module: ModuleType, name: str, values: tuple[float, ...],
          rows: dict[str, list[Row]]) -> list[dict[str, Any]]:
    """Each of ``values`` of ``module.name`` with the figures of every calibrated validation
    set, the whole reader run again over the networks' answers at it."""
    entries = []
    for value in values:
        with overridden(module, name, value):
            sets = {set_name: score(by_side, detector.PEAK_THRESHOLD)
                    for set_name, by_side in rows.items()}
        entries.append(entry(constant, value, sets))
    return entries


def validation_rolls(sets: Sets, *, calibrated: bool) -> dict[str, list[Roll]]:
    """Each set's validation rolls of one mode by set name: with ``calibrated`` the rolls of
    scenarios that calibrate, with their calibration (None where it was refused, so that
    reread() counts them refused like the other choosers do), under "<set> calibrated"; else
    the rolls without a calibration frame (a shared set's photos, a generated set's generic
    scenes) under "<set>". Sets without any are left out."""
    stages = default_stages(calibrated=True)  # the calibrations'
    named: dict[str, list[Roll]] = {}
    for recorded, scenes in sets:
        calibrations: dict[str, Calibration | None] = {}
        for frame, calibration_frame in frames_to_read(recorded, scenes):
            if (calibration_frame is not None) is not calibrated:
                continue
            calibration = calibration_of(calibration_frame, calibrations, stages)
            name = recorded.root.name + (" calibrated" if calibrated else "")
            named.setdefault(name, []).append((frame, calibration))
    return named


def calibrated_rolls(sets: Sets) -> dict[str, list[Roll]]:
    """The calibrated validation rolls of ``sets`` (see :func:`validation_rolls`)."""
    return validation_rolls(sets, calibrated=True)


def generic_rolls(sets: Sets) -> dict[str, list[Roll]]:
    """The generic validation rolls of ``sets`` (see :func:`validation_rolls`)."""
    return validation_rolls(sets, calibrated=False)


def reread(constant: Constant, override: Callable[[float], AbstractContextManager[None]],
           values: tuple[float, ...], sets: dict[str, list[Roll]]) -> list[dict[str, Any]]:
    """Each candidate with the figures of every validation set read at it: every roll is read
    again by the whole reader, networks and all, inside ``override(value)`` (a calibrated
    mode's roll without a calibration is scored refused at every candidate). Each frame is
    decoded once and read at every candidate in turn, so no frame is kept past its rolls."""
    scores: dict[float, dict[str, list[FrameScore]]] = {
        value: {name: [] for name in sets} for value in values}
    for name, rolls in sets.items():
        for frame, calibration in rolls:
            if constant.calibrated and calibration is None:
                for value in values:
                    scores[value][name].append(refused_calibration(frame))
                continue
            image = load_frame(frame.path)
            for value in values:
                with override(value):
                    reading = reader.read_roll(image, calibration, frame.removed)
                scores[value][name].append(score_frame(frame, reading, 0.0))
    entries = []
    for value, by_set in scores.items():
        scored = {name: figures(frames) for name, frames in by_set.items()}
        entries.append(entry(constant, value, scored))
        print(f"{constant.knob} {value:g}: {scored}", flush=True)
    return entries


def main(constant: Constant, description: str, argv: list[str] | None,
         rolls_of: Callable[[Sets], dict[str, Rolls]],
         table: Callable[[dict[str, Rolls]], list[dict[str, Any]]]) -> int:
    """A chooser's command line: the constant's shared sets and the generated validation sets
    given, their rolls by set name from ``rolls_of`` (none of the constant's mode is a usage
    error), every candidate's entry from ``table``, the choice written to
    benchmarks/results/<benchmark>.json or ``--out``."""
    parser = argparse.ArgumentParser(description=description)
    add_set_options(parser, generated_required=not constant.shared_sets)
    parser.add_argument("--out", type=Path,
                        default=Path(f"benchmarks/results/{constant.benchmark}.json"))
    args = parser.parse_args(argv)
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error(f"--out {args.out}: its folder cannot be made ({error.strerror})")
    try:
        limits = scene_limits(args.generated, args.scenes)
        sets = [(open_set(args.datasets, name), None) for name in constant.shared_sets]
        sets += [(open_set(args.datasets, str(path)), limit)
                 for path, limit in zip(args.generated, limits, strict=True)]
    except ValueError as error:
        parser.error(str(error))
    rolls = rolls_of(sets)
    if not any(name.endswith(" calibrated") is constant.calibrated for name in rolls):
        parser.error(f"no {constant.mode} validation rolls to choose on"
                     + (": give a generated set with appliance scenes" if constant.calibrated
                        else ""))
    entries = table(rolls)
    chosen = choose(constant, entries)
    args.out.write_text(dumped(result(constant, entries, chosen)), encoding="utf-8")
    print(f"{constant.knob} {chosen[constant.knob]:g}: {chosen['sets']}")
    return 0

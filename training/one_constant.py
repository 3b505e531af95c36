"""Choosing one constant of the calibrated reader on the calibrated validation rolls.

The choosers of a single constant (``choose_lean.py``, ``choose_closer_look.py``) score every
candidate on the same rolls and rank them by ``choose_thresholds.py``'s calibrated rule: silently
wrong rolls at most one above the fewest any candidate reaches, then the most dice right less
three times the dice misread and invented, then the fewest refused readable rolls; remaining ties
go to the smaller value. They write the choice as a result file of benchmarks/result_file.py's
shape, which ``tests/vision/test_constants.py`` holds the shipped constant to.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from benchmarks.result_file import provenance
from pi_reader.vision.recorded import RecordedSet
from training.choose_thresholds import CALIBRATED_RULE, FIGURES, SILENT_NOISE, rank
from training.data import open_set, scene_limits

Rolls = TypeVar("Rolls")  # what a chooser keeps of a set's calibrated validation rolls


@dataclass(frozen=True)
class Constant:
    """What a result file calls the constant chosen."""

    knob: str  # its key in the entries and in the result's "chosen"
    benchmark: str  # the result file's name
    title: str
    caption: str  # the table's caption
    column: str  # the table's first column, the candidate


def entry(constant: Constant, value: float, sets: dict[str, dict[str, float]]) -> dict[str, Any]:
    """One candidate with its figures per calibrated validation set (the value thresholds, the
    same for every candidate, are zero: rank() breaks its last ties on them)."""
    return {constant.knob: value, "min_value_confidence": 0.0, "min_view_agreement": 0.0,
            "peak_threshold": 0.0, "sets": sets}


def choose(constant: Constant, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The entry the calibrated rule ranks first, ties going to the smaller value."""
    fewest = min(sum(s["silently_wrong_rolls"] for s in e["sets"].values()) for e in entries)
    return min(entries, key=lambda e: (rank(e, True, fewest, SILENT_NOISE), e[constant.knob]))


def result(constant: Constant, entries: list[dict[str, Any]], chosen: dict[str, Any]
           ) -> dict[str, Any]:
    """The choice as a result file (benchmarks/result_file.py's shape)."""
    names = list(chosen["sets"])
    knob = constant.knob
    return {
        "benchmark": constant.benchmark,
        "title": constant.title,
        **provenance(),
        "notes": f"Calibrated validation rolls at the shipped value thresholds; the rule: "
                 f"{CALIBRATED_RULE}; ties go to the smaller value. Chosen: {knob} "
                 f"{chosen[knob]}.",
        "figures": {"rule": CALIBRATED_RULE,
                    "chosen": {"calibrated": {knob: chosen[knob]}},
                    "columns": [knob, {name: FIGURES for name in names}],
                    "table": [[e[knob],
                               {name: [s[f] for f in FIGURES] for name, s in e["sets"].items()}]
                              for e in entries]},
        "tables": [{
            "caption": constant.caption,
            "columns": [constant.column, "validation set", "rolls", "dice right",
                        "silently wrong rolls", "refused readable rolls"],
            "rows": [[f"{e[knob]:g}", name, str(s["rolls"]), f"{s['dice_right']:.1%}",
                      str(s["silently_wrong_rolls"]), f"{s['refusal_rate']:.1%}"]
                     for e in entries for name, s in e["sets"].items()],
        }],
    }


def main(constant: Constant, description: str, argv: list[str] | None,
         calibrated_rolls: Callable[[list[tuple[RecordedSet, int | None]]], dict[str, Rolls]],
         table: Callable[[dict[str, Rolls]], list[dict[str, Any]]]) -> int:
    """A chooser's command line: the generated validation sets given, their calibrated rolls
    (by set name; none is a usage error), every candidate's entry from ``table``, the choice
    written to benchmarks/results/<benchmark>.json or ``--out``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--generated", type=Path, action="append", required=True)
    parser.add_argument("--scenes", type=int, action="append", default=[],
                        help="a generated set's first N scenes only: once for all sets, or once "
                             "per --generated, in order")
    parser.add_argument("--out", type=Path,
                        default=Path(f"benchmarks/results/{constant.benchmark}.json"))
    args = parser.parse_args(argv)
    try:
        limits = scene_limits(args.generated, args.scenes)
        sets = [(open_set(args.datasets, str(path)), limit)
                for path, limit in zip(args.generated, limits, strict=True)]
    except ValueError as error:
        parser.error(str(error))
    rolls = calibrated_rolls(sets)
    if not rolls:
        parser.error("no calibrated validation rolls to choose on: give a generated set with "
                     "appliance scenes")
    entries = table(rolls)
    chosen = choose(constant, entries)
    args.out.write_text(json.dumps(result(constant, entries, chosen), indent=1) + "\n",
                        encoding="utf-8")
    print(f"{constant.knob} {chosen[constant.knob]:g}: {chosen['sets']}")
    return 0

"""Choose the lean from which the reader calls a die cocked, on the generated validation scenes.

    python training/choose_lean.py --datasets ../shared/datasets --generated /work/renders/dr2 \
        [--scenes N] [--out benchmarks/results/cocked_lean.json]

``reader.COCKED_LEAN_DEG``: a die the gauge (``pi_reader.vision.lean``) sees leaning at least
this far is cocked, its value not taken. Only calibrated reads use the gauge, so it is chosen on
the calibrated validation rolls (appliance scenes calibrated from their own calibration frame),
at the reader's value thresholds as ``choose_thresholds.py`` chose them, by that script's
calibrated rule: silently wrong rolls at most one above the fewest any candidate reaches, then
the most dice right less three times the dice misread and invented, then the fewest refused
readable rolls, then the smaller lean (it refuses first on scenes unlike the validation data).
Each frame is read once by the networks, then the whole reader is run over their answers for
every candidate. Test splits and the qwixx-rendered sets are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from benchmarks.result_file import provenance
from pi_reader.vision import detector, reader
from training.choose_thresholds import (
    CALIBRATED_RULE,
    FIGURES,
    SILENT_NOISE,
    Row,
    collect,
    overridden,
    rank,
    score,
)
from training.data import open_set, scene_limits

# The candidates, in degrees: from just above what the gauge says of most flat validation dice
# to past what it says of most cocked ones; 90 is "never cocked", the reader without the gauge.
LEAN_DEGS = (8.0, 11.0, 14.0, 17.0, 20.0, 25.0, 30.0, 90.0)


def table(rows: dict[str, list[Row]]) -> list[dict[str, Any]]:
    """Each candidate with the figures of every calibrated validation set read at it."""
    entries = []
    for lean_deg in LEAN_DEGS:
        with overridden(reader, "COCKED_LEAN_DEG", lean_deg):
            sets = {name: score(by_side, detector.PEAK_THRESHOLD) for name, by_side in rows.items()}
        # rank() breaks its last ties on the value thresholds, the same for every candidate here
        entries.append({"cocked_lean_deg": lean_deg, "min_value_confidence": 0.0,
                        "min_view_agreement": 0.0, "peak_threshold": 0.0, "sets": sets})
    return entries


def choose(entries: list[dict[str, Any]]) -> dict[str, Any]:
    fewest = min(sum(s["silently_wrong_rolls"] for s in e["sets"].values()) for e in entries)
    return min(entries, key=lambda e: (rank(e, True, fewest, SILENT_NOISE), e["cocked_lean_deg"]))


def result(entries: list[dict[str, Any]], chosen: dict[str, Any]) -> dict[str, Any]:
    """The choice as a result file (benchmarks/result_file.py's shape)."""
    names = list(chosen["sets"])
    return {
        "benchmark": "cocked_lean",
        "title": "The lean from which a die is cocked, chosen on validation data "
                 "(training/choose_lean.py)",
        **provenance(),
        "notes": f"Calibrated validation rolls at the shipped value thresholds; the rule: "
                 f"{CALIBRATED_RULE}; ties go to the smaller lean. Chosen: cocked_lean_deg "
                 f"{chosen['cocked_lean_deg']}.",
        "figures": {"rule": CALIBRATED_RULE,
                    "chosen": {"calibrated": {"cocked_lean_deg": chosen["cocked_lean_deg"]}},
                    "columns": ["cocked_lean_deg", {name: FIGURES for name in names}],
                    "table": [[e["cocked_lean_deg"],
                               {name: [s[f] for f in FIGURES] for name, s in e["sets"].items()}]
                              for e in entries]},
        "tables": [{
            "caption": "Calibrated validation rolls by the lean from which a die is cocked",
            "columns": ["cocked from (degrees)", "validation set", "rolls", "dice right",
                        "silently wrong rolls", "refused readable rolls"],
            "rows": [[f"{e['cocked_lean_deg']:g}", name, str(s["rolls"]),
                      f"{s['dice_right']:.1%}", str(s["silently_wrong_rolls"]),
                      f"{s['refusal_rate']:.1%}"]
                     for e in entries for name, s in e["sets"].items()],
        }],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--generated", type=Path, action="append", required=True)
    parser.add_argument("--scenes", type=int, action="append", default=[],
                        help="a generated set's first N scenes only: once for all sets, or once "
                             "per --generated, in order")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/cocked_lean.json"))
    args = parser.parse_args(argv)
    try:
        limits = scene_limits(args.generated, args.scenes)
        sets = [(open_set(args.datasets, str(path)), limit)
                for path, limit in zip(args.generated, limits, strict=True)]
    except ValueError as error:
        parser.error(str(error))
    rows = {name: by_side[detector.TARGET_SIDE_PX] for name, by_side in collect(sets).items()
            if name.endswith(" calibrated")}
    if not rows:
        parser.error("no calibrated validation rolls to choose on: give a generated set with "
                     "appliance scenes")
    entries = table(rows)
    chosen = choose(entries)
    args.out.write_text(json.dumps(result(entries, chosen), indent=1) + "\n", encoding="utf-8")
    print(f"cocked from {chosen['cocked_lean_deg']} degrees: {chosen['sets']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

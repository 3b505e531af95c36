"""Compare retrained networks with the shipped ones by whole reads on the validation rolls.

    python training/compare_networks.py --datasets ../shared/datasets \
        --generated /work/renders/dr2val --candidate shipped=models \
        --candidate new-detector=/work/cand/dB [--scenes N] [--out FILE]

A network is kept only when the whole reader does better with it on validation data; its own
card's figures (recall on the labelled boxes, a classifier's share right at a floor) leave out
what the rest of the reader makes of them. A candidate is a folder holding any of the three
networks under their shipped file names; a network it lacks is the shipped one, so a retrained
detector is compared on its own. Every candidate reads every validation roll at the shipped
thresholds, scored as ``replay`` scores: the generated sets' appliance scenes calibrated from
their own calibration frame by the candidate's networks (calibration finds dice too; a scene
whose calibration a candidate refuses is refused with no die read, as the appliance would ask
for a new calibration), the real sets' validation photos and generic scenes without a
calibration. Each mode's candidates are then ranked by that mode's rule
(``choose_thresholds.py``); ties go to the candidate given first, so give the shipped networks
first. Test splits and the qwixx-rendered sets are never read here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from benchmarks.result_file import provenance
from pi_reader.vision import reader
from pi_reader.vision.calibration import Calibration
from pi_reader.vision.images import load_frame
from pi_reader.vision.recorded import RecordedSet
from pi_reader.vision.scoring import FrameScore, score_frame
from pi_reader.vision.stages import StagesByMode
from training.candidates import Candidate, candidate
from training.choose_thresholds import (
    FIGURES,
    MODES,
    RULES,
    calibration_of,
    dumped,
    figures,
    frames_to_read,
    mode_sets,
    refused_calibration,
    rule_order,
)
from training.data import add_set_options, sets_to_load
from training.one_constant import FIGURE_COLUMNS, figure_cells


def read_sets(stages: StagesByMode, sets: list[tuple[RecordedSet, int | None]]
              ) -> dict[str, dict[str, float]]:
    """The rule's figures of every validation set read whole by each mode's ``stages``, by set
    name (a generated set's calibrated rolls under "<set> calibrated")."""
    by_mode = {calibrated: stages(calibrated=calibrated) for calibrated in (True, False)}
    out: dict[str, dict[str, float]] = {}
    for recorded, scenes in sets:
        calibrations: dict[str, Calibration | None] = {}
        scores: dict[str, list[FrameScore]] = {}
        for frame, calibration_frame in frames_to_read(recorded, scenes):
            calibration = calibration_of(calibration_frame, calibrations, by_mode[True])
            name = recorded.root.name + (" calibrated" if calibration_frame is not None else "")
            if calibration_frame is not None and calibration is None:
                scores.setdefault(name, []).append(refused_calibration(frame))
                continue
            reading = reader.read_roll(load_frame(frame.path), calibration, frame.removed,
                                       stages=by_mode[calibration is not None])
            scores.setdefault(name, []).append(score_frame(frame, reading, 0.0))
        out |= {name: figures(scored) for name, scored in scores.items()}
    return out


def entry(name: str, sets: dict[str, dict[str, float]]) -> dict[str, Any]:
    """A candidate as the rule ranks it (every candidate reads at the same thresholds, so the
    rule's last ties, on the thresholds, are zeros here)."""
    return {"candidate": name, "min_value_confidence": 0.0, "min_view_agreement": 0.0,
            "peak_threshold": 0.0, "sets": sets}


def ranked(entries: list[dict[str, Any]], calibrated: bool) -> list[str]:
    """The candidates' names, best first by the mode's rule; an empty list when no candidate
    read a roll of the mode."""
    if not any(mode_sets(e, calibrated) for e in entries):
        return []
    order = rule_order(entries, calibrated)
    best_first = sorted(range(len(entries)), key=lambda i: (order(entries[i]), i))
    return [entries[i]["candidate"] for i in best_first]


def result(candidates: list[Candidate], entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The comparison as a result file (benchmarks/result_file.py's shape)."""
    by_mode = {mode: ranked(entries, mode == "calibrated") for mode in MODES}
    best = ", ".join(f"{mode} {names[0]}" for mode, names in by_mode.items() if names)
    return {
        "benchmark": "compare_networks",
        "title": "Networks compared by whole reads on the validation rolls "
                 "(training/compare_networks.py)",
        **provenance(),
        "notes": f"Each mode's candidates ranked by its rule; first: {best}.",
        "figures": {"rules": RULES, "ranked": by_mode,
                    "networks": {c.name: c.networks() for c in candidates},
                    "columns": ["candidate", FIGURES],
                    "table": [[e["candidate"], {name: [s[f] for f in FIGURES]
                                                for name, s in e["sets"].items()}]
                              for e in entries]},
        "tables": [{
            "caption": "Whole reads of the validation rolls by each candidate's networks",
            "columns": ["candidate", "validation set", *FIGURE_COLUMNS],
            "rows": [[e["candidate"], name, *figure_cells(s)]
                     for e in entries for name, s in e["sets"].items()],
        }],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_set_options(parser)
    parser.add_argument("--candidate", action="append", required=True,
                        help="NAME=FOLDER of networks (shipped file names; what it lacks is "
                             "shipped); repeatable, the first wins ties")
    parser.add_argument("--out", type=Path, help="write the comparison as a result file")
    args = parser.parse_args(argv)
    try:
        candidates = [candidate(text) for text in args.candidate]
        if len({c.name for c in candidates}) < len(candidates):
            raise ValueError("--candidate: each needs a name of its own")
        sets = sets_to_load(args.datasets, args.generated, args.scenes)
    except ValueError as error:
        parser.error(str(error))
    if args.out:
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            parser.error(f"--out {args.out}: its folder cannot be made ({error.strerror})")
    entries = []
    for each in candidates:
        entries.append(entry(each.name, read_sets(each.stages, sets)))
        print(f"{each.name}: {entries[-1]['sets']}", flush=True)
    compared = result(candidates, entries)
    print(compared["notes"])
    if args.out:
        args.out.write_text(dumped(compared), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

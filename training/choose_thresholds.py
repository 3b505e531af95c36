"""Choose the reader's decision thresholds on the validation splits, and say why.

    python training/choose_thresholds.py --datasets ../shared/datasets \
        --generated /work/renders/dr1 [--scenes N] [--mode calibrated|generic] [--out FILE]

Each mode has its own: with a calibration the detector's ``PEAK_THRESHOLD`` and
``TARGET_SIDE_PX`` (the side a calibrated frame's dice are scaled to) and the reader's
``MIN_VALUE_CONFIDENCE`` and ``MIN_VIEW_AGREEMENT``; without one ``GENERIC_PEAK_THRESHOLD``,
``GENERIC_MIN_VALUE_CONFIDENCE``, ``GENERIC_MIN_VIEW_AGREEMENT`` and whether a doubtful face is
judged from every turn alone (``GENERIC_DOUBT_FROM_EVERY_TURN``, a stricter rule that suits
looser thresholds, so it is chosen with them). Every validation frame (the
generated scenes' validation split, appliance scenes calibrated from their own calibration
frame, the other scenes in the generic mode; the real sets' validation splits in the generic
mode) is read once by the networks (a calibrated one once per target side), their answers kept,
and the whole reader is then run again over those answers for every combination, scored as
``replay`` scores. Each mode's thresholds are chosen on its own frames by its rule
(``CALIBRATED_RULE``, ``GENERIC_RULE``), which puts a silently wrong roll before everything
else. The rolls of a scene whose calibration is refused are calibrated rolls the appliance
refuses with no die read (it asks for a new calibration, as ``replay`` counts them refused):
read without a calibration they made a generic set of a few rolls that weighed as much as a
whole photo set in the generic rule's mean. Test splits and the qwixx-rendered sets are never
read here.

``--networks FOLDER`` reads with a retrained candidate's networks (``training/candidates.py``;
what the folder lacks is shipped) and needs ``--out``: a network more or less sure of itself
than the shipped one is compared fairly only at thresholds chosen for it, and the shipped
networks' result files stay theirs. The result names the networks it read.

``--mode`` chooses one mode's thresholds alone (written by default to
``benchmarks/results/thresholds-<mode>.json``; both modes go to ``thresholds.json``): a mode's
choice depends only on its own validation rolls, so one can be chosen again without the other.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from benchmarks.result_file import provenance
from pi_reader.vision import detector, finding, reader
from pi_reader.vision.calibration import Calibration, CalibrationError, calibrate
from pi_reader.vision.detector import Box, Detection
from pi_reader.vision.faces import Corners, FaceReading
from pi_reader.vision.images import load_frame
from pi_reader.vision.lean import Lean
from pi_reader.vision.recorded import LabelledFrame, RecordedSet
from pi_reader.vision.scoring import FrameScore, die_right, score_frame
from pi_reader.vision.stages import Stages, StagesByMode, default_stages
from pi_reader.vision.types import RollReading
from training.candidates import NETWORK_FILES, Candidate, networks_folder
from training.data import add_set_options, scene_index, sets_to_load
from training.splits import select

PEAKS = (0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
CONFIDENCES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
AGREEMENTS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
TARGET_SIDES = (12.0, 16.0, 20.0)
EVERY_TURN = (False, True)  # finding.GENERIC_DOUBT_FROM_EVERY_TURN, read in the generic mode
LOWEST_PEAK = min(PEAKS)
# A misread or invented die spoils a read, a refused one only asks for a re-roll: a judgement of
# what the table pays, not a measurement, taken as three re-rolls.
MISTAKE_WEIGHT = 3
# One silently wrong roll more than the fewest is within the validation sample's noise (60 or
# so calibrated rolls; the one left at the chosen values is a die leaning 9 degrees, labelled
# unreadable from 8, read as the value it shows): the rule does not trade the whole reader for it.
SILENT_NOISE = 1
# Without a calibration no count check catches a missed or invented die, and the generic
# validation splits hold some 400 rolls: the same allowance, one roll in sixty of them.
ROLLS_PER_SILENT_NOISE = 60
# What each mode's rule weighs once the silently wrong rolls are within its allowance.
RULE_AFTER_SILENT = (
    "then the most dice right less three times the dice misread and invented (rates, mean over "
    "the {mode} validation sets), then the fewest refused readable rolls, then the stricter "
    "thresholds")
CALIBRATED_RULE = (
    "silently wrong calibrated validation rolls at most one above the fewest any combination "
    "reaches, " + RULE_AFTER_SILENT.format(mode="calibrated"))
GENERIC_RULE = (
    "silently wrong generic validation rolls at most one in sixty of them above the fewest any "
    "combination reaches, " + RULE_AFTER_SILENT.format(mode="generic"))
RULES = {"calibrated": CALIBRATED_RULE, "generic": GENERIC_RULE}
SHIPPED_NETWORKS = dict.fromkeys(NETWORK_FILES, "shipped")
MODES = tuple(RULES)

# A validation roll, its frame, its calibration and what the networks saw in it; a roll whose
# calibration was refused keeps only its labels (the reader never sees it).
Row = tuple[LabelledFrame, "np.ndarray | None", "Calibration | None", "Seen | None"]


@dataclass
class Seen:
    """What the networks answered for one frame: every detection down to LOWEST_PEAK for each
    die side the detector was told (a calibrated frame's own and its closer look's), and the
    face reading and lean of each box they were asked about, and the top face's reading of
    each lean's corners."""

    detections: dict[float | None, list[Detection]]
    faces: dict[tuple[int, ...], FaceReading]
    leans: dict[tuple[int, ...], Lean]
    top_faces: dict[tuple[int, ...], FaceReading | None]


def key(box: Box) -> tuple[int, ...]:
    return tuple(round(v * 4) for v in box)


def corners_key(corners: Corners) -> tuple[int, ...]:
    return key(tuple(v for corner in corners for v in corner))


class Replayed:
    """Stages answering from what the networks said once, with detections below ``peak`` cut."""

    def __init__(self, seen: Seen, peak: float) -> None:
        self.seen, self.peak = seen, peak

    def find_dice(self, frame: np.ndarray, die_side_px: float | None = None) -> list[Detection]:
        return [d for d in self.seen.detections[die_side_px] if d.score >= self.peak]

    def read_faces(self, frame: np.ndarray, boxes: list[Box]) -> list[FaceReading]:
        return [self.seen.faces[key(box)] for box in boxes]

    def gauge_lean(self, frame: np.ndarray, boxes: list[Box]) -> list[Lean]:
        return [self.seen.leans[key(box)] for box in boxes]

    def read_top_faces(self, frame: np.ndarray, corners: list[Corners]
                       ) -> list[FaceReading | None]:
        return [self.seen.top_faces[corners_key(quad)] for quad in corners]

    def stages(self) -> Stages:
        return Stages(self.find_dice, self.read_faces, self.gauge_lean, self.read_top_faces)


def look(stages: Stages, image: np.ndarray, calibration: Calibration | None) -> Seen:
    """What the networks answer for ``image`` at every die side the reader may tell the
    detector: none without a calibration; with one the calibrated side, and that side over
    reader.CLOSER_LOOK for a roll refused for missing dice only (see reader.read_roll)."""
    sides = ((None,) if calibration is None
             else (calibration.die_side_px, calibration.die_side_px / reader.CLOSER_LOOK))
    seen = Seen({}, {}, {}, {})
    for side in sides:
        with overridden(detector, "PEAK_THRESHOLD", LOWEST_PEAK), \
                overridden(detector, "GENERIC_PEAK_THRESHOLD", LOWEST_PEAK):
            found = list(stages.find_dice(image, side))
        boxes = [d.box for d in found if key(d.box) not in seen.faces]
        seen.detections[side] = found
        seen.faces |= zip(map(key, boxes), stages.read_faces(image, boxes), strict=True)
        leans = stages.gauge_lean(image, boxes)
        seen.leans |= zip(map(key, boxes), leans, strict=True)
        quads = [lean.corners for lean in leans]
        seen.top_faces |= zip(map(corners_key, quads), stages.read_top_faces(image, quads),
                              strict=True)
    return seen


@contextmanager
def overridden(module: object, name: str, value: float) -> Iterator[None]:
    before = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, before)


def frames_to_read(recorded: RecordedSet, scenes: int | None
                   ) -> list[tuple[LabelledFrame, LabelledFrame | None]]:
    """(roll, its scenario's calibration frame or None) for the validation rolls."""
    chosen = select(recorded, "validation").frames
    if scenes is not None:
        chosen = tuple(f for f in chosen if f.scenario is None or not f.scenario[1:].isdigit()
                       or scene_index(f.scenario) < scenes)
    calibrations = {f.scenario: f for f in chosen if f.kind == "calibration"}
    return [(f, calibrations.get(f.scenario)) for f in chosen if f.kind == "roll"]


def calibration_of(frame: LabelledFrame | None, calibrated: dict[str, Calibration | None],
                   stages: Stages) -> Calibration | None:
    """The calibration from a scenario's calibration frame, None without one or when it is
    refused; each frame is calibrated once, its outcome kept in ``calibrated``."""
    if frame is None:
        return None
    if frame.image not in calibrated:
        try:
            calibrated[frame.image] = calibrate(load_frame(frame.path), stages)
        except CalibrationError:
            calibrated[frame.image] = None
    return calibrated[frame.image]


def collect(sets: list[tuple[RecordedSet, int | None]], modes: tuple[str, ...] = MODES,
            targets: tuple[float, ...] = TARGET_SIDES, stages: StagesByMode = default_stages
            ) -> dict[str, dict[float, list[Row]]]:
    """Each validation set's rows by target side (a generic set's rows under every side), of a
    generated set only its first scenes when it comes with a limit; only the rows of ``modes``
    are read (a scene is calibrated all the same, as that decides its mode), a calibrated one
    at each of ``targets``, by each mode's ``stages`` (the shipped networks by default)."""
    calibrated_stages, generic_stages = stages(calibrated=True), stages(calibrated=False)
    out: dict[str, dict[float, list[Row]]] = {}
    for recorded, scenes in sets:
        calibrated: dict[str, Calibration | None] = {}
        generic: list[Row] = []
        by_target: dict[float, list[Row]] = {}
        for frame, calibration_frame in frames_to_read(recorded, scenes):
            calibration = calibration_of(calibration_frame, calibrated, calibrated_stages)
            if ("generic" if calibration_frame is None else "calibrated") not in modes:
                continue
            if calibration_frame is not None and calibration is None:
                for target in targets:
                    by_target.setdefault(target, []).append((frame, None, None, None))
                continue
            image = load_frame(frame.path)
            if calibration is None:
                generic.append((frame, image, None, look(generic_stages, image, None)))
                continue
            for target in targets:
                with overridden(detector, "TARGET_SIDE_PX", target):
                    seen = look(calibrated_stages, image, calibration)
                by_target.setdefault(target, []).append((frame, image, calibration, seen))
        refused = sum(c is None for c in calibrated.values())
        name = recorded.root.name
        if by_target:
            out[f"{name} calibrated"] = by_target
        if generic:
            out[f"{name} generic" if by_target else name] = dict.fromkeys(targets, generic)
        rows = generic + by_target.get(targets[0], [])
        print(f"{name}: {len(rows)} validation rolls of {'/'.join(modes)} read, {refused} of "
              f"{len(calibrated)} calibrations refused", flush=True)
    return out


def score(rows: list[Row], peak: float) -> dict[str, float]:
    scores: list[FrameScore] = []
    for frame, image, calibration, seen in rows:
        if image is None or seen is None:
            scores.append(refused_calibration(frame))
            continue
        replayed = Replayed(seen, peak)
        reading = reader.read_roll(image, calibration, frame.removed,
                                   stages=replayed.stages())
        scores.append(score_frame(frame, reading, 0.0))
    return figures(scores)


def refused_calibration(frame: LabelledFrame) -> FrameScore:
    """A roll of a scene whose calibration frame was refused: no die read, the roll refused."""
    return score_frame(frame, RollReading(dice=()), 0.0, calibration_refused=True)


def figures(scores: list[FrameScore]) -> dict[str, float]:
    """The rule's figures (FIGURES and the phantoms) of a set's scored frames.

    A value given to a face no one can read is a misread, as ``replay`` counts it (issue 13):
    such a guess is safe only when something else refuses its roll, so a candidate that guesses
    more must rank lower even where no roll comes through wrong. The rates are of the readable
    dice, the value figures' own count."""
    scored = [s for s in scores if s.scored]
    readable = [s for s in scored if s.fully_readable]
    labels = [(label, die) for s in scored for label, die in s.pairs if label.value is not None]
    dice = sum(1 for s in scored for label in s.labels if label.value is not None)
    right = sum(1 for label, die in labels if die_right(label, die))
    guessed = sum(1 for s in scored for label, die in s.pairs
                  if label.unreadable is not None and die.value is not None)
    misread = guessed + sum(1 for label, die in labels
                            if die.value is not None and die.value != label.value)
    return {
        "rolls": len(scored),
        "dice_right": round(right / max(dice, 1), 4),
        "misread_rate": round(misread / max(dice, 1), 4),
        "silently_wrong_rolls": sum(s.silently_wrong for s in scored),
        "refusal_rate": round(sum(s.refused for s in readable) / max(len(readable), 1), 4),
        "phantoms": sum(len(s.phantoms) for s in scored),
        "phantom_rate": round(sum(len(s.phantoms) for s in scored) / max(dice, 1), 4),
    }


_ROWS: dict[str, dict[float, list[Row]]] = {}  # the rows collect() read, for the workers


def scored_combination(combination: tuple[float, float, float, bool]) -> list[dict[str, Any]]:
    """The table's entries (one per target side; one alone when no calibrated rows were read,
    as a generic frame is read alike at every side) for one peak, confidence, agreement and
    generic rule for doubtful faces, each mode's frames read at them. The calibrated mode knows
    no such rule: an entry judging doubts from every turn holds the generic sets alone."""
    peak, confidence, agreement, every_turn = combination
    sides = (TARGET_SIDES if any(name.endswith(" calibrated") for name in _ROWS)
             and not every_turn else TARGET_SIDES[:1])
    entries = []
    with overridden(finding, "MIN_VALUE_CONFIDENCE", confidence), \
            overridden(finding, "MIN_VIEW_AGREEMENT", agreement), \
            overridden(finding, "GENERIC_MIN_VALUE_CONFIDENCE", confidence), \
            overridden(finding, "GENERIC_MIN_VIEW_AGREEMENT", agreement), \
            overridden(finding, "GENERIC_DOUBT_FROM_EVERY_TURN", every_turn):
        generic = {name: score(by[TARGET_SIDES[0]], peak) for name, by in _ROWS.items()
                   if not name.endswith(" calibrated")}
        for target in sides:
            calibrated = {name: score(by[target], peak) for name, by in _ROWS.items()
                          if name.endswith(" calibrated") and not every_turn}
            entries.append({"peak_threshold": peak, "target_side_px": target,
                            "min_value_confidence": confidence,
                            "min_view_agreement": agreement,
                            "doubt_from_every_turn": every_turn, "sets": generic | calibrated})
    return entries


def mode_sets(entry: dict[str, Any], calibrated: bool) -> dict[str, dict[str, float]]:
    """The figures of the entry's validation sets read in one mode, by set."""
    return {name: s for name, s in entry["sets"].items()
            if name.endswith(" calibrated") is calibrated}


def silently_wrong(entry: dict[str, Any], calibrated: bool) -> int:
    return sum(s["silently_wrong_rolls"] for s in mode_sets(entry, calibrated).values())


def silent_noise(table: list[dict[str, Any]], calibrated: bool) -> int:
    """How many silently wrong rolls of a mode are within the validation sample's noise."""
    if calibrated:
        return SILENT_NOISE
    rolls = sum(s["rolls"] for s in mode_sets(table[0], calibrated).values())
    return math.ceil(rolls / ROLLS_PER_SILENT_NOISE)


def rank(entry: dict[str, Any], calibrated: bool, fewest_silently_wrong: int, noise: int
         ) -> tuple[float, ...]:
    """The order of the mode's rule: smaller is better; ties go to the stricter thresholds (they
    refuse first on scenes unlike the validation data)."""
    sets = mode_sets(entry, calibrated).values()
    return (max(silently_wrong(entry, calibrated) - fewest_silently_wrong - noise, 0),
            -float(np.mean([s["dice_right"]
                            - MISTAKE_WEIGHT * (s["misread_rate"] + s["phantom_rate"])
                            for s in sets])),
            float(np.mean([s["refusal_rate"] for s in sets])),
            -entry["min_value_confidence"], -entry["min_view_agreement"],
            -entry["peak_threshold"], -entry.get("doubt_from_every_turn", False))


def rule_order(table: list[dict[str, Any]], calibrated: bool, allowance: int | None = None
               ) -> Callable[[dict[str, Any]], tuple[float, ...]]:
    """The mode's rule as a sort key over ``table``'s entries: the fewest silently wrong rolls
    and the sample's noise are the table's own, so every entry is ranked against the others;
    ``allowance`` replaces the noise's for a constant whose only work is to stop them."""
    fewest = min(silently_wrong(entry, calibrated) for entry in table)
    noise = silent_noise(table, calibrated) if allowance is None else allowance
    return lambda entry: rank(entry, calibrated, fewest, noise)


def choose(table: list[dict[str, Any]], calibrated: bool) -> dict[str, Any]:
    """The entry the mode's rule ranks first. A generic frame is read alike at every target side,
    so the generic mode chooses among one side's entries; the calibrated mode among the entries
    that read its sets (those judging generic doubts from every turn do not)."""
    if calibrated:
        table = [entry for entry in table if mode_sets(entry, calibrated)]
    else:
        table = [entry for entry in table if entry["target_side_px"] == TARGET_SIDES[0]]
    if not table or not mode_sets(table[0], calibrated):
        raise SystemExit(f"no {'calibrated' if calibrated else 'generic'} validation rolls "
                         "to choose on")
    return min(table, key=rule_order(table, calibrated))


FIGURES = ("rolls", "dice_right", "misread_rate", "phantom_rate", "silently_wrong_rolls",
           "refusal_rate")
CALIBRATED_KNOBS = ("peak_threshold", "target_side_px", "min_value_confidence",
                    "min_view_agreement")
GENERIC_KNOBS = ("peak_threshold", "min_value_confidence", "min_view_agreement",
                 "doubt_from_every_turn")
KNOBS = (*CALIBRATED_KNOBS, "doubt_from_every_turn")  # the table's columns: every entry's knobs


def result(table: list[dict[str, Any]], entries: dict[str, dict[str, Any]],
           networks: Candidate | None = None) -> dict[str, Any]:
    """The choice of each mode in ``entries`` as a result file (benchmarks/result_file.py's
    shape, rendered into the docs): each mode's chosen figures as a table, every combination
    compactly under ``figures``, and which networks read the frames (``networks``, else the
    shipped ones)."""
    knobs = {"calibrated": CALIBRATED_KNOBS, "generic": GENERIC_KNOBS}
    chosen = {mode: {knob: entry[knob] for knob in knobs[mode]} for mode, entry in entries.items()}
    names = list(table[0]["sets"])
    names_of_modes = " and ".join(entries)
    return {
        "benchmark": "thresholds" if len(entries) > 1 else f"thresholds-{names_of_modes}",
        "title": f"Reader thresholds of the {names_of_modes} mode{'s' * (len(entries) > 1)}, "
                 "chosen on validation data (training/choose_thresholds.py)",
        **provenance(),
        "notes": " ".join(
            f"{mode.capitalize()}, the rule: {RULES[mode]}. Chosen: "
            + ", ".join(f"{knob} {value}" for knob, value in knobs.items()) + "."
            for mode, knobs in chosen.items()),
        "figures": {"rules": {mode: RULES[mode] for mode in entries}, "chosen": chosen,
                    "networks": networks.networks() if networks else SHIPPED_NETWORKS,
                    "columns": [*KNOBS, {name: FIGURES for name in names}],
                    "table": [[*(entry[knob] for knob in KNOBS),
                               {name: [figures[f] for f in FIGURES]
                                for name, figures in entry["sets"].items()}]
                              for entry in table]},
        "tables": [_chosen_table(f"The {mode} validation sets at the {mode} thresholds",
                                 mode_sets(entry, mode == "calibrated"))
                   for mode, entry in entries.items()],
    }


def _chosen_table(caption: str, sets: dict[str, dict[str, float]]) -> dict[str, Any]:
    return {
        "caption": caption,
        "columns": ["validation set", "rolls", "dice right", "dice misread", "phantoms",
                    "silently wrong rolls", "refused readable rolls"],
        "rows": [[name, str(f["rolls"]), f"{f['dice_right']:.1%}", f"{f['misread_rate']:.1%}",
                  f"{f['phantom_rate']:.1%}", str(f["silently_wrong_rolls"]),
                  f"{f['refusal_rate']:.1%}"] for name, f in sets.items()],
    }


def dumped(result_file: dict[str, Any]) -> str:
    """The result as JSON text, a line per combination of the table (a few hundred of them)."""
    rows = result_file["figures"]["table"]
    marks = [f"@row{i}@" for i in range(len(rows))]
    text = json.dumps({**result_file, "figures": {**result_file["figures"], "table": marks}},
                      indent=1)
    for mark, row in zip(marks, rows, strict=True):
        text = text.replace(f'"{mark}"', json.dumps(row, separators=(",", ":")), 1)
    return text + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_set_options(parser)
    parser.add_argument("--mode", choices=MODES, help="choose this mode's thresholds alone")
    parser.add_argument("--out", type=Path, help="the result file (default: "
                        "benchmarks/results/thresholds.json, or thresholds-MODE.json)")
    parser.add_argument("--networks", metavar="FOLDER",
                        help="read with this folder's networks (what it lacks is shipped); "
                             "needs --out")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="processes scoring the combinations (default: one per core)")
    args = parser.parse_args(argv)
    if args.networks and not args.out:
        parser.error("--networks: give --out too (the default files are the shipped networks')")
    try:
        networks = networks_folder(args.networks) if args.networks else None
        sets = sets_to_load(args.datasets, args.generated, args.scenes)
    except ValueError as error:
        parser.error(str(error))
    modes = (args.mode,) if args.mode else MODES
    out = args.out or Path("benchmarks/results/"
                           f"thresholds{'-' + args.mode if args.mode else ''}.json")
    global _ROWS
    _ROWS = collect(sets, modes, stages=networks.stages if networks else default_stages)
    every_turn = EVERY_TURN if "generic" in modes else EVERY_TURN[:1]
    combinations = list(itertools.product(PEAKS, CONFIDENCES, AGREEMENTS, every_turn))
    # Forked workers share the rows read above; each scores whole combinations, in order.
    with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        table = [entry for entries in pool.map(scored_combination, combinations)
                 for entry in entries]
    chosen = result(table, {mode: choose(table, calibrated=mode == "calibrated")
                            for mode in modes}, networks)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumped(chosen))
    print(json.dumps(chosen["figures"]["chosen"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How well and how fast the dice are found: found / missed / phantom per set and per scenario.

Run: ``python benchmarks/bench_locate.py [--sets NAME ...] [--datasets DIR] [--worst N]``.
A label die is found when a candidate's box overlaps it with IoU >= 0.5 or the candidate's centre
lies inside it; each candidate matches at most one die. Unmatched candidates are phantoms.
In generic mode the classical search's second opinion comes as unconfirmed candidates, which
only the pips reader turns into dice: they are counted apart ("unconfirmed"), with how many of
them lie on a die the detector missed ("on missed dice"), and never as found or phantom here.
Rendered sets run calibrated (each scenario learns its scene from its ``calibration`` frame);
sets without calibration frames run in generic mode.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision.locate import DieCandidate, LocateError, SceneModel, find_dice, learn_scene
from pi_reader.vision.recorded import shared_sets_dir
from pi_reader.vision.types import box_contains, box_overlap

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # training/splits.py
from training.splits import held_out

DEFAULT_SETS = ("qwixx-rendered", "qwixx-rendered-touching", "qwixx-rendered-more",
                "real-d6-overhead")


def match(labels: list[dict], found: list[DieCandidate]) -> tuple[list[bool], int]:
    """Greedy one-to-one matching; returns found-flag per label die and the phantom count."""
    pairs = []
    for i, die in enumerate(labels):
        for j, cand in enumerate(found):
            overlap = box_overlap(die["box"], cand.box)
            inside = box_contains(die["box"], cand.centre)
            if overlap >= 0.5 or inside:
                pairs.append((overlap + (1.0 if inside else 0.0), i, j))
    hit = [False] * len(labels)
    used = set()
    for _, i, j in sorted(pairs, reverse=True):
        if not hit[i] and j not in used:
            hit[i] = True
            used.add(j)
    return hit, len(found) - len(used)


@dataclass
class Tally:
    dice: int = 0
    found: int = 0
    phantom: int = 0
    touching: int = 0
    touching_found: int = 0
    cocked_flags: int = 0
    frames: int = 0
    unconfirmed: int = 0
    unconfirmed_on_missed: int = 0

    def add(self, other: Tally) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        text = (f"frames {self.frames:4d}  dice {self.dice:5d}  found {self.found:5d} "
                f"({100 * self.found / max(1, self.dice):5.1f}%)  "
                f"missed {self.dice - self.found:4d}"
                f"  phantom {self.phantom:4d} ({100 * self.phantom / max(1, self.dice):4.1f}%)"
                f"  cocked-flags {self.cocked_flags:3d}")
        if self.unconfirmed:
            text += (f"  unconfirmed {self.unconfirmed} (on missed dice "
                     f"{self.unconfirmed_on_missed})")
        if self.touching:
            text += (f"  touching {self.touching_found}/{self.touching} "
                     f"({100 * self.touching_found / self.touching:.1f}%)")
        return text


@dataclass
class SetResult:
    total: Tally = field(default_factory=Tally)
    scenarios: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    ms: list[float] = field(default_factory=list)
    worst: list[tuple[int, str]] = field(default_factory=list)
    calibration_failures: list[str] = field(default_factory=list)


def run_set(root: Path, generic: bool = False, validation_only: bool = False) -> SetResult:
    """Find the dice in every roll of a set (calibrated per scenario unless ``generic``).

    ``validation_only`` keeps the frames the generic detector (training/train_locate.py) never
    trained on (``training/splits.py``: validation and test splits), and the calibration frames.
    """
    rows = [json.loads(line) for line in (root / "labels.jsonl").read_text().splitlines() if line]
    if validation_only:
        rows = [r for r in rows if r["kind"] == "calibration"
                or held_out(root.name, r["image"])]
    scenes: dict[str, SceneModel | None] = {}
    for row in rows:
        if row["kind"] == "calibration" and not generic:
            image = cv2.imread(str(root / row["image"]))
            try:
                scenes[row.get("scenario", "")] = learn_scene(image, len(row["dice"]))
            except LocateError as error:
                scenes[row.get("scenario", "")] = None
                result_note = f"{row['image']}: {error.reason}"
                print("calibration failed:", result_note, file=sys.stderr)
    result = SetResult()
    for row in rows:
        if row["kind"] != "roll":
            continue
        scenario = row.get("scenario", "")
        if scenario in scenes and scenes[scenario] is None:
            result.calibration_failures.append(row["image"])
            continue
        image = cv2.imread(str(root / row["image"]))
        start = time.process_time()  # CPU time: the machine may be shared while measuring
        scene = scenes.get(scenario)
        # As the reader asks: a calibrated roll holds two whites and the coloured dice in play.
        expected = 6 - len(row.get("removed", [])) if scene else None
        found = find_dice(image, scene, expected=expected)
        result.ms.append(1000 * (time.process_time() - start))
        confirmed = [c for c in found if c.confirmed]
        unconfirmed = [c for c in found if not c.confirmed]
        hit, phantom = match(row["dice"], confirmed)
        missed = [die for die, ok in zip(row["dice"], hit, strict=True) if not ok]
        tally = Tally(dice=len(hit), found=sum(hit), phantom=phantom, frames=1,
                      cocked_flags=sum(c.cocked for c in found), unconfirmed=len(unconfirmed),
                      unconfirmed_on_missed=sum(match(missed, unconfirmed)[0]))
        for die, ok in zip(row["dice"], hit, strict=True):
            if die.get("touching"):
                tally.touching += 1
                tally.touching_found += ok
        result.total.add(tally)
        result.scenarios[scenario].add(tally)
        result.worst.append(((len(hit) - sum(hit)) + phantom, row["image"]))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", default=list(DEFAULT_SETS))
    parser.add_argument("--datasets", type=Path,
                        default=shared_sets_dir(Path(__file__).resolve().parent.parent))
    parser.add_argument("--worst", type=int, default=5, help="list this many worst frames")
    parser.add_argument("--generic", action="store_true",
                        help="ignore calibration frames: generic mode everywhere")
    parser.add_argument("--validation", action="store_true",
                        help="only the frames held out from the detector's training")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    for name in args.sets:
        result = run_set(args.datasets / name, args.generic, args.validation)
        ms = np.array(result.ms) if result.ms else np.zeros(1)
        mode = " (generic mode)" if args.generic else ""
        part = " (validation frames)" if args.validation else ""
        print(f"== {name}{mode}{part}")
        print("   all      " + result.total.line())
        for scenario in sorted(result.scenarios):
            if scenario:
                print(f"   {scenario:8s} " + result.scenarios[scenario].line())
        print(f"   CPU ms/frame mean {ms.mean():.1f}  p95 {np.percentile(ms, 95):.1f}  "
              f"max {ms.max():.1f}")
        if result.calibration_failures:
            print(f"   frames skipped (calibration failed): {len(result.calibration_failures)}")
        worst = [f"{img} ({n})" for n, img in sorted(result.worst, reverse=True)[:args.worst] if n]
        if worst:
            print("   worst: " + ", ".join(worst))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

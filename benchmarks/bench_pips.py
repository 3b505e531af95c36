"""How well and how fast one die's top face is read, on the labels' own boxes.

Run: ``python benchmarks/bench_pips.py [--sets NAME ...] [--datasets DIR] [--split held-out|all]
[--reader combined|classical] [--json]``.

The reader gets each labelled die's box, as is and jittered (centre moved by up to 10% of the
box, box grown by up to 20%: a detector's imprecision), so the figures do not depend on the
detector. ``--split held-out`` keeps only the frames kept out of training (the validation and
test splits of ``training/splits.py``); quote those figures for the trained reader. Printed per set:
dice read right / wrong / refused, error and coverage per confidence threshold, the confusion
matrix (columns: value read, then refused) and the time per die: CPU time on one core
(``time.process_time`` with OpenCV held to one thread), which a busy shared machine does not
inflate the way it inflates wall-clock time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision import pips
from pi_reader.vision.face_samples import iter_labelled_frames
from pi_reader.vision.recorded import shared_sets_dir

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # training/splits.py
from training.splits import held_out

DEFAULT_SETS = ("qwixx-rendered", "qwixx-rendered-touching", "qwixx-rendered-more",
                "real-d6-overhead")
THRESHOLDS = (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)
JITTER_SHIFT = 0.10
JITTER_GROW = 0.20


@dataclass
class Tally:
    """Readings of one set under one box condition: (true value, value read, confidence)."""

    reads: list[tuple[int, int | None, float]] = field(default_factory=list)
    threshold: float = pips.MIN_CONFIDENCE
    millis: list[float] = field(default_factory=list)

    def add(self, truth: int, reading: pips.FaceReading, millis: float) -> None:
        self.reads.append((truth, reading.value, reading.confidence))
        self.millis.append(millis)

    def summary(self) -> dict[str, object]:
        n = len(self.reads)
        # The reader is asked with min_confidence 0, so every would-be value is here; the
        # default threshold is applied below as the appliance applies it.
        accepted = [(t, v if c >= self.threshold else None) for t, v, c in self.reads]
        right = sum(1 for t, v in accepted if v == t)
        wrong = sum(1 for t, v in accepted if v is not None and v != t)
        per_threshold = []
        for threshold in THRESHOLDS:
            # Coverage/error if the appliance accepted every reading at or above the threshold.
            kept = [(t, v) for t, v, c in self.reads if v is not None and c >= threshold]
            errors = sum(1 for t, v in kept if v != t)
            per_threshold.append({
                "threshold": threshold,
                "coverage": round(len(kept) / n, 4) if n else 0.0,
                "error": round(errors / len(kept), 4) if kept else 0.0,
            })
        confusion = Counter((t, v if v is not None else 0) for t, v in accepted)
        millis = self.millis or [0.0]
        return {
            "dice": n,
            "right": round(right / n, 4) if n else 0.0,
            "wrong": round(wrong / n, 4) if n else 0.0,
            "refused": round((n - right - wrong) / n, 4) if n else 0.0,
            "thresholds": per_threshold,
            "confusion": [[confusion[(t, v)] for v in (1, 2, 3, 4, 5, 6, 0)] for t in range(1, 7)],
            "ms_per_die_mean": round(float(np.mean(millis)), 3),
            "ms_per_die_p95": round(float(np.percentile(millis, 95)), 3),
        }


def jittered(box: list[float], rng: random.Random) -> tuple[float, float, float, float]:
    """The box moved and grown at random, as an imprecise detector would give it."""
    x, y, w, h = box
    grow = rng.uniform(0.0, JITTER_GROW)
    nw, nh = w * (1 + grow), h * (1 + grow)
    x += (w - nw) / 2 + rng.uniform(-JITTER_SHIFT, JITTER_SHIFT) * w
    y += (h - nh) / 2 + rng.uniform(-JITTER_SHIFT, JITTER_SHIFT) * h
    return (x, y, nw, nh)


def bench_set(
    set_dir: Path, held_out_only: bool, read: object, seed: int = 0
) -> dict[str, dict[str, object]]:
    rng = random.Random(seed)
    tallies = {"label boxes": Tally(), "jittered boxes": Tally()}
    frame_millis: list[float] = []
    # Calibrated mode, as the appliance runs: each scenario's calibration frame gives the pip
    # polarity per die colour (estimate_polarity); roll frames are then read with it.
    polarity: dict[tuple[str, str], str] = {}
    for image_path, record in iter_labelled_frames(set_dir):
        if record.get("kind") == "calibration":
            frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            for die in record["dice"]:
                if die.get("colour"):
                    key = (record.get("scenario", ""), die["colour"])
                    polarity[key] = pips.estimate_polarity(frame, tuple(die["box"]))
    if polarity:
        tallies["label boxes, calibrated polarity"] = Tally()
    for image_path, record in iter_labelled_frames(set_dir):
        if held_out_only and not held_out(set_dir.name, record["image"]):
            continue
        dice = [d for d in record["dice"] if d.get("value") is not None]
        if not dice:
            continue
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            raise SystemExit(f"cannot read {image_path}")
        frame_total = 0.0
        for die in dice:
            for name, box in (("label boxes", tuple(die["box"])),
                              ("jittered boxes", jittered(die["box"], rng))):
                start = time.process_time()
                reading = read(frame, box, min_confidence=0.0)  # type: ignore[operator]
                millis = (time.process_time() - start) * 1000.0
                tallies[name].add(int(die["value"]), reading, millis)
                if name == "label boxes":
                    frame_total += millis
            known = polarity.get((record.get("scenario", ""), die.get("colour") or ""))
            if known is not None and record.get("kind") == "roll":
                start = time.process_time()
                reading = read(frame, tuple(die["box"]), polarity=known,  # type: ignore[operator]
                               min_confidence=0.0)
                millis = (time.process_time() - start) * 1000.0
                tallies["label boxes, calibrated polarity"].add(int(die["value"]), reading, millis)
        frame_millis.append(frame_total)
    out = {name: tally.summary() for name, tally in tallies.items()}
    out["label boxes"]["ms_per_frame_mean"] = round(float(np.mean(frame_millis)), 2)
    return out


def print_report(set_name: str, result: dict[str, dict[str, object]]) -> None:
    for condition, summary in result.items():
        print(f"\n{set_name} / {condition}: {summary['dice']} dice, right {summary['right']:.2%}, "
              f"wrong {summary['wrong']:.2%}, refused {summary['refused']:.2%}; "
              f"{summary['ms_per_die_mean']:.2f} ms per die (p95 {summary['ms_per_die_p95']:.2f})")
        print("  threshold  coverage  error")
        for row in summary["thresholds"]:  # type: ignore[union-attr]
            print(f"  {row['threshold']:9.2f}  {row['coverage']:8.2%}  {row['error']:6.2%}")
        print("  confusion (rows: true 1..6; columns: read 1..6, refused)")
        for truth, row in enumerate(summary["confusion"], start=1):  # type: ignore[arg-type]
            print(f"  {truth}: " + " ".join(f"{count:5d}" for count in row))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Accuracy and speed of the pip reader.")
    parser.add_argument("--datasets", type=Path,
                        default=shared_sets_dir(Path(__file__).resolve().parent.parent))
    parser.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS))
    parser.add_argument("--split", choices=("held-out", "all"), default="held-out")
    parser.add_argument("--reader", choices=("combined", "classical"), default="combined")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)  # the appliance's budget is one core
    read = pips.read_face if args.reader == "combined" else pips.read_face_classical
    results = {}
    for set_name in args.sets:
        set_dir = args.datasets / set_name
        if not (set_dir / "labels.jsonl").is_file():
            print(f"no recorded set at {set_dir}", file=sys.stderr)
            return 2
        results[set_name] = bench_set(set_dir, args.split == "held-out", read)
        if not args.json:
            print_report(set_name, results[set_name])
    if args.json:
        print(json.dumps({"reader": args.reader, "split": args.split,
                          "min_confidence": pips.MIN_CONFIDENCE, "sets": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

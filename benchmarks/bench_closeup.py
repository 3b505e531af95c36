"""How the generic reader copes with dice photographed close up: every other labelled die of a set
is cut out in a square ``--window`` die sides wide around it (neighbours cut by the edge as a
close camera would cut them), scaled to 640 px, and read alone; only that die is scored.

Run: ``python benchmarks/bench_closeup.py [--set NAME] [--datasets DIR] [--window W ...]
[--held-out]``.

Printed per window: dice read right, dice given a wrong value (the failures that matter), and
dice not found. A window of 4 makes the die a quarter of the frame, 2.5 two fifths: far larger
than in any training photo (the detector saw dice 8..40 px across its 256 px input, these are
64..100).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2

from pi_reader.vision.images import load_frame
from pi_reader.vision.reader import read_roll
from pi_reader.vision.recorded import LabelledDie, load_recorded_set, shared_sets_dir
from pi_reader.vision.types import box_contains

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # training/splits.py
from training.splits import held_out

REPO = Path(__file__).resolve().parent.parent
OUT_PX = 640


def read_alone(image, die: LabelledDie, window: float) -> int | bool | None:
    """The value read for ``die`` cut out alone (None: refused), or False when it is not found."""
    side = window * max(die.box[2], die.box[3])
    cx, cy = die.centre
    x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
    crop = image[y0:int(cy + side / 2), x0:int(cx + side / 2)]
    factor = OUT_PX / max(crop.shape[:2])
    crop = cv2.resize(crop, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    x, y, w, h = die.box
    box = ((x - x0) * factor, (y - y0) * factor, w * factor, h * factor)
    for found in read_roll(crop).dice:
        if box_contains(box, found.centre):
            return found.value
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="real-d6-overhead")
    parser.add_argument("--datasets", type=Path, default=shared_sets_dir(REPO))
    parser.add_argument("--window", type=float, nargs="+", default=[4.0, 2.5])
    parser.add_argument("--held-out", action="store_true",
                        help="only the photos held out from both networks' training")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    recorded = load_recorded_set(args.datasets / args.set)
    frames = [f for f in recorded.rolls()
              if not args.held_out or held_out(recorded.name, f.image)]
    print("| window (die sides) | dice | right | wrong | not found |")
    print("|---|---|---|---|---|")
    for window in args.window:
        right = wrong = missed = total = 0
        for frame in frames:
            image = load_frame(frame.path)
            for die in [d for d in frame.dice if d.value is not None][::2]:
                value = read_alone(image, die, window)
                total += 1
                right += value == die.value
                wrong += value not in (die.value, None, False)
                missed += value is False
        print(f"| {window:g} | {total} | {100 * right / max(total, 1):.1f}% | {wrong} "
              f"| {missed} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

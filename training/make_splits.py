"""Write the session-split manifests of the shared real-photo sets: ``training/splits/<set>.json``.

Run: ``python training/make_splits.py [--datasets DIR] [--check]`` (reads every photo once,
about a minute on two cores). ``--check`` writes nothing and fails when the committed manifests
differ from what the code and the data give now.

Each set's photos are grouped into sessions (``training/sessions.py``); whole sessions (and
sessions on one table together, ``sessions.SAME_TABLE``) are then dealt to train, validation
and test aiming at ``TARGETS``, where a session's size is the mean of
its share of the set's photos and its share of the set's dice (a photo of 77 dice weighs more
than one of a single die, and both counts are reported). Of ``TRIALS`` random deals drawn with
the fixed ``SEED`` the one nearest the targets is kept (sum of squared differences), with at
least one session in each split. The manifest records image -> session, session -> split and
the counts, and is committed so the split can be reviewed and does not move when code changes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision.recorded import LabelledFrame, RecordedSet, shared_sets_dir
from training import sessions as found
from training.splits import (
    SESSION_SPLIT_SETS,
    SPLITS,
    Split,
    manifest_path,
    shared_set,
)

SEED = 13
TRIALS = 20_000
TARGETS: dict[Split, float] = {"train": 0.6, "validation": 0.2, "test": 0.2}
REPO = Path(__file__).resolve().parent.parent
COMMAND = "python training/make_splits.py"
# Label pixels are the full image's; the big overhead photos are read at an eighth of their size.
REDUCED = {"real-d6-overhead": (cv2.IMREAD_REDUCED_COLOR_8, 1 / 8)}


def find_sessions(recorded: RecordedSet) -> found.Sessions:
    flag, scale = REDUCED.get(recorded.name, (cv2.IMREAD_COLOR, 1.0))

    def read(frame: LabelledFrame) -> tuple[np.ndarray, float]:
        image = cv2.imread(str(frame.path), flag)
        if image is None:
            raise SystemExit(f"make_splits: cannot read {frame.path}")
        return image, scale

    if recorded.name == "real-d6-overhead":
        return found.overhead_sessions(recorded, read)
    if recorded.name == "real-d6-gamedice":
        return found.gamedice_sessions(recorded)
    return found.fisheye_sessions(recorded, read)


def deal(sizes: dict[str, tuple[int, int]], seed: int = SEED) -> dict[str, Split]:
    """Deal groups (name -> (photos, dice)) dealt to splits nearest TARGETS (module docstring)."""
    names = sorted(sizes)
    photos = sum(p for p, _ in sizes.values())
    dice = sum(d for _, d in sizes.values())
    weight = {n: 0.5 * sizes[n][0] / photos + 0.5 * sizes[n][1] / max(dice, 1) for n in names}
    rng = random.Random(seed)
    best: tuple[float, dict[str, Split]] | None = None
    for _ in range(TRIALS):
        choice: dict[str, Split] = {
            n: rng.choices(SPLITS, weights=[TARGETS[s] for s in SPLITS])[0] for n in names
        }
        if set(choice.values()) != set(SPLITS):
            continue
        share = {s: sum(weight[n] for n in names if choice[n] == s) for s in SPLITS}
        cost = sum((share[s] - TARGETS[s]) ** 2 for s in SPLITS)
        if best is None or cost < best[0]:
            best = (cost, choice)
    if best is None:
        raise SystemExit("make_splits: too few sessions to fill three splits")
    return best[1]


def manifest_for(recorded: RecordedSet) -> dict:
    sessions = find_sessions(recorded)
    dice_of = {f.image: len(f.dice) for f in recorded.frames}
    sizes: dict[str, tuple[int, int]] = {}
    for image, session in sessions.items():
        photos, dice = sizes.get(session, (0, 0))
        sizes[session] = (photos + 1, dice + dice_of[image])
    groups: dict[str, tuple[int, int]] = {}
    for session, (photos, dice) in sizes.items():
        group = found.SAME_TABLE.get(session, session)
        total = groups.get(group, (0, 0))
        groups[group] = (total[0] + photos, total[1] + dice)
    dealt_groups = deal(groups)
    dealt = {n: dealt_groups[found.SAME_TABLE.get(n, n)] for n in sizes}
    counts = {
        split: {
            "photos": sum(sizes[n][0] for n in sizes if dealt[n] == split),
            "dice": sum(sizes[n][1] for n in sizes if dealt[n] == split),
            "sessions": sum(dealt[n] == split for n in sizes),
        }
        for split in SPLITS
    }
    return {
        "set": recorded.name,
        "policy": "whole photo sessions to train, validation, test (docs/reader-data.md)",
        "command": COMMAND,
        "seed": SEED,
        "targets": TARGETS,
        "counts": counts,
        "sessions": {
            n: {"split": dealt[n], "photos": sizes[n][0], "dice": sizes[n][1]}
            | ({"same_table_as": found.SAME_TABLE[n]} if n in found.SAME_TABLE else {})
            for n in sorted(sizes)
        },
        "images": dict(sorted(sessions.items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=shared_sets_dir(REPO))
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    stale = []
    for name in SESSION_SPLIT_SETS:
        manifest = manifest_for(shared_set(args.datasets, name, check=False))
        text = json.dumps(manifest, indent=1) + "\n"
        path = manifest_path(name)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for split, count in manifest["counts"].items():
            print(f"{name:<18} {split:<10} {count['photos']:>4} photos {count['dice']:>5} dice "
                  f"{count['sessions']:>3} sessions")
    if stale:
        print(f"make_splits: stale manifests (re-run {COMMAND}): {', '.join(stale)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

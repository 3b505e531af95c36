"""How far a generated die's top face, as the renderer placed it, shows it leaning: by its shape
alone, and against the flat dice of its scene's calibration frame.

    python training/measure_face_shapes.py --generated /work/renders/dr2val \
        --generated /work/renders/dr5val

A flat die under a tilted camera, or near the edge of a wide lens, shows its top face
foreshortened as a die leaning under a camera looking straight down does, so the face's shape
alone cannot tell the two. Its shape against the calibration frame's dice, which lie flat, can:
their shapes are fitted across the frame (each component of the face's shape affine in x and
y), and a die's face is measured in the frame that makes the fitted flat face square there. The
lean a shape shows is ``acos`` of its shorter extent over its longer one. Printed for each set:
percentiles of both for the flat and the cocked dice of its rolls (``cocked.MAX_LEAN_DEG``), and
at each cut how many cocked dice each misses and how many flat ones it flags. Plain Python and
numpy: what the true outlines allow, before any network outlines them.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from training.cocked import MAX_LEAN_DEG
from training.data import geometry

CUTS_DEG = (6.0, 8.0, 10.0, 12.0, 15.0)
PER_PX = 1e-3  # positions in thousands of pixels keep the fit's columns alike in size


def face_shape(corners: Sequence[Sequence[float]]) -> np.ndarray:
    """The face's two sides as the columns of a 2 x 2 matrix (each the mean of its opposite
    pair), from its corners in turn."""
    c = np.asarray(corners, np.float64)
    across = ((c[1] - c[0]) + (c[2] - c[3])) / 2.0
    down = ((c[3] - c[0]) + (c[2] - c[1])) / 2.0
    return np.column_stack([across, down])


def metric(shape: np.ndarray) -> np.ndarray:
    """``shape @ shape.T`` scaled to determinant 1: the face's shape, whichever way the die is
    turned on the table and whatever its size."""
    product = shape @ shape.T
    return product / math.sqrt(max(float(np.linalg.det(product)), 1e-12))


def shown_lean(shape: np.ndarray, flat: np.ndarray | None = None) -> float:
    """The lean in degrees the face shows: ``acos`` of its shorter extent over its longer one,
    measured where the flat face's shape ``flat`` (a metric) is square when given."""
    if flat is not None:
        shape = np.linalg.solve(np.linalg.cholesky(flat), shape)
    longer, shorter = np.linalg.svd(shape, compute_uv=False)
    return math.degrees(math.acos(min(1.0, shorter / max(longer, 1e-12))))


def flat_field(faces: list[tuple[np.ndarray, np.ndarray]]
               ) -> Callable[[np.ndarray], np.ndarray]:
    """From the flat faces (shape, centre) of a calibration frame, a function giving the flat
    face's metric at any point: each component fitted affine in x and y (least squares), or a
    constant from fewer than three faces."""
    rows = [_terms(centre, len(faces)) for _, centre in faces]
    values = [metric(shape)[[0, 0, 1], [0, 1, 1]] for shape, _ in faces]
    coefficients = np.linalg.lstsq(np.array(rows), np.array(values), rcond=None)[0]

    def at(centre: np.ndarray) -> np.ndarray:
        a, b, c = _terms(centre, len(faces)) @ coefficients
        fitted = np.array([[a, b], [b, c]])
        return fitted / math.sqrt(max(float(np.linalg.det(fitted)), 1e-12))

    return at


def _terms(centre: np.ndarray, faces: int) -> np.ndarray:
    x, y = np.asarray(centre, np.float64) * PER_PX
    return np.array([1.0, x, y]) if faces >= 3 else np.array([1.0])


def measured(root: Path) -> dict[str, list[tuple[float, float, float]]]:
    """(rendered lean, lean shown alone, lean shown against the flat field) of every die of the
    set's rolls whose scene has a calibration frame, as "flat" and "cocked"."""
    scenes: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(dict)
    for image, dice in geometry(root).items():
        scene, name = image.rsplit("/", 1)
        scenes[scene][name] = dice
    found: dict[str, list[tuple[float, float, float]]] = {"flat": [], "cocked": []}
    for frames in scenes.values():
        flat = [(face_shape(d["top_face"]), np.mean(d["top_face"], axis=0))
                for d in frames.pop("calibration.jpg", []) if d["lean_deg"] <= MAX_LEAN_DEG]
        if not flat:
            continue
        field = flat_field(flat)
        for dice in frames.values():
            for die in dice:
                shape, centre = face_shape(die["top_face"]), np.mean(die["top_face"], axis=0)
                kind = "cocked" if die["lean_deg"] > MAX_LEAN_DEG else "flat"
                found[kind].append((float(die["lean_deg"]), shown_lean(shape),
                                    shown_lean(shape, field(centre))))
    return found


def report(name: str, found: dict[str, list[tuple[float, float, float]]]) -> list[str]:
    """The printed lines for one set."""
    lines = [f"{name}: percentiles 5/50/95/99 of the lean shown (degrees)"]
    for kind, dice in found.items():
        shown = np.array(dice).reshape(-1, 3)
        for column, how in ((1, "alone"), (2, "against the calibration")):
            spread = (np.percentile(shown[:, column], [5, 50, 95, 99]).round(1).tolist()
                      if len(shown) else [])
            lines.append(f"  {kind} ({len(shown)} dice), {how}: {spread}")
    cocked, flat = (np.array(found[k]).reshape(-1, 3) for k in ("cocked", "flat"))
    for cut in CUTS_DEG:
        lines.append(
            f"  cut {cut:g}: alone misses {int((cocked[:, 1] < cut).sum())} cocked and flags "
            f"{int((flat[:, 1] >= cut).sum())} flat; against the calibration misses "
            f"{int((cocked[:, 2] < cut).sum())} and flags {int((flat[:, 2] >= cut).sum())}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generated", type=Path, action="append", required=True,
                        help="a generated set's folder (training/render_scenes.py); repeatable")
    args = parser.parse_args(argv)
    for root in args.generated:
        if not (root / "geometry.jsonl").is_file():
            parser.error(f"{root} is no generated set (it has no geometry.jsonl)")
    for root in args.generated:
        print("\n".join(report(root.name, measured(root))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

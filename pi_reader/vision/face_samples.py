"""Labelled dice from a recorded image set, for the pip reader's benchmark, training and tests.

A recorded set is a folder with images and ``labels.jsonl`` (format in the README). The full
frames of the real set are 2736 px square, so holding them all in memory is out of the question;
instead each die is kept as a *context crop*: a square around its box, twice the box's size,
scaled so the box's longer side is ``box_px`` pixels. Reading a context crop with its translated
box is the same problem as reading the die in the whole frame, only cheaper to store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np


@dataclass(frozen=True)
class DieSample:
    """One labelled die: where it came from, its value and its context crop."""

    set_name: str
    image: str
    scenario: str
    value: int
    crop: np.ndarray  # BGR context crop
    box: tuple[float, float, float, float]  # the die's box in crop coordinates


def iter_labelled_frames(set_dir: Path) -> Iterator[tuple[Path, dict]]:
    """Each labels.jsonl line with the path of its image, in file order."""
    labels = set_dir / "labels.jsonl"
    with labels.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{labels}:{line_number}: not JSON ({error})") from error
            yield set_dir / record["image"], record


def context_crop(
    frame: np.ndarray, box: tuple[float, float, float, float], box_px: float = 64.0
) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A square crop twice the box's size around its centre, scaled so the box's side is box_px."""
    x, y, w, h = box
    side = 2.0 * max(w, h)
    scale = box_px / max(w, h)
    out = round(side * scale)
    cx, cy = x + w / 2.0, y + h / 2.0
    # An affine warp handles crops that stick out of the frame (border replicated).
    matrix = np.array(
        [[scale, 0.0, out / 2.0 - cx * scale], [0.0, scale, out / 2.0 - cy * scale]],
        dtype=np.float64,
    )
    crop = cv2.warpAffine(
        frame, matrix, (out, out), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    new_box = (out / 2.0 - w * scale / 2.0, out / 2.0 - h * scale / 2.0, w * scale, h * scale)
    return crop, new_box


def load_samples(set_dir: Path, box_px: float = 64.0) -> list[DieSample]:
    """Every die with a value label in the set, as context crops."""
    samples: list[DieSample] = []
    for image_path, record in iter_labelled_frames(set_dir):
        dice = [d for d in record["dice"] if d.get("value") is not None]
        if not dice:
            continue
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"cannot read image {image_path}")
        for die in dice:
            crop, box = context_crop(frame, tuple(die["box"]), box_px)
            samples.append(
                DieSample(
                    set_name=set_dir.name,
                    image=record["image"],
                    scenario=record.get("scenario", ""),
                    value=int(die["value"]),
                    crop=crop,
                    box=box,
                )
            )
    return samples

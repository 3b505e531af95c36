"""Labelled frames and dice for training, from the shared real sets and the generated scenes.

Only the frames a split allows are loaded (``training/splits.py``): the training scripts ask for
``train``, and choose on ``validation``; the qwixx-rendered sets are never loaded here.

Frames are kept as JPEG bytes scaled so that no side exceeds ``max_side`` (a 2736 px photo's
dice are then still over 40 px, more than either network needs), decoded when a batch is cut:
thousands of frames fit in memory that way. Dice are kept as *context crops*: a square of twice
the box's longer side round its centre, scaled to ``CONTEXT_PX``, so a face patch can be cut from
one with any box error the reader's finder makes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import faces
from pi_reader.vision.recorded import RecordedSet, load_recorded_set
from training.splits import (
    GENERATED_MANIFEST,
    Split,
    SplitError,
    is_generated,
    select,
    shared_set,
)

REAL_SETS = ("real-d6-overhead", "real-d6-gamedice", "real-d6-fisheye")
CONTEXT_PX = 128  # a context crop's side: the box's longer side is half of it
NOT_A_DIE = faces.NOT_A_DIE  # the face classifier's class for "the finder boxed no one die"
UNREADABLE = faces.UNREADABLE  # ...and for "a die whose top face nobody could read"


@dataclass(frozen=True)
class Frame:
    """One labelled frame, scaled by ``scale``; boxes are (x, y, w, h) in scaled pixels."""

    set_name: str
    image: str
    jpeg: bytes
    scale: float
    boxes: np.ndarray  # (n, 4) float32
    values: tuple[int | None, ...]  # None: a face no one can read
    colours: tuple[str | None, ...]
    generated: bool

    def decode(self) -> np.ndarray:
        return cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)


@dataclass(frozen=True)
class Die:
    """One labelled die's context crop; ``label`` 1..6, or UNREADABLE."""

    set_name: str
    image: str
    crop: np.ndarray  # CONTEXT_PX square BGR, the die's box centred and half as wide
    box_side: float  # the box's longer side in crop pixels (CONTEXT_PX / 2)
    aspect: float  # the box's width / height
    label: int  # 1..6, UNREADABLE or NOT_A_DIE
    # The corners (crop pixels, in turn) the lean gauge puts round the top face of the box, for
    # the classifier's top-face patches (faces.top_face_patch); None until gauged.
    top_face: np.ndarray | None = None


def open_set(datasets: Path, path_or_name: str) -> RecordedSet:
    """A shared set by name (its folder under ``datasets``) or a generated set by its folder.

    Raises SplitError (a ValueError, which the scripts turn into their usage message) for a
    path that is no generated set, saying which of the two it lacks."""
    folder = Path(path_or_name)
    if folder.is_dir() and is_generated(folder):
        return load_recorded_set(folder)
    if len(folder.parts) > 1 or folder.is_dir():
        if not folder.is_dir():
            raise SplitError(f"{folder}: no such folder (a generated set is rendered by "
                             "training/render_scenes.py --out FOLDER)")
        raise SplitError(f"{folder}: not a generated set (no {GENERATED_MANIFEST} with a split "
                         "rule, as training/render_scenes.py writes)")
    return shared_set(datasets, path_or_name)


def scene_limits(generated: list[Path], scenes: list[int]) -> list[int | None]:
    """Each generated set's scene limit from ``--scenes``: none given, no limit; one, the same for
    every set; else one per ``--generated`` in the same order, so that a model card can name the
    scenes of two sets of which one is still being rendered. Raises ValueError when the counts
    match neither way (the scripts turn it into their usage message)."""
    if not scenes:
        return [None] * len(generated)
    if len(scenes) == 1:
        return [scenes[0]] * len(generated)
    if len(scenes) != len(generated):
        raise ValueError(f"--scenes given {len(scenes)} times for {len(generated)} generated "
                         "sets: give it once for all, or once for each --generated in order")
    return list(scenes)


def add_set_options(parser: argparse.ArgumentParser, *, generated_required: bool = False
                    ) -> None:
    """The options naming the sets a script reads: the shared sets' folder, the generated
    sets and their scene limits (:func:`sets_to_load` takes the three)."""
    parser.add_argument("--datasets", type=Path, required=True, help="the shared sets' folder")
    parser.add_argument("--generated", type=Path, action="append", default=[],
                        required=generated_required,
                        help="a generated set's folder (training/render_scenes.py); repeatable")
    parser.add_argument("--scenes", type=int, action="append", default=[],
                        help="use a generated set's first N scenes only: once for all sets, "
                             "or once per --generated, in order")


def sets_to_load(datasets: Path, generated: list[Path], scenes: list[int]
                 ) -> list[tuple[RecordedSet, int | None]]:
    """The real sets and the generated ones, each with its scene limit (:func:`scene_limits`;
    its ValueError passes through)."""
    limits = scene_limits(generated, scenes)
    return ([(open_set(datasets, name), None) for name in REAL_SETS]
            + [(open_set(datasets, str(path)), limit)
               for path, limit in zip(generated, limits, strict=True)])


def load_frames(recorded: RecordedSet, split: Split, max_side: int = 1024,
                scenes: int | None = None) -> list[Frame]:
    """The frames of ``recorded`` in ``split``, with every die (readable or not) boxed; of a
    generated set only its first ``scenes`` scenes (by index) when given, so that a model card
    can name exactly the scenes a model learnt from while the set is still being rendered."""
    frames = []
    generated = is_generated(recorded.root)
    for frame in select(recorded, split).frames:
        if generated and scenes is not None and scene_index(frame.scenario) >= scenes:
            continue
        image = cv2.imread(str(frame.path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{frame.path}: not an image")
        scale = min(1.0, max_side / max(image.shape[:2]))
        if scale < 1.0:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        assert ok
        boxes = np.array([d.box for d in frame.dice], np.float32).reshape(-1, 4) * scale
        frames.append(Frame(recorded.name if not generated else recorded.root.name, frame.image,
                            jpeg.tobytes(), scale, boxes,
                            tuple(d.value for d in frame.dice),
                            tuple(d.colour for d in frame.dice), generated))
    return frames


def geometry(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Each generated frame's dice as the renderer placed them (``geometry.jsonl``: top face
    corners, pips, lean), in label order, by image."""
    return {row["image"]: row["dice"] for row in _dice_rows(root / "geometry.jsonl")}


def touching_flags(recorded: RecordedSet) -> dict[str, list[bool]]:
    """Whether the renderer put each die of a generated frame against another (its label's
    ``touching``), in label order, by image."""
    return {row["image"]: [bool(die.get("touching")) for die in row["dice"]]
            for row in _dice_rows(recorded.root / "labels.jsonl")}


def _dice_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of a generated set's JSON-lines file (one frame each, blank lines skipped)."""
    return (json.loads(line) for line in path.read_text().splitlines() if line.strip())


def scene_index(scenario: str | None) -> int:
    """A generated scene's index: the digits of its name (``a00012`` is scene 12)."""
    return int("".join(c for c in scenario or "" if c.isdigit()))


def context_crop(image: np.ndarray, box: Iterable[float]) -> np.ndarray:
    """The square of twice the box's longer side round its centre, scaled to CONTEXT_PX."""
    x, y, w, h = box
    side = 2.0 * max(w, h)
    scale = CONTEXT_PX / side
    cx, cy = x + w / 2.0, y + h / 2.0
    matrix = np.array([[scale, 0, CONTEXT_PX / 2 - cx * scale],
                       [0, scale, CONTEXT_PX / 2 - cy * scale]], np.float64)
    return cv2.warpAffine(image, matrix, (CONTEXT_PX, CONTEXT_PX),
                          flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def dice_of(frames: Iterable[Frame]) -> list[Die]:
    """Every die of the frames as a context crop, its value or UNREADABLE as label."""
    dice = []
    for frame in frames:
        image = frame.decode()
        for box, value in zip(frame.boxes, frame.values, strict=True):
            if min(box[2], box[3]) < 4:
                continue
            dice.append(Die(frame.set_name, frame.image, context_crop(image, box),
                            CONTEXT_PX / 2.0, float(box[2] / max(box[3], 1e-3)),
                            UNREADABLE if value is None else value))
    return dice


def background_crops(frames: Iterable[Frame], per_frame: int, rng: np.random.Generator
                     ) -> list[Die]:
    """Squares of the frames that hold no die (the table, a tray's wall, a coin), sized like the
    frame's dice: what the classifier must answer NOT_A_DIE for when a finder errs."""
    crops = []
    for frame in frames:
        if len(frame.boxes) == 0:
            continue
        image = frame.decode()
        h, w = image.shape[:2]
        side = float(np.median(np.maximum(frame.boxes[:, 2], frame.boxes[:, 3])))
        for _ in range(per_frame * 4):
            if len([c for c in crops if c.image == frame.image]) >= per_frame:
                break
            x, y = rng.uniform(0, w - side), rng.uniform(0, h - side)
            box = np.array([x, y, side, side], np.float32)
            if _overlaps_any(box, frame.boxes, 0.05):
                continue
            crops.append(Die(frame.set_name, frame.image, context_crop(image, box), CONTEXT_PX / 2,
                             1.0, NOT_A_DIE))
    return crops


def _overlaps_any(box: np.ndarray, boxes: np.ndarray, most: float) -> bool:
    x0 = np.maximum(box[0], boxes[:, 0])
    y0 = np.maximum(box[1], boxes[:, 1])
    x1 = np.minimum(box[0] + box[2], boxes[:, 0] + boxes[:, 2])
    y1 = np.minimum(box[1] + box[3], boxes[:, 1] + boxes[:, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    return bool((inter > most * box[2] * box[3]).any())


def describe(frames: list[Frame]) -> dict[str, dict[str, int]]:
    """Frames and dice per set, for the model card."""
    out: dict[str, dict[str, int]] = {}
    for frame in frames:
        entry = out.setdefault(frame.set_name, {"frames": 0, "dice": 0, "unreadable": 0})
        entry["frames"] += 1
        entry["dice"] += len(frame.values)
        entry["unreadable"] += sum(v is None for v in frame.values)
    return out


def write_card(path: Path, card: dict) -> None:
    """The model card beside an ONNX file: what it learnt from, how, and how well it did."""
    path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")

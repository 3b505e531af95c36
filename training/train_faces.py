"""Train the top-face classifier and export it to ONNX with its model card.

    python training/train_faces.py --datasets ../shared/datasets --generated /work/renders/dr1 \
        --steps 10000 --seed 1 --out models/face-classifier.onnx

A fixed number of steps from a seed (never a time budget). PyTorch is needed here only; the
reader runs the ONNX file with OpenCV (``pi_reader.vision.faces``).

Data: every die of the training splits (generated scenes and the real sets; never a
qwixx-rendered frame) as a context crop, labelled with its value or, for a face nobody can read
(washed out, cocked, hidden, outside the frame), UNREADABLE; plus NOT_A_DIE examples of what a
finder may wrongly box: squares of table, tray and distractors, boxes round two touching dice, and
boxes round a part of a die (a close-up's pip). Each draw cuts the patch as the reader does
(``faces.face_patch``) from a box moved and resized as the detector's boxes are, turned any way,
and recoloured as another camera would. A share of the draws (``--top-face-share``) is instead the
top-face patch the reader reads of a die its box patch leaves in doubt (``faces.top_face_patch``):
the corners the shipped lean gauge puts round the box's top face, each moved a little, warped
square.
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import detector, faces, lean, weights
from pi_reader.vision.lean import LeanGauge
from pi_reader.vision.types import box_contains
from training import runs
from training.data import (
    CONTEXT_PX,
    NOT_A_DIE,
    Die,
    Frame,
    background_crops,
    context_crop,
    dice_of,
)
from training.train_detector import recolour

REAL_SHARE = {"real-d6-overhead": 0.15, "real-d6-gamedice": 0.2, "real-d6-fisheye": 0.15}
BOX_SHIFT = 0.12  # the largest box centre error drawn, in box sides
BOX_SCALE = (0.85, 1.3)  # the box sizes drawn, against the labelled box
# The corners are the gauge's, its own errors included; each is moved by a further Gaussian step
# of this spread (in box sides), so that the classifier does not learn one gauge's habits. A
# judgement, not a measurement: a sixth of the step between pips (a quarter of the side).
CORNER_SHIFT = 0.04


def conv(cin: int, cout: int, *, folded: bool = False) -> nn.Sequential:
    """A 3x3 conv, batch norm and ReLU; ``folded``: the conv holds the batch norm (as the ONNX
    export leaves a trained network), for going on from a shipped classifier."""
    if folded:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1), nn.Identity(), nn.ReLU(inplace=True))
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class FaceNet(nn.Module):
    """Three conv blocks down to 5 x 5, then a small dense head: where the pips are matters."""

    def __init__(self, *, folded: bool = False) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv(3, 16, folded=folded), conv(16, 16, folded=folded), nn.MaxPool2d(2),
            conv(16, 32, folded=folded), conv(32, 32, folded=folded), nn.MaxPool2d(2),
            conv(32, 64, folded=folded), conv(64, 64, folded=folded), nn.MaxPool2d(2))
        side = faces.INPUT_PX // 8
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * side * side, 96),
                                  nn.ReLU(inplace=True), nn.Linear(96, faces.CLASS_COUNT))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def from_onnx(path: Path) -> FaceNet:
    """The classifier exported to ``path`` as a FaceNet to train on from there (see
    runs.load_exported). Raises ValueError when the file is no FaceNet."""
    reference = faces.FaceClassifier(path)  # a missing or unreadable file says so here
    net = FaceNet(folded=True)
    runs.load_exported(net, path, reference.network.forward, faces.INPUT_PX)
    return net


def pair_boxes(frames: list[Frame]) -> list[Die]:
    """Boxes round two touching dice, as a finder that merged them would give: NOT_A_DIE."""
    out = []
    for frame in frames:
        boxes = frame.boxes
        pairs = []
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                ca, cb = a[:2] + a[2:] / 2, b[:2] + b[2:] / 2
                if np.hypot(*(ca - cb)) < 1.4 * max(a[2], a[3], b[2], b[3]):
                    pairs.append((i, j))
        if not pairs:
            continue
        image = frame.decode()
        for i, j in pairs[:3]:
            a, b = boxes[i], boxes[j]
            x0, y0 = min(a[0], b[0]), min(a[1], b[1])
            x1, y1 = max(a[0] + a[2], b[0] + b[2]), max(a[1] + a[3], b[1] + b[3])
            union = np.array([x0, y0, x1 - x0, y1 - y0], np.float32)
            out.append(Die(frame.set_name, frame.image, context_crop(image, union),
                           CONTEXT_PX / 2, float(union[2] / union[3]), NOT_A_DIE))
    return out


def part_boxes(frames: list[Frame], rng: np.random.Generator) -> list[Die]:
    """Boxes round a part of a die (a pip, a corner), a fifth to two fifths of its side, as a
    detector that took a close-up's pip for a die gives them: NOT_A_DIE."""
    out = []
    for frame in frames:
        if len(frame.boxes) == 0:
            continue
        image = frame.decode()
        for x, y, w, h in frame.boxes[:2]:
            side = min(w, h) * rng.uniform(0.2, 0.4)
            part = np.array([x + rng.uniform(0, w - side), y + rng.uniform(0, h - side),
                             side, side], np.float32)
            if part[2] >= 4:
                out.append(Die(frame.set_name, frame.image, context_crop(image, part),
                               CONTEXT_PX / 2, 1.0, NOT_A_DIE))
    return out


def mined_negatives(frames: list[Frame], models: Path) -> list[Die]:
    """What an earlier detector (``models``) found where no die is labelled and an earlier
    classifier did not read as a die's value surely (a real die left unlabelled would be read
    so): the board's corner marker, a screw, a printed disc, as NOT_A_DIE. Training on a
    finder's own mistakes is what teaches the classifier the clutter of real tables.

    Only detections at the calibrated PEAK_THRESHOLD count: the shipped classifier was mined so
    (the generic threshold was the same then), and one mined at the lower generic threshold got
    twice the gamedice examples, called more real dice no die and was not shipped
    (docs/reader.md)."""
    found_by = detector.Detector(models / detector.MODEL_FILE)
    read_by = faces.FaceClassifier(models / faces.MODEL_FILE)
    out = []
    for frame in frames:
        image = frame.decode()
        found = [d for d in found_by.detect(image) if d.score >= detector.PEAK_THRESHOLD]
        strays = [d for d in found if not any(box_contains(tuple(b), d.centre)
                                              for b in frame.boxes)]
        readings = read_by.read(image, [d.box for d in strays])
        for stray, reading in zip(strays, readings, strict=True):
            if reading.value is None or reading.confidence < 0.9:
                out.append(Die(frame.set_name, frame.image, context_crop(image, stray.box),
                               CONTEXT_PX / 2, stray.box[2] / max(stray.box[3], 1e-3),
                               NOT_A_DIE))
    return out


def box_sides(side: float, aspect: float) -> tuple[float, float]:
    """A box's width and height from its longer side and its aspect (width / height)."""
    return (side, side / aspect) if aspect >= 1 else (side * aspect, side)


def jittered_box(centre: float, side: float, aspect: float, rng: random.Random) -> faces.Box:
    """A box round the die centred at (``centre``, ``centre``) of longer side ``side``, with the
    errors the detector makes: scaled by BOX_SCALE, each side by up to a tenth more, moved by up
    to BOX_SHIFT of the side."""
    w, h = box_sides(side, aspect)
    scale = rng.uniform(*BOX_SCALE)
    w *= scale * math.exp(rng.uniform(-0.1, 0.1))
    h *= scale * math.exp(rng.uniform(-0.1, 0.1))
    cx = centre + rng.uniform(-BOX_SHIFT, BOX_SHIFT) * side
    cy = centre + rng.uniform(-BOX_SHIFT, BOX_SHIFT) * side
    return (cx - w / 2, cy - h / 2, w, h)


def gauged(dice: list[Die], gauge: LeanGauge) -> list[Die]:
    """The dice with the corners the gauge puts round the top face of each one's box."""
    out = []
    for die in dice:
        w, h = box_sides(die.box_side, die.aspect)
        box = (CONTEXT_PX / 2 - w / 2, CONTEXT_PX / 2 - h / 2, w, h)
        corners = np.array(gauge.gauge(die.crop, [box])[0].corners, np.float32)
        out.append(replace(die, top_face=corners))
    return out


def draw_top_face(die: Die, rng: random.Random) -> np.ndarray | None:
    """One top-face patch of ``die``: its gauged corners each moved by a Gaussian step of
    CORNER_SHIFT of a side, taken from any corner either way round (a turn or a mirror), another
    camera; None when the moved corners outline no face."""
    assert die.top_face is not None
    moved = die.top_face + np.array([[rng.gauss(0, CORNER_SHIFT * die.box_side)
                                      for _ in range(2)] for _ in range(4)], np.float32)
    moved = np.roll(moved, rng.randrange(4), axis=0)
    if rng.random() < 0.5:
        moved = moved[::-1]
    patch = faces.top_face_patch(die.crop, tuple((float(x), float(y)) for x, y in moved))
    return None if patch is None else recolour(patch, rng)


def draw(die: Die, rng: random.Random) -> np.ndarray:
    """One training patch of ``die``: box error, any turn, another camera."""
    box = jittered_box(CONTEXT_PX / 2, die.box_side, die.aspect, rng)
    crop = die.crop
    angle = rng.uniform(0, 360)
    if rng.random() < 0.7:
        turn = cv2.getRotationMatrix2D((CONTEXT_PX / 2, CONTEXT_PX / 2), angle, 1.0)
        crop = cv2.warpAffine(crop, turn, (CONTEXT_PX, CONTEXT_PX), borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    patch = faces.face_patch(np.ascontiguousarray(crop), box)
    return recolour(patch, rng)


class Sampler:
    def __init__(self, sources: dict[str, list[Die]], rng: random.Random,
                 top_face_share: float = 0.0) -> None:
        self.sources = {k: v for k, v in sources.items() if v}
        self.names, self.weights = runs.source_weights(list(self.sources), REAL_SHARE)
        self.rng = rng
        self.top_face_share = top_face_share

    def batch(self, size: int) -> tuple[torch.Tensor, torch.Tensor]:
        patches, labels = [], []
        for _ in range(size):
            name = self.rng.choices(self.names, self.weights)[0]
            die = self.rng.choice(self.sources[name])
            # The share is asked of the generator only when there is one: without top-face
            # draws the stream of draws is the one the shipped classifier was trained on.
            top_face = (draw_top_face(die, self.rng)
                        if self.top_face_share > 0 and self.rng.random() < self.top_face_share
                        else None)
            patches.append(draw(die, self.rng) if top_face is None else top_face)
            labels.append(die.label)
        return (torch.from_numpy(faces.network_input(patches)),
                torch.tensor(labels, dtype=torch.long))


def train(net: FaceNet, sampler: Sampler, steps: int, batch: int, lr: float,
          *, head_only: bool = False) -> None:
    """``steps`` of AdamW on a warmed-up cosine schedule; ``head_only`` trains the dense head
    alone (the conv features of a net trained before are kept as they are)."""
    net.train()
    if head_only:
        net.features.requires_grad_(False)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=lr,
                            weight_decay=5e-4)
    loss_of = nn.CrossEntropyLoss(label_smoothing=0.05)

    def step_loss() -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        x, y = sampler.batch(batch)
        loss = loss_of(net(x), y)
        return loss, {"loss": loss}

    runs.optimise(opt, lr, steps, step_loss)


def export(net: FaceNet, out: Path) -> None:
    net.eval()
    side = faces.INPUT_PX
    torch.onnx.export(net, torch.zeros(1, 3, side, side), str(out), input_names=["patch"],
                      output_names=["logits"], opset_version=13, dynamo=False,
                      dynamic_axes={"patch": {0: "batch"}, "logits": {0: "batch"}})


def validate(model: Path, frames: dict[str, list[Frame]]) -> dict[str, dict]:
    """Per validation source, on the labelled boxes read through the product code: readable
    faces right / wrong / refused, and unreadable faces refused, at each confidence floor."""
    classifier = faces.FaceClassifier(model)
    figures: dict[str, dict] = {}
    for name, rows in frames.items():
        readings: list[tuple[int | None, faces.FaceReading]] = []
        for frame in rows:
            image = frame.decode()
            boxes = [tuple(float(v) for v in b) for b in frame.boxes]
            got = classifier.read(image, boxes)  # type: ignore[arg-type]
            readings += list(zip(frame.values, got, strict=True))
        entry: dict[str, object] = {"dice": len(readings),
                                    "unreadable": sum(v is None for v, _ in readings)}
        for floor in (0.5, 0.6, 0.7, 0.8, 0.9):
            readable = [(v, r) for v, r in readings if v is not None]
            taken = [(v, r) for v, r in readable if r.value is not None and r.confidence >= floor]
            wrong = sum(v != r.value for v, r in taken)
            guessed = sum(1 for v, r in readings if v is None and r.value is not None
                          and r.confidence >= floor)
            dropped = sum(1 for v, r in readings if not r.is_die)
            entry[f"floor {floor}"] = {
                "right": round((len(taken) - wrong) / max(len(readable), 1), 4),
                "wrong": wrong, "refused": len(readable) - len(taken),
                "unreadable_guessed": guessed, "called_not_a_die": dropped}
        figures[name] = entry
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = runs.parser_for(__doc__.split("\n\n")[0], steps=10000, batch=128,
                             model_file=faces.MODEL_FILE)
    parser.add_argument("--mine-with", type=Path,
                        help="a folder with an earlier detector and classifier: their mistakes "
                             "on the training frames become not-a-die examples")
    parser.add_argument("--init-from", type=Path,
                        help="an exported classifier to go on training from (its card names "
                             "what it learnt before)")
    parser.add_argument("--head-only", action="store_true",
                        help="with --init-from: train the dense head only, keep the features")
    parser.add_argument("--top-face-share", type=float, default=0.0,
                        help="the share of draws that are top-face patches, cut from the corners "
                             "the shipped lean gauge puts round each die (none by default, as "
                             "the shipped classifier was trained)")
    run = runs.start("train_faces.py", parser, argv)
    args = run.args
    if args.head_only and args.init_from is None:
        parser.error("--head-only goes on from a trained net: give --init-from")
    try:
        net = from_onnx(args.init_from) if args.init_from else FaceNet()
    except (ValueError, OSError) as error:
        parser.error(str(error))
    crops_rng = np.random.default_rng(args.seed)
    sources = {name: dice_of(rows) + background_crops(rows, 2, crops_rng) + pair_boxes(rows)
               + part_boxes(rows, crops_rng)
               + (mined_negatives(rows, args.mine_with) if args.mine_with else [])
               for name, rows in run.train_frames.items()}
    if args.top_face_share > 0:
        gauge = LeanGauge(weights.shipped(lean.MODEL_FILE))
        sources = {name: gauged(dice, gauge) for name, dice in sources.items()}
    counts = {name: {str(label): sum(d.label == label for d in dice)
                     for label in range(faces.CLASS_COUNT)} for name, dice in sources.items()}
    print(counts, flush=True)
    train(net, Sampler(sources, random.Random(args.seed), args.top_face_share), args.steps,
          args.batch, args.lr, head_only=args.head_only)
    runs.finish(run, net, export, lambda: {
        "what": "top face of one die: not a die (0), 1..6, or a die nobody could read (7), "
                f"from a {faces.INPUT_PX} px patch of {faces.PATCH_OF_BOX} x the box's longer side",
        "input_px": faces.INPUT_PX,
        "mined_with": str(args.mine_with) if args.mine_with else None,
        "init_from": (None if args.init_from is None else
                      runs.init_from_card(args.init_from) | {"head_only": args.head_only}),
        "augmentation": {"box_shift_of_side": BOX_SHIFT, "box_scale": BOX_SCALE,
                         "turn": "any angle (70 %), mirror (50 %)", "camera": "see recolour",
                         "top_face_share": args.top_face_share,
                         "top_face_corner_shift_of_side": CORNER_SHIFT},
        "validation_on_label_boxes": validate(args.out, run.valid_frames),
    }, {"patches_by_class": counts, "source_shares": REAL_SHARE | {"generated": "the rest"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())

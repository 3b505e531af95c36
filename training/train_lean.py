"""Train the lean gauge (``pi_reader.vision.lean``) and export it to ONNX with its model card.

    python training/train_lean.py --datasets ../shared/datasets --generated /work/renders/dr2 \
        --generated /work/renders/dr3 --steps 4000 --seed 1 --out models/lean-gauge.onnx

A fixed number of steps from a seed. Data: every die of the generated scenes' training split,
with the four corners of its top face and its lean as the renderer put them
(``geometry.jsonl``); the real photos carry no such geometry, so their validation splits only
show how often the gauge calls a flat real die leaning. Each draw turns the die any way, moves
and resizes its box as the detector's boxes are, and recolours it as another camera would;
cocked dice are drawn for a share of each batch, since a tray rarely leaves one, and flat dice
pressed against another (the renderer's ``touching``) for another share when asked
(``--touching-share``): the neighbour's side face in their patch is what the gauge takes for a
lean. A gauge taught on from another (``--init-from``) may also be shown, for a share of each
batch (``--doubted-share``), the flat dice that gauge already sees leaning: its own false alarms,
the dice that refuse readable rolls.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import faces, lean, reader
from training import runs
from training.cocked import MAX_LEAN_DEG
from training.data import (
    REAL_SETS,
    Frame,
    geometry,
    load_frames,
    open_set,
    scene_limits,
    touching_flags,
)
from training.train_detector import recolour
from training.train_faces import BOX_SCALE, BOX_SHIFT, box_sides, conv, jittered_box

CROP_OF_BOX = 3.0  # a training crop's side in boxes: room for any turn, shift and scale drawn
BOX_IN_CROP = 64.0  # the box's longer side in crop pixels
CROP_PX = round(CROP_OF_BOX * BOX_IN_CROP)
COCKED_SHARE = 0.25  # of each batch, drawn from the cocked dice (by default; --cocked-share)
TOUCHING_SHARE = 0.0  # of each batch, drawn from flat dice touching another (--touching-share)
DOUBTED_SHARE = 0.0  # of each batch, from flat dice the starting gauge doubts (--doubted-share)
LEAN_WEIGHT = 4.0  # the lean's loss against the corners' (patch sides; --lean-weight)


@dataclass(frozen=True)
class GaugedDie:
    """One die's crop (its box centred, BOX_IN_CROP on its longer side) and its top face."""

    image: str
    crop: np.ndarray
    aspect: float  # the box's width / height
    corners: np.ndarray  # (4, 2) top face corners in crop pixels
    lean_deg: float
    touching: bool  # the renderer put it against another die

    @property
    def cocked(self) -> bool:
        return self.lean_deg > MAX_LEAN_DEG

    @property
    def flat_against_another(self) -> bool:
        """Lying flat against another die: what the gauge takes for a lean in a heap."""
        return self.touching and not self.cocked


# The kinds of generated die the card gives the gauge's figures for.
VALIDATION_KINDS: dict[str, Callable[[GaugedDie], bool]] = {
    "flat": lambda d: not d.cocked,
    "flat_against_another": lambda d: d.flat_against_another,
    "cocked": lambda d: d.cocked,
}


class LeanNet(nn.Module):
    """Four conv blocks down to 4 x 4, then a dense head: where the corners are matters.
    ``folded``: built as the export leaves it, to go on from a shipped gauge (from_onnx)."""

    def __init__(self, *, folded: bool = False) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv(3, 16, folded=folded), nn.MaxPool2d(2), conv(16, 32, folded=folded),
            nn.MaxPool2d(2), conv(32, 48, folded=folded), nn.MaxPool2d(2),
            conv(48, 64, folded=folded), nn.MaxPool2d(2))
        side = lean.INPUT_PX // 16
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64 * side * side, 128),
                                  nn.ReLU(inplace=True), nn.Linear(128, lean.OUTPUTS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def from_onnx(path: Path) -> LeanNet:
    """The gauge exported to ``path`` as a LeanNet to train on from there (see
    runs.load_exported). Raises ValueError when the file is no lean gauge."""
    reference = lean.LeanGauge(path)  # a missing or unreadable file says so here
    net = LeanNet(folded=True)
    runs.load_exported(net, path, reference.network.forward, lean.INPUT_PX)
    return net


def gauged_dice(frames: list[Frame], placed: dict[str, list[dict[str, Any]]],
                touching: dict[str, list[bool]]) -> list[GaugedDie]:
    """Every die of the frames whose top face lies wholly inside its frame, as a crop."""
    out = []
    for frame in frames:
        image = frame.decode()
        height, width = image.shape[:2]
        for box, die, against in zip(frame.boxes, placed[frame.image], touching[frame.image],
                                     strict=True):
            corners = np.array(die["top_face"], np.float64) * frame.scale
            inside = ((corners >= 0) & (corners < [width, height])).all()
            if min(box[2], box[3]) < 8 or not inside:
                continue
            x, y, w, h = (float(v) for v in box)
            scale = BOX_IN_CROP / max(w, h)
            matrix = np.array([[scale, 0, CROP_PX / 2 - (x + w / 2) * scale],
                               [0, scale, CROP_PX / 2 - (y + h / 2) * scale]])
            crop = cv2.warpAffine(image, matrix, (CROP_PX, CROP_PX),
                                  flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
            out.append(GaugedDie(frame.image, crop, w / max(h, 1e-3),
                                 corners @ matrix[:, :2].T + matrix[:, 2], float(die["lean_deg"]),
                                 against))
    return out


def draw(die: GaugedDie, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """One training patch of ``die`` and its target: turned, mirrored, its box moved and
    resized, recoloured."""
    centre = CROP_PX / 2.0
    turn = cv2.getRotationMatrix2D((centre, centre), rng.uniform(0, 360), 1.0)
    if rng.random() < 0.5:
        turn = turn @ np.array([[-1.0, 0, CROP_PX], [0, 1, 0], [0, 0, 1]])
    crop = cv2.warpAffine(die.crop, turn, (CROP_PX, CROP_PX), borderMode=cv2.BORDER_REPLICATE)
    corners = die.corners @ turn[:, :2].T + turn[:, 2]
    box = jittered_box(centre, BOX_IN_CROP, die.aspect, rng)
    return recolour(lean.lean_patch(crop, box), rng), target(corners, die.lean_deg, box)


def target(corners: np.ndarray, lean_deg: float, box: faces.Box) -> np.ndarray:
    """What the gauge should answer for ``box``: corners in patch sides from the patch's centre,
    then the sine of the lean."""
    cx, cy, side = lean.patch_square(box)
    placed = (corners - [cx, cy]) / side
    return np.append(placed.reshape(-1), math.sin(math.radians(lean_deg))).astype(np.float32)


# The top face's corners may be given from any corner, either way round.
ORDERS = [[(start + step * k) % 4 for k in range(4)] for start in range(4) for step in (1, -1)]


def loss_of(out: torch.Tensor, want: torch.Tensor, lean_weight: float) -> torch.Tensor:
    """Corner error under the best order of the wanted corners, plus the lean's error."""
    got = out[:, :8].reshape(-1, 4, 2)
    corners = want[:, :8].reshape(-1, 4, 2)
    per_order = torch.stack([nn.functional.smooth_l1_loss(got, corners[:, order], beta=0.02,
                                                          reduction="none").sum(dim=(1, 2))
                             for order in ORDERS], dim=1)
    corner_loss = per_order.min(dim=1).values.mean()
    lean_loss = nn.functional.smooth_l1_loss(out[:, 8], want[:, 8], beta=0.02)
    return corner_loss + lean_weight * lean_loss


def doubted_flat(dice: list[GaugedDie], model: Path) -> list[GaugedDie]:
    """The flat dice that the gauge in ``model`` sees leaning lean.SURE_FLAT_DEG or more on
    their labelled boxes, as the reader gauges them (every turn averaged when doubtful)."""
    gauge = lean.LeanGauge(model)
    return [d for d in dice if not d.cocked
            and gauge.gauge(d.crop, [label_box(d)])[0].lean_deg >= lean.SURE_FLAT_DEG]


def label_box(die: GaugedDie) -> faces.Box:
    """The die's labelled box in its crop."""
    w, h = box_sides(BOX_IN_CROP, die.aspect)
    return (CROP_PX / 2 - w / 2, CROP_PX / 2 - h / 2, w, h)


def train(net: LeanNet, dice: list[GaugedDie], doubted: list[GaugedDie],
          args: argparse.Namespace, rng: random.Random) -> None:
    """``args.steps`` of AdamW on a warmed-up cosine schedule, ``args.cocked_share`` of each
    batch cocked, ``args.touching_share`` flat against another die and ``args.doubted_share``
    from the ``doubted`` flat dice."""
    cocked = [d for d in dice if d.cocked]
    flat = [d for d in dice if not d.cocked]
    touching = [d for d in dice if d.flat_against_another]

    def pool() -> list[GaugedDie]:
        # One draw decides the pool, so a run without the later shares draws as before.
        share = rng.random()
        if cocked and share < args.cocked_share:
            return cocked
        if touching and share < args.cocked_share + args.touching_share:
            return touching
        if doubted and share < args.cocked_share + args.touching_share + args.doubted_share:
            return doubted
        return flat

    net.train()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)

    def step_loss() -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        drawn = [draw(rng.choice(pool()), rng) for _ in range(args.batch)]
        x = torch.from_numpy(faces.network_input([p for p, _ in drawn]))
        y = torch.from_numpy(np.stack([t for _, t in drawn]))
        loss = loss_of(net(x), y, args.lean_weight)
        return loss, {"loss": loss}

    runs.optimise(opt, args.lr, args.steps, step_loss)


def export(net: nn.Module, out: Path) -> None:
    net.eval()
    side = lean.INPUT_PX
    torch.onnx.export(net, torch.zeros(1, 3, side, side), str(out), input_names=["patch"],
                      output_names=["gauge"], opset_version=13, dynamo=False,
                      dynamic_axes={"patch": {0: "batch"}, "gauge": {0: "batch"}})


def validate(model: Path, generated: dict[str, list[GaugedDie]],
             real: dict[str, list[Frame]]) -> dict[str, dict[str, Any]]:
    """On the labelled boxes, through the product code: the gauged lean and squareness of the
    flat and the cocked dice of each generated validation split (percentiles), of its flat dice
    against another apart (the heaps' false alarms), and the gauged lean of the real validation
    photos' dice (all lying flat)."""
    gauge = lean.LeanGauge(model)
    figures: dict[str, dict[str, Any]] = {}
    for name, dice in generated.items():
        got = [gauge.gauge(d.crop, [label_box(d)])[0] for d in dice]
        figures[name] = {kind: _spread([g for g, d in zip(got, dice, strict=True) if of_kind(d)])
                         for kind, of_kind in VALIDATION_KINDS.items()}
    for name, frames in real.items():
        got = [g for f in frames
               for g in gauge.gauge(f.decode(), [tuple(map(float, b)) for b in f.boxes])]
        figures[name] = {"flat": _spread(got)}
    return figures


def _spread(got: list[lean.Lean]) -> dict[str, Any]:
    if not got:
        return {"dice": 0}
    leans = np.array([g.lean_deg for g in got])
    square = np.array([g.squareness for g in got])
    return {"dice": len(got),
            "share_at_calibrated_cut": round(float(np.mean(leans >= reader.COCKED_LEAN_DEG)), 4),
            "lean_deg_percentiles_5_50_95_99": np.percentile(leans, [5, 50, 95, 99]).round(1)
            .tolist(),
            "squareness_percentiles_1_5_50_95": np.percentile(square, [1, 5, 50, 95]).round(3)
            .tolist()}


def main(argv: list[str] | None = None) -> int:
    parser = runs.parser_for(__doc__.split("\n\n")[0], steps=4000, batch=128,
                             model_file=lean.MODEL_FILE)
    parser.add_argument("--cocked-share", type=float, default=COCKED_SHARE,
                        help="the share of each batch drawn from the cocked dice")
    parser.add_argument("--touching-share", type=float, default=TOUCHING_SHARE,
                        help="the share of each batch drawn from flat dice touching another")
    parser.add_argument("--doubted-share", type=float, default=DOUBTED_SHARE,
                        help="the share of each batch drawn from the flat dice the --init-from "
                             "gauge sees leaning (its false alarms)")
    parser.add_argument("--lean-weight", type=float, default=LEAN_WEIGHT,
                        help="the lean's loss against the corners'")
    parser.add_argument("--init-from", type=Path,
                        help="an exported gauge to go on training from (its card names what it "
                             "learnt before)")
    given = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(given)
    if not args.generated:
        parser.error("the gauge learns from generated scenes: give --generated")
    if args.doubted_share and not args.init_from:
        parser.error("--doubted-share needs --init-from: the doubted dice are its gauge's")
    runs.seed_everything(args)  # before a fresh net draws its first weights
    try:
        net = from_onnx(args.init_from) if args.init_from else LeanNet()
    except (ValueError, OSError) as error:
        parser.error(str(error))
    try:
        limits = scene_limits(args.generated, args.scenes)
        generated = [open_set(args.datasets, str(folder)) for folder in args.generated]
        real_sets = [open_set(args.datasets, name) for name in REAL_SETS]
    except ValueError as error:
        parser.error(str(error))
    started = time.time()
    train_frames: dict[str, list[Frame]] = {}
    valid: dict[str, list[GaugedDie]] = {}
    train_dice: list[GaugedDie] = []
    for folder, recorded, limit in zip(args.generated, generated, limits, strict=True):
        placed = geometry(folder)
        against = touching_flags(recorded)
        train_frames[folder.name] = load_frames(recorded, "train", scenes=limit)
        train_dice += gauged_dice(train_frames[folder.name], placed, against)
        valid[folder.name] = gauged_dice(load_frames(recorded, "validation", scenes=limit),
                                         placed, against)
    real = {name: load_frames(recorded, "validation")
            for name, recorded in zip(REAL_SETS, real_sets, strict=True)}
    if not train_dice:
        parser.error("the generated sets hold no training dice in the scenes asked for "
                     "(their train split, within --scenes)")
    cocked = sum(d.cocked for d in train_dice)
    touching = sum(d.flat_against_another for d in train_dice)
    doubted = doubted_flat(train_dice, args.init_from) if args.doubted_share else []
    print(f"{len(train_dice)} dice, {cocked} cocked, {touching} flat against another, "
          f"{len(doubted)} flat doubted", flush=True)
    train(net, train_dice, doubted, args, random.Random(args.seed))
    run = runs.Run("train_lean.py", given, args, train_frames, {},
                   {f.name: n for f, n in zip(args.generated, limits, strict=True)}, started)
    runs.finish(run, net, export, lambda: {
        "what": "a die's top face corners (x, y in patch sides from the centre) and the sine of "
                f"its lean, from a {lean.INPUT_PX} px patch of {lean.PATCH_OF_BOX} x the box's "
                "longer side",
        "input_px": lean.INPUT_PX,
        "patch_of_box": lean.PATCH_OF_BOX,
        "init_from": runs.init_from_card(args.init_from),
        "augmentation": {"box_shift_of_side": BOX_SHIFT, "box_scale": BOX_SCALE,
                         "turn": "any angle, mirror (50 %)", "camera": "see recolour",
                         "cocked_share": args.cocked_share,
                         "touching_share": args.touching_share,
                         "doubted_share": args.doubted_share},
        "lean_weight": args.lean_weight,
        "validation_on_label_boxes": validate(args.out, valid, real),
    }, {"dice": len(train_dice), "cocked": cocked, "cocked_above_deg": MAX_LEAN_DEG,
        "flat_touching": touching, "flat_doubted": len(doubted)})
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Train the small pip-count CNN used by pi_reader.vision.pips (needs PyTorch; not a dependency).

    python training/train_pips.py --datasets /work/shared/datasets --out models/pips_cnn.onnx \
        --epochs 80 --seed 5 --width 1.5

(the shipped weights; about 27 minutes on a 2-core machine).

Data: every value-labelled die of the recorded sets, cut out exactly as the reader cuts them
(``pips.normalized_patch``), plus "no face" patches (tray, die edges, blank squares) as class 0 so
the network can say it sees no readable face. The splits are ``training/splits.py``'s: only the
train split is trained on, the figures printed are the validation split's, and the test split
(every ``qwixx-rendered*`` set among them) is never looked at.

Augmentation is heavy on purpose (any rotation, mirror, scale, box jitter, white balance,
exposure, gamma, blur, noise) because the reader must work on dice and cameras it never saw.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import cv2
import numpy as np
import torch
from splits import split_of
from synthetic_faces import synthetic_die
from torch import nn

from pi_reader.vision import face_cnn, pips
from pi_reader.vision.face_samples import (
    DieSample,
    context_crop,
    iter_labelled_frames,
    load_samples,
)

# The rendered qwixx sets are test sets only (training/splits.py).
TRAIN_SETS = ("real-d6-overhead",)


def negative_samples(set_dir: Path, per_frame: int, rng: random.Random) -> list[DieSample]:
    """Patches with no readable top face: tray, and boxes straddling a die's edge."""
    out: list[DieSample] = []
    for image_path, record in iter_labelled_frames(set_dir):
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        boxes = [d["box"] for d in record["dice"]]
        if frame is None or not boxes:
            continue
        side = float(np.median([max(b[2], b[3]) for b in boxes]))
        height, width = frame.shape[:2]
        for _ in range(per_frame):
            if rng.random() < 0.5:
                # A box half on a die, half off it: an edge and a side face, no top face.
                bx, by, bw, bh = rng.choice(boxes)
                angle = rng.uniform(0, 2 * np.pi)
                cx = bx + bw / 2 + np.cos(angle) * side * rng.uniform(0.75, 1.0)
                cy = by + bh / 2 + np.sin(angle) * side * rng.uniform(0.75, 1.0)
            else:
                cx, cy = rng.uniform(side, width - side), rng.uniform(side, height - side)
                if any(abs(cx - (b[0] + b[2] / 2)) < side and abs(cy - (b[1] + b[3] / 2)) < side
                       for b in boxes):
                    continue
            box = (cx - side / 2, cy - side / 2, side, side)
            crop, crop_box = context_crop(frame, box)
            out.append(DieSample(set_dir.name, record["image"], record.get("scenario", ""),
                                 0, crop, crop_box))
    return out


def blank_faces(count: int, rng: random.Random) -> list[DieSample]:
    """Plain squares (a die without pips) on a plain ground, drawn with OpenCV."""
    out: list[DieSample] = []
    for _ in range(count):
        ground = np.array([rng.randint(0, 255) for _ in range(3)], np.uint8)
        face = np.array([rng.randint(0, 255) for _ in range(3)], np.uint8)
        crop = np.full((128, 128, 3), ground, np.uint8)
        cv2.rectangle(crop, (36, 36), (92, 92), face.tolist(), -1, cv2.LINE_AA)
        if rng.random() < 0.5:  # a glare streak (a round spot would be a one: not blank)
            cv2.ellipse(crop, (rng.randint(45, 83), rng.randint(45, 83)),
                        (rng.randint(8, 20), rng.randint(1, 3)), rng.uniform(0, 180), 0, 360,
                        (255, 255, 255), -1, cv2.LINE_AA)
        out.append(DieSample("blank", "", "", 0, crop, (32.0, 32.0, 64.0, 64.0)))
    return out


def augment(sample: DieSample, rng: np.random.Generator) -> np.ndarray:
    """One random view of a sample, cut out by the reader's own patch function."""
    crop = sample.crop
    size = crop.shape[0]
    rotation = cv2.getRotationMatrix2D((size / 2, size / 2), rng.uniform(0, 360), 1.0)
    crop = cv2.warpAffine(crop, rotation, (size, size), borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    x, y, w, h = sample.box
    grow = rng.uniform(-0.08, 0.25)
    scale_w, scale_h = 1 + grow + rng.uniform(-0.05, 0.05), 1 + grow + rng.uniform(-0.05, 0.05)
    nw, nh = w * scale_w, h * scale_h
    x += (w - nw) / 2 + rng.uniform(-0.12, 0.12) * w
    y += (h - nh) / 2 + rng.uniform(-0.12, 0.12) * h
    patch = pips.normalized_patch(np.ascontiguousarray(crop), (x, y, nw, nh), None).bgr
    img = patch.astype(np.float32)
    img *= rng.uniform(0.75, 1.25, size=3)  # white balance
    img = img * rng.uniform(0.6, 1.4) + rng.uniform(-30, 30)  # exposure
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.5))
    if rng.random() < 0.5:
        img += rng.normal(0, rng.uniform(1, 8), img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


class PipNet(nn.Module):
    """Four small conv blocks and a linear layer: 84k weights at width 1 (189k at the shipped 1.5),
    a few ms per die on a Pi."""

    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        c1, c2, c3, c4 = (round(width * c) for c in (16, 32, 48, 64))

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout),
                                 nn.ReLU(), nn.MaxPool2d(2))

        self.features = nn.Sequential(block(3, c1), block(c1, c2), block(c2, c3), block(c3, c4))
        self.head = nn.Sequential(nn.Conv2d(c4, c4, 3, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                  nn.Dropout(0.2), nn.Linear(c4, face_cnn.CLASS_COUNT))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def to_batch(patches: list[np.ndarray]) -> torch.Tensor:
    return torch.from_numpy(np.stack([face_cnn.network_input(p) for p in patches]))


def evaluate(net: PipNet, samples: list[DieSample]) -> float:
    net.eval()
    right = 0
    with torch.no_grad():
        for start in range(0, len(samples), 256):
            chunk = samples[start:start + 256]
            patches = [pips.normalized_patch(s.crop, s.box, None).bgr for s in chunk]
            predicted = net(to_batch(patches)).argmax(1).numpy()
            right += int(sum(int(p) == s.value for p, s in zip(predicted, chunk, strict=True)))
    return right / max(1, len(samples))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("models/pips_cnn.onnx"))
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--init", type=Path, help="start from these weights (.pt)")
    parser.add_argument("--save-torch", action="store_true", help="also write OUT.pt")
    parser.add_argument("--synthetic", type=int, default=250, help="drawn dice per value")
    parser.add_argument("--width", type=float, default=1.0, help="channels, times the default")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    np_rng = np.random.default_rng(args.seed)
    torch.set_num_threads(1)  # the machine is shared; more threads only fight

    train: list[DieSample] = []
    held: dict[str, list[DieSample]] = {}
    for name in TRAIN_SETS:
        for sample in load_samples(args.datasets / name):
            split = split_of(name, sample.image)
            if split == "validation":
                held.setdefault(name, []).append(sample)
            elif split == "train":
                train.append(sample)
    for name in TRAIN_SETS:
        for sample in negative_samples(args.datasets / name, 2, rng):
            if split_of(name, sample.image) == "train":
                train.append(sample)
    train += blank_faces(300, rng)
    train += [synthetic_die(value, rng) for value in range(1, 7) for _ in range(args.synthetic)]
    counts = np.bincount([s.value for s in train], minlength=face_cnn.CLASS_COUNT)
    print("train samples per class", counts.tolist(), {k: len(v) for k, v in held.items()})

    net = PipNet(args.width)
    if args.init is not None:
        net.load_state_dict(torch.load(args.init))
    optimiser = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = args.epochs * (len(train) // 64 + 1)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps,
                                                   pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(args.epochs):
        net.train()
        order = list(range(len(train)))
        rng.shuffle(order)
        total = 0.0
        for start in range(0, len(order), 64):
            chunk = [train[i] for i in order[start:start + 64]]
            batch = to_batch([augment(s, np_rng) for s in chunk])
            target = torch.tensor([s.value for s in chunk])
            optimiser.zero_grad()
            loss = loss_fn(net(batch), target)
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss) * len(chunk)
        report = {k: round(evaluate(net, v), 4) for k, v in held.items()}
        print(f"epoch {epoch + 1} loss {total / len(train):.4f} held-out {json.dumps(report)}",
              flush=True)
        if (epoch + 1) % 5 == 0 or epoch + 1 == args.epochs:
            export(net, args.out, args.save_torch)


def export(net: PipNet, path: Path, save_torch: bool) -> None:
    """Write the network as ONNX for OpenCV's dnn module (and as PyTorch weights if asked)."""
    net.eval()
    dummy = torch.zeros(1, 3, face_cnn.INPUT_PX, face_cnn.INPUT_PX)
    torch.onnx.export(net, dummy, str(path), input_names=["patch"], output_names=["logits"],
                      opset_version=13, dynamo=False)
    if save_torch:
        torch.save(net.state_dict(), path.with_suffix(".pt"))
    print("wrote", path, path.stat().st_size, "bytes", flush=True)


if __name__ == "__main__":
    main()

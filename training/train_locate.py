"""Train the generic-mode dice detector (a tiny centre-heatmap net) and export it to ONNX.

Run (PyTorch is needed here only, never by the reader, which loads the ONNX file with OpenCV):

    python training/train_locate.py --datasets ../shared/datasets --minutes 70

(the shipped net: 13,989 steps in those 70 minutes on the 2-core development machine; training
runs for a time budget, so another machine makes another number of steps).

The net sees the frame scaled to ``INPUT`` pixels square (letterboxed) and answers, at a quarter
of that resolution, a heatmap of die centres and each die's width and height. Training images:
the train split of real-d6-overhead, as the pip classifier's (``training/splits.py``; the
rendered qwixx sets are test only); heavy augmentation (scale, rotation, flips, colour temperature,
exposure, blur, noise) because unseen sets will check it.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from splits import split_of
from torch import nn

INPUT = 256
STRIDE = 4
# Share of training views centred near a labelled die (the rest anywhere in the frame, so the
# net also learns what is not a die: rims, printed pictures, screw heads).
NEAR_A_DIE = 0.4
TRAIN_SETS = ("real-d6-overhead",)  # the rendered qwixx sets are test only (training/splits.py)


def conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, dilation, dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CentreNet(nn.Module):
    """Stride-4 heatmap + size head; dilated convolutions give a die-sized field of view."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(conv(3, 12, 2), conv(12, 24, 2))
        self.deep = nn.Sequential(conv(24, 48, 2), conv(48, 48, dilation=2),
                                  conv(48, 48, dilation=4))
        self.fuse = nn.Sequential(nn.Conv2d(72, 24, 1, bias=False), nn.BatchNorm2d(24),
                                  nn.ReLU(inplace=True), conv(24, 24))
        self.head = nn.Conv2d(24, 3, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -4.0  # start with "no die anywhere"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fine = self.stem(x)
        deep = nn.functional.interpolate(self.deep(fine), scale_factor=2.0, mode="bilinear",
                                         align_corners=False)
        out = self.head(self.fuse(torch.cat([fine, deep], 1)))
        return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:]], 1)


def load_rows(datasets: Path, name: str) -> list[tuple[str, np.ndarray, np.ndarray, str]]:
    """(name, image scaled to at most 768 px, boxes scaled alike, scenario) for every frame."""
    out = []
    for line in (datasets / name / "labels.jsonl").read_text().splitlines():
        row = json.loads(line)
        img = cv2.imread(str(datasets / name / row["image"]))
        scale = min(1.0, 768 / max(img.shape[:2]))
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        boxes = np.array([d["box"] for d in row["dice"]], np.float32).reshape(-1, 4) * scale
        out.append((row["image"], img, boxes, row.get("scenario", "")))
    return out


def split(rows: list, name: str) -> tuple[list, list]:
    """Training and validation frames, split as the pip classifier's (``training/splits.py``), so
    one set of photos is new to both networks and the whole reader can be measured on it."""
    return ([r for r in rows if split_of(name, r[0]) == "train"],
            [r for r in rows if split_of(name, r[0]) == "validation"])


def augment(img: np.ndarray, boxes: np.ndarray, rng: random.Random, view: int = INPUT
            ) -> tuple[np.ndarray, np.ndarray]:
    """A random ``view`` x ``view`` crop: scale so dice are 8..40 px, rotate, flip, recolour."""
    sides = np.sqrt(boxes[:, 2] * boxes[:, 3]) if len(boxes) else np.array([40.0])
    target = rng.uniform(8, 40)
    scale = target / float(np.median(sides))
    angle = rng.uniform(-180, 180)
    h, w = img.shape[:2]
    centre = (rng.uniform(0, w), rng.uniform(0, h))  # anywhere: clutter must be seen too
    if len(boxes) and rng.random() < NEAR_A_DIE:
        b = boxes[rng.randrange(len(boxes))]
        centre = (b[0] + b[2] / 2 + rng.uniform(-100, 100),
                  b[1] + b[3] / 2 + rng.uniform(-100, 100))
    m = cv2.getRotationMatrix2D(centre, angle, scale)
    m[0, 2] += view / 2 - centre[0]
    m[1, 2] += view / 2 - centre[1]
    border = tuple(int(v) for v in np.median(img[::8, ::8].reshape(-1, 3), 0))
    out = cv2.warpAffine(img, m, (view, view), flags=cv2.INTER_AREA if scale < 1 else
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    if rng.random() < 0.5:
        out = out[:, ::-1]
        m = np.array([[-1, 0, view - 1], [0, 1, 0]], np.float64) @ np.vstack([m, [0, 0, 1]])
    new = []
    for x, y, bw, bh in boxes:
        corners = np.array([[x, y, 1], [x + bw, y, 1], [x, y + bh, 1], [x + bw, y + bh, 1]])
        p = corners @ m.T
        # A rotated tight box grows; shrink back towards the die (dice are square-ish).
        cx, cy = p[:, 0].mean(), p[:, 1].mean()
        side = math.sqrt(bw * bh) * scale
        extent = max(np.ptp(p[:, 0]), np.ptp(p[:, 1]))
        size = side + (extent - side) * 0.5
        new.append([cx, cy, size, size])
    out = np.ascontiguousarray(out).astype(np.float32)
    # Colour temperature, exposure, contrast.
    gains = np.array([rng.uniform(0.7, 1.3), rng.uniform(0.85, 1.15), rng.uniform(0.7, 1.3)])
    out = out * gains * rng.uniform(0.6, 1.4)
    out = (out - out.mean()) * rng.uniform(0.75, 1.25) + out.mean()
    if rng.random() < 0.3:
        hsv = cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(int) + rng.randrange(180)) % 180  # tray of any colour
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.5))
    out += np.random.normal(0, rng.uniform(0, 6), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8), np.array(new, np.float32).reshape(-1, 4)


def targets(boxes: np.ndarray, view: int = INPUT) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaussian centre heatmap, log-size map and the mask of cells where size is learnt."""
    n = view // STRIDE
    heat = np.zeros((n, n), np.float32)
    size = np.zeros((2, n, n), np.float32)
    mask = np.zeros((n, n), np.float32)
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    for cx, cy, w, h in boxes:
        gx, gy = cx / STRIDE - 0.5, cy / STRIDE - 0.5
        if not (0 <= gx < n and 0 <= gy < n):
            continue
        sigma = max(0.7, 0.12 * math.sqrt(w * h) / STRIDE)
        heat = np.maximum(heat, np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma ** 2)))
        ix, iy = round(gx), round(gy)
        ix, iy = min(n - 1, max(0, ix)), min(n - 1, max(0, iy))
        heat[iy, ix] = 1.0
        size[:, iy, ix] = (math.log(w), math.log(h))
        mask[iy, ix] = 1.0
    return heat, size, mask


def focal_loss(pred: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred ** 2 * (1 - heat) ** 4 * (1 - pos)
    return -(pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


def batch(rows: list, size: int, rng: random.Random, view: int = INPUT
          ) -> tuple[torch.Tensor, ...]:
    imgs, heats, sizes, masks = [], [], [], []
    for _ in range(size):
        _, img, boxes, _ = rows[rng.randrange(len(rows))]
        crop, new = augment(img, boxes, rng, view)
        heat, sz, mask = targets(new, view)
        imgs.append(crop.transpose(2, 0, 1))
        heats.append(heat)
        sizes.append(sz)
        masks.append(mask)
    return (torch.from_numpy(np.stack(imgs)).float() / 255.0, torch.from_numpy(np.stack(heats)),
            torch.from_numpy(np.stack(sizes)), torch.from_numpy(np.stack(masks)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("models/locate-centernet.onnx"))
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--batch", type=int, default=12)
    parser.add_argument("--crop", type=int, default=INPUT, help="training view size (px)")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--resume", type=Path, help="start from these weights (.pt)")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(2)
    rng = random.Random(0)
    train: list = []
    for name in TRAIN_SETS:
        tr, _ = split(load_rows(args.datasets, name), name)
        train += tr
    print(f"{len(train)} training frames")
    net = CentreNet()
    if args.resume:
        net.load_state_dict(torch.load(args.resume))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    start, step = time.time(), 0
    deadline = start + args.minutes * 60
    while time.time() < deadline:
        frac = (time.time() - start) / (deadline - start)
        for group in opt.param_groups:
            group["lr"] = args.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))
        x, heat, size, mask = batch(train, args.batch, rng, args.crop)
        out = net(x)
        hm_loss = focal_loss(out[:, 0], heat)
        sz_loss = (torch.abs(out[:, 1:] - size) * mask[:, None]).sum() / mask.sum().clamp(min=1)
        loss = hm_loss + 0.5 * sz_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 100 == 0:
            torch.save(net.state_dict(), args.out.with_suffix(".pt"))
        if step % 50 == 0:
            print(f"step {step} {time.time() - start:.0f}s loss {hm_loss.item():.3f} "
                  f"size {sz_loss.item():.3f}", flush=True)
    net.eval()
    torch.save(net.state_dict(), args.out.with_suffix(".pt"))
    torch.onnx.export(net, torch.zeros(1, 3, INPUT, INPUT), str(args.out), input_names=["image"],
                      output_names=["maps"], opset_version=13, dynamo=False)
    print(f"wrote {args.out} after {step} steps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

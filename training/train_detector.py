"""Train the dice detector (a small centre-heatmap net) and export it to ONNX with its model card.

    python training/train_detector.py --datasets ../shared/datasets \
        --generated /work/renders/dr1 --steps 12000 --seed 1 --out models/dice-detector.onnx

A fixed number of steps from a seed: the same data, command and seed give the same weights on
any machine (up to floating-point order), however fast it is. PyTorch is needed here only; the
reader runs the ONNX file with OpenCV (``pi_reader.vision.detector``).

Training views are ``VIEW`` px squares cut from the training frames (the generated scenes'
train split and the real sets' train splits, never a qwixx-rendered frame), scaled so the dice
come out between ``TRAINED_SIDES`` pixels (log-uniform), turned, mirrored, stretched (phone
photos are stored stretched), recoloured (white balance, exposure, gamma, saturation, grey),
blurred, noised and JPEG-compressed: the reader must find dice under cameras nobody here has.
After training the ONNX file is measured through the product's own code on the validation
splits, and the figures go into the model card (``models/dice-detector.json``).
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import detector
from training import runs
from training.data import Frame

VIEW = 192
STRIDE = detector.STRIDE
# Share of the batches' views drawn from each source (the rest: the generated scenes).
REAL_SHARE = {"real-d6-overhead": 0.12, "real-d6-gamedice": 0.18, "real-d6-fisheye": 0.10}


def conv(cin: int, cout: int, stride: int = 1, dilation: int = 1, *, size: int = 3,
         folded: bool = False) -> nn.Sequential:
    """A conv, batch norm and ReLU; ``folded``: the conv holds the batch norm (as the ONNX
    export leaves a trained network), for going on from a shipped detector."""
    pad = dilation * (size // 2)
    if folded:
        return nn.Sequential(nn.Conv2d(cin, cout, size, stride, pad, dilation), nn.Identity(),
                             nn.ReLU(inplace=True))
    return nn.Sequential(nn.Conv2d(cin, cout, size, stride, pad, dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CentreNet(nn.Module):
    """Stride-4 maps (heat, log size, centre offset) from a stride-16 context path joined back.
    ``folded``: built as the export leaves it, to go on from a shipped detector (from_onnx)."""

    def __init__(self, *, folded: bool = False) -> None:
        super().__init__()
        f = folded
        self.stem = nn.Sequential(conv(3, 16, 2, folded=f), conv(16, 32, 2, folded=f),
                                  conv(32, 32, folded=f))
        self.mid = nn.Sequential(conv(32, 48, 2, folded=f), conv(48, 48, folded=f))
        self.deep = nn.Sequential(conv(48, 64, 2, folded=f), conv(64, 64, dilation=2, folded=f),
                                  conv(64, 64, dilation=4, folded=f))
        self.up_mid = conv(112, 48, size=1, folded=f)
        self.fuse = nn.Sequential(conv(80, 32, size=1, folded=f), conv(32, 32, folded=f))
        self.head = nn.Conv2d(32, 5, 1)
        with torch.no_grad():
            self.head.bias.zero_()
            self.head.bias[0] = -4.0  # start with "no die anywhere"
            self.head.bias[1:3] = math.log(20.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fine = self.stem(x)
        mid = self.mid(fine)
        deep = nn.functional.interpolate(self.deep(mid), scale_factor=2.0, mode="nearest")
        mid = self.up_mid(torch.cat([mid, deep], 1))
        mid = nn.functional.interpolate(mid, scale_factor=2.0, mode="nearest")
        out = self.head(self.fuse(torch.cat([fine, mid], 1)))
        return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:3], torch.tanh(out[:, 3:]) * 0.5], 1)


def augment(image: np.ndarray, boxes: np.ndarray, rng: random.Random
            ) -> tuple[np.ndarray, np.ndarray]:
    """A random VIEW square of the frame, its dice's boxes moved with it (cx, cy, w, h)."""
    sides = np.sqrt(boxes[:, 2] * boxes[:, 3]) if len(boxes) else np.array([30.0])
    lo, hi = detector.TRAINED_SIDES
    scale = math.exp(rng.uniform(math.log(lo), math.log(hi))) / float(np.median(sides))
    stretch = math.exp(rng.uniform(-0.25, 0.25)) if rng.random() < 0.4 else 1.0
    angle = rng.uniform(-180, 180)
    h, w = image.shape[:2]
    if len(boxes) and rng.random() < 0.7:
        b = boxes[rng.randrange(len(boxes))]
        reach = VIEW / scale / 2
        centre = (b[0] + b[2] / 2 + rng.uniform(-reach, reach),
                  b[1] + b[3] / 2 + rng.uniform(-reach, reach))
    else:
        centre = (rng.uniform(0, w), rng.uniform(0, h))
    rotate = cv2.getRotationMatrix2D(centre, angle, scale)
    squash = np.array([[stretch, 0, 0], [0, 1 / stretch, 0], [0, 0, 1]])
    m = squash @ np.vstack([rotate, [0, 0, 1]])
    shift = np.array([VIEW / 2, VIEW / 2]) - (m[:2, :2] @ np.array(centre) + m[:2, 2])
    m[:2, 2] += shift
    if rng.random() < 0.5:
        m = np.array([[-1, 0, VIEW - 1], [0, 1, 0], [0, 0, 1]], np.float64) @ m
    border = cv2.BORDER_REFLECT if rng.random() < 0.5 else cv2.BORDER_CONSTANT
    out = cv2.warpAffine(image, m[:2], (VIEW, VIEW),
                         flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                         borderMode=border, borderValue=tuple(rng.randrange(256) for _ in range(3)))
    moved = []
    for x, y, bw, bh in boxes:
        corners = np.array([[x, y, 1], [x + bw, y, 1], [x, y + bh, 1], [x + bw, y + bh, 1]])
        p = corners @ m[:2].T
        cx, cy = p[:, 0].mean(), p[:, 1].mean()
        # A turned box grows round a die that stays square: shrink it half back.
        side = math.sqrt(bw * bh) * scale
        ew, eh = np.ptp(p[:, 0]), np.ptp(p[:, 1])
        moved.append([cx, cy, side + (ew - side) * 0.5, side + (eh - side) * 0.5])
    return recolour(out, rng), np.array(moved, np.float32).reshape(-1, 4)


def recolour(image: np.ndarray, rng: random.Random) -> np.ndarray:
    """Another camera: white balance, exposure, gamma, saturation, grey, blur, noise, JPEG."""
    out = image.astype(np.float32) / 255.0
    out *= np.array([rng.uniform(0.7, 1.3), 1.0, rng.uniform(0.7, 1.3)], np.float32)
    out *= math.exp(rng.uniform(-0.6, 0.5))
    out = np.clip(out, 0, 1) ** math.exp(rng.uniform(-0.35, 0.35))
    grey = out.mean(axis=2, keepdims=True)
    if rng.random() < 0.1:
        out = np.repeat(grey, 3, axis=2)
    else:
        out = grey + (out - grey) * rng.uniform(0.5, 1.4)
    out = np.clip(out * 255.0, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.4))
    if rng.random() < 0.5:
        noise = np.random.default_rng(rng.randrange(2**31)).normal(0, rng.uniform(1, 7), out.shape)
        out = np.clip(out + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        _, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 95)])
        out = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    return out


def targets(boxes: np.ndarray) -> tuple[np.ndarray, ...]:
    """Gaussian centre heatmap, log sizes, sub-cell offsets and the cells where those count."""
    n = VIEW // STRIDE
    heat = np.zeros((n, n), np.float32)
    size = np.zeros((2, n, n), np.float32)
    offset = np.zeros((2, n, n), np.float32)
    mask = np.zeros((n, n), np.float32)
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    for cx, cy, w, h in boxes:
        gx, gy = cx / STRIDE - 0.5, cy / STRIDE - 0.5
        if not (-0.5 <= gx < n - 0.5 and -0.5 <= gy < n - 0.5):
            continue
        sigma = max(0.6, 0.15 * math.sqrt(w * h) / STRIDE)
        heat = np.maximum(heat, np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma**2)))
        ix, iy = min(n - 1, max(0, round(gx))), min(n - 1, max(0, round(gy)))
        heat[iy, ix] = 1.0
        size[:, iy, ix] = (math.log(max(w, 2.0)), math.log(max(h, 2.0)))
        offset[:, iy, ix] = (gx - ix, gy - iy)
        mask[iy, ix] = 1.0
    return heat, size, offset, mask


def from_onnx(path: Path) -> CentreNet:
    """The detector exported to ``path`` as a CentreNet to train on from there (see
    runs.load_exported). Raises ValueError when the file is no CentreNet."""
    reference = detector.Detector(path)  # a missing or unreadable file says so here
    net = CentreNet(folded=True)
    runs.load_exported(net, path, reference.network.forward, VIEW)
    return net


def focal_loss(pred: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred**2 * (1 - heat) ** 4 * (1 - pos)
    return -(pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


class Sampler:
    """Training frames drawn by source share, decoded when drawn."""

    def __init__(self, sources: dict[str, list[Frame]], rng: random.Random) -> None:
        self.sources = {k: v for k, v in sources.items() if v}
        self.names, self.weights = runs.source_weights(list(self.sources), REAL_SHARE)
        self.rng = rng

    def batch(self, size: int) -> tuple[torch.Tensor, ...]:
        images, maps = [], []
        for _ in range(size):
            name = self.rng.choices(self.names, self.weights)[0]
            frame = self.rng.choice(self.sources[name])
            view, boxes = augment(frame.decode(), frame.boxes, self.rng)
            images.append(view.transpose(2, 0, 1))
            maps.append(targets(boxes))
        stacked = [torch.from_numpy(np.stack([m[i] for m in maps])) for i in range(4)]
        return (torch.from_numpy(np.stack(images)).float() / 255.0, *stacked)


def train(net: CentreNet, sampler: Sampler, steps: int, batch: int, lr: float) -> None:
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)

    def step_loss() -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        x, heat, size, offset, mask = sampler.batch(batch)
        out = net(x)
        heat_loss = focal_loss(out[:, 0], heat)
        cells = mask.sum().clamp(min=1)
        size_loss = (torch.abs(out[:, 1:3] - size) * mask[:, None]).sum() / cells
        offset_loss = (torch.abs(out[:, 3:5] - offset) * mask[:, None]).sum() / cells
        loss = heat_loss + 0.5 * size_loss + offset_loss
        return loss, {"heat": heat_loss, "size": size_loss, "offset": offset_loss}

    runs.optimise(opt, lr, steps, step_loss)


def export(net: CentreNet, out: Path) -> None:
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, 256, 256), str(out), input_names=["image"],
                      output_names=["maps"], opset_version=13, dynamo=False,
                      dynamic_axes={"image": {2: "height", 3: "width"},
                                    "maps": {2: "rows", 3: "cols"}})


def match(found: list[detector.Detection], boxes: np.ndarray) -> tuple[int, int]:
    """(labelled dice found, detections that are no labelled die): a detection finds a die
    when its centre lies in the die's box or the die's centre in its box, nearest first."""
    pairs = []
    for i, d in enumerate(found):
        cx, cy = d.centre
        for j, (x, y, w, h) in enumerate(boxes):
            lx, ly = x + w / 2, y + h / 2
            inside = (x <= cx <= x + w and y <= cy <= y + h) or (
                d.box[0] <= lx <= d.box[0] + d.box[2] and d.box[1] <= ly <= d.box[1] + d.box[3])
            if inside:
                pairs.append((math.hypot(cx - lx, cy - ly), i, j))
    used_i: set[int] = set()
    used_j: set[int] = set()
    for _, i, j in sorted(pairs):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
    return len(used_j), len(found) - len(used_i)


def validate(model: Path, frames: dict[str, list[Frame]],
             thresholds: tuple[float, ...] = (0.2, 0.3, 0.4, 0.5)) -> dict[str, dict]:
    """Recall and phantoms per validation source and peak threshold, through the product code
    (generic mode: the frame's dice set the scale)."""
    found_by = detector.Detector(model)
    figures: dict[str, dict] = {}
    original = detector.PEAK_THRESHOLD
    try:
        for threshold in thresholds:
            detector.PEAK_THRESHOLD = threshold
            for name, rows in frames.items():
                labelled = hits = phantoms = 0
                for frame in rows:
                    image = frame.decode()
                    found = found_by.detect(image)
                    got, extra = match(found, frame.boxes)
                    labelled += len(frame.boxes)
                    hits += got
                    phantoms += extra
                entry = figures.setdefault(name, {"frames": len(rows), "dice": labelled})
                entry[f"threshold {threshold}"] = {
                    "recall": round(hits / max(labelled, 1), 4),
                    "phantoms_per_die": round(phantoms / max(labelled, 1), 4)}
    finally:
        detector.PEAK_THRESHOLD = original
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = runs.parser_for(__doc__.split("\n\n")[0], steps=12000, batch=16,
                             model_file=detector.MODEL_FILE)
    parser.add_argument("--init-from", type=Path,
                        help="an exported detector to go on training from (its card names "
                             "what it learnt before)")
    run = runs.start("train_detector.py", parser, argv)
    args = run.args
    try:
        net = from_onnx(args.init_from) if args.init_from else CentreNet()
    except (ValueError, OSError) as error:
        parser.error(str(error))
    train(net, Sampler(run.train_frames, random.Random(args.seed)), args.steps, args.batch,
          args.lr)
    runs.finish(run, net, export, lambda: {
        "what": "dice centre heatmap, log box size and centre offset at a quarter of the input; "
                "fully convolutional, any input a multiple of 16 px",
        "view_px": VIEW, "trained_die_sides_px": detector.TRAINED_SIDES,
        "init_from": runs.init_from_card(args.init_from),
        "validation": validate(args.out, run.valid_frames),
    }, {"source_shares": REAL_SHARE | {"generated": "the rest"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())

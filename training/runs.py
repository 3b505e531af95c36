"""What every training script does round its network: one command line, the seeds, the frames of
each split, how often each source is drawn, and the model written with its card.

Kept in one place so that the detector, the face classifier and the lean gauge are rebuilt the
same way: a fixed number of steps from a seed on one schedule, never a time budget.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from training.data import (
    REAL_SETS,
    Frame,
    add_set_options,
    describe,
    load_frames,
    sets_to_load,
    write_card,
)


def parser_for(description: str, *, steps: int, batch: int, model_file: str
               ) -> argparse.ArgumentParser:
    """The options every training script takes; a script adds its own."""
    parser = argparse.ArgumentParser(description=description)
    add_set_options(parser)
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--batch", type=int, default=batch)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("models") / model_file)
    return parser


@dataclass
class Run:
    """One training run: its options, the frames of its splits by source, when it started."""

    script: str
    argv: list[str]
    args: argparse.Namespace
    train_frames: dict[str, list[Frame]]
    valid_frames: dict[str, list[Frame]]
    generated_scenes: dict[str, int | None]  # each generated set's scene limit, by folder name
    started: float = field(default_factory=time.time)


def seed_everything(args: argparse.Namespace) -> None:
    """Seed Python's, NumPy's and PyTorch's generators from ``--seed`` and give PyTorch
    ``--threads``: what makes a run the same run again."""
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)


def start(script: str, parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> Run:
    """Parse the command line, seed every generator and load the train and validation frames."""
    given = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(given)
    seed_everything(args)
    try:
        sets = sets_to_load(args.datasets, args.generated, args.scenes)
    except ValueError as error:
        parser.error(str(error))
    train_frames = {s.root.name: load_frames(s, "train", scenes=n) for s, n in sets}
    valid_frames = {s.root.name: load_frames(s, "validation", scenes=n) for s, n in sets}
    print({k: len(v) for k, v in train_frames.items()}, flush=True)
    generated_scenes = {s.root.name: n for s, n in sets if s.root.name not in REAL_SETS}
    return Run(script, given, args, train_frames, valid_frames, generated_scenes)


# The learning rate climbs from zero over the first WARM_STEPS (a freshly drawn network's first
# gradients are large) and then falls along half a cosine to zero at the last step.
WARM_STEPS = 300
# Steps between two lines of progress.
SHOW_EVERY = 200


def optimise(opt: torch.optim.Optimizer, lr: float, steps: int,
             step_loss: Callable[[], tuple[torch.Tensor, dict[str, torch.Tensor]]]) -> None:
    """``steps`` of ``opt`` peaking at ``lr`` on the warmed-up cosine schedule every network
    here is trained on. ``step_loss`` draws a batch and returns its loss and the parts of it to
    show every SHOW_EVERY steps."""
    start = time.time()
    for step in range(1, steps + 1):
        for group in opt.param_groups:
            group["lr"] = (lr * min(1.0, step / WARM_STEPS)
                           * 0.5 * (1 + math.cos(math.pi * step / steps)))
        loss, shown = step_loss()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % SHOW_EVERY == 0:
            parts = " ".join(f"{name} {value.item():.4f}" for name, value in shown.items())
            print(f"step {step}/{steps} {time.time() - start:.0f}s {parts}", flush=True)


def load_exported(net: nn.Module, path: Path, forward: Callable[[np.ndarray], Any],
                  input_px: int) -> None:
    """Copy the weights of the network exported to ``path`` into ``net``, built folded (each
    conv holding its batch norm, as the export leaves a trained network), and check that it
    answers as the file does through ``forward`` (the product's own runner of that file).
    Raises ValueError when the file's layers are not ``net``'s or the answers differ."""
    graph = onnx.load(str(path)).graph
    values = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    layers = [m for m in net.modules() if isinstance(m, nn.Conv2d | nn.Linear)]
    nodes = [n for n in graph.node if n.op_type in ("Conv", "Gemm")]
    shapes = [(nn.Conv2d if n.op_type == "Conv" else nn.Linear, values[n.input[1]].shape)
              for n in nodes]
    if shapes != [(type(m), tuple(m.weight.shape)) for m in layers]:
        raise ValueError(f"{path} is not a network of this shape")
    with torch.no_grad():
        for layer, node in zip(layers, nodes, strict=True):
            layer.weight.copy_(torch.from_numpy(values[node.input[1]].copy()))
            layer.bias.copy_(torch.from_numpy(values[node.input[2]].copy()))
    net.eval()
    probe = np.random.default_rng(0).normal(size=(4, 3, input_px, input_px)).astype(np.float32)
    with torch.no_grad():
        ours = net(torch.from_numpy(probe)).numpy()
    # One probe at a time: an exported detector takes a batch of one only.
    theirs = np.concatenate([np.asarray(forward(probe[k:k + 1])) for k in range(len(probe))])
    theirs = theirs.reshape(ours.shape)
    if not np.allclose(ours, theirs, atol=1e-3):
        raise ValueError(f"the net rebuilt from {path} does not answer as the file does")


def sha256(path: Path) -> str:
    """A file's SHA-256, for a card naming the exact network a run went on from."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def init_from_card(path: Path | None) -> dict[str, str] | None:
    """What a model card says of the exported network a run went on from (None: from scratch)."""
    return None if path is None else {"model": str(path), "sha256": sha256(path)}


def source_weights(sources: Sequence[str], real_share: dict[str, float]
                   ) -> tuple[list[str], list[float]]:
    """How often each source is drawn: each real set its share, the generated sets the rest
    between them."""
    generated = [name for name in sources if name not in real_share]
    rest = 1.0 - sum(real_share.get(name, 0.0) for name in sources)
    weights = [real_share[name] if name in real_share else rest / len(generated)
               for name in sources]
    return list(sources), weights


def finish(run: Run, net: nn.Module, export: Callable[[nn.Module, Path], None],
           card: Callable[[], dict[str, Any]], train_data: dict[str, Any]) -> None:
    """Save the weights, export the ONNX file and write its model card: the fields every model
    has, then ``card()`` (called after the export, so it can validate the exported file)."""
    out: Path = run.args.out
    minutes = (time.time() - run.started) / 60
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out.with_suffix(".pt"))
    export(net, out)
    own = card()
    write_card(out.with_suffix(".json"), {
        "model": out.name, "what": own.pop("what"),
        "command": f"python training/{run.script} " + " ".join(run.argv),
        "seed": run.args.seed, "steps": run.args.steps, "batch": run.args.batch,
        "parameters": sum(p.numel() for p in net.parameters()),
        "size_bytes": out.stat().st_size, "training_minutes": round(minutes, 1),
        "train_data": {"frames": describe([f for v in run.train_frames.values() for f in v]),
                       **train_data,
                       "generated_manifests": [str(p / "manifest.json")
                                               for p in run.args.generated],
                       "generated_scenes": run.generated_scenes},
        **own,
    })
    print(f"wrote {out} and its card after {run.args.steps} steps ({minutes:.0f} min)")

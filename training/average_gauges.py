"""Average exported lean gauges into one: a single ONNX file whose answer is the mean of theirs.

    python training/average_gauges.py --datasets ../shared/datasets \
        --member /work/cand/g10/lean-gauge.onnx --member /work/cand/g11/lean-gauge.onnx \
        --out /work/cand/e1011/lean-gauge.onnx

Gauges taught from the same start with different batch shares and seeds err on different flat
dice of a huddle (docs/reader-history.md, *Two gauges averaged*): their mean calls fewer flat
dice cocked at the cut that lets as few cocked dice through. One file keeps the reader as it is
(one network, one run per batch of patches); it costs one gauge's time per member. The card
names each member's card, which says what it learnt from and how (the members are kept
outside the repository beside their cards), and gives the averaged gauge's lean on the real
validation photos' dice, all lying flat, as a trained gauge's card does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from pi_reader.vision import lean
from training import runs
from training.data import REAL_SETS, load_frames, open_set, write_card
from training.train_lean import LeanNet, export, from_onnx, validate


class AveragedGauges(nn.Module):
    """The mean of the members' answers: corners and the sine of the lean alike."""

    def __init__(self, members: list[LeanNet]) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([member(x) for member in self.members]).mean(dim=0)


def member_card(path: Path) -> dict[str, object]:
    """What the averaged gauge's card says of one member: its file's hash and its own card."""
    card_path = path.with_suffix(".json")
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else None
    return {"model": str(path), "sha256": runs.sha256(path), "card": card}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, required=True, help="the shared sets' folder")
    parser.add_argument("--member", type=Path, action="append", required=True,
                        help="an exported lean gauge to average (give two or more)")
    parser.add_argument("--out", type=Path, default=Path("models") / lean.MODEL_FILE)
    given = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(given)
    if len(args.member) < 2:
        parser.error("give --member two or more times: one gauge is its own average")
    try:
        members = [from_onnx(path) for path in args.member]
        real = {name: load_frames(open_set(args.datasets, name), "validation")
                for name in REAL_SETS}
    except (ValueError, OSError) as error:
        parser.error(str(error))
    averaged = AveragedGauges(members)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export(averaged, args.out)
    write_card(args.out.with_suffix(".json"), {
        "model": args.out.name,
        "what": "the mean of its members' answers, each a die's top face corners (x, y in patch "
                "sides from the centre) and the sine of its lean, from a "
                f"{lean.INPUT_PX} px patch of {lean.PATCH_OF_BOX} x the box's longer side",
        "command": "python training/average_gauges.py " + " ".join(given),
        "parameters": sum(p.numel() for p in averaged.parameters()),
        "size_bytes": args.out.stat().st_size,
        "input_px": lean.INPUT_PX,
        "patch_of_box": lean.PATCH_OF_BOX,
        "members": [member_card(path) for path in args.member],
        "validation_on_label_boxes": validate(args.out, {}, real),
    })
    print(f"wrote {args.out} and its card, the mean of {len(members)} gauges")
    return 0


if __name__ == "__main__":
    sys.exit(main())

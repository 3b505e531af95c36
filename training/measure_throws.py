"""How often the generator's throws end with a die cocked (leaning over MAX_LEAN_DEG), measured
with the rigid-body simulation only, nothing rendered (a few seconds a throw):

    blender -b --factory-startup -P training/measure_throws.py -- \
        [SCENES [THROWS [SEED [LEANING]]]]

It builds SCENES appliance scenes (default 6) from seeds SEED, SEED + 1, ... (default 1000),
throws the six dice THROWS times (default 6) in each, with LEANING of the throws starting with a
die leaning (default the generator's own share), and prints how many throws left a die cocked,
the leans, and how many dice ended against another in the huddles and in the other throws.
Run inside Blender, like ``blender_scene.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import blender_scene
from cocked import MAX_LEAN_DEG


def main() -> None:
    given = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    scenes, throws, seed, leaning = _options(given)
    cocked_throws, leans = 0, []
    touching = {False: 0, True: 0}  # dice against another, by whether the throw was a huddle
    dice = {False: 0, True: 0}
    for index in range(scenes):
        spec = {"id": f"a{index:05d}", "seed": seed + index, "kind": "appliance",
                "rolls": throws, "index": index, "leaning_throws": leaning}
        scene = blender_scene.Scene(spec, 160, 120, 1)
        for _ in range(throws):
            scene.throw(scene.dice, [])
            described = [scene.describe(die, scene.dice) for die in scene.dice]
            huddle = bool(scene.conditions["huddle"])
            touching[huddle] += sum(d["touching"] for d in described)
            dice[huddle] += len(described)
            cocked = [d["lean_deg"] for d in described if d["lean_deg"] > MAX_LEAN_DEG]
            cocked_throws += bool(cocked)
            leans += cocked
    print(f"throws ending with a die cocked: {cocked_throws} of {scenes * throws}; "
          f"leans {sorted(round(lean) for lean in leans)}; dice against another: "
          f"{touching[True]} of {dice[True]} in huddles, {touching[False]} of {dice[False]} "
          "in the other throws")


def _options(given: list[str]) -> tuple[int, int, int, float]:
    defaults = [6, 6, 1000]
    values = [int(v) for v in given[:3]] + defaults[len(given[:3]):]
    leaning = float(given[3]) if len(given) > 3 else blender_scene.LEANING_THROWS
    return values[0], values[1], values[2], leaning


if __name__ == "__main__":
    main()

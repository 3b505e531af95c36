"""The command line on random arguments and random or damaged files: never a traceback.

Hypothesis builds argument lists for every command from a vocabulary (the options each command
takes, the values they expect, paths to good, damaged and random files, and stray words), runs
``pi-reader`` in-process on them and checks three things:

* no exception escapes: every refusal is a message (argparse's own usage errors included);
* the exit status is 0, 1 or 2;
* nothing outside the example's scratch folder changed: the files given as inputs are kept in a
  folder beside it (and in the checkout's demo data), and are byte for byte as they were.

Outputs (``--out``, ``--annotate``, ``--state-dir``) always name places inside the scratch folder,
since writing there is what those options are for. Commands that would wait for hardware or run
long are kept short: ``run`` always gets ``--no-hardware`` and a recorded or empty camera folder,
``players`` at most a few games.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pi_reader.cli import main

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "data" / "demo-game"
GAME = REPO / "tests" / "data" / "games" / "demo.jsonl"
EXAMPLES = 300

# The inputs, written once per test run into the "outside" folder (never to be changed).
INPUTS = {
    "roll.jpg": (DEMO / "roll_001.jpg").read_bytes(),
    "calibration.jpg": (DEMO / "calibration.jpg").read_bytes(),
    "game.jsonl": GAME.read_bytes(),
    "paper.jsonl": b'{"event": "new_game", "players": ["a", "b"], "first": "a", "mode": "paper"}\n',
    "config.toml": b'[game]\nplayers = ["ann", "bob"]\n',
    "deep.json": b"[" * 50_000,
    "empty.txt": b"",
}


def _tiny_png() -> bytes:
    ok, data = cv2.imencode(".png", np.full((12, 40, 3), 90, np.uint8))
    assert ok
    return data.tobytes()


def _noise_png() -> bytes:
    noise = np.random.default_rng(0).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    ok, data = cv2.imencode(".png", noise)
    assert ok
    return data.tobytes()


INPUTS["tiny.png"] = _tiny_png()
INPUTS["noise.png"] = _noise_png()


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    """A folder of inputs beside every scratch folder, with a calibration and a recorded set."""
    with tempfile.TemporaryDirectory(prefix="pi-reader-outside-") as name:
        folder = Path(name)
        for file_name, data in INPUTS.items():
            (folder / file_name).write_bytes(data)
        assert main(["calibrate", "--image", str(DEMO / "calibration.jpg"), "--out",
                     str(folder / "cal.json")]) == 0
        game = folder / "recorded"
        game.mkdir()
        shutil.copy(DEMO / "roll_001.jpg", game / "roll_001.jpg")
        shutil.copy(DEMO / "calibration.jpg", game / "calibration.jpg")
        (game / "recorded-game.json").write_text(json.dumps(
            {"fps": 10, "calibration": "calibration.jpg",
             "rolls": [{"image": "roll_001.jpg", "then": ["penalty", "ann pass"]}]}
        ))
        labelled = folder / "set" / "s00"
        labelled.mkdir(parents=True)
        shutil.copy(DEMO / "calibration.jpg", labelled / "calibration.jpg")
        shutil.copy(DEMO / "roll_001.jpg", labelled / "roll_001.jpg")
        (folder / "set" / "labels.jsonl").write_text(
            json.dumps({"image": "s00/calibration.jpg", "scenario": "s00", "kind": "calibration",
                        "dice": []}) + "\n"
            + json.dumps({"image": "s00/roll_001.jpg", "scenario": "s00", "kind": "roll",
                          "dice": [{"colour": "red", "value": 3, "box": [1, 2, 30, 30]}]}) + "\n"
        )
        yield folder


def snapshot(*folders: Path) -> dict[str, bytes]:
    return {
        str(path): path.read_bytes()
        for folder in folders
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def damaged(data: bytes, cut: int, flips: list[int]) -> bytes:
    """``data`` cut short and with some bytes inverted: a torn or corrupted copy."""
    broken = bytearray(data[: max(0, len(data) - cut)])
    for position in flips:
        if broken:
            broken[position % len(broken)] ^= 0xFF
    return bytes(broken)


# Paths are written as tokens and resolved per example: IN: an input outside the scratch folder,
# OUT: a new place inside it, DAMAGED: the damaged copy made for this example (inside it).
INPUT_NAMES = sorted([*INPUTS, "cal.json", "recorded", "set", "missing.jpg", "."])
inputs = st.sampled_from(INPUT_NAMES).map(lambda name: f"IN:{name}")
outputs = st.sampled_from(["out.json", "pictures", "state", "sub/dir/x", "cal.json"]).map(
    lambda name: f"OUT:{name}"
)
words = st.one_of(
    inputs,
    st.just("DAMAGED"),
    st.sampled_from(["0", "1", "2", "-1", "3", "ann,bob", "ann,,bob", ":lookahead", "cid:nosuch",
                     "red", "red,blue", "red,yellow,green,blue", "lookahead", "heuristic", "x",
                     "", "--", "-", "ann,Ann", "mary ann,bob", "usb:x", "dir:", "sheet"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8),
)
OPTIONS = {
    "read": ["--calibration", "--removed", "--json", "--annotate"],
    "replay": ["--json", "--annotate", "--generic"],
    "calibrate": ["--image", "--out", "--config"],
    "game replay": ["--json"],
    "game advise": ["--json"],
    "config check": ["--config"],
    "players tournament": ["--games", "--players", "--seed"],
    "players solo": ["--games", "--seed"],
    "run": ["--players", "--bot", "--mode", "--calibration", "--language", "--new-game",
            "--config", "--pace"],
}
WRITES = {"--out", "--annotate", "--state-dir"}
# The files a damaged copy is made of (it is also the damaged recorded game and labels).
DAMAGEABLE = [*sorted(INPUTS), "cal.json", "recorded/recorded-game.json", "set/labels.jsonl"]


files = st.one_of(inputs, st.just("DAMAGED"))
small = st.sampled_from(["0", "1", "2", "3", "-1", "x"])
WELL_FORMED = {
    "read": st.lists(files, min_size=1, max_size=3),
    "replay": st.sampled_from(["IN:set", "DAMAGED_SET", "IN:recorded", "DAMAGED"]).map(
        lambda folder: [folder]
    ),
    "calibrate": st.tuples(st.just("--image"), files, st.just("--out"), outputs).map(list),
    "game replay": files.map(lambda f: [f]),
    "game advise": files.map(lambda f: [f]),
    "config check": files.map(lambda f: ["--config", f]),
    "players tournament": st.tuples(
        st.just("--games"), small, st.just("--players"),
        st.sampled_from(["lookahead,heuristic", "cautious,cautious,x", "heuristic", ""]),
    ).map(list),
    "players solo": st.tuples(st.sampled_from(["lookahead", "nosuch", ""]), st.just("--games"),
                              small).map(list),
    "run": st.sampled_from(["ann,bob", "ann,bob,cid", "ann", "ann,,bob", "ann,Ann"]).map(
        lambda players: ["--players", players]
    ),
}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from([*OPTIONS, "", "game", "players", "nosuch"]))
    argv = command.split()
    if command in WELL_FORMED and draw(st.integers(0, 4)):  # mostly the command's own shape
        argv += draw(WELL_FORMED[command])
    for _ in range(draw(st.integers(0, 4))):
        option = draw(st.sampled_from([*OPTIONS.get(command, []), "--help", "--nosuch", None]))
        if option is None:
            argv.append(draw(words))
            continue
        argv.append(option)
        if option in WRITES:
            argv.append(draw(outputs))
        elif option not in ("--json", "--generic", "--new-game", "--help"):
            argv.append(draw(words))
    if command in ("players tournament", "players solo"):
        argv = [a if not (a.isascii() and a.isdigit() and int(a) > 3) else "3" for a in argv]
    if command == "run":
        camera = draw(st.sampled_from(["IN:recorded", "OUT:frames", "DAMAGED_GAME"]))
        argv += ["--no-hardware", "--state-dir", "OUT:state", "--camera", f"dir:{camera}"]
    return argv


def resolve(argv: list[str], outside: Path, scratch: Path, damaged_file: Path) -> list[str]:
    def one(word: str) -> str:
        prefix, _, rest = word.partition("dir:")
        if prefix == "" and rest:
            return "dir:" + one(rest)
        if word.startswith("IN:"):
            return str(outside / word[3:])
        if word.startswith("OUT:"):
            return str(scratch / word[4:])
        if word == "DAMAGED":
            return str(damaged_file)
        if word == "DAMAGED_GAME":
            return str(scratch / "damaged-game")
        if word == "DAMAGED_SET":
            return str(scratch / "damaged-set")
        return word

    return [one(word) for word in argv]


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    argv=command_lines(),
    source=st.sampled_from(DAMAGEABLE),
    cut=st.integers(0, 400),
    flips=st.lists(st.integers(0, 10**6), max_size=4),
)
def test_the_cli_never_fails_with_a_traceback_nor_touches_what_is_not_its_own(
    outside: Path, argv: list[str], source: str, cut: int, flips: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = snapshot(outside, DEMO)
    with tempfile.TemporaryDirectory(prefix="pi-reader-scratch-") as name:
        scratch = Path(name)
        monkeypatch.chdir(scratch)
        monkeypatch.setenv("HOME", str(scratch))
        monkeypatch.setenv("XDG_STATE_HOME", str(scratch / "xdg"))
        (scratch / "frames").mkdir()
        damaged_file = scratch / f"damaged{Path(source).suffix}"
        damaged_file.write_bytes(damaged((outside / source).read_bytes(), cut, flips))
        game = scratch / "damaged-game"
        shutil.copytree(outside / "recorded", game)
        (game / "recorded-game.json").write_bytes(damaged_file.read_bytes())
        labelled = scratch / "damaged-set"
        shutil.copytree(outside / "set", labelled)
        (labelled / "labels.jsonl").write_bytes(damaged_file.read_bytes())
        resolved = resolve(argv, outside, scratch, damaged_file)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(resolved)
            except SystemExit as exit_:  # argparse: --help (0) and usage errors (2)
                status = exit_.code if isinstance(exit_.code, int) else 2
    event(f"{' '.join(argv[:2])} -> {status}")  # --hypothesis-show-statistics shows the mix
    assert status in (0, 1, 2), (resolved, err.getvalue())
    assert "Traceback" not in err.getvalue(), (resolved, err.getvalue())
    assert snapshot(outside, DEMO) == before, resolved

"""End to end: the bundled recorded game through the real reader, the loop, the game and fakes.

No reader double here: every roll is read from the rendered frames by ``pi_reader.vision``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.loop import Appliance, CameraRetry, FrameClock
from pi_reader.appliance.recorded import RecordedGame, Recording
from pi_reader.appliance.table import Table
from pi_reader.cli.run import load_reader
from pi_reader.devices import FakeButtons, FakeDisplay, FakeLeds, FakeSpeaker

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo-game"

PAPER_GAME = [
    "Qwixx reader ready. Players: ann and bob.",
    "New game. ann rolls first.",
    "White sum 8.",
    "Penalty for ann, 1 of 4.",
    "White sum 2.",
    "The green die is missing.",
    "Fix it and let the dice rest.",
    "White sum 11.",
    "Penalty for ann, 2 of 4.",
    "White sum 6.",
    "Penalty for bob, 1 of 4.",
    "Undone: penalty for bob.",
    "White sum 8.",
    "The red row is locked.",
    "Take the red die out.",
    "White sum 5.",
    "Penalty for bob, 1 of 4.",
    "White sum 6.",
    "Penalty for ann, 3 of 4.",
    "White sum 7.",
    "The yellow row is locked.",
    "Take the yellow die out.",
    "Game over: two rows are locked.",
    "ann: penalties 3.",
    "bob: penalties 1.",
    "Add up your sheets.",
    "No more frames. Stopping.",
]
ROLLS = [
    {"white1": 3, "white2": 5, "red": 2, "yellow": 2, "green": 6, "blue": 2},
    {"white1": 1, "white2": 1, "red": 6, "yellow": 6, "green": 3, "blue": 5},
    {"white1": 6, "white2": 5, "red": 6, "yellow": 6, "green": 1, "blue": 5},
    {"white1": 3, "white2": 3, "red": 6, "yellow": 3, "green": 2, "blue": 3},
    {"white1": 3, "white2": 5, "red": 3, "yellow": 5, "green": 1, "blue": 2},
    {"white1": 4, "white2": 1, "yellow": 4, "green": 3, "blue": 4},
    {"white1": 5, "white2": 1, "yellow": 3, "green": 2, "blue": 3},
    {"white1": 4, "white2": 3, "yellow": 4, "green": 6, "blue": 4},
]


@pytest.fixture(scope="module")
def reader():
    return load_reader(None, Recording.load(DEMO))


def same_rolls(events: list[dict]) -> list[dict]:
    """The rolls of a journal with the two white dice in a fixed order, to compare values."""
    rolls = []
    for event in events:
        if event["event"] == "roll":
            dice = dict(event["dice"])
            dice["white1"], dice["white2"] = sorted((dice["white1"], dice["white2"]))
            rolls.append(dice)
    return rolls


def sorted_whites(roll: dict) -> dict:
    roll = dict(roll)
    roll["white1"], roll["white2"] = sorted((roll["white1"], roll["white2"]))
    return roll


def play(state_dir: Path, reader, recording: Recording, *, mode="paper", skip=0, stop=None):
    """One run of the appliance (a process lifetime) over the recording from frame ``skip``."""
    buttons, speaker, display, leds = FakeButtons(), FakeSpeaker(), FakeDisplay(20, 4), FakeLeds()
    typed: list[str] = []

    def act(action: str) -> None:
        if action in ("red", "yellow", "green", "blue", "penalty", "undo") and mode == "paper":
            buttons.press(action)
        else:
            typed.append(action)

    camera = RecordedGame(recording, act, skip_frames=skip)
    appliance = Appliance(
        camera=camera,
        read_roll=reader,
        table=Table.open(state_dir, mode, ["ann", "bob"]),
        catalogue=Catalogue.load("en"),
        speaker=speaker,
        display=display,
        leds=leds,
        buttons=buttons,
        commands=lambda: [typed.pop(0) for _ in range(len(typed))],
        clock=FrameClock(recording.fps),
        retry=CameraRetry(sleep=lambda seconds: None),
    )
    appliance.run(None if stop is None else stop - skip)
    return appliance, speaker, leds, display


def journal(state_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (state_dir / "game.jsonl").read_text().splitlines()]


def test_the_reader_reads_every_roll_of_the_demo_game(reader) -> None:
    """The precondition of the games below, failing with the reader's own words."""
    import cv2

    recording = Recording.load(DEMO)
    stills = [r.image for r in recording.rolls if not r.paint_out]
    removed: list[str] = []
    for image, expected in zip(stills, ROLLS, strict=True):
        if "red" not in expected:
            removed = ["red"]
        reading = reader(cv2.imread(str(image)), removed)
        problems = [p.message for p in reading.problems]
        assert reading.ok, f"{image.name}: the reader reports {problems}"
        assert sorted_whites(reading.roll.to_dict()) == sorted_whites(expected), image.name


def test_a_whole_recorded_paper_game(tmp_path: Path, reader) -> None:
    appliance, speaker, leds, display = play(tmp_path, reader, Recording.load(DEMO))
    assert speaker.spoken == PAPER_GAME
    assert same_rolls(journal(tmp_path)) == [sorted_whites(r) for r in ROLLS]
    kinds = [e["event"] for e in journal(tmp_path)]
    assert kinds == [
        *("new_game", "roll", "penalty"),
        *("end_turn", "roll"),
        *("end_turn", "roll", "penalty"),
        *("end_turn", "roll"),  # bob's penalty was undone: the journal was rewritten without it
        *("end_turn", "roll", "lock"),
        *("end_turn", "roll", "penalty"),
        *("end_turn", "roll", "penalty"),
        *("end_turn", "roll", "lock"),
    ]
    assert leds.history[-1] == {"red": True, "yellow": True, "green": False, "blue": False}
    assert ("ann: white 8", "R5/7 Y5/7 G9/11 B5/7") in display.screens
    assert display.current == (
        "Game over: two rows",
        "are locked.",
        "ann: penalties 3.",
        "bob: penalties 1.",
    )
    assert appliance.table.game.over


def test_killed_mid_game_twice_and_resumed_from_the_journal_nothing_lost(
    tmp_path: Path, reader
) -> None:
    recording = Recording.load(DEMO)
    whole = tmp_path / "whole"
    play(whole, reader, recording)
    # Each step is 4 motion frames and 15 still ones. Step 6 (roll_005) is still from frame 99
    # and settles at frame 103; its red lock is pressed at frame 109.
    parts = tmp_path / "parts"
    first = play(parts, reader, recording, stop=101)[1].spoken  # killed while the dice settle
    second = play(parts, reader, recording, skip=101, stop=106)[1].spoken  # after the read
    _, speaker, leds, _ = play(parts, reader, recording, skip=106)
    third = speaker.spoken
    assert second[:3] == [
        "Qwixx reader ready. Players: ann and bob.",
        "Game resumed. ann rolls.",
        "White sum 8.",  # the roll lying still when the appliance came back was read
    ]
    assert third[:3] == [
        "Qwixx reader ready. Players: ann and bob.",
        "Game resumed. bob rolls.",  # ann's roll is in the journal: bob rolls next
        "The red row is locked.",  # the same roll was not read again
    ]
    assert journal(parts) == journal(whole)
    assert first + second[2:] + third[2:] == PAPER_GAME
    assert leds.states() == {"red": True, "yellow": True, "green": False, "blue": False}


def test_a_recorded_sheet_game_with_typed_marks_ends_with_scores(tmp_path: Path, reader) -> None:
    images = [
        "roll_001",
        "roll_002",
        "roll_003",
        "roll_004",
        "roll_005",
        "roll_001",
        "roll_002",
        "roll_003",
    ]
    then = {
        0: ["bob yellow 8"],  # white sum 3+5
        1: ["bob red 7"],  # bob's colour action: white 1 + red 6
        2: ["bob yellow 11", "ann red 3"],  # ann's (colour) mark does not match: refused
        3: ["bob green 6"],
        4: ["bob blue 8"],
    }
    manifest = {
        "calibration": str(DEMO / "calibration.jpg"),
        "rolls": [
            {"image": str(DEMO / f"{name}.jpg"), "then": then.get(n, [])}
            for n, name in enumerate(images)
        ],
    }
    folder = tmp_path / "sheet-game"
    folder.mkdir()
    (folder / "recorded-game.json").write_text(json.dumps(manifest))
    appliance, speaker, _, _ = play(
        tmp_path / "state", reader, Recording.load(folder), mode="sheet"
    )
    spoken = speaker.spoken
    assert "bob marks yellow 8." in spoken and "bob marks red 7." in spoken
    refusal = "Not accepted: 3 is not a white die plus the red die (white 5 and 6, red 6: 11 or 12)"
    assert refusal in spoken
    assert spoken[-6:] == [
        "Penalty for ann, 4 of 4.",
        "Game over: ann has four penalties.",
        "ann scores -20.",
        "bob scores 1.",
        "bob wins!",
        "No more frames. Stopping.",
    ]
    game = appliance.table.game.game
    assert game.over and game.winners == ("bob",)

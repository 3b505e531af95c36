"""The loop in sheet mode: typed marks between frames, refusals said with the engine's reason."""

from __future__ import annotations

from pathlib import Path

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.loop import Appliance, CameraRetry, FrameClock
from pi_reader.appliance.table import Table
from pi_reader.devices import FakeButtons, FakeCamera, FakeDisplay, FakeLeds, FakeSpeaker

from .helpers import ReaderDouble, dice, reading, roll, roll_frames

ROLLS = {1: reading(dice(3, 4, 2, 5, 6, 1)), 2: reading(dice(6, 6, 1, 1, 1, 1))}


def test_typed_marks_are_checked_refused_with_the_reason_and_undone(tmp_path: Path) -> None:
    camera = FakeCamera(roll_frames([1, 2], hold=12))
    typed = {10: ["bob red 7", "ann red 8"], 11: ["ann red 5", "undo", "ann yellow 9"]}
    speaker = FakeSpeaker()
    appliance = Appliance(
        camera=camera,
        read_roll=ReaderDouble(ROLLS),
        table=Table.open(tmp_path, "sheet", ["ann", "bob"]),
        catalogue=Catalogue.load("en"),
        speaker=speaker,
        display=FakeDisplay(20, 4),
        leds=FakeLeds(),
        buttons=FakeButtons(),
        commands=lambda: typed.pop(camera.frames_served, []),
        clock=FrameClock(10.0),
        retry=CameraRetry(sleep=lambda seconds: None),
    )
    appliance.run()
    assert speaker.spoken[2:] == [
        "White sum 7.",
        "bob marks red 7.",
        "Not accepted: 8 is not a white die plus the red die (white 3 and 4, red 2: 5 or 6)",
        "ann marks red 5.",
        "Undone: ann red 5.",
        "ann marks yellow 9.",
        "White sum 12.",
        "No more frames. Stopping.",
    ]
    game = appliance.table.game.game
    assert game.active == "bob" and game.penalties("ann") == 0


def test_the_roll_that_ends_the_game_by_a_fourth_penalty_gets_no_roll_screen(
    tmp_path: Path,
) -> None:
    # Seven turns played: ann (active in turns 1, 3, 5, 7) never marks, bob always does, so the
    # next roll read ends turn 7 with ann's fourth penalty and is itself not taken. Before, the
    # display briefly showed that roll's screen, credited to ann.
    import json

    from pi_reader.appliance.sheet import SheetGame
    from pi_reader.rules import Action

    sheet = SheetGame(["ann", "bob"])
    values = [(3, 4, 2, 5, 6, 1), (1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1), (2, 2, 6, 6, 1, 1)]
    for turn in range(7):
        sheet.roll(roll(*values[turn % len(values)]))
        if sheet.active == "bob":
            mark = sheet.game.legal_marks("bob", Action.WHITE)[0]
            sheet.command(f"bob {mark.colour.value} {mark.number} white")
    assert sheet.game.penalties("ann") == 3 and not sheet.over
    (tmp_path / "game.jsonl").write_text("".join(json.dumps(e) + "\n" for e in sheet.events))
    display, speaker = FakeDisplay(16, 2), FakeSpeaker()
    appliance = Appliance(
        camera=FakeCamera(roll_frames([1], hold=12)),
        read_roll=ReaderDouble(ROLLS),
        table=Table.open(tmp_path, "sheet", ["ann", "bob"]),
        catalogue=Catalogue.load("en"),
        speaker=speaker,
        display=display,
        leds=FakeLeds(),
        buttons=FakeButtons(),
        clock=FrameClock(10.0),
        retry=CameraRetry(sleep=lambda seconds: None),
    )
    appliance.run()
    assert appliance.table.game.over
    assert "Penalty for ann, 4 of 4." in speaker.spoken and "White sum 7." not in speaker.spoken
    roll_screens = [s for s in display.screens if s and s[0].startswith(("ann: ", "bob: ", "W7"))]
    assert roll_screens == []


def test_the_screen_before_the_first_roll_names_every_player(tmp_path: Path) -> None:
    # Before: the opening sentence was cut after "Players:" on a 16x2 display.
    names = ["annabelle", "bartholomew", "christopher"]
    display = FakeDisplay(16, 2)
    appliance = Appliance(
        camera=FakeCamera([]),
        read_roll=ReaderDouble(ROLLS),
        table=Table.open(tmp_path, "sheet", names),
        catalogue=Catalogue.load("en"),
        speaker=FakeSpeaker(),
        display=display,
        leds=FakeLeds(),
        buttons=FakeButtons(),
        clock=FrameClock(10.0),
        retry=CameraRetry(sleep=lambda seconds: None),
    )
    appliance.run()
    start = display.screens[-1]
    assert start[0] == "annabelle rolls"
    assert all(name[:4] in start[1] for name in names) and len(start[1]) <= 16

"""The loop in sheet mode: typed marks between frames, refusals said with the engine's reason."""

from __future__ import annotations

from pathlib import Path

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.loop import Appliance, CameraRetry, FrameClock
from pi_reader.appliance.table import Table
from pi_reader.devices import FakeButtons, FakeCamera, FakeDisplay, FakeLeds, FakeSpeaker

from .helpers import ReaderDouble, dice, reading, roll_frames

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

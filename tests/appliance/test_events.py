"""The seam for other ways in: listeners told once per change, entries taken between frames."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

import pytest

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.events import (
    ButtonEntry,
    MarkEntry,
    PassEntry,
    TableChange,
    UndoEntry,
)
from pi_reader.appliance.loop import Appliance, ApplianceStopped, CameraRetry, FrameClock
from pi_reader.appliance.table import Table
from pi_reader.devices import FakeCamera, FakeDisplay, FakeLeds, FakeSpeaker
from pi_reader.rules import Action, Colour

from .helpers import ReaderDouble, dice, reading, roll_frames

ROLLS = {1: reading(dice(3, 4, 2, 5, 6, 1)), 2: reading(dice(6, 6, 1, 1, 1, 1))}


class Recorder:
    def __init__(self) -> None:
        self.changes: list[tuple[int, tuple[str, ...], bool]] = []
        self.frames = 0

    def changed(self, change: TableChange) -> None:
        self.changes.append((len(change.table.game.events), change.said, change.still is not None))

    def frame(self, frame) -> None:
        self.frames += 1


def appliance_for(tmp_path: Path, mode: str, frames, listener, commands=None) -> Appliance:
    return Appliance(
        camera=FakeCamera(frames),
        read_roll=ReaderDouble(ROLLS),
        table=Table.open(tmp_path, mode, ["ann", "bob"]),
        catalogue=Catalogue.load("en"),
        speaker=FakeSpeaker(),
        display=FakeDisplay(20, 4),
        leds=FakeLeds(),
        clock=FrameClock(10.0),
        retry=CameraRetry(sleep=lambda seconds: None),
        listeners=[listener],
        commands=commands,
    )


def test_listeners_hear_each_change_once_with_what_was_said_and_the_still(tmp_path) -> None:
    recorder = Recorder()
    frames = roll_frames([1], hold=12)
    appliance = appliance_for(tmp_path, "sheet", frames, recorder)
    appliance.run()
    assert recorder.frames == len(frames)
    opening, roll, end = recorder.changes
    ready = ("Qwixx reader ready. Players: ann and bob.", "New game. ann rolls first.")
    assert opening == (1, ready, False)
    assert roll == (2, ("White sum 7.",), True)
    assert end == (2, ("No more frames. Stopping.",), False)


def test_entries_from_a_page_are_taken_between_frames_and_refusals_only_returned(
    tmp_path,
) -> None:
    recorder = Recorder()
    answers: dict[str, Future] = {}

    def later(name, entry):
        def job(appliance):
            return appliance.enter(entry)

        def submit():
            answers[name] = appliance.submit(job)

        return submit

    steps = {
        10: [
            later("bob", MarkEntry("bob", Colour.RED, 7, Action.WHITE)),
            later("bad", MarkEntry("ann", Colour.RED, 8, Action.WHITE)),
            later("button", ButtonEntry("penalty")),
        ],
        11: [
            later("ann", MarkEntry("ann", Colour.YELLOW, 7, Action.WHITE)),
            later("undo", UndoEntry("ann")),
            later("pass", PassEntry("ann")),
        ],
    }
    frames = roll_frames([1], hold=14)

    def commands() -> list[str]:
        for step in steps.pop(appliance.frames, []):
            step()
        return []

    appliance = appliance_for(tmp_path, "sheet", frames, recorder, commands)
    speaker = appliance.speaker
    appliance.run()
    results = {name: future.result(timeout=0) for name, future in answers.items()}
    assert results["bob"] is None and results["ann"] is None and results["undo"] is None
    assert results["bad"].startswith("Not accepted: 8 is not the sum of the white dice")
    assert results["button"].startswith("In sheet mode the game keeps locks and penalties")
    assert results["pass"] is None
    assert "Not accepted" not in " ".join(speaker.spoken)  # a page's refusal is not said aloud
    assert "bob marks red 7." in speaker.spoken and "Undone: ann yellow 7." in speaker.spoken
    assert [e for e in appliance.table.game.events if e["event"] == "mark"] == [
        {"event": "mark", "player": "bob", "action": "white", "colour": "red", "number": 7}
    ]


def test_a_job_after_the_loop_ended_fails_at_once(tmp_path) -> None:
    appliance = appliance_for(tmp_path, "paper", roll_frames([1], hold=8), Recorder())
    appliance.run()
    with pytest.raises(ApplianceStopped):
        appliance.submit(lambda app: None).result(timeout=0)

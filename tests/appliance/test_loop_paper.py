"""The loop in paper mode, with fake devices and a reader double (loop logic only)."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.loop import Appliance, CameraRetry, FrameClock
from pi_reader.appliance.table import Table
from pi_reader.devices import (
    CameraUnavailable,
    FakeButtons,
    FakeCamera,
    FakeDisplay,
    FakeLeds,
    FakeSpeaker,
)
from pi_reader.devices.systemd_notify import SystemdNotifier
from pi_reader.vision.types import Problem, ProblemKind, RollReading

from .helpers import ReaderDouble, dice, missing, reading, roll_frames

ROLLS = {
    1: reading(dice(3, 4, 2, 5, 6, 1)),
    2: reading(dice(1, 1, 6, 6, 3, 5)),
    3: reading(dice(6, 5, 6, 6, 1, 5)),
    4: reading(dice(3, 3, 3, 2, 3, removed=["red"])),
    5: reading(dice(6, 5, 6, 6, 5, removed=["green"]), [missing("green")]),
    6: reading(dice(6, 5, 6, 1, 5, removed=["red"])),
    7: RollReading((), (Problem(ProblemKind.CALIBRATION_MISMATCH, "calibrate again"),)),
}


class Rig:
    """An appliance on fakes; ``presses`` maps a frame number to buttons pressed before it."""

    def __init__(
        self,
        state_dir: Path,
        frames: list,
        presses: dict[int, list[str]] | None = None,
        fail_starts: int = 0,
    ):
        self.camera = FakeCamera(frames, fail_starts=fail_starts)
        self.speaker = FakeSpeaker()
        self.display = FakeDisplay(20, 4)
        self.leds = FakeLeds()
        self.buttons = FakeButtons()
        self.reader = ReaderDouble(ROLLS)
        self.table = Table.open(state_dir, "paper", ["ann", "bob"])
        self.presses = presses or {}
        self.appliance = Appliance(
            camera=self.camera,
            read_roll=self.reader,
            table=self.table,
            catalogue=Catalogue.load("en"),
            speaker=self.speaker,
            display=self.display,
            leds=self.leds,
            buttons=self.buttons,
            clock=FrameClock(10.0),
            retry=CameraRetry(sleep=lambda seconds: None),
        )
        original = self.camera.capture

        def capture():
            for name in self.presses.get(self.camera.frames_served, []):
                self.buttons.press(name)
            return original()

        self.camera.capture = capture  # type: ignore[method-assign]

    def run(self, max_frames: int | None = None) -> list[str]:
        self.appliance.run(max_frames)
        return self.speaker.spoken


def journal(state_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (state_dir / "game.jsonl").read_text().splitlines()]


def test_rolls_are_announced_journalled_and_a_lock_lights_its_led(tmp_path: Path) -> None:
    frames = roll_frames([1, 2, 4], hold=12)
    # Roll 2 is bob's: he locks red after it is announced (frame 25 is well after the settle).
    rig = Rig(tmp_path, frames, presses={25: ["red"], 41: ["penalty"]})
    spoken = rig.run()
    assert spoken == [
        "Qwixx reader ready. Players: ann and bob.",
        "New game. ann rolls first.",
        "White sum 7.",
        "White sum 2.",
        "The red row is locked.",
        "Take the red die out.",
        "White sum 6.",
        "Penalty for ann, 1 of 4.",
        "No more frames. Stopping.",
    ]
    assert rig.leds.states() == {"red": True, "yellow": False, "green": False, "blue": False}
    assert rig.reader.removed_seen[-1] == ("red",)
    events = [e["event"] for e in journal(tmp_path)]
    assert events == ["new_game", "roll", "end_turn", "roll", "lock", "end_turn", "roll", "penalty"]
    assert journal(tmp_path)[6]["dice"] == dice(3, 3, 3, 2, 3, removed=["red"])


def test_the_display_shows_the_active_players_colour_sums(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1, 2]))
    rig.run()
    roll_screen = next(s for s in rig.display.screens if s and s[0].startswith("ann: white"))
    assert roll_screen == ("ann: white 7", "R5/6 Y8/9 G9/10 B4/5")
    assert ("bob: white 2", "R7 Y7 G4 B6") in rig.display.screens  # white dice alike


def test_a_problem_is_said_and_the_roll_is_not_used(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([5, 3]))
    spoken = rig.run()
    assert spoken[2:5] == [
        "The green die is missing.",
        "Fix it and let the dice rest.",
        "White sum 11.",
    ]
    assert [e["event"] for e in journal(tmp_path)] == ["new_game", "roll"]


def test_a_frame_that_does_not_fit_the_calibration_is_said_not_taken_for_an_empty_tray(
    tmp_path: Path,
) -> None:
    # The reader finds no dice in such a frame; before, the loop took that for an empty tray.
    rig = Rig(tmp_path, roll_frames([7, 1]))
    spoken = rig.run()
    assert spoken[2:5] == [
        "The camera does not see the tray it was calibrated on. Calibrate again.",
        "Fix it and let the dice rest.",
        "White sum 7.",
    ]


def test_the_same_still_roll_is_not_read_twice(tmp_path: Path) -> None:
    # The same dice, touched (motion) but not rolled: not a new roll.
    rig = Rig(tmp_path, roll_frames([1, 1, 2]))
    spoken = rig.run()
    assert spoken.count("White sum 7.") == 1
    assert [e["event"] for e in journal(tmp_path)].count("roll") == 2


def test_a_button_problem_is_said_plainly(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1]), presses={0: ["penalty"], 10: ["undo"]})
    spoken = rig.run()
    assert "Roll the dice first." in spoken
    assert "Nothing to undo." in spoken


def test_a_restart_resumes_the_same_turn_with_leds_restored(tmp_path: Path) -> None:
    frames = roll_frames([1, 2, 4, 6], hold=12)
    first = Rig(tmp_path, frames, presses={25: ["red"]})
    first.run(max_frames=40)  # killed during the third roll's hold, after it was announced
    before = journal(tmp_path)
    second = Rig(tmp_path, frames[45:])  # the camera carries on with the fourth roll
    spoken = second.run()
    assert spoken[:2] == ["Qwixx reader ready. Players: ann and bob.", "Game resumed. bob rolls."]
    assert second.leds.history[0] == {"red": True, "yellow": False, "green": False, "blue": False}
    after = journal(tmp_path)
    assert after[: len(before)] == before
    assert [e["event"] for e in after[len(before) :]] == ["end_turn", "roll"]
    assert "Penalty" not in " ".join(spoken)


def test_camera_lost_and_back_keeps_the_game(tmp_path: Path) -> None:
    frames = roll_frames([1, 2])
    rig = Rig(tmp_path, frames)
    original = rig.camera.capture
    calls = {"n": 0}

    def capture():
        calls["n"] += 1
        if calls["n"] == 15:
            rig.camera.fail_next(3)
        return original()

    rig.camera.capture = capture  # type: ignore[method-assign]
    spoken = rig.run()
    assert spoken.count("Camera lost. Trying again.") == 1
    assert spoken.count("Camera is back.") == 1
    assert ("Camera lost. Trying", "again.") in rig.display.screens
    assert [e["event"] for e in journal(tmp_path)].count("roll") == 2


def test_the_game_ends_at_the_second_lock_with_penalties_listed(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1, 2]), presses={10: ["penalty"], 20: ["red", "yellow"]})
    spoken = rig.run()
    assert spoken[-10:] == [
        "White sum 2.",
        "The red row is locked.",
        "Take the red die out.",
        "The yellow row is locked.",
        "Take the yellow die out.",
        "Game over: two rows are locked.",
        "ann: penalties 1.",
        "bob: penalties 0.",
        "Add up your sheets.",
        "No more frames. Stopping.",
    ]
    # The result stays on the display after the frames ran out.
    assert rig.display.current == (
        "Game over: two rows",
        "are locked.",
        "ann: penalties 1.",
        "bob: penalties 0.",
    )
    assert rig.leds.states() == {"red": True, "yellow": True, "green": False, "blue": False}


def test_systemd_hears_ready_once_the_watchdog_every_frame_and_stopping_last(
    tmp_path: Path,
) -> None:
    frames = roll_frames([1])
    rig = Rig(tmp_path, frames)
    heard: list[str] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(tmp_path / "notify"))
        sock.settimeout(10)

        def listen() -> None:  # a full socket queue would block the sender: read as it sends
            while not heard or heard[-1] != "STOPPING=1":
                heard.append(sock.recv(64).decode())

        listener = threading.Thread(target=listen)
        listener.start()
        rig.appliance.notifier = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "notify")})
        rig.run()
        listener.join(10)
    assert heard[0] == "READY=1" and heard[-1] == "STOPPING=1"
    assert heard.count("READY=1") == heard.count("STOPPING=1") == 1
    assert heard.count("WATCHDOG=1") >= len(frames)


def test_a_requested_stop_tells_systemd_it_is_stopping(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1]))
    heard: list[str] = []

    class Recorder:
        def ready(self) -> None:
            heard.append("ready")
            rig.appliance.stop_requested = True  # as SIGTERM does

        def watchdog(self) -> None:
            heard.append("watchdog")

        def stopping(self) -> None:
            heard.append("stopping")

    rig.appliance.notifier = Recorder()
    rig.run()
    assert heard == ["ready", "stopping"]


def test_a_roll_after_the_end_starts_a_new_game_and_archives_the_old(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1, 2, 3]), presses={20: ["red", "yellow"]})
    spoken = rig.run()
    end = spoken.index("Game over: two rows are locked.")
    assert spoken[end + 4 : end + 6] == ["New game. ann rolls first.", "White sum 11."]
    assert rig.leds.states() == dict.fromkeys(("red", "yellow", "green", "blue"), False)
    assert [e["event"] for e in journal(tmp_path)] == ["new_game", "roll"]
    assert len(list((tmp_path / "archive").iterdir())) == 1


def test_a_camera_missing_at_start_is_waited_for(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1]), fail_starts=3)  # unplugged when the appliance starts
    sleeps: list[float] = []
    rig.appliance.retry = CameraRetry(first=0.5, longest=1.0, sleep=sleeps.append)
    spoken = rig.run()
    assert spoken.count("Camera lost. Trying again.") == 1
    assert spoken.count("Camera is back.") == 1
    assert "White sum 7." in spoken
    assert sleeps == [0.5, 1.0, 1.0]  # doubling, capped


def test_a_camera_that_does_not_restart_at_once_is_retried(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1, 2]))
    original_capture, original_start = rig.camera.capture, rig.camera.start
    failures = {"captures": 0, "starts": 0}

    def capture():
        if rig.camera.frames_served == 14 and failures["captures"] == 0:
            failures["captures"] = 1
            rig.camera.fail_next(1)
        return original_capture()

    def start():
        if failures["captures"] and failures["starts"] < 2:
            failures["starts"] += 1
            raise CameraUnavailable("still unplugged")
        original_start()

    rig.camera.capture = capture  # type: ignore[method-assign]
    rig.camera.start = start  # type: ignore[method-assign]
    spoken = rig.run()
    assert spoken.count("Camera lost. Trying again.") == 1
    assert spoken.count("Camera is back.") == 1
    assert [e["event"] for e in journal(tmp_path)].count("roll") == 2


def test_the_white_sum_is_said_as_the_kind_a_newer_one_replaces(tmp_path: Path) -> None:
    rig = Rig(tmp_path, roll_frames([1, 2]))
    rig.run()
    kinds = dict(zip(rig.speaker.spoken, rig.speaker.kinds, strict=True))
    assert kinds["White sum 7."] == kinds["White sum 2."] == "white_sum"
    assert kinds["New game. ann rolls first."] is None
